import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 29 on the dashboard: unknown badge, sparklines without false holes, each battery shown.
@Suite struct VerdictScreenTests {
    @Test("a sparkline has no hole without a missing sample: jittered sample times fill consecutive columns")
    func noGapsWithoutMissingSamples() {
        var s = Fixtures.Scenario.full.state
        // 52 samples in 51 s, spaced 0.98 s and 1.03 s in turn (a hole appeared where two rounded into one column).
        var t = 100.0
        var times: [Double] = []
        for i in 0..<52 { times.append(t); t += i % 2 == 0 ? 0.98 : 1.03 }
        s.historyTimes = times
        s.history["x"] = times.map { _ in 50 }
        let cols = s.historyColumns("x", columns: 60, step: 1)
        let filled = cols.suffix(52)
        #expect(filled.allSatisfy { $0 != nil }, "holes: \(cols.map { $0 == nil ? " " : "▂" }.joined())")
        #expect(cols.prefix(8).allSatisfy { $0 == nil })
        // A real missing sample (3 s without one) still shows as a hole.
        s.historyTimes = [0, 1, 2, 5, 6]
        s.history["x"] = [1, 1, 1, 1, 1]
        #expect(s.historyColumns("x", columns: 7, step: 1).map { $0 != nil } == [true, true, true, false, false, true, true])
    }

    @Test("nothing measured: the badge reads UNKNOWN and is not green")
    func unknownBadge() {
        var s = Fixtures.Scenario.full.state
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0)
        s.status.snapshot = snap
        s.status.overrides = .none
        s.status.assessment = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        let buf = s.render(Size(120, 40))
        #expect(buf.rows[0].contains(" UNKNOWN "), "\(buf.rows[0])")
        #expect(!buf.rows[0].contains("NOMINAL"))
        let badge = buf.rows[0].range(of: "UNKNOWN")!.lowerBound.utf16Offset(in: buf.rows[0])
        #expect(buf.allCells[badge].style.bg != .green)
    }

    @Test("two batteries: each is shown with its own percentage beside the total")
    func eachBatteryShown() {
        var s = Fixtures.Scenario.full.state
        s.status.snapshot.batteries = [
            ThermalBattery(id: "BAT0", status: .discharging, capacity: 80, energyNow: 15.7, energyFull: 19.6),
            ThermalBattery(id: "BAT1", status: .discharging, capacity: 7, energyNow: 4.1, energyFull: 63.1),
        ]
        let text = s.render(Size(200, 60)).rows.joined(separator: "\n")
        #expect(text.contains("BAT0 80"), "\(text)")
        #expect(text.contains("BAT1 7"))
        #expect(text.contains("23.9"), "total from the energy sums")
    }
}
