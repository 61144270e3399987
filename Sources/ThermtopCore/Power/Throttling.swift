/// Is the machine holding itself back, and why: the plain answer `status` prints as
/// `Throttling  yes — …` / `no — …`, `throttling` in the JSON, and the dashboard's line.
///
/// The rule, from the evidence of two samples (the window):
/// - **thermal** when the Intel throttle counters rose within the window, a processor
///   cooling device (`Processor`, `intel_powerclamp`, `thermal-cpufreq-*`) is engaged
///   (`cur_state > 0`), or a GPU reports a thermal slowdown (NVML clock-event reasons);
/// - **power** when a CPU power domain is at its limit (≥ `powerLimitReachedRatio` of RAPL's
///   long-term limit or the hwmon cap) while the clock is below `clockSlowedRatio` of its
///   maximum (or the clock is unknown), or a GPU reports a power cap or power brake.
/// - A clock below its maximum with none of these is not throttling: an idle machine clocks
///   down to save power, and a busy one that is held back shows it in one of the above. The
///   clock is shown as the evidence.
/// - `active` is nil only when nothing could tell: no clock, no counters over a window, no
///   processor cooling device, no GPU reasons and no domain with a limit.
public struct ThermalThrottling: Sendable, Equatable {
    /// Why the machine is held back.
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// Held back by heat: throttle counters, a processor cooling device or a GPU thermal slowdown.
        case thermal
        /// Held at a power limit.
        case power
    }

    /// True when throttling, false when not, nil when nothing could tell (see `unknown`).
    public var active: Bool?
    /// Every cause found; empty when not throttling.
    public var causes: [Cause]
    /// The evidence in words, clock first: `CPU 2.1 of 4.7 GHz`, `package throttled 40× in 2 s`.
    public var evidence: [String]

    /// A verdict with its causes and evidence.
    public init(active: Bool?, causes: [Cause] = [], evidence: [String] = []) {
        self.active = active
        self.causes = causes
        self.evidence = evidence
    }

    /// The verdict when there is no evidence either way.
    public static let unknown = ThermalThrottling(active: nil, evidence: ["no clock, throttle counter, cooling device, GPU reason or power limit to tell"])

    /// `yes — thermal: CPU 2.1 of 4.7 GHz, package throttled 40× in 2 s, Processor 5/10`,
    /// `no — CPU 4.6 of 4.7 GHz`, `unknown — …`.
    public var text: String {
        let ev = evidence.joined(separator: ", ")
        switch active {
        case true?:
            let why = causes.map { $0 == .power ? "power limit" : $0.rawValue }.joined(separator: " and ")
            return "yes — \(why)" + (ev.isEmpty ? "" : ": \(ev)")
        case false?: return "no" + (ev.isEmpty ? "" : " — \(ev)")
        case nil: return "unknown" + (ev.isEmpty ? "" : " — \(ev)")
        }
    }

    /// The verdict for `snap`, with `previous` the sample before it (nil: a one-shot reading)
    /// and `power` the domains measured over the same window.
    public static func assess(_ snap: ThermalSnapshot, previous: ThermalSnapshot?,
                              power: [ThermalPowerDomain]) -> ThermalThrottling {
        var told = false
        var thermal: [String] = [], limited: [String] = []
        // What was looked at and found clear: the evidence of a `no` without a clock.
        var clear: [String] = []
        let clock = ThermalCPUClock(snap.cpuFrequencies)
        if clock != nil { told = true }
        let slowed = clock.map { $0.ratio < ThermalConfig.clockSlowedRatio } ?? true
        let seconds = previous.map { snap.time - $0.time } ?? 0
        if let now = snap.throttle, let before = previous?.throttle, seconds > 0 {
            told = true
            let window = Format.fixed(seconds, places: seconds < 10 ? 1 : 0).replacingZeroFraction
            if now.package > before.package { thermal.append("package throttled \(now.package - before.package)× in \(window) s") }
            if now.core > before.core { thermal.append("cores throttled \(now.core - before.core)× in \(window) s") }
            if now.total == before.total { clear.append("throttle counters steady") }
        }
        for c in snap.coolingDevices where CoolingKind(type: c.type ?? "") == .processor {
            guard let cur = c.currentState else { continue }
            told = true
            let text = "\(Format.clean(c.type ?? c.id)) \(cur)/\(c.maxState.map(String.init) ?? "?")"
            if cur > 0 { thermal.append(text) } else { clear.append(text) }
        }
        for g in snap.gpus {
            guard let bits = g.clockReasons, g.asleep == nil else { continue }
            told = true
            let who = "GPU " + Format.clean(g.name ?? g.busID)
            if bits & (ThermalGPUClockReason.swThermalSlowdown | ThermalGPUClockReason.hwThermalSlowdown) != 0 {
                thermal.append("\(who) thermal slowdown")
            }
            if ThermalGPUClockReason.isPowerLimited(bits) { limited.append("\(who) power cap") }
            if thermal.isEmpty && limited.isEmpty { clear.append("\(who) no slowdown") }
        }
        for d in power where d.source == .rapl || d.source == .hwmon {
            guard d.mainLimit != nil, d.watts != nil else { continue }
            told = true
            // A CPU or APU domain at its limit slows the CPU only if the clock shows it.
            let text = "\(Format.clean(d.name)) \(d.valueText)"
            if d.atLimit && slowed && d.parent == nil { limited.append(text) } else if d.parent == nil { clear.append(text) }
        }
        guard told else {
            if snap.throttle != nil { return ThermalThrottling(active: nil, evidence: [ThermalEnergyRate.needsTwoSamples]) }
            return .unknown
        }
        var causes: [Cause] = []
        if !thermal.isEmpty { causes.append(.thermal) }
        if !limited.isEmpty { causes.append(.power) }
        var evidence = clock.map { [$0.text] } ?? (causes.isEmpty ? Array(clear.prefix(2)) : [])
        evidence += thermal + limited
        if causes.isEmpty, let c = clock, c.ratio < ThermalConfig.clockSlowedRatio {
            evidence = [c.text + ", clocked down: no heat or power limit"]
        }
        return ThermalThrottling(active: !causes.isEmpty, causes: causes, evidence: evidence)
    }
}

extension String {
    /// `2.0` → `2`: windows read as whole seconds when they are.
    fileprivate var replacingZeroFraction: String { hasSuffix(".0") ? String(dropLast(2)) : self }
}
