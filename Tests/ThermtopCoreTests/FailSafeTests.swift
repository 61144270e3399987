import Testing
import Thermtop
import ThermtopCore

/// The fail-safe rule: a sensor that decided a level and goes silent keeps that level, marked
/// held, for `sensorHoldSeconds`; an unknown sensor is never nominal; nothing readable is said.
@Suite("Fail safe: held levels, unknown sensors, nothing readable")
struct FailSafeTests {
    static let unreadable = ReadingIssue(file: "class/thermal/thermal_zone1/temp", reason: .permissionDenied, detail: "EACCES")

    /// x86_pkg_temp (critical at 100 °C) plus a cool second zone.
    static func snap(_ time: Double, pkg: Double?, issue: ReadingIssue? = unreadable, other: Double? = 40,
                     withPackage: Bool = true) -> ThermalSnapshot {
        var z = packageZone(pkg)
        if pkg == nil { z.issues = issue.map { [$0] } ?? [] }
        var zones = [zone("thermal_zone0", type: "acpitz", celsius: other)]
        if withPackage { zones.append(z) }
        return ThermalSnapshot(time: time, zones: zones)
    }

    static func assess(_ s: ThermalSnapshot, _ m: inout ClassifierMemory, config: ThermalConfig = ThermalConfig(),
                       timeOfDay: Double? = nil) -> ThermalAssessment {
        ThermalClassifier.assess(s, config: config, memory: &m, timeOfDay: timeOfDay)
    }

    @Test("the critical sensor becoming unreadable keeps the state critical, held, with when and why")
    func unreadableDeciderHolds() throws {
        var m = ClassifierMemory()
        #expect(Self.assess(Self.snap(0, pkg: 101), &m).state == .critical)
        // 12:01:07 local time when it goes silent.
        let a = Self.assess(Self.snap(1, pkg: nil), &m, timeOfDay: 12 * 3600 + 60 + 7)
        #expect(a.state == .critical)
        #expect(a.decidedBy == "thermal_zone1")
        #expect(!a.nothingReadable)
        let s = try #require(a.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.hold?.level == .critical)
        #expect(s.hold?.expired == false)
        #expect(s.reportedLevel == .critical)
        #expect(a.reason.contains("x86_pkg_temp unreadable since 12:01:07, holding critical"), "\(a.reason)")
        #expect(a.reason.contains("permission-denied"))
        #expect(a.heldSensors.map(\.id) == ["thermal_zone1"])
        // Later samples keep the first silent time, not the latest.
        let later = Self.assess(Self.snap(30, pkg: nil), &m, timeOfDay: 12 * 3600 + 90)
        #expect(later.state == .critical)
        #expect(later.reason.contains("since 12:01:07"))
    }

    @Test("the hold ends when the hold time passes: the sensor becomes unknown and stops counting")
    func holdExpires() throws {
        var config = ThermalConfig()
        config.sensorHoldSeconds = 10
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 95), &m, config: config)
        #expect(Self.assess(Self.snap(1, pkg: nil), &m, config: config).state == .serious)
        #expect(Self.assess(Self.snap(10.9, pkg: nil), &m, config: config).state == .serious)
        let a = Self.assess(Self.snap(11, pkg: nil), &m, config: config)
        #expect(a.state == .nominal)
        let s = try #require(a.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.reportedLevel == nil)
        #expect(s.hold?.expired == true)
        #expect(s.reason.contains("hold expired after 10 s"), "\(s.reason)")
        // Expired stays expired: no second hold from the same silence.
        let b = Self.assess(Self.snap(12, pkg: nil), &m, config: config)
        #expect(b.state == .nominal)
        #expect(b.sensors.first { $0.id == "thermal_zone1" }?.reportedLevel == nil)
    }

    @Test("reading again ends the hold, with hysteresis continuing from the held level")
    func recovers() throws {
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 91), &m)                     // serious (passive 90)
        #expect(Self.assess(Self.snap(1, pkg: nil), &m).state == .serious)
        let back = Self.assess(Self.snap(2, pkg: 89), &m)               // above 88: serious kept by hysteresis
        let s = try #require(back.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.hold == nil)
        #expect(back.state == .serious)
        #expect(s.heldByHysteresis)
        let cool = Self.assess(Self.snap(3, pkg: 60), &m)
        #expect(cool.state == .nominal)
        // A new silence after reading nominal holds nothing.
        let quiet = Self.assess(Self.snap(4, pkg: nil), &m)
        #expect(quiet.state == .nominal)
        #expect(quiet.sensors.first { $0.id == "thermal_zone1" }?.hold == nil)
    }

    @Test("a deciding sensor that disappears is held as removed, then dropped after the hold")
    func removedSensorHolds() throws {
        var config = ThermalConfig()
        config.sensorHoldSeconds = 5
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 101), &m, config: config)
        let a = Self.assess(Self.snap(1, pkg: nil, withPackage: false), &m, config: config)
        #expect(a.state == .critical)
        let s = try #require(a.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.sensor.issue?.reason == .vanished)
        #expect(s.sensor.celsius == nil)
        #expect(a.reason.contains("x86_pkg_temp removed for 0 s, holding critical"), "\(a.reason)")
        #expect(a.sensors.filter { $0.id == "thermal_zone1" }.count == 1)
        let gone = Self.assess(Self.snap(6.5, pkg: nil, withPackage: false), &m, config: config)
        #expect(gone.state == .nominal)
        #expect(!gone.sensors.contains { $0.id == "thermal_zone1" })
    }

    @Test("a removed nominal sensor is listed as removed (no level) for the hold time, not dropped silently")
    func removedNominalSensorIsListed() throws {
        var config = ThermalConfig()
        config.sensorHoldSeconds = 5
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 50), &m, config: config)
        let a = Self.assess(Self.snap(1, pkg: nil, withPackage: false), &m, config: config, timeOfDay: 3600)
        let s = try #require(a.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.reportedLevel == nil)
        #expect(s.hold == nil)
        #expect(s.sensor.issue?.reason == .vanished)
        #expect(s.reason == "unknown: x86_pkg_temp removed since 01:00:00", "\(s.reason)")
        #expect(a.state == .nominal)
        let later = Self.assess(Self.snap(7, pkg: nil, withPackage: false), &m, config: config)
        #expect(!later.sensors.contains { $0.id == "thermal_zone1" })
        // It comes back: read normally, nothing left over.
        let back = Self.assess(Self.snap(8, pkg: 50), &m, config: config)
        #expect(back.sensors.first { $0.id == "thermal_zone1" }?.sensor.celsius == 50)
        #expect(back.sensors.filter { $0.id == "thermal_zone1" }.count == 1)
    }

    @Test("the memory's lastSeen lists present sensors and removed ones within their hold, with their last reading")
    func lastSeenFollowsPresenceAndHold() throws {
        var config = ThermalConfig()
        config.sensorHoldSeconds = 5
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 50), &m, config: config)
        #expect(Set(m.lastSeen.keys) == ["thermal_zone0", "thermal_zone1"])
        #expect(m.lastSeen["thermal_zone1"]?.sensor.celsius == 50)
        // Removed: still there, as last read (not as the removed row the sample lists).
        _ = Self.assess(Self.snap(1, pkg: nil, other: 41, withPackage: false), &m, config: config)
        #expect(Set(m.lastSeen.keys) == ["thermal_zone0", "thermal_zone1"])
        #expect(m.lastSeen["thermal_zone1"]?.sensor.celsius == 50)
        #expect(m.lastSeen["thermal_zone0"]?.sensor.celsius == 41)
        _ = Self.assess(Self.snap(3, pkg: nil, other: 42, withPackage: false), &m, config: config)
        #expect(m.lastSeen["thermal_zone1"]?.sensor.celsius == 50)
        // Past the hold: gone.
        _ = Self.assess(Self.snap(7, pkg: nil, withPackage: false), &m, config: config)
        #expect(Set(m.lastSeen.keys) == ["thermal_zone0"])
        // Set from outside: what was set is what the next sample lists as removed.
        var other = ClassifierMemory()
        other.lastSeen = m.lastSeen
        #expect(Set(other.lastSeen.keys) == ["thermal_zone0"])
        let a = Self.assess(ThermalSnapshot(time: 8, zones: []), &other, config: config)
        #expect(a.sensors.map(\.id) == ["thermal_zone0"])
        #expect(a.sensors.first?.sensor.issue?.reason == .vanished)
    }

    @Test("a sensor unknown from the start has no level (never nominal) and holds nothing")
    func unknownIsNotNominal() throws {
        var m = ClassifierMemory()
        let a = Self.assess(Self.snap(0, pkg: nil), &m)
        let s = try #require(a.sensors.first { $0.id == "thermal_zone1" })
        #expect(s.reportedLevel == nil)
        #expect(s.hold == nil)
        #expect(s.reason.hasPrefix("unknown"))
        #expect(a.state == .nominal)   // decided by the readable acpitz
        #expect(!a.nothingReadable)
    }

    @Test("nothing readable: the reason says so and the measured state is nil, not nominal")
    func nothingReadable() {
        var m = ClassifierMemory()
        let a = Self.assess(Self.snap(0, pkg: nil, other: nil), &m)
        #expect(a.nothingReadable)
        #expect(a.measuredState == nil)
        #expect(a.reason.contains("nothing can be read"), "\(a.reason)")
        #expect(a.reason.contains("2 sensors"))
        #expect(a.sensors.allSatisfy { $0.reportedLevel == nil })
    }

    @Test("no sensors at all (a container, a --sysfs-root one level too deep) is not measured either: unknown")
    func emptyIsUnknown() {
        var m = ClassifierMemory()
        let a = Self.assess(ThermalSnapshot(time: 0), &m)
        #expect(a.nothingReadable)
        #expect(a.measuredState == nil)
        #expect(a.reason.contains("no thermal sensor or cooling device found"))
    }

    @Test("every sensor silent while one was critical: held critical, so not 'nothing readable'")
    func allSilentButHeld() {
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 101), &m)
        let a = Self.assess(Self.snap(1, pkg: nil, other: nil), &m)
        #expect(a.state == .critical)
        #expect(!a.nothingReadable)
    }

    @Test("an ignored sensor never holds a level")
    func ignoredNeverHolds() {
        var config = ThermalConfig()
        config.overrides["x86_pkg_temp"] = SensorOverride(ignore: true)
        var m = ClassifierMemory()
        _ = Self.assess(Self.snap(0, pkg: 101), &m, config: config)
        #expect(Self.assess(Self.snap(1, pkg: nil), &m, config: config).state == .nominal)
    }

    @Test("the monitor holds across samples with its own clock, labelled by age without a wall clock")
    @MainActor
    func monitorHolds() {
        final class Source: ThermalSensorSource {
            var pkg: Double? = 101
            var label: String { "test" }
            var isSimulated: Bool { false }
            func sample(at time: Double) -> ThermalSnapshot { FailSafeTests.snap(time, pkg: pkg) }
            func rediscover() {}
        }
        let src = Source()
        let clock = ManualMonitorClock(start: 100)
        let monitor = ThermalMonitor(source: src, clock: clock)
        monitor.sample()
        #expect(monitor.thermalState == .critical)
        src.pkg = nil
        clock.advance(by: 5)
        monitor.sample()
        clock.advance(by: 7)
        monitor.sample()
        #expect(monitor.thermalState == .critical)
        #expect(monitor.status.reason.contains("unreadable for 7 s, holding critical"), "\(monitor.status.reason)")
        clock.advance(by: 60)
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
    }

    @Test("time-of-day labels are zero-padded and wrap at midnight")
    func labels() {
        #expect(ThermalClassifier.timeOfDayLabel(0) == "00:00:00")
        #expect(ThermalClassifier.timeOfDayLabel(12 * 3600 + 67) == "12:01:07")
        #expect(ThermalClassifier.timeOfDayLabel(86_400 + 5) == "00:00:05")
    }
}
