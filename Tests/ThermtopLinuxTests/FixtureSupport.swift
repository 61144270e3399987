import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// The fixture sysfs trees in `Tests/Fixtures` (outside any target: they hold symlink loops).
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()     // ThermtopLinuxTests
        .deletingLastPathComponent()     // Tests
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A fresh source on a fixture, sampled once.
    static func sample(_ name: String, at time: Double = 0) -> (SysfsSource, ThermalSnapshot) {
        let source = SysfsSource(path: path(name))
        return (source, source.sample(at: time))
    }

    static func assess(_ snap: ThermalSnapshot) -> (ThermalAssessment, LowPowerAssessment) {
        var memory = ClassifierMemory()
        return (ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory),
                LowPowerAssessment.assess(snap, config: ThermalConfig()))
    }
}

/// A private, writable copy of a fixture (symlinks preserved), removed on `remove()`.
struct FixtureCopy {
    let root: URL
    var path: String { root.path }

    init(_ name: String) throws {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("thermtop-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        root = base.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Fixture.directory.appendingPathComponent(name), to: root)
    }

    func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    func write(_ relative: String, _ text: String) throws {
        try Data(text.utf8).write(to: url(relative))
    }

    func remove() { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
}

extension ThermalSnapshot {
    func zone(_ id: String) -> ThermalZone? { zones.first { $0.id == id } }
    func channel(_ id: String) -> HwmonChannel? { hwmon.first { $0.id == id } }
    func battery(_ id: String) -> ThermalBattery? { batteries.first { $0.id == id } }
    func cooling(_ id: String) -> CoolingDevice? { coolingDevices.first { $0.id == id } }
    /// true/false when some adapter reports online; nil when none was found or none is known.
    var acOnline: Bool? {
        let known = adapters.compactMap(\.online)
        return known.isEmpty ? nil : known.contains(true)
    }
}

func near(_ a: Double?, _ b: Double?, _ tolerance: Double = 0.0005) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case let (x?, y?): abs(x - y) <= tolerance
    default: false
    }
}
