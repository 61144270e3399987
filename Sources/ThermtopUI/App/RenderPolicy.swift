import ThermtopCore

/// What the dashboard itself does at each quality tier: the one place the UI's own rules by
/// tier live (like the seeds' tier table), so the run loop, the widgets and the help screen
/// read the same numbers. The dashboard obeys the tier it shows: at `reduced` and `minimal` it
/// animates less or not at all, keeps history at a coarser step and changes its clock and
/// countdown less often, so fewer frames reach the terminal.
public struct RenderPolicy: Sendable, Equatable {
    public var tier: QualityTier
    /// Pulse frames per second; 0 = a static pulse and no animation wakeups.
    public var pulseFramesPerSecond: Double
    /// Seconds between two history points (sparklines and the graph); a sample that arrives
    /// sooner replaces the newest point instead of adding one, so the line moves at this pace.
    public var historyStepSeconds: Double
    /// Whether the header clock shows seconds (`12:34:56`) or minutes (`12:34`).
    public var clockShowsSeconds: Bool
    /// The refresh countdown is shown rounded up to this many seconds.
    public var countdownStepSeconds: Double

    public init(tier: QualityTier) {
        self.tier = tier
        switch tier {
        case .full:
            pulseFramesPerSecond = 2
            historyStepSeconds = 1
            clockShowsSeconds = true
            countdownStepSeconds = 1
        case .reduced:
            pulseFramesPerSecond = 1
            historyStepSeconds = 5
            clockShowsSeconds = false
            countdownStepSeconds = 10
        case .minimal:
            pulseFramesPerSecond = 0
            historyStepSeconds = 15
            clockShowsSeconds = false
            countdownStepSeconds = 60
        }
    }

    /// The step the history actually advances at: never finer than the sampling delay.
    public func historyStep(sampleDelay: Double) -> Double { max(historyStepSeconds, sampleDelay) }

    /// `12:34:56` at full, `12:34` below.
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

    /// One line for the help screen: what the dashboard does at this tier.
    public var helpLine: String {
        let pulse = pulseFramesPerSecond > 0 ? "pulse \(Self.number(pulseFramesPerSecond))/s" : "no pulse"
        let clock = clockShowsSeconds ? "clock h:m:s" : "clock h:m"
        let countdown = countdownStepSeconds <= 1 ? "countdown 1 s" : "countdown \(countdownStepSeconds >= 60 ? "1 min" : "\(Int(countdownStepSeconds)) s") steps"
        return "\(Format.pad(tier.rawValue + ":", 8)) \(pulse), history every \(Self.number(historyStepSeconds)) s, \(clock), \(countdown)"
    }

    static func number(_ v: Double) -> String { v == v.rounded() ? "\(Int(v))" : "\(v)" }
}
