import Testing
import ThermtopCore
@testable import ThermtopUI

/// The tier's rule for new readings (`RenderPolicy.valueStepSeconds`, issue 7 §5): how often
/// the dashboard takes a routine sample onto the screen, and so how often its loop wakes.
@Suite("Render policy: readings at the tier's step")
struct RenderPolicyTests {
    @Test("readings are taken on every frame at full, every 2 s at reduced and every 5 s at minimal")
    func stepsByTier() {
        #expect(RenderPolicy(tier: .full).valueStepSeconds == 0)
        #expect(RenderPolicy(tier: .reduced).valueStepSeconds == 2)
        #expect(RenderPolicy(tier: .minimal).valueStepSeconds == 5)
        for tier in QualityTier.allCases {
            let p = RenderPolicy(tier: tier)
            // "Every frame" needs frames; a step coarser than the history's would leave gaps in it.
            if p.valueStepSeconds == 0 { #expect(p.pulseFramesPerSecond > 0, "\(tier): no frames to take readings on") }
            #expect(p.valueStepSeconds <= p.historyStepSeconds, "\(tier): readings coarser than the history")
        }
    }

    /// The run loop's schedule, with samples every second (the default `--delay`) that change
    /// nothing material: it wakes for the next pulse frame or the next reading step, whichever
    /// comes first, and takes a sample when readings are due and one is newer than those shown.
    static func simulate(_ tier: QualityTier, seconds: Double) -> (wakes: Int, taken: Int) {
        let p = RenderPolicy(tier: tier)
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

    @Test("over a minute of samples every second: full wakes 120 times and shows all 60, reduced 60 and 30, minimal 12 and 12")
    func wakesPerMinute() {
        let full = Self.simulate(.full, seconds: 60)
        #expect(full.wakes == 120 && full.taken == 60, "\(full)")
        let reduced = Self.simulate(.reduced, seconds: 60)
        #expect(reduced.wakes == 60 && reduced.taken == 30, "\(reduced)")
        let minimal = Self.simulate(.minimal, seconds: 60)
        #expect(minimal.wakes == 12 && minimal.taken == 12, "\(minimal)")
    }

    @Test("the help's table has one aligned row per tier under its header")
    func helpTable() {
        let header = RenderPolicy.helpHeader
        #expect(RenderPolicy(tier: .minimal).helpRow == "minimal  none   every 5 s   15 s     h:m    1 min steps")
        #expect(RenderPolicy(tier: .full).helpRow == "full     2/s    each frame  1 s      h:m:s  1 s")
        for tier in QualityTier.allCases {
            let row = RenderPolicy(tier: tier).helpRow
            for column in ["pulse", "readings", "history", "clock", "countdown"] {
                let at = header.range(of: column)!.lowerBound.utf16Offset(in: header)
                #expect(Array(row)[at - 1] == " " && Array(row)[at] != " ", "\(tier): \(column) not aligned in \(row)")
            }
        }
    }
}
