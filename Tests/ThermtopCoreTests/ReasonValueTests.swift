import Testing
import ThermtopCore

/// Issue 35 item 4: the reason is a value the outputs render in the reader's unit, never text
/// converted afterwards.
@Suite("The reason is a value rendered in the unit")
struct ReasonValueTests {
    /// A zone whose type reads like a temperature, at 91 °C against a 90 °C passive trip.
    static func hotZone(named name: String) -> ThermalAssessment {
        let zone = ThermalZone(id: "thermal_zone0", type: name, celsius: 91, mode: "enabled",
                               trips: [TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: 2)])
        var memory = ClassifierMemory()
        return ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [zone]), config: ThermalConfig(), memory: &memory)
    }

    @Test("a sensor named like a temperature keeps its name in °F: only the reading and limits convert")
    func nameIsNeverConverted() {
        let a = Self.hotZone(named: "85.0 °C")
        #expect(a.state == .serious)
        #expect(a.reason == "serious: 85.0 °C 91.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C)")
        #expect(a.why.text(.fahrenheit) == "serious: 85.0 °C 195.8 °F ≥ passive trip 194.0 °F (clears below 190.4 °F)")
        #expect(a.sensors[0].why.text(.fahrenheit) == a.why.text(.fahrenheit))
        guard case .reached(let level, let sensor, let celsius, let threshold, let held, _) = a.why.cause else {
            Issue.record("not a reached threshold: \(a.why)")
            return
        }
        #expect(level == .serious && sensor == "85.0 °C" && celsius == 91 && !held)
        #expect(threshold.celsius == 90 && threshold.clearsBelow == 88 && threshold.rule == "passive trip")
    }

    @Test("a name with an operator and a degree sign survives status and the hold reason in °F")
    func nameInStatusAndHold() {
        let name = "− 15.0 °C"
        let hot = Self.hotZone(named: name)
        let status = MonitorStatus(snapshot: ThermalSnapshot(time: 0), assessment: hot,
                                   lowPowerAssessment: LowPowerAssessment.assess(ThermalSnapshot(time: 0), config: ThermalConfig()),
                                   overrides: ThermalOverrides(), sourceLabel: "/sys", sourceIsSimulated: false)
        #expect(ThermalStatusReport.text(status, units: .fahrenheit).contains("Reason     serious: \(name) 195.8 °F ≥ passive trip 194.0 °F"))
        let holding = ThermalReason(.holding(level: .serious, sensor: name, verb: "unreadable", since: "since 12:01:07",
                                             why: "io-error", last: 91, holdSeconds: 60))
        #expect(holding.text(.fahrenheit)
            == "serious: − 15.0 °C unreadable since 12:01:07, holding serious (io-error; last 195.8 °F, hold 60 s)")
        let simulated = ThermalReason(.simulated(.critical, measured: hot.why))
        #expect(simulated.text(.fahrenheit).hasPrefix("critical: SIMULATED (measured serious: \(name) 195.8 °F"))
    }

    @Test("a rule's temperature and difference convert apart; words in it stay words")
    func phrase() {
        let rule = SensorThresholds.degreesRule("critical trip ", 103, " − ", 15)
        #expect(rule.text(.celsius) == "critical trip 103.0 °C − 15.0 °C")
        #expect(rule.text(.fahrenheit) == "critical trip 217.4 °F − 27.0 °F")
        let words: ThermalPhrase = "fan at 85.0 °C"
        #expect(words.text(.fahrenheit) == "fan at 85.0 °C")
        let t = ThermalThreshold(celsius: 88, hysteresis: 2, rulePhrase: rule, isDirect: false)
        #expect(t.label == "88.0 °C (critical trip 103.0 °C − 15.0 °C)")
        #expect(t.label(.fahrenheit) == "190.4 °F (critical trip 217.4 °F − 27.0 °F)")
    }

    @Test("the heat sources are their own piece, after the deciding sensor's reason in every unit")
    func heatSourcesSuffix() {
        var why = Self.hotZone(named: "CPU").why
        why.heatSources = " — mostly cc1plus ×8 (640 % CPU, ≈ 38 W)"
        #expect(why.text(.celsius) == "serious: CPU 91.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C) — mostly cc1plus ×8 (640 % CPU, ≈ 38 W)")
        #expect(why.text(.fahrenheit).hasSuffix("(clears below 190.4 °F) — mostly cc1plus ×8 (640 % CPU, ≈ 38 W)"))
    }
}
