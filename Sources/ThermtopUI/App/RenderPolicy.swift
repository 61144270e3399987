import ThermtopCore

/// What the dashboard itself does at each quality tier: the one place the UI's own rules by
/// tier live (like the seeds' tier table), so the run loop, the widgets and the help screen
/// read the same numbers. The tier sheds decoration and background work only: at `reduced`
/// and `minimal` the pulse slows or stops, the history graph advances at a coarser step and the
/// countdown moves in coarser steps (rediscovery itself stretches to 30/60/180 s,
/// `QualityTier.refreshIntervalSeconds`). Readings and the clock are what the person asked
/// for: new readings reach the screen every `--delay` and the clock shows seconds at every
/// tier (docs/verdict.md).
public struct RenderPolicy: Sendable, Equatable {
    public var tier: QualityTier
    /// Pulse frames per second; 0 = a static pulse and no animation wakeups.
    public var pulseFramesPerSecond: Double
    /// Seconds between new readings on the screen: the sampling delay at every tier (readings
    /// are never held back). Live, each sample is drawn as it arrives; where it cannot wake
    /// the loop, the loop wakes on this grid of monotonic time to take it.
    public var valueStepSeconds: Double
    /// Seconds between two history points (sparklines and the graph); a sample that arrives
    /// sooner replaces the newest point instead of adding one, so the line moves at this pace.
    public var historyStepSeconds: Double
    /// Whether the header clock shows seconds (`12:34:56`) or minutes (`12:34`).
    public var clockShowsSeconds: Bool
    /// The refresh countdown is shown rounded up to this many seconds.
    public var countdownStepSeconds: Double

    public init(tier: QualityTier, sampleDelay: Double = 1) {
        self.tier = tier
        valueStepSeconds = sampleDelay
        clockShowsSeconds = true
        switch tier {
        case .full:
            pulseFramesPerSecond = 2
            historyStepSeconds = 1
            countdownStepSeconds = 1
        case .reduced:
            pulseFramesPerSecond = 1
            historyStepSeconds = 5
            countdownStepSeconds = 10
        case .minimal:
            pulseFramesPerSecond = 0
            historyStepSeconds = 15
            countdownStepSeconds = 60
        }
    }

    /// The step the history actually advances at: never finer than the sampling delay.
    public func historyStep(sampleDelay: Double) -> Double { max(historyStepSeconds, sampleDelay) }

    /// The next time on the readings' grid after `now`; nil for a step of 0.
    public func nextValueStep(after now: Double) -> Double? {
        guard valueStepSeconds > 0 else { return nil }
        return Double(stepIndex(now) + 1) * valueStepSeconds
    }

    private func stepIndex(_ t: Double) -> Int {
        // A wake at the step's edge can read the clock a hair early in floating point.
        Int((t / valueStepSeconds + 1e-6).rounded(.down))
    }

    /// `12:34:56` (seconds at every tier; `clockShowsSeconds` stays for callers that ask).
    public func clockText(secondsSinceMidnight s: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let t = ((s % 86400) + 86400) % 86400
        let hm = "\(two(t / 3600)):\(two((t % 3600) / 60))"
        return clockShowsSeconds ? "\(hm):\(two(t % 60))" : hm
    }

    /// `next in 17 s`, `next in ≤ 20 s`, `next in ≤ 3 min`: the countdown at this tier's step.
    public func countdownText(_ seconds: Double) -> String {
        let s = max(0, seconds)
        if countdownStepSeconds <= 1 { return "next in \(Int(s.rounded(.up))) s" }
        let stepped = (s / countdownStepSeconds).rounded(.up) * countdownStepSeconds
        if countdownStepSeconds >= 60 { return "next in ≤ \(max(1, Int(stepped / 60))) min" }
        return "next in ≤ \(max(Int(countdownStepSeconds), Int(stepped))) s"
    }

    /// One line for the debug overlay: what the dashboard does at this tier.
    public var helpLine: String {
        let pulse = pulseFramesPerSecond > 0 ? "pulse \(Self.number(pulseFramesPerSecond))/s" : "no pulse"
        let readings = "every \(Self.number(valueStepSeconds)) s"
        return "\(Format.pad(tier.rawValue + ":", 8)) \(pulse), readings \(readings), history every \(Self.number(historyStepSeconds)) s, clock \(clockPattern), countdown \(countdownStepText)"
    }

    /// The help screen's table of these rules: a header, then `helpRow` for each tier.
    public static var helpHeader: String { columns("tier", "pulse", "readings", "history", "clock", "countdown") }

    /// This tier's row under `helpHeader`.
    public var helpRow: String {
        let pulse = pulseFramesPerSecond > 0 ? "\(Self.number(pulseFramesPerSecond))/s" : "none"
        let readings = "every \(Self.number(valueStepSeconds)) s"
        return Self.columns(tier.rawValue, pulse, readings, "\(Self.number(historyStepSeconds)) s", clockPattern, countdownStepText)
    }

    private static func columns(_ tier: String, _ pulse: String, _ readings: String, _ history: String,
                                _ clock: String, _ countdown: String) -> String {
        Format.pad(tier, 9) + Format.pad(pulse, 7) + Format.pad(readings, 12) + Format.pad(history, 9)
            + Format.pad(clock, 7) + countdown
    }

    private var clockPattern: String { clockShowsSeconds ? "h:m:s" : "h:m" }

    private var countdownStepText: String {
        countdownStepSeconds <= 1 ? "1 s" : countdownStepSeconds >= 60 ? "1 min steps" : "\(Int(countdownStepSeconds)) s steps"
    }

    static func number(_ v: Double) -> String { v == v.rounded() ? "\(Int(v))" : "\(v)" }
}
