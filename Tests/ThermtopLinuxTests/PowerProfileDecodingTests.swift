import Testing
import ThermtopCore
import ThermtopLinux

/// What thermtop makes of the power-profiles properties any owner of the name on the system bus
/// sends (the pure decoding under PowerProfilesSource; `scripts/fuzz.sh dbus` fuzzes it).
@Suite("power profiles: decoding D-Bus property values")
struct PowerProfileDecodingTests {
    private func reading() -> PowerProfileReading {
        PowerProfileReading(activeProfile: "balanced", performanceDegraded: nil, service: "net.hadess.PowerProfiles")
    }

    @Test("string-typed ActiveProfile and PerformanceDegraded are taken; empty means none")
    func stringsTaken() {
        var r = reading()
        let again = r.apply([PowerProfileProperty(name: "ActiveProfile", signature: "s", string: "power-saver"),
                             PowerProfileProperty(name: "PerformanceDegraded", signature: "s", string: "lap-detected")], invalidated: [])
        #expect(!again)
        #expect(r.activeProfile == "power-saver" && r.performanceDegraded == "lap-detected")
        r.apply([PowerProfileProperty(name: "PerformanceDegraded", signature: "s", string: ""),
                 PowerProfileProperty(name: "ActiveProfile", signature: "s", string: "")], invalidated: [])
        #expect(r.activeProfile == nil && r.performanceDegraded == nil)
    }

    @Test("a property of another type or name changes nothing")
    func othersIgnored() {
        var r = reading()
        r.apply([PowerProfileProperty(name: "ActiveProfile", signature: "i", string: nil),
                 PowerProfileProperty(name: "ActiveProfile", signature: "as", string: nil),
                 PowerProfileProperty(name: "PerformanceInhibited", signature: "s", string: "x"),
                 PowerProfileProperty(name: "Version", signature: "s", string: "0.20")], invalidated: [])
        #expect(r == reading())
    }

    @Test("invalidated ActiveProfile or PerformanceDegraded asks for a new read; others do not")
    func invalidated() {
        var r = reading()
        let others = r.apply([], invalidated: ["Profiles", "Version"])
        let degraded = r.apply([], invalidated: ["PerformanceDegraded"])
        let active = r.apply([], invalidated: ["ActiveProfile"])
        #expect(!others && degraded && active)
        #expect(r == reading())
    }

    @Test("escape sequences in a profile over D-Bus come out inert in the status text and JSON")
    func escapesInert() {
        var r = reading()
        r.apply([PowerProfileProperty(name: "ActiveProfile", signature: "s", string: "\u{1b}]0;pwn\u{7}power"),
                 PowerProfileProperty(name: "PerformanceDegraded", signature: "s", string: "\u{1b}[2J\u{9b}lap")], invalidated: [])
        let snap = ThermalSnapshot(time: 0, zones: [], hwmon: [], batteries: [], adapters: [],
                                   lowPower: LowPowerSignals(powerProfilesDaemon: "balanced", powerProfileOrigin: .stateFile).merging(r))
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        let lp = LowPowerAssessment.assess(snap, config: ThermalConfig())
        #expect(lp.enabled, "performance degraded is a low-power reason")
        let status = MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: lp, overrides: .none,
                                   sourceLabel: "t", sourceIsSimulated: false)
        let text = ThermalStatusReport.text(status)
        #expect(text.contains("lap"))
        for out in [text, ThermalStatusReport.jsonText(status, version: "t")] {
            #expect(!out.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7f...0x9f).contains($0.value) },
                    "\(out.debugDescription)")
        }
    }
}
