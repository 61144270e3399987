import Foundation
import Testing

/// Issue 7 §6: `import Thermtop` must not inject generic names into its users' code. These tests
/// look at the built modules the way a user's compiler does (outside the package, so `package`
/// declarations are invisible).
@Suite struct LibraryNamesTests {
    /// `Modules/` next to the built `thermtop` holds the library's .swiftmodule files.
    static var modules: String? {
        guard let bin = Thermtop.binary else { return nil }
        let dir = bin.deletingLastPathComponent().appendingPathComponent("Modules").path
        return FileManager.default.fileExists(atPath: dir + "/Thermtop.swiftmodule") ? dir : nil
    }

    /// The C modules ThermtopCore and ThermtopLinux import must be findable to load them.
    static var clangMaps: [String] {
        ["CLinux", "CSystemd", "CZlib", "CNVML"].flatMap {
            ["-Xcc", "-fmodule-map-file=" + Thermtop.repo.appendingPathComponent("Sources/\($0)/module.modulemap").path]
        }
    }

    /// Runs a toolchain program (`swift`, `swiftc`) found on PATH, as a user's build would.
    static func tool(_ name: String, _ args: [String]) throws -> Thermtop.Result {
        try Thermtop.spawn(URL(fileURLWithPath: "/usr/bin/env"), [name] + args)
    }

    /// Every public top-level name of a library module, from its symbol graph.
    static func publicNames(_ module: String) throws -> [String] {
        let modules = try #require(modules, "built modules not found next to thermtop")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-sg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        var u = utsname(); uname(&u)
        let machine = withUnsafeBytes(of: &u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let r = try tool("swift", ["symbolgraph-extract", "-module-name", module, "-I", modules,
                           "-target", "\(machine)-unknown-linux-gnu", "-minimum-access-level", "public",
                           "-output-dir", out.path] + clangMaps)
        #expect(r.status == 0, "symbolgraph-extract failed: \(r.stderr)")
        let data = try Data(contentsOf: out.appendingPathComponent("\(module).symbols.json"))
        let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let symbols = try #require(graph["symbols"] as? [[String: Any]])
        return symbols.compactMap { s in
            guard let path = s["pathComponents"] as? [String], path.count == 1 else { return nil }
            return path[0]
        }
    }

    /// Each public top-level name says which domain it belongs to, so it cannot collide with a
    /// user's `Battery`, `Fan`, `Recording`, `Format`…: a domain word followed by more name.
    static let domainPrefixes = [
        "Thermal", "thermal", "Sysfs", "Sensor", "Monitor", "Quality", "Cooling", "Hwmon", "Forecast",
        "Reading", "LowPower", "PowerProfiles", "PowerProfile", "Uevent", "LinuxWake", "Throttle", "Trip", "Classifier",
        "Fan", "EventSource", "Inference", "Simulated", "ManualMonitor",
    ]

    /// A name each library module must have, so an empty symbol graph cannot pass.
    static let expectedName = ["ThermtopCore": "ThermalClassifier", "ThermtopLinux": "SysfsSource",
                               "Thermtop": "ThermalProcessMonitor", "ThermtopMetrics": "ThermalMetricsReporter"]

    @Test("every public top-level name of the library's modules starts with a domain word",
          arguments: ["ThermtopCore", "ThermtopLinux", "Thermtop", "ThermtopMetrics"])
    func publicNamesAreDomainPrefixed(module: String) throws {
        let names = try Self.publicNames(module)
        #expect(names.contains(Self.expectedName[module]!), "symbol graph looks empty: \(names)")
        let generic = names.filter { name in
            !Self.domainPrefixes.contains { p in
                // thermalHeadroom(celsius:…) passes through "thermal" + "H".
                name.hasPrefix(p) && name.count > p.count
                    && name[name.index(name.startIndex, offsetBy: p.count)].isUppercase
            }
        }
        #expect(generic.isEmpty, "generic public names in \(module): \(generic.sorted())")
    }

    @Test("a user's code sees none of the generic names and gets the prefixed ones")
    func genericNamesAreNotVisibleToUsers() throws {
        let modules = try #require(Self.modules, "built modules not found next to thermtop")
        let banned = ["Battery", "BatteryStatus", "CombinedBattery", "Fan", "FanState", "Classifier", "Reading",
                      "Snapshot", "Format", "JSONValue", "Overrides", "Threshold", "Glob", "Recording",
                      "RecordingError", "StatusReport", "ConfigFile", "ConfigError", "UserConfig",
                      "TemperatureUnit", "TemperatureSensor", "SystemClock", "ManualClock", "DeviceInfo",
                      "PowerAdapter", "PowerMeter", "ChangeHint", "WakeSource", "SensorSource", "MetricsWriter"]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-user-\(UUID().uuidString.prefix(8)).swift")
        defer { try? FileManager.default.removeItem(at: file) }
        let good = ["ThermalBattery", "ThermalFan", "ThermalClassifier", "ThermalSnapshot", "ThermalOverrides",
                    "ThermalStatusReport", "ThermalSensor", "ThermalMonitor", "ThermalStatusHub", "SysfsSource"]
        let source = "import Thermtop\n" + (good + banned).map { "_ = \($0).self\n" }.joined() + "_ = formatDegrees(1)\n"
        try source.write(to: file, atomically: true, encoding: .utf8)
        let r = try Self.tool("swiftc", ["-typecheck", "-I", modules, file.path] + Self.clangMaps)
        for name in banned + ["formatDegrees"] {
            #expect(r.stderr.contains("cannot find '\(name)' in scope"), "\(name) is visible to `import Thermtop` users")
        }
        for name in good {
            #expect(!r.stderr.contains("cannot find '\(name)' in scope"), "\(name) should be public")
        }
    }
}
