import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// Issue 35 item 4: every reason thermtop prints (`status` in °C and °F, `status --json`, the
/// hook's THERMTOP_REASON, `watch`'s and the dashboard's reason line, each sensor's reason,
/// threshold labels and rules) on every fixture and real capture, and on the states a fixture
/// alone never reaches (ignored, held by hysteresis, unreadable, removed, expired, heat
/// sources, simulated), read the same as the committed text in `Tests/Fixtures/reasons`.
/// `THERMTOP_RECORD_REASONS=1` writes that text instead of comparing.
@Suite("Reasons render the same in °C and °F on every fixture")
struct ReasonRenderingTests {
    static let fixtures: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path)) ?? [])
        .filter { FileManager.default.fileExists(atPath: Fixture.path($0) + "/class") }
        .sorted()

    static let units: [TemperatureUnit] = [.celsius, .fahrenheit]

    /// What each output says for one status.
    static func rendered(_ s: MonitorStatus) -> String {
        var out: [String] = []
        for u in units {
            out.append("== status text \(u.symbol)")
            out.append(ThermalStatusReport.text(s, units: u))
            out.append("== reason line \(u.symbol)")
            out.append(s.why.text(u))
        }
        out.append("== status --json")
        out.append(ThermalStatusReport.json(s, version: "test").serialized(pretty: true))
        out.append("== hook THERMTOP_REASON")
        if let view = ChangeKey.hookView(of: s, simulatedAllowed: false) {
            let change = ChangeReport(state: view.key.state, tier: view.key.tier, lowPower: view.key.lowPower,
                                      reason: view.reason, previousState: .nominal)
            out.append(change.environment.first { $0.0 == "THERMTOP_REASON" }?.1 ?? "-")
        } else {
            out.append("-")
        }
        out.append(assessmentLines(s.assessment))
        return out.joined(separator: "\n") + "\n"
    }

    /// Each sensor's reason, labels and rules in both units.
    static func assessmentLines(_ a: ThermalAssessment) -> String {
        var out: [String] = []
        for u in units {
            out.append("== assessment \(u.symbol): \(a.why.text(u))")
            for s in a.sensors {
                out.append("\(s.sensor.id): \(s.why.text(u))")
                for (name, t) in [("fair", s.thresholds.fair), ("serious", s.thresholds.serious), ("critical", s.thresholds.critical)] {
                    out.append("  \(name) label \(t.label(u)) · rule \(t.rulePhrase.text(u))")
                }
            }
            if let t = a.throttle { out.append("throttle: \(t.reason)") }
        }
        return out.joined(separator: "\n")
    }

    static func compare(_ rendered: String, to name: String) throws {
        // The checkout's own path is not part of what is compared.
        let text = rendered.replacingOccurrences(of: Fixture.directory.path, with: "FIXTURES")
        let url = Fixture.directory.appendingPathComponent("reasons").appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["THERMTOP_RECORD_REASONS"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        if text != expected {
            let a = text.split(separator: "\n", omittingEmptySubsequences: false)
            let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            Issue.record("\(name): line \(i + 1) differs:\n got: \(i < a.count ? a[i] : "<end>")\nwant: \(i < b.count ? b[i] : "<end>")")
        }
    }

    @Test("status, JSON, hook and screen reasons of every fixture and capture are the committed text", arguments: fixtures)
    @MainActor
    func fixture(_ name: String) throws {
        let s = ThermalMonitor(source: SysfsSource(path: Fixture.path(name)), clock: ManualMonitorClock()).sample()
        try Self.compare(Self.rendered(s), to: name)
    }

    /// The hot laptop's snapshot with every reading at or above `above` changed by `change`.
    static func hot(_ change: (inout Double?) -> Void, above: Double = 85) -> ThermalSnapshot {
        var (_, snap) = Fixture.sample("intel-laptop-hot")
        for i in snap.zones.indices where (snap.zones[i].celsius ?? 0) >= above { change(&snap.zones[i].celsius) }
        for i in snap.hwmon.indices where (snap.hwmon[i].celsius ?? 0) >= above { change(&snap.hwmon[i].celsius) }
        return snap
    }

    static func status(_ snap: ThermalSnapshot, _ a: ThermalAssessment, overrides: ThermalOverrides = ThermalOverrides()) -> MonitorStatus {
        MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                      overrides: overrides, sourceLabel: "/sys", sourceIsSimulated: false)
    }

    @Test("held, unreadable, removed, expired, ignored, heat-source and simulated reasons are the committed text")
    func scenarios() throws {
        var out: [String] = []
        let config = ThermalConfig()
        let (_, hotSnap) = Fixture.sample("intel-laptop-hot")
        // Held by hysteresis: 91 → 89 °C, above the 88 °C clearing point of the 90 °C trip.
        var memory = ClassifierMemory()
        let first = ThermalClassifier.assess(hotSnap, config: config, memory: &memory)
        out.append("# hot"); out.append(Self.assessmentLines(first))
        let heldSnap = Self.hot { $0 = 89 }
        let held = ThermalClassifier.assess(heldSnap, config: config, memory: &memory)
        out.append("# held by hysteresis"); out.append(Self.assessmentLines(held))
        // Unreadable, then removed, each held for the hold time and then expired.
        for (label, snap) in [("unreadable", Self.hot { $0 = nil }), ("removed", { () -> ThermalSnapshot in
            var s = hotSnap
            s.zones.removeAll { ($0.celsius ?? 0) >= 85 }
            s.hwmon.removeAll { ($0.celsius ?? 0) >= 85 }
            return s
        }())] {
            var m = ClassifierMemory()
            _ = ThermalClassifier.assess(hotSnap, config: config, memory: &m, timeOfDay: 3600 * 12 + 67)
            for (dt, tod) in [(1.0, 3600.0 * 12 + 68), (5, nil), (61, nil)] as [(Double, Double?)] {
                var s = snap
                s.time = hotSnap.time + dt
                let a = ThermalClassifier.assess(s, config: config, memory: &m, timeOfDay: tod)
                out.append("# \(label) after \(dt) s"); out.append(Self.assessmentLines(a))
            }
        }
        // Ignored by configuration, and a sensor named like a temperature.
        var ignoring = ThermalConfig()
        for s in hotSnap.temperatureSensors where (s.celsius ?? 0) >= 85 {
            ignoring.overrides[s.id] = SensorOverride(ignore: true)
        }
        var m = ClassifierMemory()
        out.append("# ignored"); out.append(Self.assessmentLines(ThermalClassifier.assess(hotSnap, config: ignoring, memory: &m)))
        // Simulated over a measured state.
        let simulated = Self.status(hotSnap, first, overrides: ThermalOverrides(thermalState: .critical))
        out.append("# simulated")
        for u in Self.units { out.append(simulated.why.text(u)) }
        if let view = ChangeKey.hookView(of: simulated, simulatedAllowed: true) { out.append("hook (simulated allowed): \(view.reason)") }
        if let view = ChangeKey.hookView(of: simulated, simulatedAllowed: false) { out.append("hook: \(view.reason)") }
        // Heat sources named after the deciding sensor.
        var a = ThermalProcessTableReader(path: Fixture.path("proc-table-1")).walk()
        var b = ThermalProcessTableReader(path: Fixture.path("proc-table-2")).walk()
        (a.walkTime, b.walkTime) = (100, 101)
        let sources = ThermalHeatSources.measure(b, previous: a, seconds: 1, power: [])
        var sourced = first
        sourced.why = ThermalHeatSources.verdict(first, sources: sources)
        out.append("# heat sources")
        for u in Self.units { out.append(sourced.why.text(u)) }
        try Self.compare(out.joined(separator: "\n") + "\n", to: "scenarios")
    }
}
