import Testing
import ThermtopCore
@testable import ThermtopUI

/// Readings stay at `--delay` at every tier (issue 29): the tier sheds decoration (pulse,
/// history step, countdown step), never the readings or the clock's seconds.
@Suite("Render policy: readings every --delay at every tier")
struct RenderPolicyTests {
    @Test("readings reach the screen every --delay at every tier, and the clock keeps its seconds", arguments: [0.5, 1.0, 2.0])
    func readingsAtDelayEveryTier(delay: Double) {
        for tier in QualityTier.allCases {
            let p = RenderPolicy(tier: tier, sampleDelay: delay)
            #expect(p.valueStepSeconds == delay, "\(tier): readings every \(p.valueStepSeconds) s, not \(delay) s")
            #expect(p.clockShowsSeconds, "\(tier): clock drops its seconds")
            #expect(p.clockText(secondsSinceMidnight: 45_296) == "12:34:56")
        }
        #expect(RenderPolicy(tier: .minimal).pulseFramesPerSecond == 0, "the pulse still stops at minimal")
    }

    /// The live loop's own wakes over `seconds`, with samples every second (the default
    /// `--delay`) at k + 0.1 s that draw themselves (`WakeTiming` with `samplesArrive`).
    static func loopWakes(_ scenario: Fixtures.Scenario, seconds: Double) -> Int {
        var app = scenario.state
        app.sampleDelay = 1
        app.refreshDueAt = 10_000
        var now = 0.0, wakes = 0
        while true {
            app.nextSampleAt = (now - 0.1).rounded(.down) + 1.1
            let ms = WakeTiming.milliseconds(app, now: now, wallFraction: now - now.rounded(.down), samplesArrive: true)
            now += Double(ms) / 1000
            guard now < seconds else { return wakes }
            wakes += 1
        }
    }

    @Test("over a minute of samples every second, each drawn as it arrives: the loop wakes 60 times at full (the pulse frames between samples), never at reduced (the samples draw its frames), once at minimal (the countdown's minute)")
    func wakesPerMinute() {
        #expect(Self.loopWakes(.full, seconds: 60) == 60)
        #expect(Self.loopWakes(.reduced, seconds: 60) == 0)
        // 10,000 s to the rediscovery: "≤ 167 min" becomes "≤ 166 min" 40 s from now.
        #expect(Self.loopWakes(.minimal, seconds: 60) == 1)
    }

    @Test("the help's table has one aligned row per tier under its header")
    func helpTable() {
        let header = RenderPolicy.helpHeader
        #expect(RenderPolicy(tier: .minimal).helpRow == "minimal  none   every 1 s   15 s     h:m:s  1 min steps")
        #expect(RenderPolicy(tier: .full).helpRow == "full     2/s    every 1 s   1 s      h:m:s  1 s")
        for tier in QualityTier.allCases {
            let row = RenderPolicy(tier: tier).helpRow
            for column in ["pulse", "readings", "history", "clock", "countdown"] {
                let at = header.range(of: column)!.lowerBound.utf16Offset(in: header)
                #expect(Array(row)[at - 1] == " " && Array(row)[at] != " ", "\(tier): \(column) not aligned in \(row)")
            }
        }
    }
}
