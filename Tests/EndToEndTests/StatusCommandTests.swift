import Foundation
import Testing

/// Runs the built `thermtop` executable (the test target depends on it, so it is built first).
enum Thermtop {
    static let repo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()     // EndToEndTests
        .deletingLastPathComponent()     // Tests
        .deletingLastPathComponent()     // repository root
    static let fixtures = repo.appendingPathComponent("Tests/Fixtures")

    /// `$THERMTOP_BINARY` when set (CI's release run), as the tmux tests take it; else the
    /// products folder holding the test runner, which holds `thermtop` too; else the default
    /// build folder.
    static let binary: URL? = {
        if let env = ProcessInfo.processInfo.environment["THERMTOP_BINARY"], !env.isEmpty { return URL(fileURLWithPath: env) }
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
        candidates += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(repo.appendingPathComponent(".build/debug"))
        for dir in candidates {
            let url = dir.appendingPathComponent("thermtop")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue,
               FileManager.default.isExecutableFile(atPath: url.path) {
                return url
            }
        }
        return nil
    }()

    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }

        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any], "not a JSON object: \(text)")
        }
    }

    static func run(_ arguments: [String]) throws -> Result {
        let exe = try #require(binary, "thermtop executable not found next to the tests or in .build/debug")
        return try spawn(exe, arguments, environment: ["COLUMNS": "120"])
    }

    /// Runs `executable` to completion with stdin from /dev/null and the test's environment
    /// changed by `environment` (a nil value removes a variable). The one process runner of the
    /// end-to-end tests that check output; tmux tests use `TmuxE2E.run`. Both spawn through
    /// `spawnToCompletion` (not Foundation's `Process`: see there).
    static func spawn(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:]) throws -> Result {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let r = spawnToCompletion(executable.path, arguments, environment: env, stderr: .separate)
        if let failure = r.failure { throw SpawnFailure(message: failure) }
        return Result(status: r.status, stdout: Data(r.stdout), stderr: String(decoding: r.stderr, as: UTF8.self))
    }

    struct SpawnFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func status(_ fixture: String, _ extra: [String] = []) throws -> Result {
        try run(["status", "--sysfs-root", fixtures.appendingPathComponent(fixture).path] + extra)
    }
}

private func num(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }
private func obj(_ v: Any?) -> [String: Any]? { v as? [String: Any] }
private func arr(_ v: Any?) -> [[String: Any]] { (v as? [[String: Any]]) ?? [] }

struct FixtureExpectation: Sendable, CustomTestStringConvertible {
    let fixture: String
    /// `unknown`: nothing measured (no thermal sensor or cooling device), which `status` exits 69 for.
    var state = "nominal"
    var tier = "full"
    var lowPower = false
    /// nil: no battery (`battery` is null).
    var percent: ClosedRange<Double>? = nil
    var secondsToEmpty: Set<Double>? = nil
    /// .some(nil): `ac_online` is null.
    var acOnline: Bool?? = .some(nil)
    var profile: String? = nil
    var sensors: Int
    var testDescription: String { fixture }
    var measured: Bool { state != "unknown" }
    /// EX_UNAVAILABLE when nothing was measured (docs/verdict.md), else 0.
    var exitStatus: Int32 { measured ? 0 : 69 }
}

@Suite("thermtop status end to end")
struct StatusCommandTests {
    static let fixtures: [FixtureExpectation] = [
        // Battery-only captures: no thermal sensor, so the state is unknown, never nominal.
        FixtureExpectation(fixture: "thinkpad-lgc-45n1-2018-procfs", state: "unknown", percent: 98...98, secondsToEmpty: [36857], acOnline: false, sensors: 0),
        FixtureExpectation(fixture: "thinkpad-lgc-45n1-2019-node-exporter", state: "unknown", percent: 81...81, secondsToEmpty: [26327], acOnline: false, sensors: 0),
        FixtureExpectation(fixture: "legion-go-s-couchside", state: "unknown", percent: 58...58, secondsToEmpty: [5166], acOnline: false, profile: "custom", sensors: 0),
        FixtureExpectation(fixture: "lenovo-lnv-5b11c73244-batterarch", state: "unknown", percent: 29...29, secondsToEmpty: [7730], sensors: 0),
        FixtureExpectation(fixture: "amd-ryzen-2x-nvme-telegraf", sensors: 8),
        FixtureExpectation(fixture: "amdgpu-rx5500xt-lact", sensors: 3),
        FixtureExpectation(fixture: "amdgpu-vangogh-steamdeck-lact", sensors: 1),
        FixtureExpectation(fixture: "radeon-hd7870-lact", sensors: 1),
        FixtureExpectation(fixture: "intel-laptop", percent: 70...70, secondsToEmpty: [15468], acOnline: false, profile: "balanced", sensors: 14),
        FixtureExpectation(fixture: "intel-laptop-hot", state: "serious", tier: "minimal", lowPower: true, percent: 15...15,
                           secondsToEmpty: [982], acOnline: false, profile: "low-power", sensors: 14),
        FixtureExpectation(fixture: "amd-desktop", sensors: 7),
        FixtureExpectation(fixture: "arm-board", sensors: 2),
        FixtureExpectation(fixture: "two-battery-laptop", percent: 63.7...63.9, secondsToEmpty: [12791, 12793], acOnline: false, sensors: 1),
        FixtureExpectation(fixture: "broken", percent: 0...100, acOnline: .some(nil), sensors: 13),
    ]

    @Test("status --json agrees with each fixture's expectations", arguments: fixtures)
    func json(_ e: FixtureExpectation) throws {
        let r = try Thermtop.status(e.fixture, ["--json"])
        #expect(r.status == e.exitStatus, "stderr: \(r.stderr)")
        let j = try r.json()
        #expect(j["schema"] as? String == "thermtop.status/1")
        #expect(j["thermal_state"] as? String == e.state)
        #expect(j["measured"] as? Bool == e.measured)
        #expect(j["nothing_readable"] as? Bool == !e.measured)
        if e.measured {
            #expect(j["measured_thermal_state"] as? String == e.state)
        } else {
            #expect(j["measured_thermal_state"] is NSNull)
        }
        #expect(j["thermal_state_simulated"] as? Bool == false)
        #expect(obj(j["source"])?["simulated"] as? Bool == false)
        #expect(j["tier"] as? String == e.tier)
        #expect(obj(j["low_power"])?["enabled"] as? Bool == e.lowPower)
        #expect(j["no_sensors"] as? Bool == false)
        let refresh: Double = ["full": 30, "reduced": 60, "minimal": 180][e.tier]!
        #expect(num(obj(j["policy"])?["refresh_interval_seconds"]) == refresh)
        #expect(obj(j["policy"])?["prefetch"] as? Bool == (e.tier == "full"))

        if let range = e.percent {
            let battery = try #require(obj(j["battery"]), "battery is null")
            let pct = try #require(num(battery["percent"]))
            #expect(range.contains(pct), "percent \(pct)")
            if let s = e.secondsToEmpty {
                #expect(num(battery["seconds_to_empty"]).map { s.contains($0) } == true,
                        "seconds_to_empty \(String(describing: battery["seconds_to_empty"]))")
            } else {
                #expect(battery["seconds_to_empty"] is NSNull)
            }
        } else {
            #expect(j["battery"] is NSNull)
            #expect(arr(j["batteries"]).isEmpty)
        }
        switch e.acOnline {
        case .some(.some(let online)): #expect(j["ac_online"] as? Bool == online)
        default: #expect(j["ac_online"] is NSNull)
        }
        if let profile = e.profile {
            #expect(j["platform_profile"] as? String == profile)
        } else {
            #expect(j["platform_profile"] is NSNull)
        }
        #expect(arr(j["sensors"]).count == e.sensors)
    }

    @Test("status text names the state and the tier", arguments: fixtures)
    func text(_ e: FixtureExpectation) throws {
        let r = try Thermtop.status(e.fixture)
        #expect(r.status == e.exitStatus, "stderr: \(r.stderr)")
        #expect(r.text.contains("State      \(e.state)\(e.measured ? "\n" : "  (NOT MEASURED")"))
        #expect(r.text.contains("Tier       \(e.tier)"))
        #expect(r.text.contains("Low power  \(e.lowPower ? "on" : "off")"))
        #expect(!r.text.contains("SIMULATED"))
        #expect(!r.stdout.contains(0x1B), "raw ESC in the output")
    }

    @Test("real captures: battery and hwmon fields in the JSON agree with expected.json")
    func realCaptures() throws {
        let expected = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: Thermtop.fixtures.appendingPathComponent("expected.json"))) as? [String: Any])
        #expect(expected.count == 8)
        for (name, value) in expected {
            let e = try #require(obj(value))
            let j = try Thermtop.status(name, ["--json"]).json()
            let batteries = arr(j["batteries"])
            let eb = arr(e["batteries"])
            #expect(batteries.count == eb.count, "\(name)")
            for (got, want) in zip(batteries, eb) {
                #expect(got["name"] as? String == want["name"] as? String)
                #expect(got["status"] as? String == want["status"] as? String, "\(name)")
                #expect(got["percent_source"] as? String == want["percent_source"] as? String, "\(name)")
                for key in ["percent", "computed_percent", "watts", "seconds_to_empty", "health_percent"] {
                    let g = num(got[key]), w = num(want[key])
                    #expect(g != nil && w != nil && abs(g! - w!) <= 0.006, "\(name) \(key): \(String(describing: g)) vs \(String(describing: w))")
                }
                #expect(got["seconds_to_full"] is NSNull)
            }
            let hwmon = arr(j["hwmon"])
            for want in arr(e["hwmon"]) {
                let got = try #require(hwmon.first { $0["device"] as? String == want["device"] as? String
                    && $0["channel"] as? String == want["channel"] as? String }, "\(name) \(want)")
                for (key, jsonKey) in [("celsius", "celsius"), ("max", "max_celsius"), ("crit", "crit_celsius"),
                                       ("min", "min_celsius"), ("emergency", "emergency_celsius"), ("crit_hyst", "crit_hyst_celsius")]
                where want.keys.contains(key) {
                    if want[key] is NSNull {
                        #expect(got[jsonKey] is NSNull, "\(name) \(got["device"]!)/\(got["channel"]!) \(jsonKey) should be null")
                    } else {
                        #expect(num(got[jsonKey]) == num(want[key]), "\(name) \(got["device"]!)/\(got["channel"]!) \(jsonKey)")
                    }
                }
            }
            #expect((j["platform_profile"] as? String) == (e["platform_profile"] as? String), "\(name)")
        }
    }

    @Test("a --sysfs-root relative to the working directory reports the same sensors, device names and ids as the absolute path")
    func relativeRootSameAsAbsolute() throws {
        let absolute = Thermtop.fixtures.appendingPathComponent("amd-desktop").path
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + absolute.drop { $0 == "/" }
        func sensors(_ root: String) throws -> [String] {
            let r = try Thermtop.run(["status", "--json", "--no-config", "--sysfs-root", root])
            #expect(r.status == 0, "\(r.stderr)")
            return arr(try r.json()["sensors"]).map { "\($0["id"] ?? "") \($0["display_name"] ?? "")" }
        }
        let want = try sensors(absolute)
        #expect(want.contains { $0.hasPrefix("pci-0000:02:00.0/nvme/") }, "\(want)")
        #expect(!want.contains { $0.hasPrefix("unlinked/") }, "\(want)")
        #expect(try sensors(relative) == want)
    }

    @Test("intel-laptop-hot: the JSON carries the deciding sensor, its reason and both low-power reasons")
    func hotReasons() throws {
        let j = try Thermtop.status("intel-laptop-hot", ["--json"]).json()
        // coretemp's max = crit = 100 °C warns of nothing: Core 1 is serious at crit − 15 °C and,
        // 6 °C past it, decides; the package row is serious at x86_pkg_temp's passive trip.
        #expect(j["decided_by"] as? String == "platform-coretemp.0/coretemp/Core 1")
        #expect((j["reason"] as? String)?.contains("coretemp Core 1 91.0 °C ≥ 85.0 °C (hwmon crit 100.0 °C − 15.0 °C)") == true)
        let package = arr(j["sensors"]).first { $0["id"] as? String == "platform-coretemp.0/coretemp/Package id 0" }
        #expect(package?["level"] as? String == "serious")
        #expect((package?["reason"] as? String)?.contains("coretemp Package id 0 91.0 °C ≥ x86_pkg_temp passive trip 90.0 °C (clears below 88.0 °C)") == true)
        let reasons = obj(j["low_power"])?["reasons"] as? [String] ?? []
        #expect(reasons.contains("platform_profile is low-power"))
        #expect(reasons.contains("battery 15 % ≤ 20 % and discharging"))
        #expect(obj(j["policy"])?["inference"] as? String == "reduced")
        #expect(num(obj(j["policy"])?["inference_every_nth_frame"]) == 3)
        #expect(obj(j["policy"])?["animations"] as? Bool == false)
    }

    @Test("amd-desktop: the sleeping GPU is listed asleep with no temperature, and its values never appear")
    func asleepGPU() throws {
        let j = try Thermtop.status("amd-desktop", ["--json"]).json()
        let dgpu = arr(j["hwmon"]).filter { $0["device"] as? String == "hwmon2" }
        #expect(dgpu.count == 2)
        #expect(dgpu.allSatisfy { $0["asleep"] as? String == "D3cold" && $0["celsius"] is NSNull })
        #expect(!arr(j["hwmon"]).contains { num($0["celsius"]) == 33 || num($0["celsius"]) == 34 })
        #expect(arr(j["sensors"]).filter { $0["unknown_reason"] as? String == "device-asleep" }.count == 2)
        #expect(arr(j["issues"]).isEmpty)
    }

    @Test("broken: hostile names are escaped in JSON, and every broken zone has its reason")
    func brokenJSON() throws {
        let r = try Thermtop.status("broken", ["--json"])
        #expect(!r.stdout.contains(0x1B))
        let j = try r.json()
        let zones = arr(j["zones"])
        #expect(zones.first { $0["id"] as? String == "thermal_zone7" }?["type"] as? String == "evil\u{1B}[2Jzone\u{07}")
        #expect(!zones.contains { $0["id"] as? String == "thermal_zone9" })
        let reasons = Dictionary(uniqueKeysWithValues: arr(j["sensors"]).compactMap { s -> (String, String)? in
            guard let id = s["location"] as? String, let r = s["unknown_reason"] as? String else { return nil }
            return (id, r)
        })
        #expect(reasons["thermal_zone0"] == "empty")
        #expect(reasons["thermal_zone1"] == "not-a-number")
        #expect(reasons["thermal_zone2"] == "implausible")
        #expect(reasons["thermal_zone4"] == "not-a-file")
        #expect(reasons["thermal_zone5"] == "io-error")
        #expect(arr(j["issues"]).contains { $0["file"] as? String == "class/thermal/thermal_zone9" && $0["reason"] as? String == "vanished" })
        let bat = try #require(arr(j["batteries"]).first)
        #expect(num(bat["percent"]).map { $0 <= 100 } == true)
        #expect(bat["seconds_to_empty"] is NSNull)
    }

    @Test("--simulate shows the simulated laptop, marked SIMULATED")
    func simulate() throws {
        let text = try Thermtop.run(["status", "--simulate"])
        #expect(text.status == 0)
        #expect(text.text.contains("SIMULATED"))
        #expect(text.text.contains("x86_pkg_temp"))
        let j = try Thermtop.run(["status", "--simulate", "--json"]).json()
        #expect(obj(j["source"])?["simulated"] as? Bool == true)
        #expect(obj(j["source"])?["label"] as? String == "simulated laptop")
        #expect(j["no_sensors"] as? Bool == false)
    }

    @Test("--simulate-state critical forces the state, marks it simulated and makes the tier minimal")
    func simulateState() throws {
        let r = try Thermtop.status("intel-laptop", ["--simulate-state", "critical", "--json"])
        #expect(r.status == 0)
        let j = try r.json()
        #expect(j["thermal_state"] as? String == "critical")
        #expect(j["thermal_state_simulated"] as? Bool == true)
        #expect(j["measured_thermal_state"] as? String == "nominal")
        #expect(j["tier"] as? String == "minimal")
        #expect(obj(j["policy"])?["inference"] as? String == "suspended")
        #expect((j["reason"] as? String)?.contains("SIMULATED") == true)
        let text = try Thermtop.status("intel-laptop", ["--simulate-state", "critical"])
        #expect(text.text.contains("State      critical"))
        #expect(text.text.contains("SIMULATED"))
        #expect(text.text.contains("Tier       minimal"))
    }

    @Test("--low-power on forces low power, marked simulated")
    func lowPowerForced() throws {
        let j = try Thermtop.status("intel-laptop", ["--low-power", "on", "--json"]).json()
        #expect(obj(j["low_power"])?["enabled"] as? Bool == true)
        #expect(obj(j["low_power"])?["simulated"] as? Bool == true)
        #expect(obj(j["low_power"])?["measured"] as? Bool == false)
        #expect(j["tier"] as? String == "reduced")
    }

    @Test("a --sysfs-root that does not exist exits non-zero with a clear message on stderr")
    func badRoot() throws {
        let r = try Thermtop.run(["status", "--sysfs-root", "/nonexistent"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/nonexistent"))
        #expect(r.stderr.contains("no such directory"))
        #expect(!r.text.contains("State"))
        let json = try Thermtop.run(["status", "--json", "--sysfs-root", "/nonexistent"])
        #expect(json.status != 0)
    }

    @Test("a --sysfs-root that is a file is refused")
    func fileRoot() throws {
        let r = try Thermtop.run(["status", "--sysfs-root", Thermtop.fixtures.appendingPathComponent("README.md").path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("not a directory"))
    }

    @Test("a sysfs root with an empty class/ says there are no thermal sensors, reads unknown (never nominal) and exits 69")
    func emptyRoot() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("class"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Thermtop.run(["status", "--sysfs-root", dir.path])
        #expect(r.status == 69, "stderr: \(r.stderr)")
        #expect(r.text.contains("No thermal sensors"))
        #expect(r.text.contains("State      unknown  (NOT MEASURED"))
        #expect(!r.text.contains("State      nominal"))
        let json = try Thermtop.run(["status", "--json", "--sysfs-root", dir.path])
        #expect(json.status == 69)
        let j = try json.json()
        #expect(j["no_sensors"] as? Bool == true)
        #expect(j["thermal_state"] as? String == "unknown")
        #expect(j["measured"] as? Bool == false)
        #expect(j["battery"] is NSNull)
    }
}
