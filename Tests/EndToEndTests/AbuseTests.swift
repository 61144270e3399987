import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Hostile input and hostile surroundings, on the real binary: out-of-range numbers, a full
/// disk, a hanging hook, a config others can write, a reader that goes away, control
/// characters from sysfs, a torn recording.
@Suite("Holds up to abuse (real binary)", .serialized)
struct AbuseTests {
    static func scratch() throws -> URL { try Run.tempDir() }

    /// A tmpfs of `kib` KiB at a new folder (the tests run as root); nil when it cannot be
    /// mounted, which the test records as an issue rather than passing silently.
    static func smallDisk(kib: Int) throws -> URL? {
        let dir = try scratch()
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(kib)k", "tmpfs", dir.path])
        if r.status != 0 {
            Issue.record("cannot mount a small tmpfs (root needed): \(r.stderr)")
            return nil
        }
        return dir
    }

    static func unmount(_ dir: URL) {
        _ = try? Thermtop.spawn(URL(fileURLWithPath: "/bin/umount"), [dir.path])
        try? FileManager.default.removeItem(at: dir)
    }

    /// Fills `dir` until the disk is full; returns the filler.
    static func fill(_ dir: URL) -> URL {
        let filler = dir.appendingPathComponent("filler")
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let block = [UInt8](repeating: 0x41, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
        return filler
    }

    static func recording(in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("r.ndjson")
        let r = try Thermtop.run(["record", file.path, "--seconds", "0", "--sysfs-root",
                                  Thermtop.fixtures.appendingPathComponent("intel-laptop").path])
        #expect(r.status == 0, "\(r.stderr)")
        return file
    }

    // MARK: out-of-range numbers

    @Test("status --at far past any recording (1e19) is refused with exit 64, not a SIGILL")
    func atOutOfRangeIsAUsageError() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.recording(in: dir)
        for at in ["1e19", "1e300"] {
            let r = try Thermtop.run(["status", "--replay", file.path, "--at", at])
            #expect(r.status == 64, "--at \(at): \(r.stderr)")
            #expect(r.stderr.contains("--at must be between 0 and 1000000000 seconds"), "\(r.stderr)")
        }
    }

    @Test("the dashboard's --speed 1e19 is refused with exit 64 and the range, before any terminal is needed")
    func speedOutOfRangeIsAUsageError() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.recording(in: dir)
        for speed in ["1e19", "2000", "0.001"] {
            let r = try Thermtop.run(["--replay", file.path, "--speed", speed])
            #expect(r.status == 64, "--speed \(speed): \(r.stderr)")
            #expect(r.stderr.contains("--speed must be a positive number from 1/64 (0.015625) to 1024"), "\(r.stderr)")
        }
    }

    // MARK: export on a full disk, and its temporary file

    @Test("export refuses a --textfile that is a FIFO, a link or a device (each write replaces the path) with 64, and leaves it as it was")
    func exportRefusesToReplaceWhatIsNotAFile() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo.prom")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let target = dir.appendingPathComponent("real.prom")
        try Run.write("# kept\n", to: target)
        let link = dir.appendingPathComponent("link.prom")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        var cases = [(fifo.path, "a FIFO", S_IFIFO), (link.path, "a symbolic link", S_IFLNK)]
        // A null device of our own (major 1, minor 3; root only), never the system's /dev/null.
        let device = dir.appendingPathComponent("null.prom")
        if mknod(device.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 { cases.append((device.path, "a device", S_IFCHR)) }
        for (path, kind, type) in cases {
            let r = try Run.thermtop(["export", "--textfile", path, "--simulate"])
            #expect(r.status == 64, "\(path): \(r.stderr)")
            #expect(r.stderr.contains("\(path) is \(kind)"), "\(r.stderr)")
            var st = stat()
            #expect(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type, "\(path) was replaced")
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "# kept\n")
    }

    @Test("export --every keeps running through a full disk, says so once, and writes again with the failures counted", .needs(.prometheusClient))
    func exportSurvivesAFullDisk() throws {
        guard let disk = try Self.smallDisk(kib: 64) else { return }
        defer { Self.unmount(disk) }
        let out = disk.appendingPathComponent("t.prom")
        let filler = Self.fill(disk)
        let p = try LiveProcess(["export", "--textfile", out.path, "--every", "1", "--simulate"])
        defer { p.stop() }
        // Three intervals of failed writes: one message, and still running.
        #expect(p.wait(10) { p.stderr.contains("No space left on device") }, "\(p.stderr)")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(p.process.isRunning, "export gave up on a full disk: \(p.stderr)")
        #expect(p.stderr.components(separatedBy: "No space left on device").count == 2,
                "the error is said once per failure streak: \(p.stderr)")
        // The disk empties: the next interval writes, with the failures counted.
        try FileManager.default.removeItem(at: filler)
        func text() -> String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        #expect(p.wait(10) { text().contains("thermtop_export_last_success_timestamp_seconds ") }, "\(p.stderr)")
        let failures = text().split(separator: "\n").first { $0.hasPrefix("thermtop_export_write_failures_total ") }
        let count = failures.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(count >= 2, "\(failures ?? "no failures counter")")
        #expect(p.wait(5) { p.stderr.contains("again after") }, "\(p.stderr)")
        let families = try ExportEndToEndTests.parse(out)
        #expect(families.contains { $0["name"] as? String == "thermtop_export_last_success_timestamp_seconds" && $0["type"] as? String == "gauge" })
        #expect(families.contains { $0["name"] as? String == "thermtop_export_write_failures" && $0["type"] as? String == "counter" })
    }

    @Test("export writes through no link planted at a predictable temporary name (pid 1 in a new pid namespace)", .needs(.root))
    func exportTemporaryFileIsNotPredictable() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let exe = try #require(Thermtop.binary)
        let victim = dir.appendingPathComponent("victim")
        try Run.write("untouched\n", to: victim)
        // In a new pid namespace thermtop is pid 1: the old name `.t.prom.1.tmp` is known in advance.
        for name in [".t.prom.1.tmp", ".t.prom.2.tmp"] {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(name).path, withDestinationPath: victim.path)
        }
        let out = dir.appendingPathComponent("t.prom")
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/usr/bin/unshare"),
                                   ["--pid", "--fork", exe.path, "export", "--textfile", out.path, "--simulate"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched\n")
        #expect(((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("thermtop_info"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasSuffix(".tmp") && $0.hasPrefix(".") }
        #expect(left.isEmpty, "temporary files left behind: \(left)")
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o644, "node_exporter, another user, must be able to read it")
    }

    // MARK: on-change: one at a time, coalesced, timed out

    /// Hook pids still running (zombies, which are dead and waiting to be reaped, do not count).
    static func alive(_ pids: [pid_t]) -> [pid_t] {
        pids.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            guard let close = stat.lastIndex(of: ")") else { return false }
            return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }
    }

    @Test("a hanging hook with a flapping state: never more than one run alive, changes coalesced, killed at its timeout")
    func hangingHookIsBounded() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let pidFile = dir.appendingPathComponent("pids")
        let hook = "sh -c 'echo $$ >> \"$0\"; exec sleep 1000' \(pidFile.path)"
        let w = try LiveProcess(["watch", "--sysfs-root", root.path, "--delay", "0.2", "--on-change", hook,
                                 "--on-change-min-interval", "0", "--on-change-timeout", "3"])
        func pids() -> [pid_t] {
            ((try? String(contentsOf: pidFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
        }
        defer {
            w.stop()
            for p in pids() { kill(p, SIGKILL) }
        }
        #expect(w.wait { w.lines.count >= 1 })
        let temp = root.appendingPathComponent("class/thermal/thermal_zone0/temp")
        var most = 0
        // Six changes, each awaited: the first run hangs through them.
        for i in 0..<6 {
            let seen = w.lines.count
            try Run.write(i % 2 == 0 ? "96000\n" : "50000\n", to: temp)
            _ = w.wait(10) {
                most = max(most, Self.alive(pids()).count)
                return w.lines.count > seen
            }
            #expect(w.lines.count > seen, "change \(i + 1) not seen: \(w.lines)")
        }
        // The runs still to come (the coalesced change) end by their timeout too.
        #expect(w.wait(20) {
            most = max(most, Self.alive(pids()).count)
            return w.stderr.contains("merged into it") && w.stderr.contains("timeouts 2") && Self.alive(pids()).isEmpty
        }, "stderr: \(w.stderr) alive: \(Self.alive(pids()))")
        #expect(most == 1, "at most one hook alive at once (saw \(most))")
        #expect(w.stderr.contains("ran past its 3.0 s timeout"))
        #expect(pids().count < 6, "changes during a run are coalesced, not each run: \(pids().count) runs")
        #expect(w.process.isRunning)
    }

    @Test("a hook still running when watch is told to stop (SIGTERM) is stopped with it, not left behind")
    func hookEndsWithWatch() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let pidFile = dir.appendingPathComponent("pids")
        let hook = "sh -c 'echo $$ >> \"$0\"; exec sleep 1000' \(pidFile.path)"
        let w = try LiveProcess(["watch", "--sysfs-root", root.path, "--delay", "0.2", "--on-change", hook,
                                 "--on-change-min-interval", "0"])
        func pids() -> [pid_t] {
            ((try? String(contentsOf: pidFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
        }
        defer { for p in pids() { kill(p, SIGKILL) } }
        #expect(w.wait { w.lines.count >= 1 })
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        #expect(w.wait(10) { Self.alive(pids()).count == 1 }, "the hook never started: \(w.stderr)")
        w.stop()
        #expect(w.process.terminationStatus == 128 + SIGTERM)
        #expect(w.wait(5) { Self.alive(pids()).isEmpty }, "the hook outlived watch: \(Self.alive(pids()))")
    }

    @Test("a negative --on-change-min-interval or --every gets the range message, not 'Missing value'",
          arguments: [(["watch", "--simulate", "--on-change", "true", "--on-change-min-interval", "-1"],
                       "--on-change-min-interval must be between 0 and 86400"),
                      (["export", "--textfile", "/tmp/thermtop-never-written.prom", "--every", "-1", "--simulate"],
                       "--every must be between 1 and 86400")])
    func negativeIntervalGetsTheRange(args: [String], message: String) throws {
        let r = try Run.thermtop(args)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test("record --seconds past the longest a recording may be (10⁹ s) is a usage error (64), as --at is", arguments: ["1e19", "-1", "inf"])
    func recordSecondsRange(value: String) throws {
        let r = try Run.thermtop(["record", "/tmp/thermtop-never-written.jsonl", "--seconds", value,
                                  "--sysfs-root", Thermtop.fixtures.appendingPathComponent("intel-laptop").path])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--seconds must be from 0 to 1000000000"), "\(r.stderr)")
    }

    @Test("--on-change-timeout out of range is a usage error (64)", arguments: ["0", "-1", "nan", "1e9"])
    func hookTimeoutRange(value: String) throws {
        let r = try Run.thermtop(["watch", "--simulate", "--on-change", "true", "--on-change-timeout", value])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--on-change-timeout must be between 0.1 and 86400"), "\(r.stderr)")
    }

    // MARK: a config file others can write

    @Test("a config with a dotted key of 28,000 parts stops every command with 78 and its line, not a segfault")
    func overlongDottedKeyIsBadTOML() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("deep.toml")
        try Run.write(String(repeating: "a.", count: 28_000) + "b = 1\n", to: cfg)
        for command in [["config", "--check"], ["status"]] {
            let r = try Run.thermtop(command + ["--config", cfg.path, "--simulate"])
            #expect(r.status == 78, "\(command): \(r.status) \(r.stderr.prefix(300))")
            #expect(r.stderr.contains("deep.toml:1"), "\(r.stderr.prefix(300))")
            #expect(r.stderr.contains("dotted key of more than 64 parts"), "\(r.stderr.prefix(300))")
        }
    }

    @Test("on_change from a config file or folder others can write is refused with the fix; the rest applies; config --check fails",
          arguments: ["file", "folder"])
    func worldWritableConfigRunsNoCommand(what: String) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("cfg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let marker = dir.appendingPathComponent("ran")
        let cfg = folder.appendingPathComponent("config.toml")
        try Run.write("units = \"fahrenheit\"\non_change = \"touch \(marker.path)\"\non_change_min_interval = 0\n", to: cfg)
        chmod(folder.path, what == "folder" ? 0o777 : 0o755)
        chmod(cfg.path, what == "file" ? 0o666 : 0o644)
        let fixed = what == "file" ? cfg.path : folder.path

        let check = try Run.thermtop(["config", "--check", "--config", cfg.path, "--simulate"])
        #expect(check.status == 78, "\(check.stdout) \(check.stderr)")
        #expect(check.stderr.contains("unsafe permissions") && check.stderr.contains("chmod go-w \(fixed)"), "\(check.stderr)")

        let w = try LiveProcess(["watch", "--config", cfg.path, "--simulate", "--simulate-state", "critical",
                                 "--on-change-simulated", "--delay", "0.2"])
        defer { w.stop() }
        #expect(w.wait { w.stderr.contains("chmod go-w \(fixed)") }, "\(w.stderr)")
        #expect(w.stderr.contains(cfg.path))
        #expect(w.wait { w.lines.count >= 1 })
        // The rest of the file applies: the text line is in °F.
        let first = try #require(w.lines.first, "no line; stderr: \(w.stderr)")
        #expect(first.contains("°F"), "\(first)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the refused command ran")

        // Fixed: the command is accepted.
        chmod(folder.path, 0o755)
        chmod(cfg.path, 0o644)
        let ok = try Run.thermtop(["config", "--check", "--config", cfg.path, "--simulate"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("on_change = touch"))
    }

    // MARK: watch's output

    @Test("watch --json | head -1 ends with 0 at the next write, not SIGPIPE (141)")
    func watchIntoHeadExitsZero() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let temp = root.appendingPathComponent("class/thermal/thermal_zone0/temp")
        // head exits after the first line; only then does the state change, so watch's next
        // write meets a closed pipe.
        let r = try BadInvocationTests.shell("""
            { "$0" watch --json --sysfs-root '\(root.path)' --delay 0.2; echo "watch-exit=$?" >&2; } \
            | { head -1 >/dev/null; echo 96000 > '\(temp.path)'; }
            """)
        #expect(r.stderr.contains("watch-exit=0"), "\(r.stderr)")
    }

    @Test("watch | head -1 on a machine whose state never changes ends with its reader, with 0, not at a next line that never comes")
    func watchIntoHeadWithoutChangeExitsZero() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        // Nothing in the tree changes, so watch writes no second line: it must notice the
        // closed pipe while it waits. `timeout` turns the old hang into exit 124.
        let r = try BadInvocationTests.shell("""
            { timeout 20 "$0" watch --json --sysfs-root '\(root.path)' --delay 0.2; echo "watch-exit=$?" >&2; } \
            | head -1 >/dev/null
            """)
        #expect(r.stderr.contains("watch-exit=0"), "\(r.stderr)")
    }

    @Test("an on-change command still running when watch ends is ended with it: on exit 3 (source gone) and on SIGTERM, even one that ignores SIGTERM",
          arguments: ["source-gone", "sigterm"])
    func hooksDoNotOutliveWatch(ending: String) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let pidFile = dir.appendingPathComponent("hook.pid")
        // The hook's shell ignores SIGTERM and keeps starting sleeps: only SIGKILL ends it.
        let hook = "sh -c 'trap \"\" TERM; echo $$ > \(pidFile.path); while :; do sleep 0.1; done'"
        let w = try LiveProcess(["watch", "--sysfs-root", root.path, "--delay", "0.2", "--on-change", hook,
                                 "--on-change-min-interval", "0"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 })
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        #expect(w.wait { ((try? String(contentsOf: pidFile, encoding: .utf8)) ?? "").hasSuffix("\n") }, "\(w.stderr)")
        let hookPID = try #require(pid_t(try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        if ending == "sigterm" {
            kill(w.process.processIdentifier, SIGTERM)
        } else {
            try FileManager.default.removeItem(at: root)
        }
        let ended = w.wait(20) { !w.process.isRunning }
        #expect(ended, "watch did not end: \(w.stderr)")
        guard ended else { return }
        #expect(w.process.terminationStatus == (ending == "sigterm" ? 143 : 3), "\(w.stderr)")
        // Ended with watch, not left to init: gone (or at most a zombie being reaped) at once.
        #expect(w.wait(5) { kill(hookPID, 0) != 0 || Self.isZombie(hookPID) }, "the hook \(hookPID) outlived watch")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false
    }

    @Test("SIGQUIT (Ctrl-\\) ends watch and export --every with 131, and record with its summary, never a crash report",
          arguments: ["watch", "export", "record"])
    func quitSignalEndsLongRunningCommands(command: String) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(command == "record" ? "r.jsonl" : "t.prom")
        let args: [String] = switch command {
        case "watch": ["watch", "--simulate"]
        case "export": ["export", "--textfile", out.path, "--every", "1", "--simulate"]
        default: ["record", out.path, "--sysfs-root", try Run.fixtureCopy("intel-laptop", in: dir).path, "--delay", "0.2"]
        }
        let p = try LiveProcess(args)
        defer { p.stop() }
        let started = p.wait {
            command == "watch" ? p.lines.count >= 1 : ((try? Data(contentsOf: out))?.count ?? 0) > 0
        }
        #expect(started, "\(p.stderr)")
        kill(p.process.processIdentifier, SIGQUIT)
        let ended = p.wait(10) { !p.process.isRunning }
        #expect(ended, "\(command) kept running after SIGQUIT: \(p.stderr.prefix(400))")
        guard ended else { return }
        #expect(p.process.terminationStatus == (command == "record" ? 0 : 131), "\(p.stderr.prefix(400))")
        #expect(!p.stderr.contains("crashed"), "\(p.stderr.prefix(400))")
        if command == "record" { #expect(p.stderr.contains("(stopped by signal 3)"), "\(p.stderr)") }
    }

    @Test("watch's text line says unknown when nothing is measured, as status and watch --json do, never nominal")
    func watchTextSaysUnknown() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("class"), withIntermediateDirectories: true)
        let r = try BadInvocationTests.shell("timeout 20 \"$0\" watch --no-config --sysfs-root '\(dir.path)' | head -1")
        let line = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.contains(" unknown · tier "), "\(line) \(r.stderr)")
        #expect(!line.contains(" nominal · tier "), "\(line)")
    }

    @Test("config --print-default into a full or closed stdout exits 74 and says why, not 0 with the example lost",
          arguments: ["> /dev/full", ">&-"])
    func printDefaultReportsALostWrite(redirect: String) throws {
        let r = try BadInvocationTests.shell("\"$0\" config --print-default \(redirect)")
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("standard output"), "\(r.stderr)")
    }

    @Test("watch > /dev/full exits 74 and says why")
    func watchToFullDevice() throws {
        let r = try BadInvocationTests.shell("\"$0\" watch --json --simulate > /dev/full")
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.contains("cannot write to standard output: No space left on device"), "\(r.stderr)")
    }

    // MARK: control characters

    @Test("THERMTOP_REASON and Prometheus labels carry no raw control characters from sysfs names", .needs(.prometheusClient))
    func controlCharactersAreCleaned() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let hostile = "acpi\u{1B}[2Jtz\u{07}\r\u{08}x"
        try Run.write(hostile + "\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/type"))
        let envFile = dir.appendingPathComponent("env")
        let hook = "sh -c 'printf %s \"$THERMTOP_REASON\" > \"$0\"' \(envFile.path)"
        let w = try LiveProcess(["watch", "--sysfs-root", root.path, "--delay", "0.2", "--on-change", hook,
                                 "--on-change-min-interval", "0"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 })
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        #expect(w.wait { ((try? Data(contentsOf: envFile)) ?? Data()).count > 0 }, "\(w.stderr)")
        let reason = String(decoding: try Data(contentsOf: envFile), as: UTF8.self)
        #expect(reason.contains("acpi?[2Jtz???x"), "\(reason.debugDescription)")
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(reason.debugDescription)")

        let out = dir.appendingPathComponent("t.prom")
        let r = try Run.thermtop(["export", "--textfile", out.path, "--sysfs-root", root.path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F })
        let names = try ExportEndToEndTests.parse(out).flatMap { ($0["samples"] as? [[String: Any]]) ?? [] }
            .compactMap { ($0["labels"] as? [String: String])?["name"] }
        #expect(names.contains { $0.contains("acpi?[2Jtz???x") }, "\(names)")
    }

    // MARK: a torn first frame

    @Test("record on a disk that fills during the first frame says no frame was written; replaying it fails with 65 naming the line")
    func tornFirstFrame() throws {
        guard let disk = try Self.smallDisk(kib: 12) else { return }
        defer { Self.unmount(disk) }
        let file = disk.appendingPathComponent("r.ndjson")
        let rec = try Thermtop.run(["record", file.path, "--seconds", "0", "--sysfs-root",
                                    Thermtop.fixtures.appendingPathComponent("intel-laptop").path])
        #expect(rec.status == 74, "\(rec.stderr)")
        #expect(rec.stderr.contains("no complete frame was written"), "\(rec.stderr)")
        #expect(!rec.stderr.contains("holds the 1 samples"), "\(rec.stderr)")
        let replay = try Thermtop.run(["status", "--replay", file.path])
        #expect(replay.status == 65, "\(replay.stderr)")
        #expect(replay.stderr.contains("line 2: the full frame is cut off"), "\(replay.stderr)")
        #expect(replay.stderr.contains("nothing to replay"))
    }

    // MARK: CLI texts

    @Test("record and capture --help list only options they take, and the refused ones are still refused (64)",
          arguments: ["record", "capture"])
    func helpListsOnlyUsableOptions(command: String) throws {
        let help = try Thermtop.run([command, "--help"])
        #expect(help.status == 0)
        for refused in ["--simulate", "--simulate-state", "--low-power", "--ppd-state"] {
            #expect(!help.text.contains(refused), "\(command) --help lists \(refused), which it refuses")
        }
        #expect(help.text.contains("--sysfs-root"))
        if command == "record" { #expect(help.text.contains("--delay")) }
        let r = try Thermtop.run([command, "/tmp/thermtop-never-written", "--simulate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("only --sysfs-root applies"))
    }

    @Test("a recording that cannot be opened is named once in the error")
    func errorsNameThePathOnce() throws {
        let path = "/tmp/thermtop-no-such-recording-\(UUID().uuidString).ndjson"
        let r = try Thermtop.run(["status", "--replay", path])
        #expect(r.status == 65)
        #expect(r.stderr.components(separatedBy: path).count == 2, "\(r.stderr)")
        #expect(r.stderr.contains("cannot open: no such file or directory"))
    }
}
