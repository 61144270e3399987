/// Every margin and default the classifier and the low-power rule use, in one place, with
/// named defaults. Override a field, or a sensor through `overrides`.
public struct ThermalConfig: Sendable, Equatable {
    /// Serious threshold for a sensor with no passive trip, hwmon max or critical trip.
    public var defaultSerious: Double = 85
    /// Serious threshold for a battery temperature sensor with no limits of its own.
    public var defaultBatterySerious: Double = 45
    /// serious = shutdown limit (critical trip, else hwmon crit, else emergency) − this, when
    /// there is no warning limit (passive trip, hwmon max). 15 °C: far enough below the limit
    /// that software has time to shed load before the firmware acts (docs/verdict.md).
    public var seriousBelowLimit: Double = 15
    /// critical = shutdown limit − this, when there is no hot trip: 5 °C is a few seconds of a
    /// fast rise, the last moment to act before the hardware does (docs/verdict.md).
    public var criticalBelowLimit: Double = 5
    /// critical = serious + this, when the sensor has no hot, critical or crit limit.
    public var criticalAboveSerious: Double = 10
    /// fair = serious − this.
    public var fairBelowSerious: Double = 10
    /// Hysteresis when the trip gives none (or 0): a level clears below threshold − this.
    public var defaultHysteresis: Double = 2
    /// Intel throttle counters that rose within this many seconds raise the state to serious.
    public var throttleWindowSeconds: Double = 30
    /// Fail safe: a sensor that read above nominal and then stops reading (unreadable file,
    /// device removed) keeps its last level for this many seconds, marked held, before it
    /// counts as unknown. Long enough to ride out a driver reload, short enough not to pin a
    /// cooled machine at critical forever.
    public var sensorHoldSeconds: Double = 60
    /// Battery saver: discharging at or below this percentage counts as low power.
    public var batterySaverPercent: Double = 20
    /// platform_profile values that mean the machine is saving power.
    public var lowPowerProfiles: Set<String> = Defaults.lowPowerProfiles
    /// Cooling device types whose state is not a response to heat (LCD brightness,
    /// a fixed TCC offset): they never raise the state.
    public var ignoredCoolingTypes: Set<String> = Defaults.ignoredCoolingTypes
    /// ChromeOS powerd's cur/max ratios per cooling-device kind (fair, serious, critical).
    public var coolingRatios: [CoolingKind: CoolingRatios] = CoolingRatios.chromeOS
    /// hwmon fans under automatic control, by duty (PWM ÷ 255, else RPM ÷ max RPM): fair only at
    /// full speed (the fan curve has run out of room), never above. A fan at its normal duty
    /// (a board's curve idles at 30-70 %) is cooling at work, not a heat level (docs/verdict.md).
    public var fanDutyRatios: CoolingRatios = Defaults.fanDutyRatios
    /// Per-sensor overrides, keyed by the stable sensor id (`pci-0000:00:18.3/k10temp/Tctl`,
    /// `virtual/thermal/x86_pkg_temp`; survives renumbering) or the raw name (`x86_pkg_temp`,
    /// `coretemp Package id 0`).
    public var overrides: [String: SensorOverride] = [:]
    /// The headroom forecast's window, gates and horizon.
    public var forecast = ForecastConfig()
    /// Glob rules over sensor ids (the config file's `[[sensor]]` tables), applied in order;
    /// a later rule's set fields win, and an entry in `overrides` wins over all of them.
    public var rules: [SensorPatternOverride] = []

    /// A sysfs read that has not returned after this many seconds is given up on: the file is
    /// unknown (`timed-out`) and the rest of the sample goes on.
    public var readDeadlineSeconds: Double = 0.25
    /// Once a sample has stalled and spent its extra deadline, each further read still gets this
    /// long (a healthy sysfs read takes microseconds).
    public var stalledReadGraceSeconds: Double = 0.02
    /// A value file found missing is not looked up on every sample (sysfs attributes come and go
    /// with their device, and that is a uevent and a rediscovery); it is tried again after this
    /// many samples, so a file that comes back without a device event (a driver that creates
    /// attributes late, a copied tree) is read again within seconds. Counted in samples, not
    /// seconds, so a replay retries exactly where the recorded run did.
    public var missingFileRetrySamples: Int = 5
    /// A slow start that is still no hang, given longer than `readDeadlineSeconds`: loading and
    /// initialising NVML (the driver's first contact with the GPU).
    public var uninterruptibleReadDeadlineSeconds: Double = 5
    /// A reader thread with nothing to read for this long ends (the next batch starts one): a
    /// root that went through reader threads for a while (after a stall) keeps no extra thread.
    public var idleReaderSeconds: Double = 2

    /// Every default (the values docs/verdict.md lists).
    public init() {}

    /// The collection defaults, made once per process: a configuration is made several times
    /// on every run (each default `config:` argument), and a set or dictionary literal in a
    /// property's initializer would be built, hashed and freed each time.
    private enum Defaults {
        static let lowPowerProfiles: Set<String> = ["low-power", "quiet", "cool"]
        static let ignoredCoolingTypes: Set<String> = ["LCD", "TCC Offset"]
        static let fanDutyRatios = CoolingRatios(fair: 1.0, serious: nil, critical: nil)
    }

    /// The override for a sensor: matching rules in order, then `overrides` by id or name.
    public func override(for sensor: ThermalSensor) -> SensorOverride? { override(id: sensor.id, name: sensor.name) }

    /// The same for anything with an id and a name (a power domain: `rapl:package-0`).
    public func override(id: String, name: String) -> SensorOverride? {
        var merged: SensorOverride?
        for r in rules where r.match.matches(id) {
            merged = (merged ?? SensorOverride()).merged(with: r.override)
        }
        if let exact = overrides[id] ?? overrides[name] {
            merged = (merged ?? SensorOverride()).merged(with: exact)
        }
        return merged
    }
}

/// Fixed numbers: battery reading limits and the dashboard's sort span. Static, not per
/// monitor: the reading layer applies its limits before any configuration is chosen, and they
/// describe hardware and the kernel ABI, not taste.
extension ThermalConfig {
    /// Below this rate (W) a time to empty or full is noise ("112208 days"): report unknown.
    public static let minimumMeaningfulBatteryWatts = 0.05
    /// The same floor for charge gauges timed by current alone (≈ 0.05 W at a 10 V pack), in A.
    public static let minimumMeaningfulBatteryAmps = 0.005
    /// upower's caps: no time to empty above 240 h, no time to full above 20 h.
    public static let maximumSecondsToEmpty = 240.0 * 3600
    /// upower's cap on time to full (20 h).
    public static let maximumSecondsToFull = 20.0 * 3600
    /// A gauge reading more than this × full (`energy_now` > `energy_full`) is recalibrating:
    /// clamped to full for the percentage, with an `implausible` note.
    public static let batteryOverFullTolerance = 1.05
    /// full ÷ design beyond this factor (either way) means one of them is in the wrong unit.
    public static let batteryUnitMismatchRatio = 100.0
    /// No battery pack, Li-ion or NiMH, sits under 1 V: a smaller value is in mV, not µV.
    public static let minimumPackVolts = 1.0

    /// `SensorAssessment.headroom` (the dashboard's "nearest limit first" order): 0 this many °C
    /// below the serious threshold, 1 at it. Static: an ordering, not a decision.
    public static let sortHeadroomSpan = 30.0

    /// No domain a reader sees draws more: watts beyond are junk or a counter gone wrong.
    public static let maximumPlausibleWatts = 2_000.0
    /// The longest gap between two energy readings a rate is taken over: longer is an unknown
    /// sample, not an average over whatever happened in between.
    public static let maximumEnergyWindowSeconds = 600.0
    /// A domain at this share of its long-term limit (or cap) or more is held by it.
    public static let powerLimitReachedRatio = 0.95
    /// A CPU clock below this share of its maximum is slowed (when a limit or heat explains it).
    public static let clockSlowedRatio = 0.9
}

/// Thresholds a user pins for one sensor; nil fields keep the derived value.
public struct SensorOverride: Sendable, Equatable {
    /// Where serious starts, °C.
    public var serious: Double?
    /// Where critical starts, °C.
    public var critical: Double?
    /// How far below serious fair starts, °C.
    public var fairBelowSerious: Double?
    /// How far below a threshold its level clears, °C.
    public var hysteresis: Double?
    /// Leave this sensor out of the device state (a sensor known to lie).
    public var ignore: Bool
    /// An absolute fair threshold (wins over `fairBelowSerious`).
    public var fair: Double?
    /// What every output calls the sensor instead of its kernel name.
    public var name: String?
    /// Shown nowhere (dashboard, status text, export) but still judged; nil = not set.
    public var hidden: Bool?
    /// Listed first on the dashboard; nil = not set.
    public var pinned: Bool?
    /// True when `ignore` was set explicitly, so merging a later `ignore = false` can undo an
    /// earlier rule's `ignore = true`.
    public var ignoreSet: Bool

    /// An override; every value left nil keeps the derived one.
    public init(serious: Double? = nil, critical: Double? = nil, fairBelowSerious: Double? = nil,
                hysteresis: Double? = nil, ignore: Bool = false, fair: Double? = nil, name: String? = nil,
                hidden: Bool? = nil, pinned: Bool? = nil, ignoreSet: Bool = false) {
        self.serious = serious
        self.critical = critical
        self.fairBelowSerious = fairBelowSerious
        self.hysteresis = hysteresis
        self.ignore = ignore
        self.fair = fair
        self.name = name
        self.hidden = hidden
        self.pinned = pinned
        self.ignoreSet = ignoreSet
    }
}

/// How ChromeOS groups cooling devices.
public enum CoolingKind: String, Sendable, Hashable, CaseIterable {
    /// CPU frequency and idle injection (`Processor`, `thermal-cpufreq-N`, `intel_powerclamp`).
    case processor
    /// Fans (`Fan`, `TFN1`, `pwm-fan`).
    case fan
    /// Charge-rate limiting (`TCHG`).
    case charger
    /// Anything else.
    case other

    /// Kind from the cooling device `type` (`Processor`, `thermal-cpufreq-0`, `intel_powerclamp`,
    /// `Fan`, `TFN1`, `pwm-fan`, `TCHG`…).
    public init(type: String) {
        let t = type.lowercased()
        if t == "processor" || t.contains("cpufreq") || t.hasPrefix("cpu") || t == "intel_powerclamp" {
            self = .processor
        } else if t.contains("fan") || t.hasPrefix("tfn") {
            self = .fan
        } else if t.contains("charger") || t.hasPrefix("tchg") {
            self = .charger
        } else {
            self = .other
        }
    }
}

/// The fraction of `max_state` at which a cooling device reaches fair, serious and critical
/// (`cur_state ≥ ceil(max_state × ratio)`); nil = that kind never reaches the level.
public struct CoolingRatios: Sendable, Equatable {
    /// The fraction for fair.
    public var fair: Double?
    /// The fraction for serious.
    public var serious: Double?
    /// The fraction for critical.
    public var critical: Double?

    /// Ratios from the three.
    public init(fair: Double?, serious: Double?, critical: Double?) {
        self.fair = fair
        self.serious = serious
        self.critical = critical
    }

    /// ChromeOS powerd's table ("approximately similar to NSProcessInfoThermalState").
    public static let chromeOS: [CoolingKind: CoolingRatios] = [
        .processor: CoolingRatios(fair: 0.1, serious: 0.5, critical: 0.8),
        .fan: CoolingRatios(fair: 0.5, serious: 1.0, critical: nil),
        .charger: CoolingRatios(fair: 0.7, serious: 1.0, critical: nil),
        .other: CoolingRatios(fair: 0.5, serious: 0.8, critical: 1.0),
    ]

    /// The fraction for `state`; nil for nominal, or when the kind never reaches it.
    public func ratio(for state: ThermalState) -> Double? {
        switch state {
        case .nominal: nil
        case .fair: fair
        case .serious: serious
        case .critical: critical
        }
    }
}
