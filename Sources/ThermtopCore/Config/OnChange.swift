/// What changed, as the `--on-change` command sees it in its environment.
package struct ChangeReport: Sendable, Equatable {
    public var state: ThermalState
    public var tier: QualityTier
    public var lowPower: Bool
    public var reason: String
    /// The state the command was last told about (at start: the state thermtop started in).
    public var previousState: ThermalState
    /// True when what changed is simulated (a forced state or low power, the simulated laptop):
    /// `THERMTOP_SIMULATED=1`. Such changes reach the command only with `--on-change-simulated`.
    public var simulated: Bool

    public init(state: ThermalState, tier: QualityTier, lowPower: Bool, reason: String, previousState: ThermalState,
                simulated: Bool = false) {
        self.state = state
        self.tier = tier
        self.lowPower = lowPower
        self.reason = reason
        self.previousState = previousState
        self.simulated = simulated
    }

    /// `THERMTOP_STATE` etc. Values only: nothing here is ever spliced into a command line.
    /// The reason quotes sysfs names, so it is cleaned by the screen's rule (`Format.clean`):
    /// a hook that logs or echoes it never passes on an ESC, a BEL or a line break.
    public var environment: [(String, String)] {
        [("THERMTOP_STATE", state.name), ("THERMTOP_TIER", tier.rawValue),
         ("THERMTOP_LOW_POWER", lowPower ? "on" : "off"), ("THERMTOP_REASON", Format.clean(reason)),
         ("THERMTOP_PREVIOUS_STATE", previousState.name), ("THERMTOP_SIMULATED", simulated ? "1" : "0")]
    }
}

/// The part of a status whose change is reported: thermal state, low power and tier.
package struct ChangeKey: Sendable, Equatable {
    public var state: ThermalState
    public var lowPower: Bool
    public var tier: QualityTier
    public var simulated: Bool

    public init(state: ThermalState, lowPower: Bool, tier: QualityTier, simulated: Bool = false) {
        self.state = state
        self.lowPower = lowPower
        self.tier = tier
        self.simulated = simulated
    }

    public init(_ s: MonitorStatus) {
        self.init(state: s.thermalState, lowPower: s.isLowPowerModeEnabled, tier: s.tier, simulated: s.isSimulated)
    }

    /// What the on-change command is told about `s`. With `simulatedAllowed` (the
    /// `--on-change-simulated` flag): the state in force, simulated or not. Without it: the
    /// measured state under a forced state or low power (a stray `4` in the dashboard never
    /// fires a hook that throttles or suspends the machine), and nothing at all for the
    /// simulated laptop, whose every reading is simulated.
    public static func hookView(of s: MonitorStatus, simulatedAllowed: Bool) -> (key: ChangeKey, reason: String)? {
        if simulatedAllowed || !s.isSimulated { return (ChangeKey(s), s.reason) }
        if s.sourceIsSimulated { return nil }
        let a = s.assessment, lp = s.lowPowerAssessment.enabled
        return (ChangeKey(state: a.state, lowPower: lp, tier: QualityTier(state: a.state, lowPower: lp)), a.reason)
    }
}

/// When to run the on-change command: at once on a change, but at most once per
/// `minInterval`; a change inside the interval waits, and the latest one runs when the
/// interval ends (so the last change is never lost). A change that is undone before it runs
/// (fair → serious → fair) runs nothing: the command already knows the state. Pure: the
/// caller passes the time.
package struct OnChangeSchedule: Sendable, Equatable {
    public var minInterval: Double
    public private(set) var lastRunAt: Double?
    /// What the command was last told (or the starting values).
    public private(set) var reported: ChangeKey
    public private(set) var lastSeen: ChangeKey
    /// A change waiting for the interval to end.
    public private(set) var pending: ChangeReport?

    public init(minInterval: Double, initial: ChangeKey) {
        self.minInterval = minInterval
        reported = initial
        lastSeen = initial
    }

    /// Feed the status after a sample. Returns a report to run now, if any.
    public mutating func observe(_ key: ChangeKey, reason: String, at now: Double) -> ChangeReport? {
        defer { lastSeen = key }
        guard key != lastSeen else { return due(at: now) }
        let report = ChangeReport(state: key.state, tier: key.tier, lowPower: key.lowPower, reason: reason,
                                  previousState: reported.state, simulated: key.simulated)
        if let last = lastRunAt, now - last < minInterval {
            pending = report
            return nil
        }
        pending = nil
        return run(report, at: now)
    }

    /// The waiting change, once its interval has ended.
    public mutating func due(at now: Double) -> ChangeReport? {
        guard let p = pending, let last = lastRunAt, now - last >= minInterval else { return nil }
        pending = nil
        let key = ChangeKey(state: p.state, lowPower: p.lowPower, tier: p.tier, simulated: p.simulated)
        if key == reported { return nil }
        var r = p
        r.previousState = reported.state
        return run(r, at: now)
    }

    /// When `due` will next have something to run.
    public var nextDue: Double? {
        guard pending != nil, let last = lastRunAt else { return nil }
        return last + minInterval
    }

    private mutating func run(_ r: ChangeReport, at now: Double) -> ChangeReport {
        lastRunAt = now
        reported = ChangeKey(state: r.state, lowPower: r.lowPower, tier: r.tier, simulated: r.simulated)
        return r
    }
}
