import Testing
import ThermtopCore
@testable import ThermtopUI

/// A pulse frame redraws only the rows that show time (issue 35 item 3): the header (pulse,
/// clock) and the policy panel (the refresh countdown), onto the last frame's cells. Whatever
/// took that shortcut must give exactly the cells a whole render gives.
@Suite("Frames: a pulse frame redraws only the rows that show time")
struct FrameReuseTests {
    static let sizes = [(120, 40), (100, 30), (80, 24), (60, 20), (40, 10), (200, 60)]

    /// `state` moved on by `seconds` the way the run loop's tick moves it, with the loop's
    /// counters changed as a frame changes them.
    static func later(_ state: AppState, by seconds: Double, frames: Int) -> AppState {
        var s = state
        _ = Reducer.reduce(&s, .tick(now: state.now + seconds, wallSeconds: state.wallSeconds + Int(seconds.rounded(.down))))
        s.stats.frames += frames
        s.stats.renderMilliseconds += 0.25
        return s
    }

    @Test("after any time step, a frame drawn from the last one has the cells of a whole render, at every size and tier",
          arguments: Fixtures.Scenario.allCases)
    func reusedFrameEqualsWholeRender(scenario: Fixtures.Scenario) {
        for (w, h) in Self.sizes {
            for details in [false, true] {
                var state = scenario.state
                // `i` opens the policy's schedule, with the refresh countdown.
                if details { _ = state.press(.char("i")) }
                state.refreshDueAt = state.now + 37.3
                var previous = Screen.frame(state, width: w, height: h)
                // Half-second frames across a minute: the pulse, the clock's seconds, the countdown.
                for k in 1...120 {
                    state = Self.later(state, by: 0.5, frames: k)
                    let reused = Screen.frame(state, width: w, height: h, after: previous)
                    let whole = Screen.render(state, width: w, height: h)
                    #expect(reused.buffer == whole, "\(scenario) \(w)x\(h) details \(details) step \(k):\n\(reused.buffer.text())\n---\n\(whole.text())")
                    if reused.buffer != whole { return }
                    previous = reused
                }
            }
        }
    }

    @Test("the shortcut is taken only when time alone moved: the pulse frame draws the header and policy rows, a new reading or a key draws everything")
    func shortcutOnlyForTime() throws {
        var state = Fixtures.Scenario.full.state
        let first = Screen.frame(state, width: 120, height: 40)
        let moved = Self.later(state, by: 0.5, frames: 1)
        #expect(Screen.onlyTimeMoved(from: first.state, to: moved))
        // A frame that did take it leaves every other row as it was: poison them and look.
        var poisoned = first.buffer
        let layout = try #require(first.layout)
        let untouched = (0..<40).first { y in !Screen.timeRects(layout).contains { $0.y <= y && y < $0.y + $0.height } }!
        _ = poisoned.put("#", x: 3, y: untouched)
        let reused = Screen.frame(moved, width: 120, height: 40,
                                  after: Screen.Frame(state: first.state, buffer: poisoned, layout: first.layout))
        #expect(reused.buffer.row(untouched) == poisoned.row(untouched), "a pulse frame redrew a row that shows no time")
        // Anything else is a whole render.
        state.showAll.toggle()
        #expect(!Screen.onlyTimeMoved(from: first.state, to: state))
        var overlay = moved
        overlay.overlay = .debug
        #expect(!Screen.onlyTimeMoved(from: first.state, to: overlay), "the debug overlay shows the loop's counters")
    }
}
