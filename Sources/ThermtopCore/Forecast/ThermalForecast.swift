/// Android-style headroom: 0 at the sensor's fair threshold, 1 at its critical threshold,
/// above 1 past critical, below 0 under fair. nil without a reading.
public func thermalHeadroom(celsius: Double?, thresholds: SensorThresholds) -> Double? {
    guard let t = celsius else { return nil }
    let span = thresholds.critical.celsius - thresholds.fair.celsius
    guard span > 0 else { return t >= thresholds.critical.celsius ? 1 : 0 }
    return (t - thresholds.fair.celsius) / span
}

/// The forecast for one sensor: its trend, headroom now, and when it reaches the next level.
public struct SensorForecast: Sendable, Equatable, Identifiable {
    public var id: String
    /// The sensor's raw name.
    public var name: String
    /// Its temperature trend over the forecast window.
    public var trend: SensorTrend
    /// Headroom now (from the reading, not the fit).
    public var headroom: Double?
    /// The thresholds its next level is measured against.
    public var thresholds: SensorThresholds
    /// The sensor's own next level along its trend and the seconds until it gets there
    /// (rising: its next threshold; falling: below its current level's clearing point).
    public var next: (state: ThermalState, seconds: Double)?

    public static func == (a: SensorForecast, b: SensorForecast) -> Bool {
        a.id == b.id && a.name == b.name && a.trend == b.trend && a.headroom == b.headroom
            && a.thresholds == b.thresholds && a.next?.state == b.next?.state && a.next?.seconds == b.next?.seconds
    }

    /// Headroom `seconds` ahead along the trend; the current headroom when the trend is steady;
    /// nil without enough history.
    public func headroom(inSeconds seconds: Double) -> Double? {
        thermalHeadroom(celsius: trend.projected(seconds: seconds), thresholds: thresholds)
    }
}

/// Where the device state is heading.
public enum ForecastOutlook: Sendable, Equatable {
    /// The state rises to `to` in about `seconds` at the current trend.
    case rising(to: ThermalState, seconds: Double)
    /// The state falls back to `to` in about `seconds`.
    case falling(to: ThermalState, seconds: Double)
    /// No state change is coming at the current trends.
    case steady
    /// Too little history to forecast.
    case notEnoughHistory

    /// The state the outlook heads to; nil when steady or unknown.
    public var nextState: ThermalState? {
        switch self {
        case .rising(let s, _), .falling(let s, _): s
        case .steady, .notEnoughHistory: nil
        }
    }

    /// Seconds until it gets there; nil when steady or unknown.
    public var seconds: Double? {
        switch self {
        case .rising(_, let s), .falling(_, let s): s
        case .steady, .notEnoughHistory: nil
        }
    }

    /// `rising`, `falling`, `steady`, `not_enough_history`.
    public var name: String {
        switch self {
        case .rising: "rising"
        case .falling: "falling"
        case .steady: "steady"
        case .notEnoughHistory: "not_enough_history"
        }
    }
}

/// The headroom forecast of the whole device: where the measured state is heading, the
/// headroom now and along the trend, and each sensor's share.
public struct ThermalForecast: Sendable, Equatable {
    /// Where the measured state is heading.
    public var outlook: ForecastOutlook
    /// The measured state the outlook starts from.
    public var state: ThermalState
    /// The highest sensor headroom now (Android reports the most stressed sensor); nil without
    /// any reading.
    public var headroom: Double?
    /// The sensor with that headroom.
    public var headroomSensor: String?
    /// The sensor whose trend gives the outlook's time.
    public var decidingSensor: String?
    /// Each sensor's forecast.
    public var sensors: [SensorForecast]
    /// How the trend is estimated (`status --json` `method`).
    public var method: String

    /// The trend estimator's name (`theil-sen`).
    public static let method = "theil-sen"

    /// No forecast: not enough history.
    public static let none = ThermalForecast(outlook: .notEnoughHistory, state: .nominal, headroom: nil,
                                             headroomSensor: nil, decidingSensor: nil, sensors: [], method: method)

    /// A forecast from its parts.
    public init(outlook: ForecastOutlook, state: ThermalState, headroom: Double?, headroomSensor: String?,
                decidingSensor: String?, sensors: [SensorForecast], method: String = ThermalForecast.method) {
        self.outlook = outlook
        self.state = state
        self.headroom = headroom
        self.headroomSensor = headroomSensor
        self.decidingSensor = decidingSensor
        self.sensors = sensors
        self.method = method
    }

    /// Android's `getThermalHeadroom(forecastSeconds)`: the highest sensor headroom `seconds`
    /// ahead along each sensor's trend. nil when no sensor has enough history to say (a
    /// one-shot `thermtop status`); sensors without history count at their current headroom.
    public func headroom(inSeconds seconds: Double) -> Double? {
        guard sensors.contains(where: { $0.trend.kind != .notEnoughHistory }) else { return nil }
        return sensors.compactMap { $0.headroom(inSeconds: seconds) ?? $0.headroom }.max()
    }

    /// The forecast of the sensor with this id.
    public func sensor(_ id: String) -> SensorForecast? { sensors.first { $0.id == id } }

    /// `serious in ~40 s`, `back to fair in ~3 min`, `steady`, `not enough history`.
    public var summary: String {
        switch outlook {
        case .rising(let s, let secs): "\(s) in \(Self.approximate(secs))"
        case .falling(let s, let secs): "back to \(s) in \(Self.approximate(secs))"
        case .steady: "steady"
        case .notEnoughHistory: "not enough history"
        }
    }

    /// `<1 s`, `~8 s`, `~40 s`, `~3 min`: rounded so the figure does not flicker with every sample.
    public static func approximate(_ seconds: Double) -> String {
        let s = max(0, seconds)
        // "serious in ~0 s" reads as a contradiction while the state has not changed yet.
        if s < 0.5 { return "<1 s" }
        if s < 10 { return "~\(Int(s.rounded())) s" }
        if s < 90 { return "~\(Int((s / 5).rounded()) * 5) s" }
        return "~\(Int((s / 60).rounded())) min"
    }
}

/// Recent readings per sensor id, pruned to the forecast window. A value: the monitor keeps
/// one and feeds it every assessment.
public struct ForecastHistory: Sendable, Equatable {
    /// The kept readings of each sensor id, oldest first.
    public private(set) var points: [String: [Point]] = [:]

    /// One reading: when, and how hot.
    public struct Point: Sendable, Equatable {
        /// Monitor-clock seconds.
        public var time: Double
        /// Degrees Celsius.
        public var celsius: Double
    }

    /// No history.
    public init() {}

    /// Add every sensor reading of an assessment taken at `time`. Sensors that vanished are
    /// forgotten; a reading that goes unknown keeps the older points (they age out).
    /// A time at or before the newest one (a clock that went backwards) starts over.
    public mutating func record(_ assessment: ThermalAssessment, at time: Double, config: ForecastConfig) {
        // Sized once: grown from empty it was rehashed at every doubling.
        var next = [String: [Point]](minimumCapacity: assessment.sensors.count)
        for i in assessment.sensors.indices {
            // By index, fields read in place (iterating copied each whole assessment out).
            var pts = points[assessment.sensors[i].sensor.id] ?? []
            if let last = pts.last, time <= last.time { pts = [] }
            if let c = assessment.sensors[i].sensor.celsius, c.isFinite { pts.append(Point(time: time, celsius: c)) }
            // Keep a little more than the window so a thinned window still has its oldest edge.
            let keepAfter = time - config.windowSeconds
            if let firstKept = pts.firstIndex(where: { $0.time >= keepAfter }), firstKept > 0 {
                pts.removeFirst(firstKept)
            }
            next[assessment.sensors[i].sensor.id] = pts
        }
        points = next
    }

    /// The trend of sensor `id` over the window `config` sets.
    public func trend(_ id: String, config: ForecastConfig) -> SensorTrend {
        let stored = points[id] ?? []
        // Too few for a trend (a one-shot has one point a sensor): answered from the times,
        // without first copying the points into the tuples `fit` takes (an array a sensor).
        if stored.count < config.minSamples { return SensorTrend.tooFew(times: stored.lazy.map(\.time), config: config) }
        return SensorTrend.fit(stored.map { ($0.time, $0.celsius) }, config: config)
    }
}

/// Turns an assessment and the recent history into a forecast. Pure.
package enum Forecaster {
    /// - The state rises when any sensor reaches the next state's threshold: the outlook is the
    ///   soonest such crossing along each rising sensor's trend.
    /// - It falls back when every source holding it clears: the outlook is the latest clearing
    ///   time among the sensors at the state, and only when all of them are falling and nothing
    ///   else (a cooling device, the throttle counters) holds the state.
    /// - Crossings beyond `horizonSeconds` are steady.
    public static func forecast(_ assessment: ThermalAssessment, history: ForecastHistory,
                                config: ThermalConfig) -> ThermalForecast {
        let fc = config.forecast
        let state = assessment.state
        var sensors: [SensorForecast] = []
        sensors.reserveCapacity(assessment.sensors.count)
        // By index, each assessment read where it is (iterating copied each whole one out).
        let all = assessment.sensors
        for i in all.indices where !all[i].ignored {
            let trend = history.trend(all[i].sensor.id, config: fc)
            var next: (ThermalState, Double)?
            if trend.kind == .rising, let up = ThermalState(rawValue: all[i].level.rawValue + 1),
               let secs = trend.seconds(toReach: all[i].thresholds[up]!.celsius), secs <= fc.horizonSeconds {
                next = (up, secs)
            } else if trend.kind == .falling, all[i].level > .nominal, let down = ThermalState(rawValue: all[i].level.rawValue - 1),
                      let secs = trend.seconds(toReach: all[i].thresholds[all[i].level]!.clearsBelow), secs <= fc.horizonSeconds {
                next = (down, secs)
            }
            sensors.append(SensorForecast(id: all[i].sensor.id, name: all[i].sensor.name, trend: trend,
                                          headroom: thermalHeadroom(celsius: all[i].sensor.celsius, thresholds: all[i].thresholds),
                                          thresholds: all[i].thresholds, next: next))
        }
        // (Lazily filtered, and below only asked whether any exists: the filters copied whole
        // forecasts and assessments into arrays read once.)
        let top = sensors.lazy.filter { $0.headroom != nil }.max { ($0.headroom!, $1.id) < ($1.headroom!, $0.id) }
        func result(_ o: ForecastOutlook, _ by: String?) -> ThermalForecast {
            ThermalForecast(outlook: o, state: state, headroom: top?.headroom, headroomSensor: top?.id,
                            decidingSensor: by, sensors: sensors)
        }
        let anyReading = assessment.sensors.contains { !$0.ignored && $0.sensor.celsius != nil }
        let anyKnown = sensors.contains { $0.trend.kind != .notEnoughHistory }
        if !anyReading || !anyKnown { return result(.notEnoughHistory, nil) }

        // Rising: any sensor (whatever its own level) reaching the next device state.
        if let up = ThermalState(rawValue: state.rawValue + 1) {
            // From the trends fitted above (one per sensor not ignored, the costly part of a
            // forecast), not fitted again.
            let crossings = sensors.compactMap { f -> (String, Double)? in
                guard f.trend.kind == .rising, let s = f.trend.seconds(toReach: f.thresholds[up]!.celsius),
                      s <= fc.horizonSeconds else { return nil }
                return (f.id, s)
            }
            if let soonest = crossings.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
                return result(.rising(to: up, seconds: soonest.1), soonest.0)
            }
        }

        // Falling: only when sensors alone hold the state, and all of them are cooling.
        if state > .nominal, let down = ThermalState(rawValue: state.rawValue - 1) {
            let coolingHolds = assessment.cooling.contains { !$0.ignored && $0.level >= state }
            let throttleHolds = (assessment.throttle?.level ?? .nominal) >= state
            let holding = sensors.filter { s in assessment.sensors.first { $0.sensor.id == s.id }?.level == state }
            if !coolingHolds, !throttleHolds, !holding.isEmpty {
                let times = holding.map { s -> Double? in
                    guard let n = s.next, n.state == down else { return nil }
                    return n.seconds
                }
                if times.allSatisfy({ $0 != nil }) {
                    let latest = zip(holding, times.map { $0! }).max { ($0.1, $1.0.id) < ($1.1, $0.0.id) }!
                    return result(.falling(to: down, seconds: latest.1), latest.0.id)
                }
            }
        }
        // The deciding sensor has no history yet (hot-plugged, or just readable again).
        if let d = assessment.decidedBy, let s = sensors.first(where: { $0.id == d }), s.trend.kind == .notEnoughHistory {
            return result(.notEnoughHistory, nil)
        }
        return result(.steady, nil)
    }
}
