/// Everything decided from one sample, as a value: what the dashboard draws and what
/// `thermtop status` prints.
public struct MonitorStatus: Sendable, Equatable {
    /// The readings the decision was made from.
    public var snapshot: ThermalSnapshot
    /// The classifier's verdict from real readings (before overrides).
    public var assessment: ThermalAssessment
    /// The low-power verdict from real signals (before overrides).
    public var lowPowerAssessment: LowPowerAssessment
    /// The simulation overrides in force when it was decided.
    public var overrides: ThermalOverrides
    /// What the source is shown as (`live /sys`, a tree's path, `simulated laptop`).
    public var sourceLabel: String
    /// Whether the source is a simulation rather than a machine.
    public var sourceIsSimulated: Bool
    /// Where the measured state is heading, and the headroom (from the monitor's history).
    public var forecast: ThermalForecast = .none
    /// The sampler's own state: counts, what woke it, event sources, stuck files.
    public var sampler = MonitorSamplerInfo()
    /// Every power domain (RAPL, hwmon, NVML, battery), watts over the window since the sample
    /// before; unknown with a reason where a rate cannot be had (the first sample, a root-only
    /// counter).
    public var power: [ThermalPowerDomain] = []
    /// Whether the machine is throttling, why, and the evidence.
    public var throttling = ThermalThrottling.unknown
    /// Who is heating it: CPU per command name over `window`, nil when `/proc` is not walked
    /// (heat sources are opt-in on the hub).
    public var heatSources: ThermalHeatSources?
    /// Seconds between this sample and the one before it, the window of `power` and
    /// `throttling`; nil for a first sample.
    public var window: Double?
    /// What besides the clock wakes the sampler (uevent, thermal netlink, power profiles over
    /// D-Bus): active or not, why, and how many messages came. Empty for sources with no events
    /// (the simulated laptop, a fixture tree).
    public var eventSources: [EventSourceState] {
        get { sampler.eventSources }
        set { sampler.eventSources = newValue }
    }

    /// A status from its parts (the hub makes them; tests and replays may too).
    public init(snapshot: ThermalSnapshot, assessment: ThermalAssessment, lowPowerAssessment: LowPowerAssessment,
                overrides: ThermalOverrides, sourceLabel: String, sourceIsSimulated: Bool,
                forecast: ThermalForecast = .none) {
        self.snapshot = snapshot
        self.assessment = assessment
        self.lowPowerAssessment = lowPowerAssessment
        self.overrides = overrides
        self.sourceLabel = sourceLabel
        self.sourceIsSimulated = sourceIsSimulated
        self.forecast = forecast
    }

    /// The state in force: the override when one is set, else the measured one.
    public var thermalState: ThermalState { overrides.thermalState ?? assessment.state }
    /// Low power in force: the override when one is set, else the measured one.
    public var isLowPowerModeEnabled: Bool { overrides.lowPower ?? lowPowerAssessment.enabled }
    /// What the tier in force allows.
    public var policy: QualityPolicy { QualityPolicy(state: thermalState, lowPower: isLowPowerModeEnabled) }
    /// The quality tier in force.
    public var tier: QualityTier { policy.tier }
    /// Whether the thermal state is forced.
    public var stateIsSimulated: Bool { overrides.thermalState != nil }
    /// Whether low power is forced.
    public var lowPowerIsSimulated: Bool { overrides.lowPower != nil }

    /// Low power as every output words it: `on`, `off`, or when forced `on (SIMULATED; measured
    /// off)`. The dashboard and `status` both print this, then the same measured reasons.
    public var lowPowerHeadline: String {
        let now = isLowPowerModeEnabled ? "on" : "off"
        guard lowPowerIsSimulated else { return now }
        return "\(now) (SIMULATED; measured \(lowPowerAssessment.enabled ? "on" : "off"))"
    }

    /// The power profiles in force, in the words `status` prints on its Profile lines and the
    /// dashboard after low power: `platform_profile balanced`, `power-profiles-daemon
    /// power-saver (D-Bus)`. Shown whether or not they make low power on.
    public var profileTexts: [String] {
        let lp = snapshot.lowPower
        var out: [String] = []
        if let pp = lp.platformProfile { out.append("platform_profile \(pp)") }
        if let ppd = lp.powerProfilesDaemon {
            let origin = lp.powerProfileOrigin.map { " (\($0 == .dbus ? "D-Bus" : $0.rawValue))" } ?? ""
            out.append("power-profiles-daemon \(ppd)\(origin)")
        }
        return out
    }

    /// `profileTexts` less those a low-power reason already names (`platform_profile is
    /// low-power`), so a line that carries both says each profile once.
    public var profileTextsBesideReasons: [String] {
        let lp = snapshot.lowPower, reasons = lowPowerAssessment.reasons
        var out: [String] = []
        if let pp = lp.platformProfile, !reasons.contains(LowPowerAssessment.platformProfileReason(pp)) {
            out.append("platform_profile \(pp)")
        }
        if let ppd = lp.powerProfilesDaemon, !(ppd == "power-saver" && reasons.contains(LowPowerAssessment.powerSaverReason(lp))) {
            let origin = lp.powerProfileOrigin.map { " (\($0 == .dbus ? "D-Bus" : $0.rawValue))" } ?? ""
            out.append("power-profiles-daemon \(ppd)\(origin)")
        }
        return out
    }

    /// The headline and every measured reason on one line, as the dashboard shows it:
    /// `on: battery 15 % ≤ 20 % and discharging; platform_profile is low-power`. `status`
    /// prints the same reasons, one per line under the headline.
    public var lowPowerText: String {
        let reasons = lowPowerAssessment.reasons
        return reasons.isEmpty ? lowPowerHeadline : lowPowerHeadline + ": " + reasons.joined(separator: "; ")
    }

    /// The reason for the state in force, as values (`serious: SIMULATED (measured …)` when overridden).
    public var why: ThermalReason {
        if let s = overrides.thermalState { return ThermalReason(.simulated(s, measured: assessment.why)) }
        return assessment.why
    }

    /// `why` in °C, as `status --json` and hooks say it.
    public var reason: String { why.description }

    /// Why low power is on or off (`SIMULATED (measured …)` when forced).
    public var lowPowerReason: String {
        if let lp = overrides.lowPower { return "\(lp ? "on" : "off"): SIMULATED (measured \(lowPowerAssessment.summary))" }
        return lowPowerAssessment.summary
    }

    /// The policy trail from sensor to state to tier to policy, for the debug overlay.
    public var ruleTrail: [String] { ruleTrail(.celsius) }

    /// `ruleTrail`, temperatures in `units`.
    package func ruleTrail(_ units: TemperatureUnit) -> [String] {
        let p = policy
        return [
            "state \(thermalState)\(stateIsSimulated ? " (simulated)" : "") ← \(assessment.why.text(units))",
            "low power \(isLowPowerModeEnabled ? "on" : "off")\(lowPowerIsSimulated ? " (simulated)" : "") ← \(lowPowerAssessment.summary)",
            "tier \(p.tier) ← \(thermalState) + low power \(isLowPowerModeEnabled ? "on" : "off")",
            "policy: refresh \(Int(p.refreshIntervalSeconds)) s, animation \(p.animationsEnabled ? "on" : "off"), prefetch \(p.prefetchEnabled ? "on" : "off"), inference \(p.inference)",
        ]
    }
}

/// A change the monitor announces.
public enum MonitorEvent: Sendable, Equatable {
    /// The thermal state in force changed.
    case thermalStateChanged(from: ThermalState, to: ThermalState)
    /// Low power turned on (`true`) or off.
    case lowPowerChanged(Bool)
    /// The quality tier changed.
    case tierChanged(from: QualityTier, to: QualityTier)
    /// A trigger in `forecastTriggers` started (`active`) or stopped holding.
    case forecastTriggered(ForecastTrigger, active: Bool)
}

/// One published status and what changed with it, numbered in publishing order.
public struct MonitorUpdate: Sendable, Equatable {
    /// 1 for the first status published, then one more for each.
    public var sequence: Int
    /// The status published.
    public var status: MonitorStatus
    /// What changed with it (empty for the first reading).
    public var events: [MonitorEvent]

    package init(sequence: Int, status: MonitorStatus, events: [MonitorEvent]) {
        self.sequence = sequence
        self.status = status
        self.events = events
    }
}
