/// The level of one temperature sensor, its thresholds and why.
public struct SensorAssessment: Sendable, Equatable, Identifiable {
    public var sensor: TemperatureSensor
    public var thresholds: SensorThresholds
    public var level: ThermalState
    /// True when the reading is below the level's threshold but above its clearing point.
    public var heldByHysteresis: Bool
    /// True when an override says to leave the sensor out.
    public var ignored: Bool
    public var reason: String

    public var id: String { sensor.id }

    /// How far the sensor is toward its serious threshold: 0 at 30 °C below it, 1 at it
    /// (Android's headroom normalisation). Used to sort the dashboard.
    public var headroom: Double? {
        guard let t = sensor.celsius else { return nil }
        return (t - (thresholds.serious.celsius - 30)) / 30
    }
}

/// A cooling device judged by ChromeOS ratios.
public struct CoolingAssessment: Sendable, Equatable, Identifiable {
    public var device: CoolingDevice
    public var kind: CoolingKind
    public var level: ThermalState
    public var ignored: Bool
    public var reason: String
    public var id: String { device.id }
}

/// What the Intel throttle counters say.
public struct ThrottleAssessment: Sendable, Equatable {
    public var total: Int64
    /// Increase seen in the sample that last saw the counters rise.
    public var lastIncrease: Int64
    /// Seconds since the counters last rose, nil if never seen rising.
    public var secondsSinceIncrease: Double?
    public var level: ThermalState
    public var reason: String
}

/// The device's thermal state with every source and the reason for it.
public struct ThermalAssessment: Sendable, Equatable {
    public var state: ThermalState
    /// `serious: x86_pkg_temp 91.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C)`.
    public var reason: String
    /// The id of the sensor, cooling device or `throttle` that decided the state, if any.
    public var decidedBy: String?
    public var sensors: [SensorAssessment]
    public var cooling: [CoolingAssessment]
    public var throttle: ThrottleAssessment?

    public static let unknown = ThermalAssessment(
        state: .nominal, reason: "nominal: no sample yet", decidedBy: nil, sensors: [], cooling: [], throttle: nil)
}

/// What the classifier remembers between samples: each sensor's last level (for hysteresis)
/// and the throttle counters' history.
public struct ClassifierMemory: Sendable, Equatable {
    public var levels: [String: ThermalState] = [:]
    public var throttleTotal: Int64?
    public var throttleRoseAt: Double?
    public var throttleLastIncrease: Int64 = 0

    public init() {}
}

/// Turns a snapshot into a thermal state. Pure: the same snapshot, config and memory give the
/// same answer; `memory` carries hysteresis and throttle history to the next call.
public enum Classifier {
    /// Level of one sensor given its previous level. Rising: the highest level whose
    /// threshold is reached. Falling: a level is kept while the reading stays at or above
    /// `threshold − hysteresis`.
    public static func level(celsius t: Double, thresholds th: SensorThresholds,
                             previous: ThermalState) -> (level: ThermalState, held: Bool) {
        var raw = ThermalState.nominal
        for s in [ThermalState.fair, .serious, .critical] where t >= th[s]!.celsius { raw = s }
        if raw >= previous { return (raw, false) }
        var kept = raw
        for s in [ThermalState.fair, .serious, .critical] where s <= previous && s > raw && t >= th[s]!.clearsBelow {
            kept = s
        }
        return (kept, kept > raw)
    }

    public static func assess(sensor: TemperatureSensor, config: ThermalConfig,
                              previous: ThermalState) -> SensorAssessment {
        let th = SensorThresholds.derive(for: sensor, config: config)
        let ignored = config.override(for: sensor)?.ignore ?? false
        guard let t = sensor.celsius else {
            let why = sensor.issue.map { "\($0.reason.rawValue)" } ?? "no reading"
            return SensorAssessment(sensor: sensor, thresholds: th, level: .nominal, heldByHysteresis: false,
                                    ignored: ignored, reason: "unknown: \(sensor.name) \(why)")
        }
        let (lvl, held) = level(celsius: t, thresholds: th, previous: previous)
        let reason: String
        if lvl == .nominal {
            reason = "nominal: \(sensor.name) \(formatDegrees(t)) < fair \(formatDegrees(th.fair.celsius))"
        } else {
            let thr = th[lvl]!
            if held {
                reason = "\(lvl): \(sensor.name) \(formatDegrees(t)) held until below \(formatDegrees(thr.clearsBelow)) (\(thr.label))"
            } else {
                reason = "\(lvl): \(sensor.name) \(formatDegrees(t)) ≥ \(thr.label) (clears below \(formatDegrees(thr.clearsBelow)))"
            }
        }
        return SensorAssessment(sensor: sensor, thresholds: th, level: ignored ? .nominal : lvl,
                                heldByHysteresis: held, ignored: ignored,
                                reason: ignored ? "ignored by configuration (\(reason))" : reason)
    }

    public static func assess(cooling d: CoolingDevice, config: ThermalConfig) -> CoolingAssessment {
        let type = d.type ?? d.id
        let kind = CoolingKind(type: type)
        if config.ignoredCoolingTypes.contains(type) {
            return CoolingAssessment(device: d, kind: kind, level: .nominal, ignored: true,
                                     reason: "\(type): not a response to heat, ignored")
        }
        guard let cur = d.currentState, let max = d.maxState, max > 0 else {
            return CoolingAssessment(device: d, kind: kind, level: .nominal, ignored: false,
                                     reason: "\(type): state unknown")
        }
        let ratios = config.coolingRatios[kind] ?? CoolingRatios.chromeOS[.other]!
        var lvl = ThermalState.nominal
        var needed = 0
        for s in [ThermalState.fair, .serious, .critical] {
            guard let r = ratios.ratio(for: s) else { continue }
            let n = Int((Double(max) * r).rounded(.up))
            if cur >= n, n > 0 { lvl = s; needed = n }
        }
        let reason = lvl == .nominal
            ? "\(type) at \(Swift.max(cur, 0))/\(max)"
            : "\(lvl): cooling device \(type) at state \(cur)/\(max) (≥ \(needed), \(kind.rawValue) ratio)"
        return CoolingAssessment(device: d, kind: kind, level: lvl, ignored: false, reason: reason)
    }

    public static func assess(_ snapshot: Snapshot, config: ThermalConfig,
                              memory: inout ClassifierMemory) -> ThermalAssessment {
        var sensors: [SensorAssessment] = []
        var levels: [String: ThermalState] = [:]
        for s in snapshot.temperatureSensors {
            let a = assess(sensor: s, config: config, previous: memory.levels[s.id] ?? .nominal)
            levels[s.id] = a.level
            sensors.append(a)
        }
        memory.levels = levels
        let cooling = snapshot.coolingDevices.map { assess(cooling: $0, config: config) }

        var throttle: ThrottleAssessment?
        if let counters = snapshot.throttle {
            if let before = memory.throttleTotal, counters.total > before {
                memory.throttleRoseAt = snapshot.time
                memory.throttleLastIncrease = counters.total - before
            }
            memory.throttleTotal = counters.total
            let since = memory.throttleRoseAt.map { snapshot.time - $0 }
            let active = since.map { $0 <= config.throttleWindowSeconds } ?? false
            throttle = ThrottleAssessment(
                total: counters.total, lastIncrease: memory.throttleLastIncrease, secondsSinceIncrease: since,
                level: active ? .serious : .nominal,
                reason: active
                    ? "serious: Intel thermal throttle counters rose by \(memory.throttleLastIncrease) within the last \(Int(config.throttleWindowSeconds)) s"
                    : "throttle counters steady (\(counters.total))")
        } else {
            memory.throttleTotal = nil
        }

        // The deciding source: highest level; among sensors at that level, the one furthest past
        // its threshold.
        var state = ThermalState.nominal
        var reason = ""
        var decidedBy: String?
        let hot = sensors.filter { !$0.ignored && $0.level > .nominal }.max { a, b in
            if a.level != b.level { return a.level < b.level }
            let ma = (a.sensor.celsius ?? 0) - a.thresholds[a.level]!.celsius
            let mb = (b.sensor.celsius ?? 0) - b.thresholds[b.level]!.celsius
            return ma < mb
        }
        if let hot { state = hot.level; reason = hot.reason; decidedBy = hot.sensor.id }
        if let c = cooling.filter({ !$0.ignored }).max(by: { $0.level < $1.level }), c.level > state {
            state = c.level; reason = c.reason; decidedBy = c.device.id
        }
        if let t = throttle, t.level > state {
            state = t.level; reason = t.reason; decidedBy = "throttle"
        }
        if state == .nominal {
            if let top = sensors.filter({ $0.sensor.celsius != nil && !$0.ignored })
                .max(by: { ($0.headroom ?? -1) < ($1.headroom ?? -1) }) {
                reason = "nominal: every sensor below its fair threshold (closest: \(top.sensor.name) \(formatDegrees(top.sensor.celsius!)), fair at \(formatDegrees(top.thresholds.fair.celsius)))"
            } else if sensors.isEmpty && cooling.isEmpty {
                reason = "nominal: no thermal sensors found (unknown is reported as nominal, as on Apple platforms)"
            } else {
                reason = "nominal: no sensor has a reading"
            }
        }
        return ThermalAssessment(state: state, reason: reason, decidedBy: decidedBy, sensors: sensors,
                                 cooling: cooling, throttle: throttle)
    }
}
