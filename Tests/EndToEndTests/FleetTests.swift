import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The fleet kit in contrib/ against the real tools: systemd-analyze, promtool, and a real
/// node_exporter + Prometheus fed by the real `thermtop export --every 1` (docs/fleet.md).
enum Fleet {
    static let contrib = Thermtop.repo.appendingPathComponent("contrib")
    static let rules = contrib.appendingPathComponent("prometheus/thermtop-rules.yml").path
    static let ruleTests = contrib.appendingPathComponent("prometheus/thermtop-rules.test.yml").path
    static let unit = contrib.appendingPathComponent("systemd/thermtop-export.service").path
    static let dashboard = contrib.appendingPathComponent("grafana/thermtop-dashboard.json").path
    static let daemonSet = contrib.appendingPathComponent("kubernetes/thermtop-daemonset.yaml").path

    /// The first of `names` that is an executable on PATH (Debian names node_exporter
    /// prometheus-node-exporter).
    static func tool(_ names: String...) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for n in names {
            for d in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(d)/\(n)") {
                return "\(d)/\(n)"
            }
        }
        return nil
    }

    static func run(_ exe: String, _ args: [String]) -> (status: Int32, output: String) {
        let r = spawnToCompletion(exe, args, environment: ProcessInfo.processInfo.environment, stderr: .merged)
        return (r.status, r.failure ?? String(decoding: r.stdout, as: UTF8.self))
    }
}

/// A program left running in the background (node_exporter, Prometheus, `thermtop export`):
/// `posix_spawn` as in Spawn.swift, output to a log file (no pipe to drain), stopped by
/// SIGTERM, then SIGKILL if it has not exited within a bound, and always reaped.
final class Daemon {
    let pid: pid_t
    let name: String
    let log: String
    private var reaped = false

    init(_ executable: String, _ arguments: [String], log: String, environment: [String: String]) throws {
        name = (executable as NSString).lastPathComponent
        self.log = log
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGCHLD, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
        guard rc == 0 else {
            throw DaemonError(message: "cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
    }

    struct DaemonError: Error, CustomStringConvertible { let message: String; var description: String { message } }

    /// The caller has reaped it with its own waitpid.
    func markReaped() { reaped = true }

    /// Still running (reaps it when it has exited).
    var running: Bool {
        if reaped { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return !reaped
    }

    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// The last lines of its log, for a failure message.
    var tail: String { "\(name) log:\n" + output.split(separator: "\n").suffix(15).joined(separator: "\n") }

    func stop() {
        guard running else { return }
        kill(pid, SIGTERM)
        if !pollUntil(10, { !self.running }) {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
    }

    deinit { stop() }
}

/// Polls `condition` every 0.2 s until it holds or `seconds` pass; returns whether it held.
func pollUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(200_000)
    }
    return condition()
}

/// HTTP on loopback without Foundation's networking: one GET over a socket, bounded by a
/// deadline, answering the status code and the body (nil when nothing answered).
enum LoopbackHTTP {
    static func get(port: Int, _ path: String, timeout: Double = 5) -> (status: Int, body: String)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { data.append(contentsOf: buffer[0..<n]) } else if n == 0 || errno != EINTR { break }
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let head = text.range(of: "\r\n\r\n"), text.hasPrefix("HTTP/") else { return nil }
        let code = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (code, String(text[head.upperBound...]))
    }

    /// A port nobody listens on now, from the kernel (bind to port 0 on loopback).
    static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return named == 0 ? Int(UInt16(bigEndian: addr.sin_port)) : nil
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}

@Suite("fleet kit: unit, rules, dashboard, DaemonSet")
struct FleetFilesTests {
    @Test("systemd-analyze verify accepts the unit without a warning",
          .needs(.systemdAnalyze))
    func systemdAcceptsTheUnit() throws {
        let analyze = try #require(Fleet.tool("systemd-analyze"), "systemd-analyze is not installed (Debian: systemd)")
        // verify refuses an ExecStart binary that does not exist: the one substitution is the
        // binary's path, /usr/local/bin/thermtop → the thermtop under test.
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: Fleet.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/thermtop export "))
        let copy = dir.appendingPathComponent("thermtop-export.service")
        try Run.write(text.replacingOccurrences(of: "/usr/local/bin/thermtop", with: Proof.binary), to: copy)
        let r = Fleet.run(analyze, ["verify", copy.path])
        #expect(r.status == 0 && r.output.isEmpty, "systemd-analyze verify: exit \(r.status)\n\(r.output)")
    }

    /// The system calls a systemd group (`@system-service`) allows, groups inside it expanded.
    static func syscalls(in group: String, analyze: String, seen: inout Set<String>) -> Set<String> {
        guard seen.insert(group).inserted else { return [] }
        let r = Fleet.run(analyze, ["syscall-filter", group])
        var out: Set<String> = []
        for line in r.output.split(separator: "\n").dropFirst() {
            let word = line.trimmingCharacters(in: .whitespaces)
            if word.isEmpty || word.hasPrefix("#") { continue }
            if word.hasPrefix("@") { out.formUnion(syscalls(in: word, analyze: analyze, seen: &seen)) } else { out.insert(word) }
        }
        return out
    }

    @Test("every system call export --every makes passes the unit's SystemCallFilter",
          .needs(.systemdAnalyze, .strace))
    func exportStaysInsideTheSystemCallFilter() throws {
        let analyze = try #require(Fleet.tool("systemd-analyze"), "systemd-analyze is not installed")
        let strace = try #require(Fleet.tool("strace"), "strace is not installed (.ci/run installs it)")
        // The filter as the unit writes it: allowed groups, then `~` groups taken away.
        var allowed: Set<String> = [], denied: Set<String> = []
        for line in try String(contentsOfFile: Fleet.unit, encoding: .utf8).split(separator: "\n") where line.hasPrefix("SystemCallFilter=") {
            var spec = line.dropFirst("SystemCallFilter=".count)
            let deny = spec.hasPrefix("~")
            if deny { spec = spec.dropFirst() }
            for item in spec.split(separator: " ") {
                var seen: Set<String> = []
                let calls = item.hasPrefix("@") ? Self.syscalls(in: String(item), analyze: analyze, seen: &seen) : [String(item)]
                if deny { denied.formUnion(calls) } else { allowed.formUnion(calls) }
            }
        }
        allowed.subtract(denied)
        #expect(allowed.count > 300, "systemd-analyze syscall-filter gave \(allowed.count) calls")

        // The running exporter, traced with its threads, until it has written the file twice.
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("trace").path
        let textfile = dir.appendingPathComponent("t.prom").path
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = "/nonexistent-thermtop-home"
        let traced = try Daemon(strace, ["-f", "-qq", "-o", trace, Proof.binary, "export", "--every", "1", "--textfile", textfile,
                                         "--sysfs-root", Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path],
                                log: dir.appendingPathComponent("strace.log").path, environment: env)
        defer { traced.stop() }
        func text() -> String { (try? String(contentsOfFile: trace, encoding: .utf8)) ?? "" }
        let wrote = pollUntil(20) { text().components(separatedBy: " rename(").count > 2 }
        // SIGTERM to thermtop itself (the first pid in the trace), as systemctl stop sends it.
        if let first = text().split(separator: " ").first, let pid = pid_t(first) { kill(pid, SIGTERM) }
        #expect(pollUntil(10) { !traced.running }, "export did not end on SIGTERM")
        #expect(wrote, "export wrote the file fewer than twice\n\(traced.tail)")
        var used: Set<String> = []
        for line in text().split(separator: "\n") {
            let rest = line.drop { $0 != " " }.drop { $0 == " " }
            if let paren = rest.firstIndex(of: "("), rest[..<paren].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), paren > rest.startIndex {
                used.insert(String(rest[..<paren]))
            }
        }
        #expect(used.contains("rename") && used.contains("openat"), "no system calls parsed from the trace")
        let refused = used.subtracting(allowed).sorted()
        #expect(refused.isEmpty, "export makes system calls the unit's SystemCallFilter refuses: \(refused)")
    }

    @Test("systemd-sysusers makes the unit's user thermtop, a member of thermtop-power",
          .needs(.systemdSysusers))
    func sysusersMakesTheUserAndGroup() throws {
        let sysusers = try #require(Fleet.tool("systemd-sysusers"), "systemd-sysusers is not installed")
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // An empty /etc of its own (--root): the host's users are not touched.
        try #require(Proof.sh("mkdir -p \(dir.path)/etc && cd \(dir.path)/etc && touch passwd group shadow gshadow").status == 0)
        let file = Fleet.contrib.appendingPathComponent("systemd/thermtop.sysusers").path
        let r = Fleet.run(sysusers, ["--root=\(dir.path)", file])
        #expect(r.status == 0, "\(r.output)")
        let passwd = (try? String(contentsOfFile: dir.path + "/etc/passwd", encoding: .utf8)) ?? ""
        let group = (try? String(contentsOfFile: dir.path + "/etc/group", encoding: .utf8)) ?? ""
        #expect(passwd.split(separator: "\n").contains { $0.hasPrefix("thermtop:x:") && $0.hasSuffix(":/usr/sbin/nologin") }, "\(passwd)")
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("thermtop-power:x:") && $0.hasSuffix(":thermtop") }, "\(group)")
        let unit = try String(contentsOfFile: Fleet.unit, encoding: .utf8)
        #expect(unit.contains("User=thermtop\n") && unit.contains("SupplementaryGroups=thermtop-power\n"))
    }

    /// `Environment=` and `Exec…=` lines of the unit, as systemd reads them.
    static func unitSettings() throws -> (env: [String: String], pre: String, start: String) {
        var env: [String: String] = [:], pre = "", start = ""
        for line in try String(contentsOfFile: Fleet.unit, encoding: .utf8).split(separator: "\n").map(String.init) {
            if line.hasPrefix("Environment=") {
                for pair in line.dropFirst("Environment=".count).split(separator: " ") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if kv.count == 2 { env[kv[0]] = kv[1] }
                }
            }
            if line.hasPrefix("ExecStartPre=") { pre = String(line.dropFirst("ExecStartPre=".count)) }
            if line.hasPrefix("ExecStart=") { start = String(line.dropFirst("ExecStart=".count)) }
        }
        return (env, pre, start)
    }

    @Test("the unit's own commands, as an unprivileged user, write into a root-owned folder and stop on SIGTERM with the status it counts as success",
          .needs(.root, .setpriv))
    func theUnitsCommandsWorkUnprivileged() throws {
        let unit = try Self.unitSettings()
        let dir = "/tmp/thermtop-unit-\(UUID().uuidString.prefix(8))"
        defer { Proof.discard(dir) }
        // A folder as Debian's package leaves it (root:root 0755), a copy of the binary and of a
        // hot machine that any user can read; the unit's user and group are a throwaway 64996.
        let setup = Proof.sh("mkdir -p -m 755 \(dir) \(dir)/textfile && cp \(Proof.quote(Proof.binary)) \(dir)/thermtop && chmod 755 \(dir)/thermtop && cp -a \(Proof.quote(Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path)) \(dir)/sys && chmod -R a+rX \(dir)/sys")
        try #require(setup.status == 0, "\(setup.output)")
        func expand(_ command: String) -> [String] {
            var words = command.split(separator: " ").map(String.init)
            words = words.map { w in
                var w = w
                for (k, v) in unit.env { w = w.replacingOccurrences(of: "${\(k)}", with: v) }
                return w.replacingOccurrences(of: "/var/lib/prometheus/node-exporter", with: "\(dir)/textfile")
            }
            return words
        }
        // ExecStartPre (`+`: as root), with the group by number.
        var pre = expand(String(unit.pre.drop { $0 == "+" }))
        pre = pre.map { $0 == "thermtop" ? "64996" : $0 }
        try #require(!pre.isEmpty, "the unit has no ExecStartPre= making the folder writable")
        let prepared = Fleet.run(pre[0], Array(pre.dropFirst()))
        #expect(prepared.status == 0, "\(unit.pre): \(prepared.output)")
        // ExecStart as User=/Group= would run it, with the test's machine.
        var start = expand(unit.start)
        try #require(!start.isEmpty, "the unit has no ExecStart=")
        #expect(start.first == "/usr/local/bin/thermtop" && start.contains("--every") && start.contains("\(dir)/textfile/thermtop.prom"), "\(start)")
        start[0] = "\(dir)/thermtop"
        start += ["--sysfs-root", "\(dir)/sys"]
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = "/nonexistent-thermtop-home"
        for (k, v) in unit.env { env[k] = v }
        let service = try Daemon("/usr/bin/setpriv", ["--reuid=64996", "--regid=64996", "--clear-groups"] + start,
                                 log: "\(dir)/service.log", environment: env)
        defer { service.stop() }
        let wrote = pollUntil(15) {
            ((try? String(contentsOfFile: "\(dir)/textfile/thermtop.prom", encoding: .utf8)) ?? "").contains("thermtop_thermal_state_level 2")
        }
        #expect(wrote, "the unit's ExecStart wrote no file as an unprivileged user\n\(service.tail)")
        // systemctl stop: SIGTERM, and the exit status the unit's SuccessExitStatus= names.
        kill(service.pid, SIGTERM)
        var status: Int32 = 0
        var exited = false
        _ = pollUntil(10) {
            if waitpid(service.pid, &status, WNOHANG) == service.pid { exited = true }
            return exited
        }
        if exited { service.markReaped() }
        try #require(exited, "export did not stop on SIGTERM")
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let success = try String(contentsOfFile: Fleet.unit, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("SuccessExitStatus=") }.map { $0.dropFirst("SuccessExitStatus=".count).split(separator: " ").map(String.init) } ?? []
        #expect(code == 0 || success.contains(String(code)), "exit \(code) on SIGTERM, SuccessExitStatus=\(success)")
    }

    @Test("the unit is hardened: read-only system but the textfile folder, no new privileges, own user, restarts on failure")
    func theUnitIsHardened() throws {
        let lines = Set(try String(contentsOfFile: Fleet.unit, encoding: .utf8).split(separator: "\n").map(String.init))
        for required in ["ProtectSystem=strict", "ReadWritePaths=/var/lib/prometheus/node-exporter", "NoNewPrivileges=yes",
                         "ProtectHome=yes", "PrivateTmp=yes", "Restart=on-failure", "User=thermtop",
                         "SupplementaryGroups=thermtop-power", "CapabilityBoundingSet=",
                         "Environment=THERMTOP_TEXTFILE_DIR=/var/lib/prometheus/node-exporter",
                         // Debian's folder is root:root 0755: made writable for group thermtop first.
                         "ExecStartPre=+/usr/bin/install -d -m 0775 -g thermtop ${THERMTOP_TEXTFILE_DIR}"] {
            #expect(lines.contains(required), "the unit lacks \(required)")
        }
    }

    @Test("promtool accepts the rules and their unit tests pass",
          .needs(.promtool))
    func promtoolChecksAndTestsTheRules() throws {
        let promtool = try #require(Fleet.tool("promtool"), "promtool is not installed (Debian: prometheus; .ci/run installs it)")
        let check = Fleet.run(promtool, ["check", "rules", Fleet.rules])
        #expect(check.status == 0 && check.output.contains("SUCCESS: 7 rules found"), "\(check.output)")
        let test = Fleet.run(promtool, ["test", "rules", Fleet.ruleTests])
        #expect(test.status == 0 && test.output.contains("SUCCESS"), "\(test.output)")
    }

    @Test("the dashboard has an instance variable and every query selects on it")
    func dashboardQueriesFollowTheInstanceVariable() throws {
        let d = try FleetDashboard.load()
        let vars = ((d.json["templating"] as? [String: Any])?["list"] as? [[String: Any]]) ?? []
        #expect(vars.contains { $0["name"] as? String == "instance" && $0["definition"] as? String == "label_values(thermtop_info, instance)" })
        #expect(d.queries.count >= 20)
        for q in d.queries { #expect(q.expr.contains("instance=~\"$instance\""), "\(q.panel): \(q.expr)") }
        for want in ["thermtop_thermal_state_level", "thermtop_sensor_decides_state", "thermtop_sensor_threshold_celsius",
                     "thermtop_power_watts", "thermtop_throttling_active", "thermtop_gpu_power_watts"] {
            #expect(d.queries.contains { $0.expr.contains(want) }, "no panel queries \(want)")
        }
    }

    @Test("every metric family export writes is in docs/fleet.md's metric reference")
    func everyExportedFamilyIsDocumented() throws {
        let doc = try String(contentsOf: Thermtop.repo.appendingPathComponent("docs/fleet.md"), encoding: .utf8)
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var families: Set<String> = []
        for fixture in ["intel-laptop-hot", "gpu-disk-workstation", "fans-desktop", "two-battery-laptop"] {
            let out = dir.appendingPathComponent("\(fixture).prom")
            let r = try Run.thermtop(["export", "--textfile", out.path, "--sysfs-root", Thermtop.fixtures.appendingPathComponent(fixture).path])
            #expect(r.status == 0, "\(r.stderr)")
            for line in try String(contentsOf: out, encoding: .utf8).split(separator: "\n") where line.hasPrefix("# TYPE ") {
                families.insert(String(line.split(separator: " ")[2]))
            }
        }
        #expect(families.count > 20)
        // A family is documented by its name, or by its suffix after a shared prefix named in
        // the same table cell (`thermtop_battery_percent`, `_watts`, …).
        for f in families.sorted() {
            let suffix = f.split(separator: "_").suffix(f.hasSuffix("_to_empty") || f.hasSuffix("_to_full") ? 3 : 1).joined(separator: "_")
            #expect(doc.contains("`\(f)`") || doc.contains("`_\(suffix)`"), "docs/fleet.md does not document \(f)")
        }
    }

    @Test("the Kubernetes DaemonSet is YAML with the host's /sys read-only and the textfile shared with node_exporter",
          .needs(.pythonYAML))
    func theDaemonSetIsValidYAML() throws {
        let python = "/usr/bin/python3"
        // Debian's python3-yaml: a real YAML parser; the structure is checked on what it parsed.
        let script = """
        import sys, yaml
        docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
        ds = [d for d in docs if d.get("kind") == "DaemonSet"]
        assert len(ds) == 1, "one DaemonSet"
        spec = ds[0]["spec"]["template"]["spec"]
        cs = {c["name"]: c for c in spec["containers"]}
        assert set(cs) >= {"thermtop", "node-exporter"}, sorted(cs)
        vols = {v["name"]: v for v in spec["volumes"]}
        def mount(c, path):
            return [m for m in cs[c].get("volumeMounts", []) if m["mountPath"] == path]
        sysm = mount("thermtop", "/host/sys")
        assert sysm and sysm[0].get("readOnly") is True, "host /sys read-only"
        assert vols[sysm[0]["name"]]["hostPath"]["path"] == "/sys"
        args = cs["thermtop"].get("args", [])
        assert "export" in args and "--every" in args and "--sysfs-root" in args, args
        tf = args[args.index("--textfile") + 1]
        shared = [m["name"] for m in cs["thermtop"]["volumeMounts"] if tf.startswith(m["mountPath"] + "/")]
        assert shared and any(m["name"] == shared[0] for m in cs["node-exporter"]["volumeMounts"]), "textfile shared"
        ne = " ".join(cs["node-exporter"].get("args", []))
        assert "--collector.textfile.directory=" in ne, ne
        sc = cs["thermtop"].get("securityContext", {})
        assert sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False, sc
        print("ok", len(docs))
        """
        let r = Fleet.run(python, ["-c", script, Fleet.daemonSet])
        #expect(r.status == 0 && r.output.hasPrefix("ok"), "\(r.output)")
    }
}

/// The dashboard's queries, as Grafana would send them.
struct FleetDashboard {
    struct Query { let panel: String; let expr: String }
    let json: [String: Any]
    let queries: [Query]

    static func load() throws -> FleetDashboard {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fleet.dashboard))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var out: [Query] = []
        func walk(_ panels: [[String: Any]]) {
            for p in panels {
                for t in (p["targets"] as? [[String: Any]]) ?? [] {
                    if let e = t["expr"] as? String { out.append(Query(panel: p["title"] as? String ?? "?", expr: e)) }
                }
                walk((p["panels"] as? [[String: Any]]) ?? [])
            }
        }
        walk((json["panels"] as? [[String: Any]]) ?? [])
        for a in ((json["annotations"] as? [String: Any])?["list"] as? [[String: Any]]) ?? [] {
            if let e = a["expr"] as? String { out.append(Query(panel: "annotation \(a["name"] as? String ?? "?")", expr: e)) }
        }
        return FleetDashboard(json: json, queries: out)
    }

    /// Grafana's substitutions for one machine: `$instance` is the machine's instance label
    /// (a regex that matches itself), `$__rate_interval` a window of several scrapes.
    static func expand(_ expr: String, instance: String) -> String {
        expr.replacingOccurrences(of: "$instance", with: instance)
            .replacingOccurrences(of: "$__rate_interval", with: "1m")
    }
}

@Suite("fleet end to end: thermtop export → node_exporter → Prometheus with the shipped rules", .serialized)
struct FleetEndToEndTests {
    /// The RAPL zones of rapl-laptop-throttled (package, its core and uncore, psys; the mmio
    /// zone repeats the package) and the watts each draws while the test runs.
    static let raplWatts: [(zone: String, watts: Double)] = [
        ("intel-rapl/intel-rapl:0", 15), ("intel-rapl-mmio/intel-rapl-mmio:0", 15),
        ("intel-rapl/intel-rapl:0/intel-rapl:0:0", 11), ("intel-rapl/intel-rapl:0/intel-rapl:0:1", 1),
        ("intel-rapl/intel-rapl:1", 22),
    ]

    /// The stand-in NVML (Tests/Fixtures/nvml-standin) for one GPU held by its power cap, so
    /// the GPU panels have data and the hot CPU still decides.
    static let gpuAnswers = """
    gpus=0000:01:00.0
    0000:01:00.0.name=NVIDIA L4
    0000:01:00.0.uuid=GPU-22222222
    0000:01:00.0.temp=71
    0000:01:00.0.slowdown=89
    0000:01:00.0.shutdown=95
    0000:01:00.0.gpu_max=87
    0000:01:00.0.power_mw=68000
    0000:01:00.0.limit_mw=72000
    0000:01:00.0.pstate=0
    0000:01:00.0.util=100
    0000:01:00.0.reasons=0x4

    """

    @Test("a hot, throttled machine: the serious and throttling alerts pend quoting their reasons, every dashboard query returns data, and a GPU in HW thermal slowdown fires critical at once",
          .needs(.prometheus, .nodeExporter, .promtool, .cCompiler))
    func hotMachineAlertsAndFillsTheDashboard() throws {
        let started = Date()
        let prometheus = try #require(Fleet.tool("prometheus"), "prometheus is not installed (.ci/run installs it)")
        let nodeExporter = try #require(Fleet.tool("prometheus-node-exporter", "node_exporter"), "prometheus-node-exporter is not installed")
        let dir = "/tmp/thermtop-fleet-\(UUID().uuidString.prefix(8))"
        try #require(Proof.sh("mkdir -p \(dir)/textfile \(dir)/tsdb \(dir)/nvml").status == 0)
        defer { Proof.discard(dir) }

        // The hot laptop, with the RAPL zones and cpufreq policies of rapl-laptop-throttled (its
        // clocks held at 2.1 of 4.7 GHz), plus one NVIDIA GPU's PCI function for the stand-in
        // NVML to answer for.
        let root = dir + "/sys"
        let hot = Proof.quote(Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path)
        let rapl = Proof.quote(Thermtop.fixtures.appendingPathComponent("rapl-laptop-throttled").path)
        let overlay = Proof.sh("cp -a \(hot) \(root) && cp -a \(rapl)/class/powercap \(root)/class/ && mkdir -p \(root)/devices/virtual && cp -a \(rapl)/devices/virtual/powercap \(root)/devices/virtual/ && cp -a \(rapl)/devices/system/cpu/. \(root)/devices/system/cpu/")
        try #require(overlay.status == 0, "building the machine failed: \(overlay.output)")
        // The energy counters advance as the kernel's do, at each zone's watts; called from
        // every wait below, so each sample sees energy used since the last.
        let zones = try Self.raplWatts.map { z -> (path: String, start: Double, watts: Double) in
            let path = "\(root)/devices/virtual/powercap/\(z.zone)/energy_uj"
            let start = try #require(Double(try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            return (path, start, z.watts)
        }
        let clockStart = Date()
        func advanceEnergy() {
            let s = Date().timeIntervalSince(clockStart)
            for z in zones { try? "\(Int64(z.start + z.watts * s * 1e6))\n".write(toFile: z.path, atomically: false, encoding: .utf8) }
        }
        let gpu = "\(root)/bus/pci/devices/0000:01:00.0"
        try #require(Proof.sh("mkdir -p \(gpu)/power && echo 0x10de > \(gpu)/vendor && echo 0x030200 > \(gpu)/class && echo active > \(gpu)/power/runtime_status").status == 0)
        let src = Thermtop.fixtures.appendingPathComponent("nvml-standin/standin.c").path
        let compiler = try #require(TestMachine.cCompiler, "no C compiler for the NVML stand-in")
        let cc = Proof.sh("\(Proof.quote(compiler)) -shared -fPIC -o \(dir)/nvml/libnvidia-ml.so.1 \(Proof.quote(src))")
        try #require(cc.status == 0, "the C compiler could not build the NVML stand-in: \(cc.output)")
        try Self.gpuAnswers.write(toFile: dir + "/nvml.conf", atomically: true, encoding: .utf8)

        var env = ProcessInfo.processInfo.environment
        env["HOME"] = "/nonexistent-thermtop-home"
        env["XDG_CONFIG_HOME"] = nil
        var daemons: [Daemon] = []
        defer { for d in daemons.reversed() { d.stop() } }

        var exportEnv = env
        exportEnv["LD_LIBRARY_PATH"] = dir + "/nvml"
        exportEnv["THERMTOP_NVML"] = "live"
        exportEnv["NVML_STANDIN_CONFIG"] = dir + "/nvml.conf"
        let textfile = dir + "/textfile/thermtop.prom"
        let export = try Daemon(Proof.binary, ["export", "--textfile", textfile, "--every", "1", "--sysfs-root", root],
                                log: dir + "/export.log", environment: exportEnv)
        daemons.append(export)
        try #require(pollUntil(15) { advanceEnergy(); return FileManager.default.fileExists(atPath: textfile) }, "export wrote no file\n\(export.tail)")

        let nodePort = try #require(LoopbackHTTP.freePort())
        let node = try Daemon(nodeExporter, ["--web.listen-address=127.0.0.1:\(nodePort)", "--collector.disable-defaults",
                                             "--collector.textfile", "--collector.textfile.directory=\(dir)/textfile"],
                              log: dir + "/node.log", environment: env)
        daemons.append(node)
        try #require(pollUntil(20) { advanceEnergy(); return LoopbackHTTP.get(port: nodePort, "/metrics")?.body.contains("thermtop_info{") == true },
                     "node_exporter did not serve thermtop's metrics\n\(node.tail)")

        let promPort = try #require(LoopbackHTTP.freePort())
        let instance = "127.0.0.1:\(nodePort)"
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files:
          - \(Fleet.rules)
        scrape_configs:
          - job_name: node
            static_configs:
              - targets: ['\(instance)']
        """.write(toFile: dir + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prom = try Daemon(prometheus, ["--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/tsdb",
                                           "--web.listen-address=127.0.0.1:\(promPort)"],
                              log: dir + "/prometheus.log", environment: env)
        daemons.append(prom)
        try #require(pollUntil(30) { advanceEnergy(); return LoopbackHTTP.get(port: promPort, "/-/ready")?.status == 200 }, "Prometheus never became ready\n\(prom.tail)")

        func api(_ path: String) -> [String: Any]? {
            guard let r = LoopbackHTTP.get(port: promPort, path), r.status == 200 else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(r.body.utf8))) as? [String: Any]
        }
        func result(_ expr: String) -> [[String: Any]] {
            let j = api("/api/v1/query?query=" + LoopbackHTTP.encode(expr))
            return ((j?["data"] as? [String: Any])?["result"] as? [[String: Any]]) ?? []
        }

        // An alert from the shipped rules, pending (serious waits 5 minutes before firing),
        // its summary carrying thermtop's reason.
        var alert: [String: Any]?
        let alerted = pollUntil(60) {
            advanceEnergy()
            let alerts = ((api("/api/v1/alerts")?["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
            alert = alerts.first { ($0["labels"] as? [String: String])?["alertname"] == "ThermtopThermalStateSerious" }
            return ["pending", "firing"].contains(alert?["state"] as? String ?? "")
        }
        #expect(alerted, "no ThermtopThermalStateSerious alert pending or firing\n\(prom.tail)\n\(export.tail)")
        // Its summary quotes thermtop's own reason, as `status --json` gives it for this machine.
        func thermtopReason() throws -> String {
            let status = spawnToCompletion(Proof.binary, ["status", "--json", "--sysfs-root", root], environment: exportEnv, stderr: .discarded)
            let json = (try? JSONSerialization.jsonObject(with: Data(status.stdout))) as? [String: Any]
            return try #require(json?["reason"] as? String, "status --json gave no reason")
        }
        let reason = try thermtopReason()
        #expect(reason.hasPrefix("serious: "))
        let summary = (alert?["annotations"] as? [String: String])?["summary"] ?? ""
        let head = "\(instance) has been thermally serious for 5 minutes: "
        #expect(summary.hasPrefix(head) && summary.count > head.count + "serious: ".count && reason.hasPrefix(summary.dropFirst(head.count)),
                "summary \"\(summary)\" does not quote the reason \"\(reason)\"")
        #expect((alert?["labels"] as? [String: String])?["severity"] == "warning")

        // Held at 2.1 of 4.7 GHz with the Processor cooling device engaged: thermal throttling,
        // pending for its 10 minutes, with the clock and the package's watts.
        var throttling: [String: Any]?
        let throttled = pollUntil(30) {
            advanceEnergy()
            let alerts = ((api("/api/v1/alerts")?["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
            throttling = alerts.first { ($0["labels"] as? [String: String])?["alertname"] == "ThermtopThermalThrottling" }
            let s = (throttling?["annotations"] as? [String: String])?["summary"] ?? ""
            // A scrape can fall in a window where the counter had not been written yet (0.0 W):
            // wait for one that saw it move.
            return throttling?["state"] as? String == "pending" && s.contains(" W") && !s.hasSuffix(" 0.0 W")
        }
        let throttlingSummary = (throttling?["annotations"] as? [String: String])?["summary"] ?? ""
        #expect(throttled, "no ThermtopThermalThrottling pending with the package's watts: \(throttlingSummary)")
        // 15 W on the package counter, written every poll (0.2 s apart) while thermtop samples
        // on its own clock, so a window's figure wanders by a few watts; 10-20 W is the package
        // alone (not psys 22 W, not the mmio repeat counted twice, 30 W).
        let watts = throttlingSummary.split(separator: " ").dropLast().last.flatMap { Double($0) } ?? 0
        #expect(throttlingSummary.hasPrefix("\(instance) has been throttling for thermal reasons for 10 minutes: CPU 2.1 of 4.7 GHz, CPU package ")
                && (10...20).contains(watts), "throttling summary: \(throttlingSummary)")

        // Every dashboard query (and the instance variable) returns data for this machine.
        let dash = try FleetDashboard.load()
        let required = dash.queries
        var empty: [FleetDashboard.Query] = []
        _ = pollUntil(30) {
            advanceEnergy()
            empty = required.filter { result(FleetDashboard.expand($0.expr, instance: instance)).isEmpty }
            return empty.isEmpty
        }
        let missing = empty.map { "\($0.panel): \($0.expr)" }.joined(separator: "\n")
        #expect(empty.isEmpty, "dashboard queries without data:\n\(missing)")
        let values = (api("/api/v1/label/instance/values?match[]=" + LoopbackHTTP.encode("thermtop_info"))?["data"] as? [String]) ?? []
        #expect(values == [instance], "label_values(thermtop_info, instance): \(values)")

        // The GPU now in HW thermal slowdown: critical at once (the critical alert fires), and
        // the GPU alert pends for its minute.
        try Self.gpuAnswers.replacingOccurrences(of: ".reasons=0x4", with: ".reasons=0x40")
            .write(toFile: dir + "/nvml.conf", atomically: true, encoding: .utf8)
        var alerts: [[String: Any]] = []
        func state(_ name: String) -> String? {
            alerts.first { ($0["labels"] as? [String: String])?["alertname"] == name }?["state"] as? String
        }
        let critical = pollUntil(30) {
            advanceEnergy()
            alerts = ((api("/api/v1/alerts")?["data"] as? [String: Any])?["alerts"] as? [[String: Any]]) ?? []
            return state("ThermtopThermalStateCritical") == "firing" && state("ThermtopGPUThermalSlowdown") != nil
        }
        #expect(critical, "after HW thermal slowdown: critical \(state("ThermtopThermalStateCritical") ?? "absent"), GPU \(state("ThermtopGPUThermalSlowdown") ?? "absent")\n\(export.tail)")
        let gpuSummary = (alerts.first { ($0["labels"] as? [String: String])?["alertname"] == "ThermtopGPUThermalSlowdown" }?["annotations"] as? [String: String])?["summary"] ?? ""
        let gpuReason = try thermtopReason()
        #expect(gpuReason == "critical: GPU NVIDIA L4 (0000:01:00.0) HW thermal slowdown active (NVML clock-event reason)")
        #expect(gpuSummary == "\(instance): \(gpuReason)", "GPU summary: \(gpuSummary)")
        let criticalSummary = (alerts.first { ($0["labels"] as? [String: String])?["alertname"] == "ThermtopThermalStateCritical" }?["annotations"] as? [String: String])?["summary"] ?? ""
        #expect(criticalSummary == "\(instance) is thermally critical: \(gpuReason)", "critical summary: \(criticalSummary)")

        #expect(export.running && node.running && prom.running, "a process died\n\(export.tail)\n\(node.tail)\n\(prom.tail)")
        print("fleet end to end: \(required.count - empty.count) of \(required.count) dashboard queries with data, in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}

extension MachineNeed {
    static let systemdAnalyze = tool("systemd-analyze", package: "systemd")
    static let systemdSysusers = tool("systemd-sysusers", package: "systemd")
    static let strace = tool("strace")
    static let promtool = tool("promtool", package: "prometheus")
    static let prometheus = tool("prometheus")
    /// Debian names node_exporter's binary prometheus-node-exporter.
    static let nodeExporter = MachineNeed("prometheus-node-exporter", remedy: "apt-get install -y prometheus-node-exporter") {
        Fleet.tool("prometheus-node-exporter", "node_exporter") != nil
    }
    static let pythonYAML = MachineNeed("python3-yaml", remedy: "apt-get install -y python3-yaml") { hasPythonYAML }
    private static let hasPythonYAML = TestMachine.systemPythonImports("yaml")
}
