/// Every number the headroom forecast uses, with named defaults (`ThermalConfig.forecast`).
public struct ForecastConfig: Sendable, Equatable {
    /// Seconds of history the trend is fitted over. Long enough to see through sampling noise
    /// at the default 1 s delay, short enough to follow a load change within seconds.
    public var windowSeconds: Double = 20
    /// Seconds of the newest history whose slope gives the trend's direction and rate
    /// (docs/verdict.md#forecast says why 10). Shorter follows a turn sooner but lets ±1.5 °C of
    /// noise pass for a trend and extrapolates the first seconds of a levelling curve; the whole
    /// window alone lags a turn by half its length.
    public var recentSeconds: Double = 10
    /// Fewest samples in the window before any trend is given.
    public var minSamples = 5
    /// Shortest span of those samples, in seconds.
    public var minSpanSeconds: Double = 4
    /// Slopes smaller than this (°C per second) are steady: 0.6 °C a minute is drift, not a trend.
    public var minSlope: Double = 0.01
    /// How many (robust) standard errors the slope must stand from zero to count.
    /// Also how far (in robust standard deviations of the recent fit) the newest reading may lie
    /// on the wrong side of the fitted line before the trend counts as turning.
    public var minSignificance: Double = 3
    /// How many standard errors the recent slope must stand from zero to count on its own, when
    /// the whole window does not confirm it: the first seconds of a rise, or a turn the whole
    /// window has not followed yet. Twice `minSignificance`: a plateau's noise never gets there.
    public var recentAloneSignificance: Double = 6
    /// Crossings further ahead than this many seconds are reported as steady, never as a
    /// far-fetched number.
    public var horizonSeconds: Double = 600
    /// The curve counts as levelling off when the rise over the window's last third is under
    /// this fraction of the rise over its middle third (an exponential approach with a time
    /// constant under ~13 s at the default window; a noisy ramp stays near 1).
    public var levellingRatio: Double = 0.6
    /// Samples kept per sensor for a fit (a short --delay is thinned evenly to this many).
    public var maxPoints = 60

    /// The default window and thresholds.
    public init() {}
}
