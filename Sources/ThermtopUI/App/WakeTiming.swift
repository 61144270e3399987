/// When the dashboard's run loop wakes on its own: the next moment something shown can
/// change. Keys and signals wake it through their descriptors; only the screen's own clocks
/// are timed here, so a pulse frame takes no sample (the sampler keeps its own beat). Live,
/// each sample is drawn as it arrives, on the sampler's thread (`samplesArrive`); a replay's
/// samples are taken at the loop's value steps.
public enum WakeTiming {
    /// Milliseconds (at least 1) from `now` until the loop must wake.
    /// - Parameters:
    ///   - app: what is shown (tier, pause, replay, the refresh countdown, the clock).
    ///   - now: the monotonic time the loop woke at.
    ///   - wallFraction: how far into the current wall-clock second `now` is.
    ///   - hookDue: when the on-change hook next has work (a run its rate limit held back).
    ///   - inputDue: when input waiting for the rest of a paste (or its marker) is due.
    ///   - samplesArrive: new samples wake the screen themselves (the live dashboard draws
    ///     each on the sampler's thread): the loop does not wake for value steps, and the
    ///     samples carry the clock as the value steps would.
    public static func milliseconds(_ app: AppState, now: Double, wallFraction: Double,
                                    hookDue: Double? = nil, inputDue: Double? = nil, samplesArrive: Bool = false) -> Int {
        let policy = app.renderPolicy
        var wake = now + 60
        if let hookDue { wake = min(wake, hookDue) }
        if let inputDue { wake = min(wake, inputDue) }
        // A replay's next recorded sample, at the playback speed.
        if !app.paused, let due = app.replay?.nextDue { wake = min(wake, due) }
        // The next step at which routine samples are taken (none come while paused, and a
        // replay's come with its own due times). A step of 0 means on the pulse's frames.
        let valueStep = app.paused || app.replay != nil ? nil : policy.nextValueStep(after: now)
        if let valueStep, !samplesArrive { wake = min(wake, valueStep) }
        let fps = policy.pulseFramesPerSecond
        if fps > 0 {
            // While the pulse animates, the clock and the countdown change on its frames (at
            // most one frame late) instead of waking the loop on their own beats, which fall
            // between frames: at full that is 2 wakeups a second instead of 4.
            if let frame = nextFrame(app, now: now, fps: fps, samplesArrive: samplesArrive) { wake = min(wake, frame) }
            return max(1, Int(((wake - now) * 1000).rounded(.up)))
        }
        // The clock's next shown value: the next second, or the next minute. Value steps at
        // least as often as the clock's step carry it (its second shown at most one step
        // late), as the pulse's frames do: the loop's own beat and the wall clock's fall
        // apart, and waking on both is 2 wakeups a second at minimal instead of 1.
        let clockStep = policy.clockShowsSeconds ? 1.0 : 60.0
        if valueStep == nil || policy.valueStepSeconds > clockStep + 1e-9 {
            let intoStep = policy.clockShowsSeconds ? wallFraction : Double(app.wallSeconds % 60) + wallFraction
            wake = min(wake, now + clockStep - intoStep)
        }
        // The countdown's next shown value.
        let left = app.refreshDueAt - now
        if left > 0 && !app.paused {
            let step = policy.countdownStepSeconds
            let toNext = left.truncatingRemainder(dividingBy: step)
            wake = min(wake, now + (toNext > 1e-3 ? toNext : step))
        }
        return max(1, Int(((wake - now) * 1000).rounded(.up)))
    }

    /// When the loop draws the pulse's next frame; nil when the samples draw every frame.
    /// Frames are `1/fps` apart. Where samples draw themselves on a timer whose delay is a
    /// whole number of frames (1 s at 2 or 1 frames a second), the frames keep to the
    /// sampler's grid and the loop skips those a sample draws: at full, one wakeup of the
    /// loop and one of the sampler a second instead of two and one. A sample that comes late
    /// leaves the pulse one frame behind, never stopped for longer.
    static func nextFrame(_ app: AppState, now: Double, fps: Double, samplesArrive: Bool) -> Double? {
        let delay = app.sampleDelay
        let perSample = (delay * fps).rounded()
        guard samplesArrive, !app.paused, let grid = app.nextSampleAt, perSample >= 1,
              abs(delay * fps - perSample) < 1e-9 else {
            return ((now * fps + 1e-6).rounded(.down) + 1) / fps
        }
        guard perSample > 1 else { return nil }
        var j = ((now - grid) * fps + 1e-6).rounded(.down) + 1
        if j.truncatingRemainder(dividingBy: perSample) == 0 { j += 1 }
        return grid + j / fps
    }
}
