/// Watts from two readings of an energy counter: Δenergy / Δtime, corrected for one wrap at
/// the counter's range. Anything that cannot be trusted is an unknown sample with its reason,
/// never a negative or a spike.
public enum ThermalEnergyRate: Sendable, Equatable {
    /// A trustworthy rate, in watts.
    case watts(Double)
    /// No rate can be trusted; the associated text says why (`needs two samples`, `counter went backwards`…).
    case unknown(String)

    /// The reason a one-shot reading (or the first sample of a run) has no rate.
    public static let needsTwoSamples = "needs two samples"

    /// - previous, current: the counter in µJ at the two samples (nil: unreadable);
    /// - seconds: the time between them;
    /// - range: where the counter wraps (nil: unreadable); ignored when `wraps` is false.
    public static func between(previous: Int64?, current: Int64?, seconds: Double, range: Int64?,
                               wraps: Bool) -> ThermalEnergyRate {
        guard let current else { return .unknown("no reading") }
        guard let previous, seconds > 0, seconds.isFinite else { return .unknown(needsTwoSamples) }
        let maxWatts = ThermalConfig.maximumPlausibleWatts
        var delta: Double
        if wraps {
            // Without the wrap point a small rise may hide a wrap: no rate can be trusted.
            guard let range, range > 0 else { return .unknown("wrap point (max_energy_range_uj) unreadable") }
            // Two wraps within the gap would read as one: the gap must be shorter than the
            // counter takes to go round once at the highest plausible power.
            let longest = min(ThermalConfig.maximumEnergyWindowSeconds, Double(range) / 1e6 / maxWatts)
            if seconds > longest { return .unknown("gap of \(Format.fixed(seconds, places: 0)) s too long to trust") }
            guard previous <= range, current <= range else { return .unknown("counter beyond its range") }
            delta = current >= previous ? Double(current - previous) : Double(range - previous) + Double(current)
        } else {
            if seconds > ThermalConfig.maximumEnergyWindowSeconds {
                return .unknown("gap of \(Format.fixed(seconds, places: 0)) s too long to trust")
            }
            guard current >= previous else { return .unknown("counter went backwards") }
            delta = Double(current - previous)
        }
        let w = delta / 1e6 / seconds
        // A counter that went backwards reads, corrected as a wrap, as nearly a whole range at
        // once: far beyond any real draw.
        guard w <= maxWatts else { return .unknown(current < previous ? "counter went backwards" : "implausible \(Format.fixed(w, places: 0)) W") }
        return .watts(w)
    }
}

/// One power domain as every output shows it: RAPL zones, hwmon power and energy channels,
/// NVML GPUs and the system battery, named once each.
public struct ThermalPowerDomain: Sendable, Equatable, Identifiable {
    /// Stable id: `rapl:package-0`, `rapl:package-0:core`, `hwmon:amdgpu:ppt`, `gpu:0`,
    /// `battery:BAT0`.
    public var id: String
    /// The readable name (`package-0`, `amdgpu PPT`), or the name the config file gives.
    public var name: String
    /// Where the watts come from.
    public var source: ThermalPowerSource
    /// Watts over the window; nil when unknown (`reason` says why).
    public var watts: Double?
    /// Why `watts` is unknown; nil whenever `watts` has a value.
    public var reason: String?
    /// The limits the kernel or driver states for the domain (see `mainLimit`).
    public var limits: [ThermalPowerLimit]
    /// A RAPL subzone's package (`rapl:package-0`), nil for top-level domains.
    public var parent: String?
    /// Hidden by the config file: left out of the dashboard, `status` text and `export`.
    public var hidden: Bool
    /// For an hwmon `powerN` channel, the `ThermalPowerMeter` it was made from (its stable id).
    public var meterID: String?

    /// A domain; with no `watts` a missing `reason` reads `no reading`. `meterID` starts nil.
    public init(id: String, name: String, source: ThermalPowerSource, watts: Double?, reason: String? = nil,
                limits: [ThermalPowerLimit] = [], parent: String? = nil, hidden: Bool = false) {
        self.id = id
        self.name = name
        self.source = source
        self.watts = watts
        self.reason = watts == nil ? (reason ?? "no reading") : nil
        self.limits = limits
        self.parent = parent
        self.hidden = hidden
    }

    /// The limit the domain is held to over time: RAPL's long-term one, else the cap.
    public var mainLimit: ThermalPowerLimit? {
        limits.first { $0.constraint == "long_term" } ?? limits.first { $0.constraint == "cap" }
    }

    /// True when the draw is at its main limit (within `ThermalConfig.powerLimitReachedRatio`).
    public var atLimit: Bool {
        guard let w = watts, let l = mainLimit, l.watts > 0 else { return false }
        return w >= l.watts * ThermalConfig.powerLimitReachedRatio
    }

    /// `28 W of 28 W limit`, `3.2 W`, `unknown (needs two samples)`.
    public var valueText: String {
        guard let w = watts else { return "unknown (\(reason ?? "no reading"))" }
        return Format.power(w) + (mainLimit.map { " of \(Format.power($0.watts)) limit" } ?? "")
    }
}

extension Format {
    /// Watts as the power lines show them: whole watts from 10 W, one decimal below.
    package static func power(_ w: Double) -> String {
        guard w.isFinite else { return "? W" }
        // 9.97 W reads as 10 W, not 10.0 W: the precision follows the rounded value.
        return (abs(w) >= 9.95 ? fixed(w, places: 0) : fixed(w, places: 1)) + " W"
    }
}

/// Every power domain of a sample, in one order (RAPL, hwmon, NVML, battery), with rates from
/// the previous sample. Pure: the same two snapshots give the same domains.
public enum ThermalPowerDomains {
    /// The domains of `snap`, with counter rates over the gap since `previous` (nil: a first
    /// sample, so counters read `needs two samples`); `config` names and hides domains.
    public static func measure(_ snap: ThermalSnapshot, previous: ThermalSnapshot?,
                               config: ThermalConfig = ThermalConfig()) -> [ThermalPowerDomain] {
        var out: [ThermalPowerDomain] = []
        let seconds = previous.map { snap.time - $0.time } ?? 0
        for c in snap.energyCounters {
            var d = ThermalPowerDomain(id: c.id, name: c.name, source: c.source, watts: nil, limits: c.limits, parent: c.parent)
            if let why = c.unreadableReason {
                d.reason = why
            } else {
                let before = previous?.energyCounters.first { $0.id == c.id }?.microjoules
                switch ThermalEnergyRate.between(previous: before, current: c.microjoules, seconds: seconds,
                                          range: c.rangeMicrojoules, wraps: c.wraps) {
                case .watts(let w): d.watts = w; d.reason = nil
                case .unknown(let why): d.reason = why
                }
            }
            out.append(d)
        }
        for m in snap.powerMeters {
            let name = "\(m.chip ?? "hwmon") \(m.label ?? String(m.location.split(separator: "/").last ?? ""))"
            let id = "hwmon:" + (m.chip ?? "hwmon") + ":" + (m.label ?? String(m.location.split(separator: "/").last ?? "")).lowercased()
            var why: String?
            if m.watts == nil { why = m.asleep.map { "asleep (\($0))" } ?? m.issues.first.map { "\($0.reason.rawValue) (\($0.file))" } }
            var d = ThermalPowerDomain(id: id, name: name, source: .hwmon, watts: m.watts, reason: why,
                                       limits: m.capWatts.map { [ThermalPowerLimit(constraint: "cap", watts: $0)] } ?? [])
            d.meterID = m.id
            out.append(d)
        }
        for (i, g) in snap.gpus.enumerated() {
            var why: String?
            if g.powerWatts == nil {
                why = g.asleep.map { "asleep (\($0))" } ?? (g.timedOut ? "NVML did not answer" : "no reading")
            }
            out.append(ThermalPowerDomain(id: "gpu:\(i)", name: g.name ?? "NVIDIA GPU", source: .nvml, watts: g.powerWatts,
                                          reason: why,
                                          limits: g.powerLimitWatts.map { [ThermalPowerLimit(constraint: "cap", watts: $0)] } ?? []))
        }
        for b in snap.batteries {
            out.append(ThermalPowerDomain(id: "battery:\(b.id)", name: b.id, source: .battery, watts: b.watts.map(abs),
                                          reason: "no power_now or current_now"))
        }
        // Two chips with the same name and label (two identical GPUs): ids made unique in order.
        var seen: [String: Int] = [:]
        for i in out.indices {
            let n = seen[out[i].id, default: 0] + 1
            seen[out[i].id] = n
            if n > 1 { out[i].id += "#\(n)" }
        }
        for i in out.indices {
            guard let o = config.override(id: out[i].id, name: out[i].name) else { continue }
            if let n = o.name { out[i].name = n }
            out[i].hidden = o.hidden ?? false
        }
        return out
    }
}
