/// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile
/// collector reads it: one `# HELP` and `# TYPE` per family, units in the names, label values
/// escaped. A small writer rather than swift-prometheus: the export is a one-shot snapshot of a
/// value we already have, and the dashboard binary must not grow Foundation for it.
package struct MetricsWriter: Sendable {
    public private(set) var text = ""
    /// The same families and samples as values, in order: what `ThermtopMetrics` reports
    /// through swift-metrics, so both name every metric alike.
    public private(set) var families: [MetricFamily] = []
    private var declared: [String: Int] = [:]

    public init() {}

    public enum Kind: String, Sendable { case gauge, counter }

    /// One family: its name, kind, help and samples.
    public struct MetricFamily: Sendable {
        public var name: String
        public var kind: Kind
        public var help: String
        public var samples: [(labels: [(String, String)], value: Double)] = []
    }

    /// Start a family. Each family is declared once, before its samples.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        precondition(declared[name] == nil, "metric family \(name) declared twice")
        declared[name] = families.count
        families.append(MetricFamily(name: name, kind: kind, help: help))
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        // Cleaned as the text is, not escaped: each backend escapes for its own format.
        if let i = declared[name] { families[i].samples.append((labels.map { ($0.0, Format.clean($0.1)) }, value)) }
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A family with one unlabelled sample.
    public mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Double) {
        family(name, kind, help: help)
        sample(name, [], value)
    }

    /// Label values: control characters become `?` by the screen's rule (`Format.clean`): raw
    /// ESC, CR, BS or BEL are legal in the format, but common parsers reject the file and `cat`
    /// of it would drive a terminal. Then backslash and double quote are escaped (the
    /// exposition format's rule).
    public static func escapeLabel(_ s: String) -> String { escape(Format.clean(s), quotes: true) }

    /// HELP text: backslash and line feed are escaped; quotes stay.
    public static func escapeHelp(_ s: String) -> String { escape(s, quotes: false) }

    private static func escape(_ s: String, quotes: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Go's float formatting as Prometheus parses it: integers without a fraction, NaN, ±Inf.
    public static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}

/// How `export --every`'s own writes went, for its metrics: a scraper that keeps reading an
/// old file can tell that it is old and why.
package struct ExportHealth: Sendable, Equatable {
    /// Unix time of the last write that reached the file; nil before the first.
    public var lastSuccess: Double?
    /// Writes that failed since the exporter started (each is retried at the next interval).
    public var failedWrites = 0

    public init(lastSuccess: Double? = nil, failedWrites: Int = 0) {
        self.lastSuccess = lastSuccess
        self.failedWrites = failedWrites
    }
}

/// `thermtop export`: the status as Prometheus metrics.
package enum MetricsReport {
    /// The `_level` gauges' value: the state's raw value, nominal 0 … critical 3.
    static func ordinal(_ s: ThermalState) -> Double { Double(s.rawValue) }

    /// - readErrorsTotal: failed reads summed over every sample this process made.
    /// - unixTime: wall-clock seconds of the sample.
    /// - export: how the exporter's own writes went (its two families), nil to leave them out.
    public static func prometheus(_ s: MonitorStatus, version: String, readErrorsTotal: Int, unixTime: Double,
                                  export: ExportHealth? = nil, heatSources: Int = 0) -> String {
        families(s, version: version, readErrorsTotal: readErrorsTotal, unixTime: unixTime, export: export,
                 heatSources: heatSources).text
    }

    /// The metrics of `prometheus(…)`, as text and as values (`families`). `heatSources`: how
    /// many of the top heat sources to write (0, the default: none; they are opt-in).
    public static func families(_ s: MonitorStatus, version: String, readErrorsTotal: Int, unixTime: Double,
                                export: ExportHealth? = nil, heatSources: Int = 0) -> MetricsWriter {
        var w = MetricsWriter()
        let snap = s.snapshot

        w.family("thermtop_info", .gauge, help: "Always 1; labels say which thermtop and which sensor source.")
        w.sample("thermtop_info", [("version", version), ("source", s.sourceLabel), ("simulated", s.sourceIsSimulated ? "true" : "false")], 1)

        w.single("thermtop_thermal_state_level", .gauge,
                 help: "Thermal state in force: 0 nominal, 1 fair, 2 serious, 3 critical.", ordinal(s.thermalState))
        w.family("thermtop_thermal_state", .gauge, help: "1 for the thermal state in force, 0 for the others (one-hot).")
        // Nothing measured: no state is 1 (unknown is never a level).
        for st in ThermalState.allCases { w.sample("thermtop_thermal_state", [("state", st.name)], st == s.thermalState && !s.stateIsUnknown ? 1 : 0) }
        w.single("thermtop_measured", .gauge, help: "1 when the thermal state was measured, 0 when nothing could be read (unknown).",
                 s.assessment.measured ? 1 : 0)
        w.single("thermtop_simulated", .gauge, help: "1 when anything in force is simulated (forced state or low power, simulated laptop), else 0.",
                 s.isSimulated ? 1 : 0)
        w.single("thermtop_thermal_state_simulated", .gauge, help: "1 when the thermal state is forced (simulated), else 0.",
                 s.stateIsSimulated ? 1 : 0)
        // What the sensors say: nothing when nothing was measured, never a level of 0 that a
        // dashboard would draw as nominal.
        let measuredHelp = "Thermal state the sensors say, before any simulation: 0 nominal … 3 critical; absent when nothing is measured."
        if let measured = s.assessment.measuredState {
            w.single("thermtop_measured_thermal_state_level", .gauge, help: measuredHelp, ordinal(measured))
        } else {
            w.family("thermtop_measured_thermal_state_level", .gauge, help: measuredHelp)
        }

        let tiers = QualityTier.allCases
        w.single("thermtop_tier_level", .gauge, help: "Quality tier: 0 full, 1 reduced, 2 minimal.",
                 Double(tiers.firstIndex(of: s.tier) ?? 0))
        w.family("thermtop_tier", .gauge, help: "1 for the quality tier in force, 0 for the others (one-hot).")
        for t in tiers { w.sample("thermtop_tier", [("tier", t.rawValue)], t == s.tier ? 1 : 0) }
        w.single("thermtop_low_power", .gauge, help: "1 when low power mode is on, else 0.", s.isLowPowerModeEnabled ? 1 : 0)
        w.single("thermtop_refresh_interval_seconds", .gauge, help: "The policy's refresh interval for the tier in force.",
                 s.policy.refreshIntervalSeconds)

        let shown = s.assessment.sensors.filter { !$0.hidden }
        func labels(_ a: SensorAssessment) -> [(String, String)] {
            [("id", a.sensor.id), ("name", a.sensor.name), ("kind", a.sensor.kind.rawValue)]
        }
        w.family("thermtop_sensor_celsius", .gauge, help: "Temperature of each sensor in degrees Celsius (sensors without a reading are left out; see thermtop_sensor_up).")
        for a in shown { if let c = a.sensor.celsius { w.sample("thermtop_sensor_celsius", labels(a), c) } }
        w.family("thermtop_sensor_up", .gauge, help: "1 when the sensor has a reading, 0 when it is unknown.")
        for a in shown { w.sample("thermtop_sensor_up", labels(a), a.sensor.celsius == nil ? 0 : 1) }
        w.family("thermtop_sensor_level", .gauge, help: "Level of each sensor: 0 nominal, 1 fair, 2 serious, 3 critical.")
        for a in shown { w.sample("thermtop_sensor_level", labels(a), ordinal(a.level)) }
        w.family("thermtop_sensor_threshold_celsius", .gauge, help: "Each sensor's fair, serious and critical thresholds in degrees Celsius.")
        for a in shown {
            for (lvl, t) in [("fair", a.thresholds.fair), ("serious", a.thresholds.serious), ("critical", a.thresholds.critical)] {
                w.sample("thermtop_sensor_threshold_celsius", labels(a) + [("level", lvl)], t.celsius)
            }
        }
        w.family("thermtop_sensor_decides_state", .gauge, help: "1 for the sensor that decides the thermal state, else 0.")
        for a in shown { w.sample("thermtop_sensor_decides_state", labels(a), a.sensor.id == s.assessment.decidedBy ? 1 : 0) }

        if !s.assessment.cooling.isEmpty {
            w.family("thermtop_cooling_device_state", .gauge, help: "Current state of each cooling device (cur_state).")
            for c in s.assessment.cooling {
                if let cur = c.device.currentState {
                    w.sample("thermtop_cooling_device_state", [("id", c.device.id), ("type", c.device.type ?? ""), ("kind", c.kind.rawValue)], Double(cur))
                }
            }
            w.family("thermtop_cooling_device_max_state", .gauge, help: "Highest state of each cooling device (max_state).")
            for c in s.assessment.cooling {
                if let m = c.device.maxState {
                    w.sample("thermtop_cooling_device_max_state", [("id", c.device.id), ("type", c.device.type ?? ""), ("kind", c.kind.rawValue)], Double(m))
                }
            }
        }

        if snap.fans.contains(where: { $0.rpm != nil }) {
            w.family("thermtop_fan_rpm", .gauge, help: "Fan speed in revolutions per minute (fans without a reading are left out).")
            for f in snap.fans { if let r = f.rpm { w.sample("thermtop_fan_rpm", [("id", f.id), ("name", f.displayName)], r) } }
        }

        if !snap.batteries.isEmpty {
            let b = ThermalCombinedBattery(snap.batteries)
            if let p = b.percent {
                w.single("thermtop_battery_percent", .gauge, help: "Charge of the system battery (several are combined by energy), percent.", p)
            }
            if let watts = b.watts {
                w.single("thermtop_battery_watts", .gauge, help: "Power flowing into or out of the system battery, watts.", watts)
            }
            if let t = b.secondsToEmpty {
                w.single("thermtop_battery_seconds_to_empty", .gauge, help: "Estimated seconds until the system battery is empty (only while discharging).", t)
            }
            if let t = b.secondsToFull {
                w.single("thermtop_battery_seconds_to_full", .gauge, help: "Estimated seconds until the system battery is full (only while charging).", t)
            }
            w.single("thermtop_battery_discharging", .gauge, help: "1 while the system battery discharges, else 0.", b.status == .discharging ? 1 : 0)
        }
        if let online = snap.acOnline {
            w.single("thermtop_ac_online", .gauge, help: "1 when a mains or USB adapter is online, else 0.", online ? 1 : 0)
        }

        if let t = snap.throttle {
            w.single("thermtop_throttle_core_events_total", .counter,
                     help: "Intel core thermal throttle events, summed over CPUs (thermal_throttle/core_throttle_count).", Double(t.core))
            w.single("thermtop_throttle_package_events_total", .counter,
                     help: "Intel package thermal throttle events (thermal_throttle/package_throttle_count).", Double(t.package))
        }

        writeGPUs(snap, into: &w)
        writePower(s, into: &w)
        writeHeatSources(s, top: heatSources, into: &w)

        let issues = snap.allIssues
        var byReason: [String: Int] = [:]
        for i in issues { byReason[i.reason.rawValue, default: 0] += 1 }
        w.family("thermtop_read_issues", .gauge, help: "Values that could not be read in the last sample, by reason (missing, permission-denied, io-error, …).")
        for r in byReason.keys.sorted() { w.sample("thermtop_read_issues", [("reason", r)], Double(byReason[r]!)) }
        w.single("thermtop_read_errors_total", .counter,
                 help: "Values that could not be read, summed over every sample since this exporter started.", Double(readErrorsTotal))
        w.single("thermtop_last_sample_timestamp_seconds", .gauge, help: "Unix time of the sample these metrics come from.", unixTime.rounded())
        if let e = export {
            if let t = e.lastSuccess {
                w.single("thermtop_export_last_success_timestamp_seconds", .gauge,
                         help: "Unix time of the exporter's last successful write of this file (older than the scrape when writes fail).", t.rounded())
            }
            w.single("thermtop_export_write_failures_total", .counter,
                     help: "Writes of this file that failed (a full disk, say) since the exporter started; each is retried at the next interval.",
                     Double(e.failedWrites))
        }
        return w
    }
}

/// thermtop's version, as `--version`, `thermtop_info` and the reporter's `thermtop_info` say it.
package enum ThermtopInfo {
    package static let version = "0.1.0"
}
