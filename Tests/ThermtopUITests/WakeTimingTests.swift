import Testing
import ThermtopCore
@testable import ThermtopUI

/// The dashboard's own wake-ups: the screen's clocks, never the sampler's.
@Suite("The dashboard's wake timing")
struct WakeTimingTests {
    static func app(_ scenario: Fixtures.Scenario, delay: Double = 1, paused: Bool = false, refreshDueAt: Double = 0) -> AppState {
        var app = scenario.state
        app.sampleDelay = delay
        app.paused = paused
        app.refreshDueAt = refreshDueAt
        return app
    }

    @Test("at full the loop wakes on the pulse's frames (2 a second), which also carry the clock, the countdown and the value step")
    func fullWakesOnFrames() {
        let app = Self.app(.full, refreshDueAt: 1000)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.875) == 250)
        #expect(WakeTiming.milliseconds(app, now: 10.5, wallFraction: 0.25) == 500)
        // A frame that lands a hair early in floating point still waits for the next one.
        #expect((500...501).contains(WakeTiming.milliseconds(app, now: 10.4999999999, wallFraction: 0.25)))
    }

    @Test("with no pulse (minimal) it wakes once a second, on the value steps, which carry the clock: not also on the wall clock's second")
    func minimalWakesOnValueStepsOnly() {
        let app = Self.app(.minimal)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75) == 750, "the next value step at 11, not the clock's second 250 ms away")
        #expect(WakeTiming.milliseconds(app, now: 10.625, wallFraction: 0.125) == 375, "the next value step at 11")
    }

    @Test("live, where each sample draws itself, the loop at minimal has no wake of its own for a minute: the samples carry the clock; paused, the clock wakes it again")
    func arrivingSamplesLeaveTheLoopAsleep() {
        let app = Self.app(.minimal, refreshDueAt: 1000)
        // The countdown's next minute step is the first thing due: 1000 - 10.25 = 989.75 s left.
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75, samplesArrive: true) == 29_750)
        let paused = Self.app(.minimal, paused: true, refreshDueAt: 1000)
        #expect(WakeTiming.milliseconds(paused, now: 10.25, wallFraction: 0.75, samplesArrive: true) == 250, "the clock's next second")
        // Samples slower than the clock (--delay 2) leave it its own wake.
        let slow = Self.app(.minimal, delay: 2, refreshDueAt: 1000)
        #expect(WakeTiming.milliseconds(slow, now: 10.25, wallFraction: 0.75, samplesArrive: true) == 250)
        // At full the pulse's frames time the loop as before.
        let full = Self.app(.full, refreshDueAt: 1000)
        #expect(WakeTiming.milliseconds(full, now: 10.25, wallFraction: 0.875, samplesArrive: true) == 250)
    }

    @Test("live at full, the loop's pulse frames fall between samples, which draw a frame themselves: one wakeup of the loop a second, not two")
    func framesKeepToTheSamplersGrid() {
        var app = Self.app(.full, refreshDueAt: 1000)
        app.nextSampleAt = 11.25
        // Frames at 10.75, (11.25: the sample's), 11.75, …
        #expect(WakeTiming.milliseconds(app, now: 10.375, wallFraction: 0.375, samplesArrive: true) == 375)
        #expect(WakeTiming.milliseconds(app, now: 10.875, wallFraction: 0.875, samplesArrive: true) == 875, "the frame at 11.25 is the sample's")
        // Reduced beats once a second, as often as samples come: the loop draws no frame.
        var reduced = Self.app(.reduced, refreshDueAt: 1000)
        reduced.nextSampleAt = 11.25
        #expect(WakeTiming.milliseconds(reduced, now: 10.875, wallFraction: 0.875, samplesArrive: true) > 1000)
        // Samples that are no whole number of frames apart (--delay 0.3), a paused sampler, or a
        // replay's samples: the frames keep their own beat.
        var odd = Self.app(.full, delay: 0.3, refreshDueAt: 1000)
        odd.nextSampleAt = 11.25
        #expect(WakeTiming.milliseconds(odd, now: 10.875, wallFraction: 0.875, samplesArrive: true) == 125)
        var paused = Self.app(.full, paused: true, refreshDueAt: 1000)
        paused.nextSampleAt = 11.25
        #expect(WakeTiming.milliseconds(paused, now: 10.875, wallFraction: 0.875, samplesArrive: true) == 125)
        #expect(WakeTiming.milliseconds(app, now: 10.875, wallFraction: 0.875) == 125)
    }

    @Test("value steps longer than a second (--delay 2) do not carry the clock: it still wakes on its second")
    func slowValueStepsLeaveTheClockItsOwnWake() {
        let app = Self.app(.minimal, delay: 2)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75) == 250, "the clock's next second")
    }

    @Test("paused, routine readings do not time the loop; the clock still does")
    func pausedTakesNoValueSteps() {
        let app = Self.app(.minimal, paused: true, refreshDueAt: 12)
        #expect(WakeTiming.milliseconds(app, now: 10.625, wallFraction: 0.125) == 875)
    }

    @Test("the countdown's next shown value wakes a loop with no pulse, on its tier's step")
    func countdown() {
        // Minimal counts down by the minute: 60.25 s left becomes "≤ 1 min" 0.25 s from now.
        let app = Self.app(.minimal, delay: 600, refreshDueAt: 70.25)
        #expect(WakeTiming.milliseconds(app, now: 10, wallFraction: 0) == 250)
        // Further from a step, the clock's next second comes first.
        let later = Self.app(.minimal, delay: 600, refreshDueAt: 100)
        #expect(WakeTiming.milliseconds(later, now: 10, wallFraction: 0) == 1000)
    }

    @Test("the hook's held-back run and a pending paste are due on their own")
    func hookAndInput() {
        let app = Self.app(.minimal)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75, hookDue: 10.3125) == 63)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75, inputDue: 10.265625) == 16)
        #expect(WakeTiming.milliseconds(app, now: 10.25, wallFraction: 0.75, inputDue: 9) == 1, "never a busy loop")
    }
}
