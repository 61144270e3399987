/// The trend of one sensor over its recent history: a robust slope and the level it puts the
/// sensor at now, or why there is none.
///
/// Method: the Theil–Sen estimator (the median of the slopes between every pair of samples),
/// fitted over the whole window (`windowSeconds`) and over its newest `recentSeconds`. The
/// recent fit gives the direction and the rate; the whole window decides whether to trust it:
/// - both fits stand out from their scatter and agree in sign: the recent slope is the trend;
/// - otherwise (the first seconds of a rise, a turn the whole window still lags) the recent
///   slope counts only when it stands out from its own scatter by `recentAloneSignificance`;
///   a plateau's noise, or a step seen by one fit and not the other, never does;
/// - the newest reading that moved against the trend and lies on the wrong side of the fitted
///   line (below it on a rise, above it on a fall) by more than the scatter means the curve has
///   just turned: steady, never the old direction's next state, and a steady level is never
///   on the far side of the newest reading from where it moves;
/// - the median ignores outliers and steps: a load step that jumps a few degrees in one or two
///   samples and then levels off moves fewer than half of the pairs of the window that sees it
///   last, so it does not become a slope that would forecast "critical in 3 s";
/// - when the recent fit shows the curve levelling off (the rise over its last third is well under
///   the rise over its middle third, as an exponential approach gives), the level it is heading
///   for is estimated from the three thirds' means (Aitken's extrapolation) and the trend is
///   capped there: a sensor levelling off below a threshold is never forecast to cross it.
public struct SensorTrend: Sendable, Equatable {
    /// Which way the temperature goes.
    public enum Kind: String, Sendable, Equatable {
        /// Warming.
        case rising
        /// Cooling.
        case falling
        /// Neither, within the noise.
        case steady
        /// Too few samples or too short a span to say anything.
        case notEnoughHistory = "not_enough_history"
    }

    /// Which way it goes.
    public var kind: Kind
    /// °C per second (0 when steady; nil when there is not enough history).
    public var slope: Double?
    /// The fitted temperature at the newest sample's time.
    public var level: Double?
    /// Time of the newest sample.
    public var time: Double?
    /// Samples in the window.
    public var samples: Int
    /// Why the trend is steady (`flat`, `noisy`, `turning`), for the detail view.
    public var note: String?
    /// Where a levelling-off curve is heading; the trend never extrapolates past it.
    public var asymptote: Double?

    /// A trend from its parts.
    public init(kind: Kind, slope: Double?, level: Double?, time: Double?, samples: Int, note: String? = nil,
                asymptote: Double? = nil) {
        self.asymptote = asymptote
        self.kind = kind
        self.slope = slope
        self.level = level
        self.time = time
        self.samples = samples
        self.note = note
    }

    /// Not enough history, with the samples there were.
    public static func notEnough(_ samples: Int) -> SensorTrend {
        SensorTrend(kind: .notEnoughHistory, slope: nil, level: nil, time: nil, samples: samples)
    }

    /// The temperature this trend puts the sensor at `seconds` after its newest sample; the
    /// fitted level itself when steady; nil without enough history.
    public func projected(seconds: Double) -> Double? {
        guard let level, let slope else { return nil }
        let linear = level + slope * Swift.max(0, seconds)
        guard let a = asymptote else { return linear }
        return slope > 0 ? Swift.min(linear, Swift.max(a, level)) : Swift.max(linear, Swift.min(a, level))
    }

    /// Seconds until the trend reaches `celsius` from its newest sample, when it is heading
    /// there (rising to a higher value, falling to a lower one); nil otherwise. 0 when already there.
    public func seconds(toReach celsius: Double) -> Double? {
        guard let level, let slope else { return nil }
        switch kind {
        case .rising:
            if level >= celsius { return 0 }
            if let a = asymptote, a < celsius { return nil }
            return (celsius - level) / slope
        case .falling:
            if level < celsius { return 0 }
            if let a = asymptote, a >= celsius { return nil }
            return (celsius - level) / slope
        case .steady, .notEnoughHistory:
            return nil
        }
    }

    /// The answer for fewer points than a trend needs (`times` oldest first, fewer than
    /// `config.minSamples`; a one-shot `status` has one a sensor): the window is counted, not
    /// built (the filter allocated an array per sensor), and is too small whatever it holds.
    /// The same count, thinning and answer as `fit` gives a window.
    static func tooFew<Times: BidirectionalCollection>(times: Times, config: ForecastConfig) -> SensorTrend
        where Times.Element == Double {
        guard let newest = times.last else { return .notEnough(0) }
        var n = 0
        for t in times where newest - t <= config.windowSeconds && t <= newest { n += 1 }
        if n > config.maxPoints, config.maxPoints >= 2 { n = config.maxPoints }
        return .notEnough(n)
    }

    /// Fit the trend of `points` (time, °C; oldest first) that lie within `config.windowSeconds`
    /// of the newest one.
    public static func fit(_ points: [(time: Double, celsius: Double)], config: ForecastConfig) -> SensorTrend {
        guard let newest = points.last else { return .notEnough(0) }
        if points.count < config.minSamples { return tooFew(times: points.lazy.map(\.time), config: config) }
        var window = points.filter { newest.time - $0.time <= config.windowSeconds && $0.time <= newest.time }
        // Thin a long window evenly (a short --delay): the pairwise median is quadratic.
        if window.count > config.maxPoints, config.maxPoints >= 2 {
            let n = window.count, m = config.maxPoints
            window = (0..<m).map { window[$0 * (n - 1) / (m - 1)] }
        }
        let span = newest.time - (window.first?.time ?? newest.time)
        guard window.count >= config.minSamples, span >= config.minSpanSeconds else { return .notEnough(window.count) }

        let whole = estimate(window, at: newest.time)
        let recentStart = newest.time - Swift.min(config.recentSeconds, span)
        let recentPoints = window.filter { $0.time >= recentStart }
        let recent = recentPoints.count >= 3 ? estimate(recentPoints, at: newest.time) : whole

        // The level now: the recent points carried along the slope to now (their median), so a
        // slope does not drag the level back to where it was.
        func level(_ b: Double) -> Double {
            median(recentPoints.map { $0.celsius + b * (newest.time - $0.time) }) ?? newest.celsius
        }
        // Steady sits at the recent median, but never on the far side of the newest reading
        // from where it is going: after a turn the recent points are on the old side of it
        // (their median after a fall from 97.5 °C would put a sensor now at 85.5 °C at 91.5 °C
        // "in 10 s"), so a falling reading is never projected hotter, nor a rising one cooler.
        let previous = window[window.count - 2].celsius
        func steady(_ note: String) -> SensorTrend {
            var l = level(0)
            if newest.celsius < previous { l = Swift.min(l, newest.celsius) }
            if newest.celsius > previous { l = Swift.max(l, newest.celsius) }
            return SensorTrend(kind: .steady, slope: 0, level: l, time: newest.time, samples: window.count, note: note)
        }
        let slope = recent.slope
        if abs(slope) < config.minSlope { return steady("flat") }
        let alone = recent.significance >= config.recentAloneSignificance
        if whole.slope * slope < 0 {
            // Turning: the whole window still shows the old direction.
            if !alone { return steady("turning") }
        } else if !alone, recent.significance < config.minSignificance || whole.significance < config.minSignificance {
            return steady("noisy")
        }
        let now = level(slope)
        // Just turned: the newest reading moved against the trend since the one before and lies
        // on the wrong side of the fitted line, further than its scatter (at least a millidegree,
        // sysfs's resolution: on a perfect line the level is a rounding error off the reading).
        // Either alone is noise or a curve levelling off: a reading rounded down on a rise.
        let offLine = Swift.max(config.minSignificance * recent.scatter, 0.001)
        if (newest.celsius - previous) * slope < 0, (newest.celsius - now) * slope < 0,
           abs(newest.celsius - now) > offLine {
            return steady("turning")
        }
        let cap = asymptote(recentPoints, from: recentStart, span: newest.time - recentStart, slope: slope, config: config)
            ?? asymptote(window, from: newest.time - span, span: span, slope: slope, config: config)
        return SensorTrend(kind: slope > 0 ? .rising : .falling, slope: slope, level: now,
                           time: newest.time, samples: window.count, asymptote: cap)
    }

    /// The level an exponential approach is heading for, from the means of the window's three
    /// thirds (m1, m2, m3): with d1 = m2 − m1 and d2 = m3 − m2 in the trend's direction and
    /// r = d2 / d1 below `levellingRatio`, the rest of the approach adds d2·r/(1 − r).
    /// nil when the curve is not clearly levelling off (a ramp gives r ≈ 1).
    static func asymptote(_ pts: [(time: Double, celsius: Double)], from start: Double, span: Double,
                          slope: Double, config: ForecastConfig) -> Double? {
        let third = span / 3
        var sums = [0.0, 0.0, 0.0], counts = [0, 0, 0]
        for p in pts {
            let k = Swift.min(2, Swift.max(0, Int((p.time - start) / third)))
            sums[k] += p.celsius
            counts[k] += 1
        }
        guard counts.allSatisfy({ $0 >= 2 }) else { return nil }
        let m = (0..<3).map { sums[$0] / Double(counts[$0]) }
        let d1 = m[1] - m[0], d2 = m[2] - m[1]
        guard d1 * slope > 0, d2 * slope >= 0 else { return nil }
        let r = d2 / d1
        guard r < config.levellingRatio else { return nil }
        return m[2] + d2 * r / (1 - r)
    }

    struct Estimate {
        var slope: Double
        /// Robust standard deviation of the residuals.
        var scatter: Double
        /// Σ(t − t̄)², for the slope's standard error.
        var spread: Double

        /// How many standard errors the slope stands from zero (a t-statistic with the scatter
        /// taken robustly as 1.4826 × the median absolute residual); infinite on a perfect line.
        var significance: Double {
            if slope == 0 { return 0 }
            if scatter <= 0 { return .infinity }
            return abs(slope) / (scatter / spread.squareRoot())
        }
    }

    static func estimate(_ pts: [(time: Double, celsius: Double)], at now: Double) -> Estimate {
        var slopes: [Double] = []
        slopes.reserveCapacity(pts.count * (pts.count - 1) / 2)
        for i in 0..<pts.count {
            for j in (i + 1)..<pts.count where pts[j].time != pts[i].time {
                slopes.append((pts[j].celsius - pts[i].celsius) / (pts[j].time - pts[i].time))
            }
        }
        let b = median(slopes) ?? 0
        // Intercept at `now`: the median of every point carried along the slope to now.
        let level = median(pts.map { $0.celsius + b * (now - $0.time) }) ?? pts.last!.celsius
        let residuals = pts.map { abs($0.celsius - (level - b * (now - $0.time))) }
        let scatter = 1.4826 * (median(residuals) ?? 0)
        let mean = pts.reduce(0) { $0 + $1.time } / Double(pts.count)
        let spread = pts.reduce(0) { $0 + ($1.time - mean) * ($1.time - mean) }
        return Estimate(slope: b, scatter: scatter, spread: spread)
    }

    /// The median, by selection rather than a sort: Theil–Sen takes the median of every
    /// pairwise slope of a sensor's history, each sample, for every sensor, and sorting them
    /// was most of the forecast's cost.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        var a = values
        let m = a.count / 2
        let upper = select(&a, m)
        guard a.count % 2 == 0 else { return upper }
        // Selection leaves everything before index m no greater than a[m]: the lower middle
        // value is the largest of them.
        return (a[0..<m].max()! + upper) / 2
    }

    /// Rearranges `a` so that `a[k]` is the value a sort would put there, with nothing greater
    /// before it and nothing smaller after it (Hoare's selection, median-of-three pivot).
    static func select(_ a: inout [Double], _ k: Int) -> Double {
        var lo = 0, hi = a.count - 1
        while lo < hi {
            let x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi]
            let pivot = max(min(x, y), min(max(x, y), z))
            var i = lo, j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return a[k]
    }
}
