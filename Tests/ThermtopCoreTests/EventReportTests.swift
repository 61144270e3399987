import Foundation
import Testing
import ThermtopCore

@Suite("Power profiles and event sources in the low-power verdict and the status report")
struct EventReportTests {
    private func status(_ lowPower: LowPowerSignals, events: [EventSourceState] = []) -> MonitorStatus {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, lowPower: lowPower)
        var s = MonitorStatus(snapshot: snap, assessment: ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory),
                              lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                              overrides: .none, sourceLabel: "test", sourceIsSimulated: false)
        s.eventSources = events
        return s
    }

    @Test("PerformanceDegraded is a low-power reason in its own words; an empty one is none")
    func degradedIsAReason() {
        let lap = status(LowPowerSignals(powerProfilesDaemon: "performance", performanceDegraded: "lap-detected", powerProfileOrigin: .dbus))
        #expect(lap.lowPowerAssessment.enabled)
        #expect(lap.lowPowerAssessment.reasons == ["performance degraded: lap-detected"])
        let hot = status(LowPowerSignals(performanceDegraded: "high-operating-temperature"))
        #expect(hot.lowPowerAssessment.summary == "on: performance degraded: high-operating-temperature")
        let none = status(LowPowerSignals(powerProfilesDaemon: "performance", performanceDegraded: "", powerProfileOrigin: .dbus))
        #expect(!none.lowPowerAssessment.enabled)
    }

    @Test("a power-saver profile says where it came from: D-Bus or state.ini")
    func profileOrigin() {
        let dbus = status(LowPowerSignals(powerProfilesDaemon: "power-saver", powerProfileOrigin: .dbus))
        #expect(dbus.lowPowerAssessment.reasons == ["power-profiles-daemon profile is power-saver (D-Bus)"])
        let file = status(LowPowerSignals(powerProfilesDaemon: "power-saver", powerProfileOrigin: .stateFile))
        #expect(file.lowPowerAssessment.reasons == ["power-profiles-daemon profile is power-saver"])
    }

    @Test("status --json carries the profile origin, PerformanceDegraded and every event source")
    func jsonFields() throws {
        let s = status(LowPowerSignals(powerProfilesDaemon: "balanced", performanceDegraded: "lap-detected", powerProfileOrigin: .dbus),
                       events: [EventSourceState(name: "uevent", active: true, detail: "kernel uevents (group 1)", events: 3),
                                EventSourceState(name: "power profiles (D-Bus)", active: false, detail: "system bus: ENOENT", events: 0)])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ThermalStatusReport.json(s, version: "t").serialized().utf8)) as? [String: Any])
        #expect(json["power_profile_origin"] as? String == "dbus")
        #expect(json["performance_degraded"] as? String == "lap-detected")
        let sources = try #require(json["event_sources"] as? [[String: Any]])
        #expect(sources.count == 2)
        #expect(sources[0]["name"] as? String == "uevent" && sources[0]["active"] as? Bool == true)
        #expect(sources[0]["detail"] as? String == "kernel uevents (group 1)" && sources[0]["events"] as? Int == 3)
        #expect(sources[1]["active"] as? Bool == false && sources[1]["detail"] as? String == "system bus: ENOENT")

        let text = ThermalStatusReport.text(s)
        #expect(text.contains("Profile    power-profiles-daemon balanced (D-Bus)"))
        #expect(text.contains("Profile    performance degraded: lap-detected"))
        #expect(text.contains("Wakes      uevent: active, kernel uevents (group 1)"))
        #expect(text.contains("Wakes      power profiles (D-Bus): unavailable, system bus: ENOENT"))
    }
}
