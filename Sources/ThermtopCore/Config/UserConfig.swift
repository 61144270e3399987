/// What a user's `config.toml` says, as a value. Parsed by `ThermtopConfig.ConfigParser`
/// (TOMLKit); this type stays in the core so the dashboard, reports and tests can use it
/// without a TOML library.
///
/// Every field is optional: nil means "not set in the file", so command-line flags and
/// built-in defaults apply, and the debug overlay can list exactly what came from the file.
package struct UserConfig: Sendable, Equatable {
    /// Seconds between samples.
    public var delay: Double?
    public var units: TemperatureUnit?
    public var color: Bool?
    public var ascii: Bool?
    /// A command to run on every change (as `--on-change`).
    public var onChange: String?
    /// Seconds between two runs of the on-change command (as `--on-change-min-interval`).
    public var onChangeMinInterval: Double?
    /// Seconds a run of the on-change command may take (as `--on-change-timeout`).
    public var onChangeTimeout: Double?
    /// Why `on_change` was refused (a file or folder others can write): nil when it was not.
    /// The rest of the file still applies.
    public var onChangeRefused: ConfigProblem?
    /// The process table heat sources read (as `--proc-root`, which wins).
    public var procRoot: String?
    /// The top heat sources `export` writes (as `--heat-sources N`, which wins); nil: none.
    public var exportHeatSources: Int?
    /// `[[sensor]]` rules, in file order; later rules override fields of earlier ones.
    public var sensors: [SensorRule]
    /// The file it came from (for messages), nil for built-in or in-memory configs.
    public var path: String?

    public init(delay: Double? = nil, units: TemperatureUnit? = nil, color: Bool? = nil, ascii: Bool? = nil,
                onChange: String? = nil, onChangeMinInterval: Double? = nil, onChangeTimeout: Double? = nil,
                sensors: [SensorRule] = [], path: String? = nil) {
        self.delay = delay
        self.units = units
        self.color = color
        self.ascii = ascii
        self.onChange = onChange
        self.onChangeMinInterval = onChangeMinInterval
        self.onChangeTimeout = onChangeTimeout
        self.sensors = sensors
        self.path = path
    }

    /// No file: every default applies.
    public static let empty = UserConfig()

    /// Accepted range for `delay` (the same as `--delay`).
    public static let delayRange: ClosedRange<Double> = 0.2...3600
    /// Accepted range for `export_heat_sources` (the same small maximum as `--heat-sources`).
    public static let exportHeatSourcesRange: ClosedRange<Int> = 1...MetricsReport.maximumHeatSources
    /// Accepted range for `on_change_min_interval`.
    public static let onChangeIntervalRange: ClosedRange<Double> = 0...86400
    /// Accepted range for `on_change_timeout` (the same as `--on-change-timeout`).
    public static let onChangeTimeoutRange: ClosedRange<Double> = 0.1...86400
    /// Thresholds a rule may set, in °C: the range a plausible limit lies in.
    public static let thresholdRange: ClosedRange<Double> = 1...150
    /// Hysteresis a rule may set, in °C.
    public static let hysteresisRange: ClosedRange<Double> = 0...50

    /// The thermal config with these rules folded in: thresholds change the decision, names
    /// and hiding ride along to every output.
    public func applied(to base: ThermalConfig = ThermalConfig()) -> ThermalConfig {
        var c = base
        c.rules += sensors.map(\.patternOverride)
        return c
    }

    /// Human lines for the debug overlay: one per option the file sets.
    public var summary: [String] {
        var out: [String] = []
        if let d = delay { out.append("delay = \(Self.number(d)) s") }
        if let u = units { out.append("units = \(u.rawValue)") }
        if let c = color { out.append("color = \(c)") }
        if let a = ascii { out.append("ascii = \(a)") }
        if let o = onChange { out.append("on_change = \(o)") }
        if let i = onChangeMinInterval { out.append("on_change_min_interval = \(Self.number(i)) s") }
        if let t = onChangeTimeout { out.append("on_change_timeout = \(Self.number(t)) s") }
        if let r = procRoot { out.append("proc_root = \(r)") }
        if let n = exportHeatSources { out.append("export_heat_sources = \(n)") }
        for (n, r) in sensors.enumerated() { out.append("sensor #\(n + 1): \(r.summary)") }
        return out
    }

    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : "\(d)"
    }
}

/// °C or °F. Temperatures are stored and computed in °C; only display converts.
package enum TemperatureUnit: String, Sendable, Equatable, CaseIterable {
    case celsius, fahrenheit

    public var toggled: TemperatureUnit { self == .celsius ? .fahrenheit : .celsius }
    public var symbol: String { self == .celsius ? "°C" : "°F" }

    /// A temperature in this unit.
    public func value(_ celsius: Double) -> Double {
        self == .celsius ? celsius : celsius * 9 / 5 + 32
    }

    /// A temperature difference (hysteresis, margins) in this unit.
    public func delta(_ celsius: Double) -> Double {
        self == .celsius ? celsius : celsius * 9 / 5
    }

    /// `91.0 °C` or `195.8 °F`, one decimal, like `formatDegrees`. °F is converted from the °C
    /// value as °C shows it (to a tenth), so a reading, its reason (`ThermalReason.text`) and the
    /// °C text of `status --json` agree to the tenth.
    public func format(_ celsius: Double) -> String {
        guard self == .fahrenheit else { return formatDegrees(celsius) }
        return formatDegrees(value(Self.asShown(celsius))).replacingSuffix("°C", with: "°F")
    }

    /// A °C value (or difference) to the tenth `formatDegrees` shows; huge and non-finite values
    /// as they are.
    static func asShown(_ celsius: Double) -> Double {
        abs(celsius) < 1e15 ? (celsius * 10).rounded() / 10 : celsius
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with new: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + new : self
    }
}

/// One `[[sensor]]` table.
package struct SensorRule: Sendable, Equatable {
    /// A stable sensor id or a glob of ids.
    public var match: SensorGlob
    public var hide: Bool?
    public var name: String?
    public var pin: Bool?
    /// Leave the sensor out of the device state (a sensor known to lie); it is still shown.
    public var ignore: Bool?
    /// Absolute thresholds in °C.
    public var fair: Double?
    public var serious: Double?
    public var critical: Double?
    /// °C below a threshold at which its level clears.
    public var hysteresis: Double?
    /// Line of the `[[sensor]]` header in the file (for messages), 0 when unknown.
    public var line: Int

    public init(match: String, hide: Bool? = nil, name: String? = nil, pin: Bool? = nil, ignore: Bool? = nil,
                fair: Double? = nil, serious: Double? = nil, critical: Double? = nil, hysteresis: Double? = nil,
                line: Int = 0) {
        self.match = SensorGlob(match)
        self.hide = hide
        self.name = name
        self.pin = pin
        self.ignore = ignore
        self.fair = fair
        self.serious = serious
        self.critical = critical
        self.hysteresis = hysteresis
        self.line = line
    }

    public var patternOverride: SensorPatternOverride {
        SensorPatternOverride(match: match, override: SensorOverride(
            serious: serious, critical: critical, hysteresis: hysteresis, ignore: ignore ?? false,
            fair: fair, name: name, hidden: hide, pinned: pin, ignoreSet: ignore != nil))
    }

    public var summary: String {
        var parts = ["match \(match.pattern)"]
        if let n = name { parts.append("name \(n)") }
        if let h = hide { parts.append("hide \(h)") }
        if let p = pin { parts.append("pin \(p)") }
        if let i = ignore { parts.append("ignore \(i)") }
        if let f = fair { parts.append("fair \(formatDegrees(f))") }
        if let s = serious { parts.append("serious \(formatDegrees(s))") }
        if let c = critical { parts.append("critical \(formatDegrees(c))") }
        if let h = hysteresis { parts.append("hysteresis \(formatDegrees(h))") }
        return parts.joined(separator: ", ")
    }
}

/// A per-sensor override that applies to every sensor whose id matches a glob.
public struct SensorPatternOverride: Sendable, Equatable {
    /// The sensor ids it applies to.
    public var match: SensorGlob
    /// What it changes for them.
    public var override: SensorOverride

    /// An override for every sensor whose id matches.
    public init(match: SensorGlob, override: SensorOverride) {
        self.match = match
        self.override = override
    }
}

extension SensorOverride {
    /// `other`'s set fields over this one's (rules later in a file win).
    public func merged(with other: SensorOverride) -> SensorOverride {
        var o = self
        if let v = other.serious { o.serious = v }
        if let v = other.critical { o.critical = v }
        if let v = other.fairBelowSerious { o.fairBelowSerious = v }
        if let v = other.fair { o.fair = v }
        if let v = other.hysteresis { o.hysteresis = v }
        if other.ignoreSet || other.ignore { o.ignore = other.ignore; o.ignoreSet = true }
        if let v = other.name { o.name = v }
        if let v = other.hidden { o.hidden = v }
        if let v = other.pinned { o.pinned = v }
        return o
    }
}
