/// Every number the headroom forecast uses, with named defaults (`ThermalConfig.forecast`).
public struct ForecastConfig: Sendable, Equatable {
    /// Seconds of history the trend is fitted over. Long enough to see through sampling noise
    /// at the default 1 s delay, short enough to follow a load change within seconds.
    public var windowSeconds: Double = 20
    /// Fewest samples in the window before any trend is given.
    public var minSamples = 5
    /// Shortest span of those samples, in seconds.
    public var minSpanSeconds: Double = 4
    /// Slopes smaller than this (°C per second) are steady: 0.6 °C a minute is drift, not a trend.
    public var minSlope: Double = 0.01
    /// How many (robust) standard errors the slope must stand from zero to count.
    public var minSignificance: Double = 3
    /// Crossings further ahead than this many seconds are reported as steady, never as a
    /// far-fetched number.
    public var horizonSeconds: Double = 600
    /// The curve counts as levelling off when the rise over the window's last third is under
    /// this fraction of the rise over its middle third (an exponential approach with a time
    /// constant under ~13 s at the default window; a noisy ramp stays near 1).
    public var levellingRatio: Double = 0.6
    /// Samples kept per sensor for a fit (a short --delay is thinned evenly to this many).
    public var maxPoints = 60

    public init() {}
}
