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

    /// The run loop's schedule, with samples every second (the default `--delay`) that change
    /// nothing material: it wakes for the next pulse frame or the next reading step, whichever
    /// comes first, and takes a sample when readings are due and one is newer than those shown.
    static func simulate(_ tier: QualityTier, seconds: Double) -> (wakes: Int, taken: Int) {
        let p = RenderPolicy(tier: tier, sampleDelay: 1)
        var now = 0.0, shownAt: Double? = 0, shownSample = -1
        var wakes = 0, taken = 0
        while true {
            var next = now + 60
            if let due = p.nextValueStep(after: now) { next = min(next, due) }
            if p.pulseFramesPerSecond > 0 {
                let fps = p.pulseFramesPerSecond
                next = min(next, ((now * fps + 1e-6).rounded(.down) + 1) / fps)
            }
            guard next <= seconds + 1e-9 else { return (wakes, taken) }
            now = next
            wakes += 1
            let newest = Int((now - 0.1).rounded(.down))   // samples at k + 0.1 s
            if p.valuesDue(now: now, shownAt: shownAt) && newest != shownSample {
                shownAt = now
                shownSample = newest
                taken += 1
            }
        }
    }

    @Test("over a minute of samples every second: every tier shows all 60 (full wakes 120 times for its pulse, reduced and minimal 60)")
    func wakesPerMinute() {
        let full = Self.simulate(.full, seconds: 60)
        #expect(full.wakes == 120 && full.taken == 60, "\(full)")
        let reduced = Self.simulate(.reduced, seconds: 60)
        #expect(reduced.wakes == 60 && reduced.taken == 60, "\(reduced)")
        let minimal = Self.simulate(.minimal, seconds: 60)
        #expect(minimal.wakes == 60 && minimal.taken == 60, "\(minimal)")
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
