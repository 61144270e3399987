import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Pulse: a pure function of tick and tier, static at minimal")
struct PulseTests {
    static let ticks = Array(-20...40)

    @Test("the pulse changes on every tick at full and reduced", arguments: [QualityTier.full, .reduced], [true, false])
    func animatesAtFullAndReduced(tier: QualityTier, unicode: Bool) {
        for t in Self.ticks {
            let a = Pulse.frame(tick: t, tier: tier, unicode: unicode)
            let b = Pulse.frame(tick: t + 1, tier: tier, unicode: unicode)
            #expect(a != b, "tick \(t) → \(t + 1): \(a.debugDescription)")
        }
    }

    @Test("the pulse is the same frame for every tick at minimal", arguments: [true, false])
    func staticAtMinimal(unicode: Bool) {
        let frames = Set(Self.ticks.map { Pulse.frame(tick: $0, tier: .minimal, unicode: unicode) })
        #expect(frames.count == 1)
        #expect(frames.first == (unicode ? "♥ ── " : "<3 --"))
    }

    @Test("minimal schedules no animation frames and reduced beats slower than full")
    func framesPerSecond() {
        #expect(RenderPolicy(tier: .minimal).pulseFramesPerSecond == 0)
        #expect(RenderPolicy(tier: .reduced).pulseFramesPerSecond > 0)
        #expect(RenderPolicy(tier: .full).pulseFramesPerSecond > RenderPolicy(tier: .reduced).pulseFramesPerSecond)
    }

    @Test("every pulse frame is five safe columns wide (ASCII when asked), whatever the tick and tier",
          arguments: QualityTier.allCases, [true, false])
    func fixedWidthAndSafe(tier: QualityTier, unicode: Bool) {
        for t in Self.ticks {
            let f = Pulse.frame(tick: t, tier: tier, unicode: unicode)
            #expect(f.count == 5)
            #expect(f.allSatisfy(CellBuffer.isSafe))
            if !unicode { #expect(f.unicodeScalars.allSatisfy { $0.isASCII }) }
        }
    }

    @Test("on screen, consecutive ticks differ at full and reduced and are identical at minimal",
          arguments: Fixtures.Scenario.allCases, [Size.large, Size.standard, Size.compact])
    func screenFollowsPulse(scenario: Fixtures.Scenario, size: Size) {
        var state = scenario.state
        var screens: [String] = []
        for t in 0..<9 {
            state.tick = t
            screens.append(state.render(size).text())
        }
        if scenario.expectedTier == .minimal {
            #expect(Set(screens).count == 1, "the minimal screen must not animate")
        } else {
            for (a, b) in zip(screens, screens.dropFirst()) { #expect(a != b) }
        }
    }
}
