import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

@Suite("broken: every bad file becomes unknown with the right reason")
struct BrokenFixtureTests {
    struct ZoneCase: Sendable, CustomTestStringConvertible {
        let id: String
        let type: String
        let reason: ReadingIssueReason
        var testDescription: String { "\(id) \(type) → \(reason.rawValue)" }
    }

    @Test("zone temperatures that cannot be trusted are unknown with a typed reason", arguments: [
        ZoneCase(id: "thermal_zone0", type: "empty-temp", reason: .empty),
        ZoneCase(id: "thermal_zone1", type: "garbage-temp", reason: .notANumber),
        ZoneCase(id: "thermal_zone2", type: "huge-temp", reason: .implausible),
        ZoneCase(id: "thermal_zone3", type: "negative-temp", reason: .implausible),
        ZoneCase(id: "thermal_zone4", type: "dir-temp", reason: .notAFile),
        ZoneCase(id: "thermal_zone5", type: "eio-temp", reason: .ioError),
        ZoneCase(id: "thermal_zone8", type: "no-temp", reason: .missing),
    ])
    func badZone(_ c: ZoneCase) throws {
        let (_, snap) = Fixture.sample("broken")
        let z = try #require(snap.zone(c.id))
        #expect(z.type == c.type)
        #expect(z.celsius == nil)
        #expect(z.issues.first(forFile: "temp")?.reason == c.reason)
        let sensor = try #require(snap.temperatureSensors.first { $0.location == c.id })
        #expect(sensor.issue?.reason == c.reason)
    }

    @Test("the dangling thermal_zone9 is reported vanished and not read")
    func vanishedZone() {
        let (_, snap) = Fixture.sample("broken")
        #expect(snap.zone("thermal_zone9") == nil)
        #expect(snap.issues.contains { $0.file == "class/thermal/thermal_zone9" && $0.reason == .vanished })
    }

    @Test("junk trips (0, −273.15, −274, 200 °C, no temperature) are all ignored; the zone still reads 45 °C")
    func junkTrips() throws {
        let (_, snap) = Fixture.sample("broken")
        let z = try #require(snap.zone("thermal_zone6"))
        #expect(z.celsius == 45.0)
        #expect(z.trips.count == 5)
        #expect(z.trips.allSatisfy { !$0.isUsable && $0.ignored != nil })
        #expect(z.trips.map { $0.ignored?.reason } == [.implausible, .sentinel, .sentinel, .missing, .implausible])
        let sensor = ThermalSensor(zone: z)
        #expect(sensor.passiveTrips.isEmpty && sensor.hotTrip == nil && sensor.criticalTrip == nil)
    }

    @Test("a critical trip alone never raises the level of a zone without a temperature")
    func tripWithoutTemperature() throws {
        let (_, snap) = Fixture.sample("broken")
        let (thermal, _) = Fixture.assess(snap)
        let noTemp = try #require(thermal.sensors.first { $0.sensor.location == "thermal_zone8" })
        #expect(noTemp.sensor.criticalTrip?.celsius == 100)
        #expect(noTemp.level == .nominal)
        #expect(thermal.state == .nominal)
    }

    @Test("the escape-sequence zone type reads 40 °C and is sanitised for display")
    func hostileType() throws {
        let (_, snap) = Fixture.sample("broken")
        let z = try #require(snap.zone("thermal_zone7"))
        #expect(z.celsius == 40.0)
        #expect(z.type?.unicodeScalars.contains { $0.value == 0x1B } == true)   // kept raw…
        let shown = Format.clean(z.type ?? "")
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })   // …never shown raw
        #expect(shown.contains("evil") && shown.contains("zone"))
    }

    @Test("cooling devices: garbage state with max 0 is unknown, powerclamp −1 is idle, neither raises the state")
    func cooling() throws {
        let (_, snap) = Fixture.sample("broken")
        let processor = try #require(snap.cooling("cooling_device0"))
        #expect(processor.currentState == nil && processor.maxState == 0)
        #expect(processor.issues.first(forFile: "cur_state")?.reason == .notANumber)
        let clamp = try #require(snap.cooling("cooling_device1"))
        #expect(clamp.currentState == 0 && clamp.maxState == 100)
        #expect(Fixture.assess(snap).0.cooling.allSatisfy { $0.level == .nominal })
    }

    @Test("hwmon: empty and 12.5abc inputs are unknown, the good channel still reads, a chip without name is kept")
    func hwmon() throws {
        let (_, snap) = Fixture.sample("broken")
        #expect(snap.channel("hwmon0/temp1")?.celsius == nil)
        #expect(snap.channel("hwmon0/temp1")?.issues.first(forFile: "temp1_input")?.reason == .empty)
        #expect(snap.channel("hwmon0/temp2")?.celsius == nil)
        #expect(snap.channel("hwmon0/temp2")?.issues.first(forFile: "temp2_input")?.reason == .notANumber)
        let label = try #require(snap.channel("hwmon0/temp2")?.label)     // not UTF-8: decoded, not crashed
        #expect(!Format.clean(label).unicodeScalars.contains { $0.value < 0x20 })
        #expect(snap.channel("hwmon0/temp3")?.celsius == 41.0)
        #expect(snap.channel("hwmon0/temp3")?.label == "ok")
        let nameless = try #require(snap.channel("hwmon1/temp1"))
        #expect(nameless.chip == nil && nameless.celsius == 35.0)
        #expect(nameless.displayName == "hwmon1 temp1")
        #expect(nameless.issues.contains { $0.file == "class/hwmon/hwmon1/name" && $0.reason == .missing })
    }

    @Test("BAT0: capacity 250 is rejected, power_now 0 gives no time to empty, health still 87.72 %")
    func battery() throws {
        let (_, snap) = Fixture.sample("broken")
        #expect(snap.batteries.map(\.id) == ["BAT0"])              // BAT1 has present 0
        let b = try #require(snap.battery("BAT0"))
        #expect(b.capacity == nil)
        #expect(b.issues.contains { $0.file.hasSuffix("BAT0/capacity") && $0.reason == .implausible })
        let pct = try #require(b.percent)
        #expect(pct <= 100)
        #expect(b.status == .discharging)
        #expect(b.secondsToEmpty == nil)
        #expect(b.timeUnknownReason != nil)
        #expect(near(b.healthPercent, 87.72, 0.005))
        #expect(ThermalCombinedBattery(snap.batteries).percent.map { $0 <= 100 } == true)
    }

    @Test("AC online 'maybe' is unknown; an empty platform_profile is no profile")
    func acAndProfile() throws {
        let (_, snap) = Fixture.sample("broken")
        let ac = try #require(snap.adapters.first { $0.id == "AC" })
        #expect(ac.online == nil)
        #expect(ac.issues.first(forFile: "online")?.reason == .notANumber)
        #expect(snap.acOnline == nil)
        #expect(snap.lowPower.platformProfile == nil)
        #expect(snap.lowPower.issues.first(forFile: "platform_profile")?.reason == .empty)
        #expect(!Fixture.assess(snap).1.enabled)
    }

    @Test("overall: nominal, and the text report holds no raw control bytes")
    func overall() {
        let (source, snap) = Fixture.sample("broken")
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(thermal.state == .nominal)
        let status = MonitorStatus(snapshot: snap, assessment: thermal, lowPowerAssessment: lowPower,
                                   overrides: .none, sourceLabel: source.label, sourceIsSimulated: false)
        let text = ThermalStatusReport.text(status)
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F })
        #expect(text.contains("io-error"))
    }
}
