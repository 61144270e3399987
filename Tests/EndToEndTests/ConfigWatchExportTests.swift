import Foundation
import Testing
import ThermtopTestSupport

/// The real binary with `--config`, `config --check`, `watch`, `export` and `--on-change`.
enum Run {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs thermtop to completion with extra environment (HOME/XDG pointed at a temp folder so
    /// the developer's own config never leaks in).
    static func thermtop(_ args: [String], env extra: [String: String] = [:], home: URL? = nil) throws -> Output {
        let exe = try #require(Thermtop.binary, "thermtop executable not found")
        var env: [String: String?] = [
            "HOME": (home ?? FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-no-home")).path,
            "XDG_CONFIG_HOME": nil,
        ]
        for (k, v) in extra { env[k] = v }
        let r = try Thermtop.spawn(exe, args, environment: env)
        return Output(status: r.status, stdout: r.text, stderr: r.stderr)
    }

    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// A writable copy of a fixture tree (relative symlinks preserved).
    static func fixtureCopy(_ name: String, in dir: URL) throws -> URL {
        let dst = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Thermtop.fixtures.appendingPathComponent(name), to: dst)
        return dst
    }

    static func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: false, encoding: .utf8)
    }
}

/// A running `thermtop watch`: stdout lines as they arrive.
final class LiveProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var outBuf = Data()
    private var errBuf = Data()

    init(_ args: [String]) throws {
        let exe = try #require(Thermtop.binary)
        process.executableURL = exe
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = "/nonexistent-thermtop-home"
        env["XDG_CONFIG_HOME"] = nil
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.outBuf.append(d); self.lock.unlock()
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.errBuf.append(d); self.lock.unlock()
        }
        try process.run()
    }

    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: outBuf, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    var stderr: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: errBuf, as: UTF8.self)
    }

    /// Polls until `condition` holds or `seconds` pass; returns whether it held.
    func wait(_ seconds: Double = 15, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

private func jsonLine(_ s: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any]
}

@Suite(.serialized) struct ConfigEndToEndTests {
    let fixture = Thermtop.fixtures.appendingPathComponent("intel-laptop").path

    @Test func thePrintedDefaultPassesCheck() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let printed = try Run.thermtop(["config", "--print-default"])
        #expect(printed.status == 0)
        #expect(printed.stdout.contains("[[sensor]]"))
        let file = dir.appendingPathComponent("config.toml")
        try Run.write(printed.stdout, to: file)
        let checked = try Run.thermtop(["config", "--check", "--config", file.path, "--sysfs-root", fixture])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("OK"))
    }

    @Test func checkReportsEveryProblemWithFileLineAndKey() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.toml")
        try Run.write("""
            delay = "soon"
            colour = true
            [[sensor]]
            match = "hwmon1/temp1"
            fair = 80
            serious = 70
            [[sensor]]
            match = "nvme-that-is-not-here*"
            hide = true
            """, to: file)
        let r = try Run.thermtop(["config", "--check", "--config", file.path, "--sysfs-root", fixture])
        #expect(r.status == 78)
        let p = file.path
        #expect(r.stderr.contains("\(p):1: delay: wrong type"), "\(r.stderr)")
        #expect(r.stderr.contains("\(p):2: colour: unknown key"))
        #expect(r.stderr.contains("did you mean color?"))
        #expect(r.stderr.contains("\(p):6: sensor[1].serious: threshold order"))
        // The sensor-id check needs a parsed file: it runs once the file itself is fine.
        try Run.write("[[sensor]]\nmatch = \"nvme-that-is-not-here*\"\nhide = true\n", to: file)
        let u = try Run.thermtop(["config", "--check", "--config", file.path, "--sysfs-root", fixture])
        #expect(u.status == 78)
        #expect(u.stderr.contains("\(p):1: sensor[1].match: unknown sensor id"), "\(u.stderr)")
        #expect(u.stderr.contains("acpi-LNXTHERM:00/thermal/acpitz"))
    }

    @Test(arguments: [["status"], ["watch"], ["export", "--textfile", "/tmp/thermtop-never-written.prom"], []])
    func aBrokenConfigStopsEveryCommandBeforeItStarts(command: [String]) throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("broken.toml")
        try Run.write("delay = 1.0\n[[sensor]\n", to: file)
        try? FileManager.default.removeItem(atPath: "/tmp/thermtop-never-written.prom")
        let r = try Run.thermtop(command + ["--config", file.path, "--sysfs-root", fixture])
        #expect(r.status == 78, "\(command): \(r.stderr)")
        #expect(r.stderr.contains("\(file.path):2: bad TOML"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/thermtop-never-written.prom"))
    }

    /// `status` ends the process right after writing its report (no teardown): the warnings
    /// come before the report, the report is whole, and the exit status is still 0 (69 when
    /// nothing is readable).
    @Test(arguments: [false, true])
    func statusWarnsAboutARuleThatMatchesNoSensorAndStillReportsWhole(json: Bool) throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("stray.toml")
        try Run.write("[[sensor]]\nmatch = \"nvme-that-is-not-here*\"\nhide = true\n", to: file)
        let r = try Run.thermtop(["status"] + (json ? ["--json"] : []) + ["--config", file.path, "--sysfs-root", fixture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("thermtop: warning: \(file.path):1: sensor[1].match: unknown sensor id"), "\(r.stderr)")
        #expect(r.stderr.contains("nvme-that-is-not-here*"), "\(r.stderr)")
        if json {
            let j = try #require(jsonLine(r.stdout), "not one whole JSON document: \(r.stdout.suffix(200))")
            #expect(j["schema"] as? String == "thermtop.status/1")
            #expect(j["issues"] is [Any])
            #expect(r.stdout.hasSuffix("}\n"))
        } else {
            #expect(r.stdout.contains("State      nominal"), "\(r.stdout)")
        }
        // Without a rule nothing is checked and nothing is said.
        let quiet = try Run.thermtop(["status", "--no-config", "--sysfs-root", fixture])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func fahrenheitIsAcceptedWithoutTheOldNotDrawnWarning() throws {
        // °F is drawn by the dashboard now (DashboardReplayForecastUnitsTests); nothing warns.
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.toml")
        try Run.write("units = \"fahrenheit\"\n", to: file)
        let r = try Run.thermtop(["status", "--config", file.path, "--sysfs-root", fixture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("not drawn"), "\(r.stderr)")
    }

    @Test func configThresholdsNamesAndHidingChangeTheJSON() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Run.thermtop(["status", "--json", "--sysfs-root", fixture])
        let b = try #require(jsonLine(before.stdout))
        #expect(b["thermal_state"] as? String == "nominal")
        // The default file location: $XDG_CONFIG_HOME/thermtop/config.toml.
        let xdg = dir.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: xdg.appendingPathComponent("thermtop"), withIntermediateDirectories: true)
        try Run.write("""
            [[sensor]]
            match = "platform-coretemp.0/coretemp/*"
            serious = 50
            [[sensor]]
            match = "platform-coretemp.0/coretemp/Package id 0"
            name = "CPU"
            [[sensor]]
            match = "acpi-*"
            hide = true
            [[sensor]]
            match = "pci-0000:00:04.0/thermal/B0D?"
            hide = true
            """, to: xdg.appendingPathComponent("thermtop/config.toml"))
        let after = try Run.thermtop(["status", "--json", "--sysfs-root", fixture], env: ["XDG_CONFIG_HOME": xdg.path])
        let a = try #require(jsonLine(after.stdout), "\(after.stderr)")
        #expect(a["thermal_state"] as? String == "serious")
        #expect(a["tier"] as? String == "minimal")
        let sensors = try #require(a["sensors"] as? [[String: Any]])
        let cpu = try #require(sensors.first { $0["id"] as? String == "platform-coretemp.0/coretemp/Package id 0" })
        #expect(cpu["name"] as? String == "CPU")
        #expect(cpu["serious_rule"] as? String == "configured")
        #expect(cpu["serious_celsius"] as? Double == 50)
        let hidden = sensors.filter { $0["hidden"] as? Bool == true }.compactMap { $0["id"] as? String }
        #expect(Set(hidden) == ["acpi-LNXTHERM:00/thermal/acpitz", "pci-0000:00:04.0/thermal/B0D4"])
        // Text output leaves hidden sensors out and says so.
        let text = try Run.thermtop(["status", "--sysfs-root", fixture], env: ["XDG_CONFIG_HOME": xdg.path])
        #expect(text.stdout.contains("2 hidden by the config file"), "\(text.stdout)")
        #expect(!text.stdout.contains("acpitz "))
        #expect(text.stdout.contains("CPU "))
        // --no-config ignores the file.
        let none = try Run.thermtop(["status", "--json", "--no-config", "--sysfs-root", fixture], env: ["XDG_CONFIG_HOME": xdg.path])
        #expect(jsonLine(none.stdout)?["thermal_state"] as? String == "nominal")
    }
}

@Suite(.serialized) struct WatchEndToEndTests {
    @Test func watchPrintsOneLinePerChangeRunsTheHookAndExitsWhenTheSourceGoes() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let envFile = dir.appendingPathComponent("hook.env")
        // An explicit shell chosen by the user: thermtop splices nothing into it; the values
        // arrive only through the environment.
        let hook = "sh -c 'env | grep ^THERMTOP_ | sort >> \"$0\"; echo --- >> \"$0\"' \(envFile.path)"
        let w = try LiveProcess(["watch", "--json", "--sysfs-root", root.path, "--delay", "0.2",
                                 "--on-change", hook, "--on-change-min-interval", "0"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 }, "no start line; stderr: \(w.stderr)")
        let start = try #require(jsonLine(w.lines[0]))
        #expect(start["event"] as? String == "start")
        #expect(start["thermal_state"] as? String == "nominal")
        #expect(start["schema"] as? String == "thermtop.status/1")
        #expect(start["sensors"] == nil, "watch lines carry the header only")
        #expect((start["policy"] as? [String: Any])?["refresh_interval_seconds"] as? Double == 30)

        // acpitz's passive trip is 95 °C.
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        #expect(w.wait { w.lines.count >= 2 }, "no change line; stderr: \(w.stderr)")
        let change = try #require(jsonLine(w.lines[1]))
        #expect(change["event"] as? String == "change")
        #expect(change["thermal_state"] as? String == "serious")
        #expect(change["previous_thermal_state"] as? String == "nominal")
        #expect(change["tier"] as? String == "minimal")
        #expect(Set(change["changed"] as? [String] ?? []) == ["thermal_state", "tier"])

        #expect(w.wait { ((try? String(contentsOf: envFile, encoding: .utf8)) ?? "").contains("---") }, "hook never ran")
        let env = try String(contentsOf: envFile, encoding: .utf8)
        #expect(env.contains("THERMTOP_STATE=serious"))
        #expect(env.contains("THERMTOP_PREVIOUS_STATE=nominal"))
        #expect(env.contains("THERMTOP_TIER=minimal"))
        #expect(env.contains("THERMTOP_LOW_POWER=off"))
        #expect(env.contains("THERMTOP_REASON=serious: acpitz 96.0 °C"), "\(env)")

        // Nothing changes: no new line.
        Thread.sleep(forTimeInterval: 0.8)
        #expect(w.lines.count == 2)

        // The source goes away: a message and a non-zero exit.
        try FileManager.default.removeItem(at: root)
        #expect(w.wait { !w.process.isRunning }, "watch kept running without its source")
        #expect(w.process.terminationStatus == 3)
        #expect(w.stderr.contains("disappeared"))
    }

    @Test func theHookRunsAtMostOncePerIntervalAndTheLastChangeStillRuns() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let envFile = dir.appendingPathComponent("hook.env")
        let hook = "sh -c 'echo \"$THERMTOP_PREVIOUS_STATE>$THERMTOP_STATE\" >> \"$0\"' \(envFile.path)"
        let w = try LiveProcess(["watch", "--sysfs-root", root.path, "--delay", "0.2",
                                 "--on-change", hook, "--on-change-min-interval", "2"])
        defer { w.stop() }
        let temp = root.appendingPathComponent("class/thermal/thermal_zone0/temp")
        #expect(w.wait { w.lines.count >= 1 })
        try Run.write("96000\n", to: temp)             // ≥ passive trip 95 °C: nominal → serious, runs at once
        #expect(w.wait { w.lines.count >= 2 })
        try Run.write("86000\n", to: temp)             // below 95 − hysteresis, above fair 85 °C: fair
        #expect(w.wait { w.lines.count >= 3 }, "\(w.lines)")
        let t0 = Date()
        let runsSoon = (try? String(contentsOf: envFile, encoding: .utf8)) ?? ""
        #expect(runsSoon.split(separator: "\n") == ["nominal>serious"], "the second change waits for the interval")
        // The waiting change runs when the interval ends, told what the hook last heard.
        #expect(w.wait(6) { ((try? String(contentsOf: envFile, encoding: .utf8)) ?? "").split(separator: "\n").count >= 2 })
        #expect(Date().timeIntervalSince(t0) < 4)
        let runs = try String(contentsOf: envFile, encoding: .utf8).split(separator: "\n")
        #expect(runs == ["nominal>serious", "serious>fair"])
    }

    @Test func watchTextLinesNameTheStateTierAndReason() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let w = try LiveProcess(["watch", "--simulate", "--simulate-state", "critical", "--delay", "0.2"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 })
        let line = w.lines[0]
        #expect(line.contains("critical (simulated)"))
        #expect(line.contains("tier minimal"))
        #expect(line.contains("low power off"))
    }

    @Test("every watch line on the simulated laptop or with forced low power says it is simulated")
    func watchTextLinesMarkWhatIsSimulated() throws {
        let w = try LiveProcess(["watch", "--simulate", "--delay", "0.2"])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 })
        #expect(w.lines[0].contains("(simulated laptop)"), "\(w.lines)")
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let forced = try LiveProcess(["watch", "--sysfs-root", root.path, "--low-power", "on", "--delay", "0.2"])
        defer { forced.stop() }
        #expect(forced.wait { forced.lines.count >= 1 })
        #expect(forced.lines[0].contains("low power on (simulated)"), "\(forced.lines)")
        #expect(!forced.lines[0].contains("simulated laptop"), "\(forced.lines)")
    }
}

@Suite(.serialized) struct ExportEndToEndTests {
    /// Parses a textfile with prometheus_client's parser (Debian's python3-prometheus-client)
    /// and returns its families as JSON.
    static func parse(_ url: URL) throws -> [[String: Any]] {
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            text = open(sys.argv[1]).read()
            out = []
            for f in text_string_to_metric_families(text):
                out.append({"name": f.name, "type": f.type, "help": f.documentation,
                            "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]})
            print(json.dumps(out))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, url.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readToEndRetryingEINTR()
        let e = err.fileHandleForReading.readToEndRetryingEINTR()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "the Prometheus parser rejected the file (is python3-prometheus-client installed?): \(String(decoding: e, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: o) as? [[String: Any]])
    }

    @Test(.needs(.prometheusClient)) func theTextfileParsesWithNamesTypesHelpAndEscapedLabels() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        // A hostile label from the kernel side: quotes, a backslash and a newline.
        let hostile = "Pkg \"0\" \\ two\nlines"
        try Run.write(hostile + "\n", to: root.appendingPathComponent("class/hwmon/hwmon1/temp2_label"))
        let nvme = "pci-0000:02:00.0/nvme/Composite"
        let cfg = dir.appendingPathComponent("c.toml")
        try Run.write("[[sensor]]\nmatch = \"\(nvme)\"\nname = 'NVMe \"fast\" C:\\drive'\n[[sensor]]\nmatch = \"pci-*/nvme/Sensor 2\"\nhide = true\n", to: cfg)
        let out = dir.appendingPathComponent("thermtop.prom")
        let r = try Run.thermtop(["export", "--textfile", out.path, "--sysfs-root", root.path, "--config", cfg.path])
        #expect(r.status == 0, "\(r.stderr)")
        // Atomic: only the final file is left in the folder.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)

        let families = try Self.parse(out)
        let byName = Dictionary(families.map { ($0["name"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        for f in families {
            #expect(!(f["help"] as? String ?? "").isEmpty, "\(f["name"]!) has no HELP")
        }
        let expectedTypes: [String: String] = [
            "thermtop_thermal_state_level": "gauge", "thermtop_thermal_state": "gauge", "thermtop_tier_level": "gauge",
            "thermtop_tier": "gauge", "thermtop_low_power": "gauge", "thermtop_sensor_celsius": "gauge",
            "thermtop_sensor_threshold_celsius": "gauge", "thermtop_battery_percent": "gauge", "thermtop_battery_watts": "gauge",
            "thermtop_battery_seconds_to_empty": "gauge", "thermtop_throttle_core_events": "counter",
            "thermtop_throttle_package_events": "counter", "thermtop_read_errors": "counter",
        ]
        for (name, type) in expectedTypes {
            #expect(byName[name]?["type"] as? String == type, "\(name)")
        }
        func samples(_ n: String) -> [[String: Any]] { (byName[n]?["samples"] as? [[String: Any]]) ?? [] }
        // One-hot state: exactly one series is 1.
        let hot = samples("thermtop_thermal_state").filter { $0["value"] as? Double == 1 }
        #expect(hot.count == 1)
        #expect((hot.first?["labels"] as? [String: String])?["state"] == "nominal")
        #expect(samples("thermtop_thermal_state").count == 4)
        // Sensor labels round-trip through escaping.
        let names = samples("thermtop_sensor_celsius").compactMap { ($0["labels"] as? [String: String])?["name"] }
        // Control characters become `?` (the screen's rule); quotes and backslashes round-trip.
        #expect(names.contains("coretemp \(hostile.replacingOccurrences(of: "\n", with: "?"))"), "\(names)")
        #expect(names.contains("NVMe \"fast\" C:\\drive"))
        #expect(!samples("thermtop_sensor_celsius").contains { ($0["labels"] as? [String: String])?["id"] == "pci-0000:02:00.0/nvme/Sensor 2" },
                "hidden sensors are not exported")
        let pkg = samples("thermtop_sensor_celsius").first { ($0["labels"] as? [String: String])?["id"] == "platform-coretemp.0/coretemp/Package id 0" }
        #expect(pkg?["value"] as? Double == 53)
        #expect((pkg?["labels"] as? [String: String])?["kind"] == "hwmon")
        let thresholds = samples("thermtop_sensor_threshold_celsius").filter { ($0["labels"] as? [String: String])?["id"] == "acpi-LNXTHERM:00/thermal/acpitz" }
        #expect(Set(thresholds.compactMap { ($0["labels"] as? [String: String])?["level"] }) == ["fair", "serious", "critical"])
        #expect(samples("thermtop_battery_percent").first?["value"] as? Double != nil)
        // A counter family's sample carries the _total suffix.
        #expect(samples("thermtop_read_errors").first?["name"] as? String == "thermtop_read_errors_total")
    }

    @Test(.needs(.prometheusClient)) func fansAreExportedInRPM() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("fans.prom")
        let r = try Run.thermtop(["export", "--textfile", out.path, "--sysfs-root", Thermtop.fixtures.appendingPathComponent("fans-desktop").path])
        #expect(r.status == 0, "\(r.stderr)")
        let fam = try #require(try Self.parse(out).first { $0["name"] as? String == "thermtop_fan_rpm" })
        #expect(fam["type"] as? String == "gauge")
        let samples = (fam["samples"] as? [[String: Any]]) ?? []
        let fan1 = samples.first { ($0["labels"] as? [String: String])?["id"] == "platform-nct6775.656/nct6798/fan1" }
        #expect(fan1?["value"] as? Double == 1180)
    }

    @Test func exportEveryRewritesTheFile() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try Run.fixtureCopy("intel-laptop", in: dir)
        let out = dir.appendingPathComponent("t.prom")
        let p = try LiveProcess(["export", "--textfile", out.path, "--every", "1", "--sysfs-root", root.path])
        defer { p.stop() }
        func text() -> String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        #expect(p.wait { text().contains("thermtop_thermal_state{state=\"nominal\"} 1") }, "\(p.stderr)")
        try Run.write("96000\n", to: root.appendingPathComponent("class/thermal/thermal_zone0/temp"))
        #expect(p.wait(8) { text().contains("thermtop_thermal_state{state=\"serious\"} 1") })
    }

    @Test func aMissingFolderIsAClearError() throws {
        let r = try Run.thermtop(["export", "--textfile", "/nonexistent-thermtop/x.prom", "--simulate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("does not exist"))
    }
}

@Suite struct CompletionTests {
    static let subcommands = ["status", "watch", "export", "config"]

    static func script(_ shell: String) throws -> String {
        let r = try Run.thermtop(["--generate-completion-script", shell])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    static func shellCheck(_ shell: String, _ args: [String], script: String) throws -> Int32 {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("thermtop.\(shell)")
        try Run.write(script, to: file)
        let exe = try #require(["/usr/bin/\(shell)", "/bin/\(shell)"].first { FileManager.default.isExecutableFile(atPath: $0) },
                               "\(shell) is not installed (.ci/run installs it)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args + [file.path]
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theScriptNamesEverySubcommandAndOption(shell: String) throws {
        let s = try Self.script(shell)
        for sub in Self.subcommands { #expect(s.contains(sub), "\(shell) script lacks \(sub)") }
        for option in ["--config", "--no-config", "--on-change", "--on-change-min-interval", "--textfile", "--every", "--print-default", "--check", "--json"] {
            // fish spells long options `-l name`.
            let spelled = shell == "fish" ? "-l '\(option.dropFirst(2))'" : option
            #expect(s.contains(spelled), "\(shell) script lacks \(option)")
        }
    }

    @Test func theBashScriptParses() throws {
        #expect(try Self.shellCheck("bash", ["-n"], script: try Self.script("bash")) == 0)
    }

    @Test(.needs(.zsh)) func theZshScriptParses() throws {
        #expect(try Self.shellCheck("zsh", ["-n"], script: try Self.script("zsh")) == 0)
    }

    @Test(.needs(.fish)) func theFishScriptParses() throws {
        #expect(try Self.shellCheck("fish", ["--no-execute"], script: try Self.script("fish")) == 0)
    }
}
