/// One threshold of a sensor: where the level starts, how far below it the level clears, and
/// the rule that produced it (shown in reasons and in the detail view).
public struct ThermalThreshold: Sendable, Equatable {
    /// Where the level starts, °C.
    public var celsius: Double
    /// How far below `celsius` the level clears, °C.
    public var hysteresis: Double
    /// Where the value comes from, as words and temperatures: `passive trip`, `hwmon max`,
    /// `critical trip 103.0 °C − 15.0 °C`…, rendered in the reader's unit.
    public var rulePhrase: ThermalPhrase
    /// The rule in °C, as `status --json` prints it (`serious_rule`).
    public var rule: String { rulePhrase.text(.celsius) }
    /// True when the value is the named limit itself (a trip, an hwmon limit, a configured
    /// value), false when it was derived from another one.
    public var isDirect: Bool

    /// A threshold from its parts, its rule in words.
    public init(celsius: Double, hysteresis: Double, rule: String, isDirect: Bool = true) {
        self.init(celsius: celsius, hysteresis: hysteresis, rulePhrase: ThermalPhrase(stringLiteral: rule), isDirect: isDirect)
    }

    /// A threshold from its parts, its rule quoting temperatures.
    public init(celsius: Double, hysteresis: Double, rulePhrase: ThermalPhrase, isDirect: Bool = true) {
        self.celsius = celsius
        self.hysteresis = hysteresis
        self.rulePhrase = rulePhrase
        self.isDirect = isDirect
    }

    /// `passive trip 90.0 °C`, or `88.0 °C (critical trip 103.0 °C − 15.0 °C)`.
    public var label: String { label(.celsius) }

    /// `label` in `units`.
    package func label(_ units: TemperatureUnit) -> String {
        isDirect ? "\(rulePhrase.text(units)) \(units.format(celsius))" : "\(units.format(celsius)) (\(rulePhrase.text(units)))"
    }

    /// The temperature below which this level clears.
    public var clearsBelow: Double { celsius - hysteresis }
}

/// The fair, serious and critical thresholds of one sensor.
public struct SensorThresholds: Sendable, Equatable {
    /// Where fair starts.
    public var fair: ThermalThreshold
    /// Where serious starts.
    public var serious: ThermalThreshold
    /// Where critical starts.
    public var critical: ThermalThreshold

    /// Thresholds from the three.
    public init(fair: ThermalThreshold, serious: ThermalThreshold, critical: ThermalThreshold) {
        self.fair = fair
        self.serious = serious
        self.critical = critical
    }

    /// The threshold where `state` starts; nil for nominal.
    public subscript(state: ThermalState) -> ThermalThreshold? {
        switch state {
        case .nominal: nil
        case .fair: fair
        case .serious: serious
        case .critical: critical
        }
    }

    /// The level a temperature reaches against these limits, without hysteresis: the one rule
    /// the classifier starts from and the bars and graph colour by.
    public func level(at celsius: Double) -> ThermalState {
        var l = ThermalState.nominal
        for s in [ThermalState.fair, .serious, .critical] where celsius >= self[s]!.celsius { l = s }
        return l
    }

    /// Thresholds from the sensor's own data. One margin rule for every kind of limit
    /// (docs/verdict.md): a *warning* limit (passive trip, hwmon `max`: where the system
    /// starts to cool) is serious itself; a *shutdown* limit (critical trip, hwmon `crit`,
    /// else `emergency`: where hardware stops or throttles hard, as for NVMe and GPUs) puts
    /// critical `criticalBelowLimit` under it and serious `seriousBelowLimit` under it; a hot
    /// trip (the firmware's own "about to be critical") is critical itself. A warning limit at
    /// or above the shutdown limit or the hot trip is no warning and is passed over.
    /// - serious: configured; lowest passive trip; hwmon `max`; shutdown limit − 15 °C; a default by kind.
    /// - critical: configured; hot trip; shutdown limit − 5 °C, or halfway from serious to the
    ///   shutdown limit when that is not above serious (NVMe max 81.85, crit 84.85 → 83.35);
    ///   serious + 10 °C.
    /// - fair: serious − 10 °C.
    /// Every sensor's levels come out strictly ordered, fair < serious < critical, and each
    /// rule text says how its value was reached.
    /// A level clears below its threshold minus the trip's hysteresis (default 2 °C).
    public static func derive(for sensor: ThermalSensor, config: ThermalConfig) -> SensorThresholds {
        let o = config.override(for: sensor)
        let defaultHyst = o?.hysteresis ?? config.defaultHysteresis
        func hyst(_ trip: TripPoint?) -> Double {
            if let h = o?.hysteresis { return h }
            if let h = trip?.hysteresis, h > 0 { return h }
            return defaultHyst
        }

        // A warning limit at or above the shutdown limit warns of nothing (coretemp's max =
        // crit = 100 °C): the shutdown rule applies instead.
        let shutdown = shutdownLimit(of: sensor)
        // Nor does one at or above the hot trip, which is critical itself.
        let hot = o?.critical == nil ? sensor.hotTrip?.celsius : nil
        func warns(_ c: Double) -> Bool { (shutdown.map { c < $0.celsius } ?? true) && (hot.map { c < $0 } ?? true) }
        var serious: ThermalThreshold
        if let t = o?.serious {
            serious = ThermalThreshold(celsius: t, hysteresis: defaultHyst, rule: "configured")
        } else if let p = sensor.passiveTrips.first, let c = p.celsius, warns(c) {
            serious = ThermalThreshold(celsius: c, hysteresis: hyst(p), rule: sensor.tripsFrom.map { "\($0) passive trip" } ?? "passive trip")
        } else if let m = sensor.max, warns(m) {
            serious = ThermalThreshold(celsius: m, hysteresis: defaultHyst, rule: "hwmon max")
        } else if let limit = shutdown {
            serious = ThermalThreshold(celsius: limit.celsius - config.seriousBelowLimit,
                                hysteresis: limit.trip.map(hyst) ?? defaultHyst,
                                rulePhrase: degreesRule(limit.name, limit.celsius, " − ", config.seriousBelowLimit),
                                isDirect: false)
        } else {
            let d = sensor.isBattery ? config.defaultBatterySerious : config.defaultSerious
            serious = ThermalThreshold(celsius: d, hysteresis: defaultHyst,
                                rule: sensor.isBattery ? "default for batteries" : "default for sensors without limits",
                                isDirect: false)
        }

        var critical: ThermalThreshold
        if let t = o?.critical {
            critical = ThermalThreshold(celsius: t, hysteresis: defaultHyst, rule: "configured")
        } else if let h = sensor.hotTrip, let c = h.celsius {
            critical = ThermalThreshold(celsius: c, hysteresis: hyst(h), rule: sensor.tripsFrom.map { "\($0) hot trip" } ?? "hot trip")
        } else if let limit = shutdown, limit.celsius > serious.celsius {
            // A warning limit within the margin of the shutdown limit: critical halfway between.
            let below = limit.celsius - config.criticalBelowLimit
            let halfway = below <= serious.celsius
            let c = halfway ? (serious.celsius + limit.celsius) / 2 : below
            var h = limit.trip.map(hyst) ?? defaultHyst
            // hwmon's crit_hyst is where the chip's own alarm clears (absolute): the level
            // clears there too when that is below the threshold and plausible.
            if limit.trip == nil, o?.hysteresis == nil, sensor.crit != nil, let ch = sensor.critHyst, ch < c, c - ch <= 50 { h = c - ch }
            let rule = halfway
                ? ThermalPhrase([.words("halfway from ")] + (serious.isDirect ? serious.rulePhrase.parts : [.words("serious")])
                                + [.words(" "), .degrees(serious.celsius), .words(" to \(limit.name)"), .degrees(limit.celsius)])
                : degreesRule(limit.name, limit.celsius, " − ", config.criticalBelowLimit)
            critical = ThermalThreshold(celsius: c, hysteresis: h, rulePhrase: rule, isDirect: false)
        } else {
            critical = aboveSerious(serious, config: config, hysteresis: defaultHyst)
        }
        // A configured serious at or above the critical limit: critical stays above it.
        if critical.celsius <= serious.celsius { critical = aboveSerious(serious, config: config, hysteresis: defaultHyst) }

        let fair: ThermalThreshold
        if let f = o?.fair, f < serious.celsius {
            fair = ThermalThreshold(celsius: f, hysteresis: defaultHyst, rule: "configured")
        } else {
            let fairMargin = o?.fairBelowSerious ?? config.fairBelowSerious
            fair = ThermalThreshold(celsius: serious.celsius - fairMargin, hysteresis: defaultHyst,
                             rulePhrase: degreesRule("serious ", serious.celsius, " − ", fairMargin),
                             isDirect: false)
        }
        return SensorThresholds(fair: fair, serious: serious, critical: critical)
    }

    /// Critical `criticalAboveSerious` over serious, for sensors without a limit above it.
    static func aboveSerious(_ serious: ThermalThreshold, config: ThermalConfig, hysteresis: Double) -> ThermalThreshold {
        ThermalThreshold(celsius: serious.celsius + config.criticalAboveSerious, hysteresis: hysteresis,
                  rulePhrase: degreesRule("serious ", serious.celsius, " + ", config.criticalAboveSerious), isDirect: false)
    }

    /// The limit at which the hardware acts by itself (shuts down, or throttles hard): the
    /// zone's critical trip, else hwmon `crit`, else `emergency`. Every kind is treated alike
    /// (`derive`); `name` is how the rule names it (`critical trip `, `hwmon crit `…).
    static func shutdownLimit(of sensor: ThermalSensor) -> (celsius: Double, name: String, trip: TripPoint?)? {
        if let ct = sensor.criticalTrip, let c = ct.celsius { return (c, "critical trip ", ct) }
        if let c = sensor.crit { return (c, "hwmon crit ", nil) }
        if let c = sensor.emergency { return (c, "hwmon emergency ", nil) }
        return nil
    }

    /// True for a sensor judged on default limits alone with no known role: no trip, no hwmon
    /// limit, nothing configured, and neither a known group (CPU, GPU, disk, Wi-Fi, battery)
    /// nor a named board channel (an unconnected Super-I/O `AUXTIN`, an unlabelled `tempN`).
    /// Such a reading is shown but counts as fair at most (docs/verdict.md).
    public static func isUncorroborated(_ s: ThermalSensor, override o: SensorOverride?) -> Bool {
        if !s.passiveTrips.isEmpty || s.hotTrip != nil || s.criticalTrip != nil { return false }
        if s.max != nil || s.crit != nil || s.emergency != nil { return false }
        if let o, o.serious != nil || o.critical != nil || o.fair != nil { return false }
        switch s.group {
        case .cpu, .gpu, .disk, .wifi, .battery: return false
        case .board, .other: break
        }
        guard let label = s.label, !label.isEmpty else { return true }
        let l = label.lowercased()
        if l.hasPrefix("auxtin") { return true }
        // An unlabelled hwmon channel carries its file name (`temp3`).
        if l.hasPrefix("temp"), l.count > 4, l.dropFirst(4).allSatisfy(\.isNumber) { return true }
        return false
    }

    /// A derived threshold's rule, `<head><a> <op> <b>`: a temperature and a difference
    /// (`critical trip 103.0 °C − 15.0 °C`).
    package static func degreesRule(_ head: String, _ a: Double, _ op: String, _ b: Double) -> ThermalPhrase {
        ThermalPhrase([.words(head), .degrees(a), .words(op), .difference(b)])
    }
}

/// `91.0 °C`: one decimal, the way every thermtop output prints temperatures (a minus sign,
/// U+2212, below zero).
package func formatDegrees(_ c: Double) -> String {
    guard c.isFinite else { return "? °C" }
    let tenths = (abs(c) * 10).rounded()
    let sign = c < 0 && tenths > 0 ? "−" : ""
    guard tenths < 1e17 else { return "\(sign)\(abs(c)) °C" }
    let t = Int64(tenths)
    return "\(sign)\(t / 10).\(t % 10) °C"
}
