/// One quality tier that every feature consults, instead of each one reading temperatures.
/// Ordered by how much work is allowed, as in the seeds: `full > reduced > minimal`, so
/// `guard tier >= .reduced` reads "reduced or better".
public enum QualityTier: String, Sendable, Hashable, Comparable, CaseIterable, Codable, CustomStringConvertible {
    /// No constraints: everything runs.
    case full
    /// Decoration off: optional work thinned out.
    case reduced
    /// Essentials only: optional work deferred.
    case minimal

    private var rank: Int {
        switch self {
        case .minimal: 0
        case .reduced: 1
        case .full: 2
        }
    }

    /// Ordered by the work allowed: `minimal < reduced < full`.
    public static func < (a: QualityTier, b: QualityTier) -> Bool { a.rank < b.rank }
    /// `full`, `reduced` or `minimal`.
    public var description: String { rawValue }

    /// serious or critical → minimal; fair → minimal when saving power, else reduced;
    /// nominal → reduced when saving power, else full.
    public init(state: ThermalState, lowPower: Bool) {
        switch state {
        case .serious, .critical: self = .minimal
        case .fair: self = lowPower ? .minimal : .reduced
        case .nominal: self = lowPower ? .reduced : .full
        }
    }

    /// How often heavy periodic work runs: full 30 s, reduced 60 s, minimal 180 s.
    public var refreshIntervalSeconds: Double {
        switch self {
        case .full: 30
        case .reduced: 60
        case .minimal: 180
        }
    }
}

/// How much on-device inference may run.
public enum InferenceBudget: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Every frame.
    case full
    /// One inference every `everyNthFrame` frames.
    case reduced(everyNthFrame: Int)
    /// None until the machine cools down.
    case suspended

    /// The seeds' rule by state: nominal and fair → full, serious → one every 3 frames,
    /// critical → suspended.
    public init(state: ThermalState) {
        switch state {
        case .nominal, .fair: self = .full
        case .serious: self = .reduced(everyNthFrame: 3)
        case .critical: self = .suspended
        }
    }

    /// The policy's budget: the rule by state, capped by the tier so that at `minimal` nothing
    /// is full (fair + low power gives one frame in three, not every frame).
    public init(state: ThermalState, tier: QualityTier) {
        let byState = InferenceBudget(state: state)
        if tier == .minimal, byState == .full {
            self = .reduced(everyNthFrame: 3)
        } else {
            self = byState
        }
    }

    public var description: String {
        switch self {
        case .full: "full"
        case .reduced(let n): "reduced (1 in \(n) frames)"
        case .suspended: "suspended"
        }
    }

    /// Whether frame number `frame` may run inference.
    public func allows(frame: Int) -> Bool {
        switch self {
        case .full: true
        case .reduced(let n): frame % n == 0
        case .suspended: false
        }
    }
}

/// What changes while the machine saves power. Work the person explicitly asked for is never
/// blocked: these only touch discretionary, background work.
public struct LowPowerAdjustments: Sendable, Hashable, Codable {
    /// Skip background refresh; refresh on the next foreground.
    public var skipBackgroundRefresh: Bool
    /// Defer prefetching until just before display.
    public var deferPrefetch: Bool
    /// Use coarse location.
    public var coarseLocation: Bool
    /// Sync less often, in batches.
    public var longBatchedSync: Bool

    /// Not saving power: nothing changes.
    public static let none = LowPowerAdjustments(skipBackgroundRefresh: false, deferPrefetch: false,
                                                 coarseLocation: false, longBatchedSync: false)
    /// Saving power: every adjustment on.
    public static let saving = LowPowerAdjustments(skipBackgroundRefresh: true, deferPrefetch: true,
                                                   coarseLocation: true, longBatchedSync: true)

    /// Human list of what is on, for the dashboard.
    public var summary: [String] {
        var out: [String] = []
        if skipBackgroundRefresh { out.append("skip background refresh") }
        if deferPrefetch { out.append("defer prefetch") }
        if coarseLocation { out.append("coarse location") }
        if longBatchedSync { out.append("long batched sync") }
        return out
    }
}

/// The one policy value derived from (thermal state, low power). Features read this; none of
/// them re-derive anything from temperatures.
public struct QualityPolicy: Sendable, Hashable {
    /// The thermal state the policy was decided from.
    public var state: ThermalState
    /// Whether low power was on when it was decided.
    public var lowPower: Bool
    /// The tier for that state and low power.
    public var tier: QualityTier
    /// How often optional refreshes should run at this tier, in seconds (30, 60, 180).
    public var refreshIntervalSeconds: Double
    /// Animations run at full and reduced; the UI is static at minimal.
    public var animationsEnabled: Bool
    /// Prefetching runs only at full (full already means not saving power).
    public var prefetchEnabled: Bool
    /// How much on-device inference the tier allows.
    public var inference: InferenceBudget
    /// What to stop starting while saving power (background refresh, prefetch, location, sync).
    public var lowPowerAdjustments: LowPowerAdjustments
    /// Always true: work the person explicitly asked for is never blocked.
    public var userInitiatedWorkAllowed: Bool { true }

    /// The policy for a thermal state and low power (the table in docs/state-tier-lowpower.md).
    public init(state: ThermalState, lowPower: Bool) {
        self.state = state
        self.lowPower = lowPower
        tier = QualityTier(state: state, lowPower: lowPower)
        refreshIntervalSeconds = tier.refreshIntervalSeconds
        animationsEnabled = tier >= .reduced
        prefetchEnabled = tier == .full
        inference = InferenceBudget(state: state, tier: tier)
        lowPowerAdjustments = lowPower ? .saving : .none
    }
}
