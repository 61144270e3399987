import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Real busy processes: copies of the system shell under a name no other process has, each
/// spinning `while :; do :; done`. Killed and reaped by `stop()`.
private final class Burners {
    /// A name of its own (comm holds 15 bytes), so burners of tests running at the same time
    /// here, or in another checkout on this machine, are not counted in this test's group.
    let name = "tburn-" + String(UUID().uuidString.prefix(8)).lowercased()
    let dir: URL
    private(set) var pids: [pid_t] = []

    init(count: Int) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-burn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let shell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath()
        let exe = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: shell, to: exe)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: exe.path)
        for _ in 0..<count {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(exe.path), strdup("-c"), strdup("while :; do :; done"), nil]
            defer { argv.forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
            guard posix_spawn(&pid, exe.path, &actions, nil, argv, environ) == 0 else { stop(); throw CocoaError(.executableLoad) }
            pids.append(pid)
            // Ahead of whatever else runs here (parallel tests, builds), where the system lets us.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), -10)
        }
    }

    /// Until every copy has exec'ed (its /proc name is the copy's).
    func awaitRunning() {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let named = pids.allSatisfy { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix(name) == true
            }
            if named { return }
            usleep(10_000)
        }
    }

    /// utime + stime of every copy, in clock ticks, as /proc says now.
    func ticks() -> Double {
        pids.reduce(0) { sum, pid in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let fields = text[(text.lastIndex(of: ")").map { text.index(after: $0) } ?? text.endIndex)...].split(separator: " ")
            return sum + (fields.count > 12 ? (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0) : 0)
        }
    }

    func stop() {
        for pid in pids { kill(pid, SIGKILL) }
        for pid in pids { var st: Int32 = 0; while waitpid(pid, &st, 0) < 0 && errno == EINTR {} }
        pids = []
        try? FileManager.default.removeItem(at: dir)
    }
}

@Suite("Who is heating it (real binary, real processes)", .serialized)
struct HeatSourcesCommandTests {
    static let hot = ["--sysfs-root", Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path, "--window", "1"]

    @Test("two busy processes named alike on a hot machine are the top source: one group, count 2, about 200 % CPU, in status, JSON and the reason")
    func twoBusyProcessesAreTheTopSource() throws {
        let burners = try Burners(count: 2)
        defer { burners.stop() }
        burners.awaitRunning()
        // What the copies used over the whole run, measured here, against what status says of
        // its window inside it: spinning processes use CPU at a steady rate.
        let (t0, w0) = (burners.ticks(), Date())
        let json = try Thermtop.run(["status", "--json"] + Self.hot)
        let expected = (burners.ticks() - t0) / Double(sysconf(Int32(_SC_CLK_TCK))) / Date().timeIntervalSince(w0) * 100
        let text = try Thermtop.run(["status"] + Self.hot)
        #expect(json.status == 0, "\(json.stderr)")
        let d = try json.json()
        let sources = try #require(d["heat_sources"] as? [[String: Any]])
        // Biggest first. On a machine with two cores free the copies are the top source; here,
        // where builds of other work share the two cores, they may not be, so the order is
        // checked rather than assumed.
        let cpus = sources.compactMap { ($0["cpu_percent"] as? NSNumber)?.doubleValue }
        #expect(cpus == cpus.sorted(by: >), "\(cpus)")
        let group = try #require(sources.first { $0["command"] as? String == burners.name }, "\(sources.prefix(3))")
        #expect(group["count"] as? Int == 2)
        if cpus.count > 1, let mine = (group["cpu_percent"] as? NSNumber)?.doubleValue, mine > cpus[1] {
            #expect(sources.first?["command"] as? String == burners.name)
        }
        let cpu = try #require((group["cpu_percent"] as? NSNumber)?.doubleValue)
        // Two spinning processes: 200 % of one core with two cores free; less only when others
        // take them, as /proc says too.
        #expect(cpu > 20 && cpu < 215, "\(cpu)")
        // Loose: other work on this machine comes and goes within a second. A wrong unit (all
        // cores, ticks as seconds) is off by a factor, far outside it.
        #expect(abs(cpu - expected) < max(40, expected * 0.4), "status \(cpu) %, /proc over the run \(expected) %")
        let pids = Set(((group["processes"] as? [[String: Any]]) ?? []).compactMap { $0["pid"] as? Int })
        #expect(pids == Set(burners.pids.map(Int.init)))
        let reason = try #require(d["reason"] as? String)
        #expect(reason.hasPrefix("serious: "))
        // The reason names the top source, with its count and CPU.
        let topLabel = (sources[0]["count"] as? Int ?? 0) > 1
            ? "\(sources[0]["command"] as? String ?? "?") ×\(sources[0]["count"] as? Int ?? 0)" : sources[0]["command"] as? String ?? "?"
        #expect(reason.contains(" — mostly \(topLabel) ("), "\(reason)")
        // The text report (a second run) lists the same group.
        #expect(text.text.contains(" \(burners.name) ×2: "), "\(text.text)")
        #expect(text.text.split(separator: "\n").contains { $0.hasPrefix("Reason ") && $0.contains("— mostly ") }, "\(text.text)")
    }

    @Test("--proc-root reads a process table laid out like /proc; one that is not a directory is a usage error")
    func procRootOption() throws {
        let table = Thermtop.fixtures.appendingPathComponent("proc-table-1").path
        let r = try Thermtop.run(["status", "--json", "--proc-root", table] + Self.hot)
        let d = try r.json()
        let status = try #require(d["heat_sources_status"] as? [String: Any])
        #expect(status["processes"] as? Int == 11)
        #expect(status["unreadable"] as? Int == 1)   // pid 700: its stat is cut short
        #expect(status["measured"] as? Bool == true)
        // A table that stands still: nothing used the CPU, and the verdict names nobody.
        #expect((d["heat_sources"] as? [Any])?.isEmpty == true)
        #expect((d["reason"] as? String)?.contains("mostly") == false)
        let bad = try Thermtop.run(["status", "--proc-root", "/nonexistent-thermtop-proc"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--proc-root /nonexistent-thermtop-proc: no such directory."), "\(bad.stderr)")
    }

    @Test("the config's proc_root reads a captured table as --proc-root does (the flag wins), export_heat_sources opts export in")
    func configKeys() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = Thermtop.fixtures.appendingPathComponent("proc-table-1").path
        let file = dir.appendingPathComponent("config.toml")
        try "proc_root = \"\(table)\"\nexport_heat_sources = 2\n".write(to: file, atomically: true, encoding: .utf8)
        let d = try Thermtop.run(["status", "--json", "--config", file.path] + Self.hot).json()
        let status = try #require(d["heat_sources_status"] as? [String: Any])
        #expect(status["processes"] as? Int == 11 && status["unreadable"] as? Int == 1)
        let other = Thermtop.fixtures.appendingPathComponent("proc-table-2").path
        let flag = try Thermtop.run(["status", "--json", "--config", file.path, "--proc-root", other] + Self.hot).json()
        #expect((flag["heat_sources_status"] as? [String: Any])?["processes"] as? Int == 12)
        let metrics = try Thermtop.run(["export", "--textfile", "-", "--config", file.path, "--sysfs-root",
                                        Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        #expect(metrics.text.contains("# TYPE thermtop_heat_source_cpu_percent gauge"), "\(metrics.text)")
        // Without the key export walks no process table and writes no heat-source series.
        try "proc_root = \"\(table)\"\n".write(to: file, atomically: true, encoding: .utf8)
        let off = try Thermtop.run(["export", "--textfile", "-", "--config", file.path, "--sysfs-root",
                                    Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path])
        #expect(off.status == 0 && !off.text.contains("thermtop_heat_source"), "\(off.text)")
        try "proc_root = \"/nonexistent-thermtop-proc\"\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try Thermtop.run(["status", "--config", file.path] + Self.hot)
        #expect(bad.status == 64 && bad.stderr.contains("proc_root (\(file.path)) /nonexistent-thermtop-proc: no such directory."), "\(bad.stderr)")
    }

    @Test("as a non-root user, processes whose folders /proc refuses (EACCES) are counted unreadable and said so, never 0 % (setpriv)",
          .needs(.root, .setpriv))
    func refusedFoldersAreUnreadable() throws {
        let binary = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let table = "/tmp/thermtop-proof-proc-\(UUID().uuidString.prefix(8))"
        let sysfs = try Proof.copyFixture("intel-laptop-hot")
        defer { Proof.discard(table); Proof.discard(sysfs) }
        // Root's cc1plus folders as hidepid=noaccess (or a 0700 /proc/PID) leaves them: listed, not readable.
        let cp = Proof.sh("cp -a \(Proof.quote(Thermtop.fixtures.appendingPathComponent("proc-table-1").path)) \(Proof.quote(table)) && chmod -R a+rX \(Proof.quote(table)) \(Proof.quote(sysfs)) && chmod 700 \(Proof.quote(table))/100 \(Proof.quote(table))/101")
        try #require(cp.status == 0, "\(cp.output)")
        let user = "/usr/bin/setpriv --reuid=64996 --regid=64996 --clear-groups \(Proof.quote(binary))"
        let r = Proof.sh("\(user) status --json --sysfs-root \(Proof.quote(sysfs)) --proc-root \(Proof.quote(table))", stdoutOnly: true)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        let status = try #require(json["heat_sources_status"] as? [String: Any])
        #expect(status["unreadable"] as? Int == 3, "pids 100 and 101 refused, 700 cut short: \(status)")
        #expect(status["processes"] as? Int == 9)
        #expect(!((json["heat_sources"] as? [[String: Any]]) ?? []).contains { $0["command"] as? String == "cc1plus" })
        let text = Proof.sh("\(user) status --sysfs-root \(Proof.quote(sysfs)) --proc-root \(Proof.quote(table))", stdoutOnly: true).output
        #expect(text.contains("3 unreadable (hidepid or permissions)"), "\(text)")
    }

    /// Whether this machine lets root mount a private proc (`hidepid=`): not in every container.
    static let canMountProc: Bool = {
        guard geteuid() == 0 else { return false }
        let dir = "/tmp/thermtop-proc-probe-\(getpid())"
        mkdir(dir, 0o755)
        defer { rmdir(dir) }
        guard Proof.sh("mount -t proc -o hidepid=1 proc \(Proof.quote(dir))").status == 0 else { return false }
        _ = Proof.sh("umount \(Proof.quote(dir))")
        return true
    }()

    @Test("a real hidepid=1 /proc as a non-root user: root's busy processes are counted unreadable and said so, not shown as 0 % or idle",
          .needs(.root, .setpriv), .enabled(if: canMountProc, "root may not mount proc here (a container without CAP_SYS_ADMIN)"))
    func realHidepid() throws {
        let binary = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let burners = try Burners(count: 2)
        defer { burners.stop() }
        burners.awaitRunning()
        let dir = "/tmp/thermtop-hidepid-\(UUID().uuidString.prefix(8))"
        let sysfs = try Proof.copyFixture("intel-laptop-hot")
        mkdir(dir, 0o755)
        defer { _ = Proof.sh("umount \(Proof.quote(dir))"); rmdir(dir); Proof.discard(sysfs) }
        try #require(Proof.sh("mount -t proc -o hidepid=1 proc \(Proof.quote(dir)) && chmod -R a+rX \(Proof.quote(sysfs))").status == 0)
        let user = "/usr/bin/setpriv --reuid=64995 --regid=64995 --clear-groups \(Proof.quote(binary))"
        let r = Proof.sh("\(user) status --json --window 0.5 --sysfs-root \(Proof.quote(sysfs)) --proc-root \(Proof.quote(dir))", stdoutOnly: true)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        let status = try #require(json["heat_sources_status"] as? [String: Any])
        // At least the two burners (root's) are refused; the user sees its own thermtop only.
        #expect((status["unreadable"] as? Int ?? 0) >= 2, "\(status)")
        #expect(!((json["heat_sources"] as? [[String: Any]]) ?? []).contains { $0["command"] as? String == burners.name })
        // Root, on the same mount, sees them: the burners are real and busy.
        let asRoot = try Thermtop.run(["status", "--json", "--window", "0.5", "--sysfs-root", sysfs, "--proc-root", dir]).json()
        #expect(((asRoot["heat_sources"] as? [[String: Any]]) ?? []).contains { $0["command"] as? String == burners.name })
        let text = Proof.sh("\(user) status --sysfs-root \(Proof.quote(sysfs)) --proc-root \(Proof.quote(dir))", stdoutOnly: true).output
        #expect(text.contains("unreadable (hidepid or permissions)"), "\(text)")
    }

    @Test("a one-sample status says heat sources are unknown, not that nothing is heating")
    func oneSampleIsUnknown() throws {
        let r = try Thermtop.run(["status", "--sysfs-root", Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path,
                                  "--window", "0"])
        #expect(r.text.contains("Heating it unknown (needs two samples)"), "\(r.text)")
    }

    @Test("watch's hook gets the sources in THERMTOP_REASON when the machine turns hot")
    func hookReasonNamesTheSources() throws {
        let burners = try Burners(count: 2)
        defer { burners.stop() }
        burners.awaitRunning()
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let envFile = dir.appendingPathComponent("hook.env")
        // Written to a temporary name and renamed, so the test never reads a half-written file.
        let hook = "sh -c 'printf %s \"$THERMTOP_REASON\" > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"' \(envFile.path)"
        let w = try LiveProcess(["watch", "--json", "--sysfs-root", root.path, "--delay", "0.5",
                                 "--on-change", hook, "--on-change-min-interval", "0"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 }, "no start line; stderr: \(w.stderr)")
        // acpitz's passive trip is 95 °C.
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        var reason = ""
        #expect(w.wait {
            reason = (try? String(contentsOf: envFile, encoding: .utf8)) ?? ""
            return reason.hasPrefix("serious")
        }, "hook never ran")
        #expect(reason.hasPrefix("serious: acpitz 96.0 °C"))
        // Named among the top sources (the test runner polling the hook's file may be busier).
        #expect(reason.contains(" — mostly "), "\(reason)")
        #expect(reason.contains("\(burners.name) ×2 ("), "\(reason)")
    }

    @Test("export --heat-sources N writes the top sources with bounded labels; without it none, and out of range is 64")
    func exportTopSources() throws {
        let burners = try Burners(count: 2)
        defer { burners.stop() }
        burners.awaitRunning()
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let prom = dir.appendingPathComponent("thermtop.prom").path
        let r = try Thermtop.run(["export", "--textfile", prom, "--heat-sources", "3"] + Self.hot.prefix(2))
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: prom, encoding: .utf8)
        let series = text.split(separator: "\n").filter { $0.hasPrefix("thermtop_heat_source_cpu_percent{") }
        #expect(series.count <= 3 && !series.isEmpty, "\(text)")
        // Among the top 3 (first unless a build elsewhere on this machine takes as much).
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("thermtop_heat_source_processes{rank=\"")
            && $0.hasSuffix("\",command=\"\(burners.name)\"} 2") }, "\(series)")
        let plain = try Thermtop.run(["export", "--textfile", prom] + Self.hot.prefix(2))
        #expect(plain.status == 0)
        #expect(!(try String(contentsOfFile: prom, encoding: .utf8)).contains("thermtop_heat_source"))
        let bad = try Thermtop.run(["export", "--textfile", prom, "--heat-sources", "11"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--heat-sources must be between 1 and 10 (got 11)."), "\(bad.stderr)")
    }
}
