import Testing
import ThermtopCore

@Suite("Tier, policy and low power")
struct PolicyTests {
    struct TierRow: Sendable, CustomTestStringConvertible {
        let state: ThermalState
        let lowPower: Bool
        let tier: QualityTier
        var testDescription: String { "\(state) + low power \(lowPower ? "on" : "off") → \(tier)" }
    }

    static let tierTable: [TierRow] = [
        TierRow(state: .nominal, lowPower: false, tier: .full),
        TierRow(state: .nominal, lowPower: true, tier: .reduced),
        TierRow(state: .fair, lowPower: false, tier: .reduced),
        TierRow(state: .fair, lowPower: true, tier: .minimal),
        TierRow(state: .serious, lowPower: false, tier: .minimal),
        TierRow(state: .serious, lowPower: true, tier: .minimal),
        TierRow(state: .critical, lowPower: false, tier: .minimal),
        TierRow(state: .critical, lowPower: true, tier: .minimal),
    ]

    @Test("every row of the tier table", arguments: tierTable)
    func tier(_ row: TierRow) {
        #expect(QualityTier(state: row.state, lowPower: row.lowPower) == row.tier)
        #expect(QualityPolicy(state: row.state, lowPower: row.lowPower).tier == row.tier)
    }

    @Test("the tier table covers every state and low-power combination")
    func tierTableComplete() {
        #expect(Set(Self.tierTable.map { "\($0.state)/\($0.lowPower)" }).count == ThermalState.allCases.count * 2)
    }

    struct PolicyRow: Sendable, CustomTestStringConvertible {
        let state: ThermalState
        let lowPower: Bool
        let refresh: Double
        let animations: Bool
        let prefetch: Bool
        let inference: InferenceBudget
        var testDescription: String { "\(state) + low power \(lowPower ? "on" : "off")" }
    }

    static let policyTable: [PolicyRow] = [
        PolicyRow(state: .nominal, lowPower: false, refresh: 30, animations: true, prefetch: true, inference: .full),
        PolicyRow(state: .nominal, lowPower: true, refresh: 60, animations: true, prefetch: false, inference: .full),
        PolicyRow(state: .fair, lowPower: false, refresh: 60, animations: true, prefetch: false, inference: .full),
        PolicyRow(state: .fair, lowPower: true, refresh: 180, animations: false, prefetch: false, inference: .reduced(everyNthFrame: 3)),
        PolicyRow(state: .serious, lowPower: false, refresh: 180, animations: false, prefetch: false, inference: .reduced(everyNthFrame: 3)),
        PolicyRow(state: .serious, lowPower: true, refresh: 180, animations: false, prefetch: false, inference: .reduced(everyNthFrame: 3)),
        PolicyRow(state: .critical, lowPower: false, refresh: 180, animations: false, prefetch: false, inference: .suspended),
        PolicyRow(state: .critical, lowPower: true, refresh: 180, animations: false, prefetch: false, inference: .suspended),
    ]

    @Test("the policy: refresh 30/60/180 s, animations except at minimal, prefetch only at full, inference by state capped at minimal",
          arguments: policyTable)
    func policy(_ row: PolicyRow) {
        let p = QualityPolicy(state: row.state, lowPower: row.lowPower)
        #expect(p.refreshIntervalSeconds == row.refresh)
        #expect(p.animationsEnabled == row.animations)
        #expect(p.prefetchEnabled == row.prefetch)
        #expect(p.inference == row.inference)
        #expect(p.userInitiatedWorkAllowed)
        #expect(p.lowPowerAdjustments == (row.lowPower ? .saving : .none))
    }

    @Test("tiers order as the seeds: full > reduced > minimal, so `tier >= .reduced` means reduced or better")
    func tierOrder() {
        #expect(QualityTier.full > .reduced)
        #expect(QualityTier.reduced > .minimal)
        #expect(QualityTier.full > .minimal)
        #expect(QualityTier.allCases.sorted() == [.minimal, .reduced, .full])
        #expect(QualityTier.allCases.filter { $0 >= .reduced } == [.full, .reduced])
        #expect(QualityTier.allCases.max() == .full)
    }

    @Test("the policy is one consistent value: nothing is full at minimal, everything is at full", arguments: ThermalState.allCases)
    func policyConsistent(_ state: ThermalState) {
        for lowPower in [false, true] {
            let p = QualityPolicy(state: state, lowPower: lowPower)
            // The tier's pace, written out (not recomputed by the code under test).
            #expect(p.refreshIntervalSeconds == [QualityTier.full: 30.0, .reduced: 60, .minimal: 180][p.tier])
            if p.tier == .minimal {
                #expect(p.inference != .full, "\(state) + low power \(lowPower): minimal with full inference")
                #expect(!p.animationsEnabled && !p.prefetchEnabled)
            }
            if p.tier == .full {
                #expect(p.inference == .full && p.animationsEnabled && p.prefetchEnabled && !lowPower)
            }
            // Never more than the seeds' rule by state allows.
            let byState = InferenceBudget(state: state)
            #expect(p.inference.framesAllowed(outOf: 9) <= byState.framesAllowed(outOf: 9))
        }
    }

    @Test("refresh interval per tier: full 30 s, reduced 60 s, minimal 180 s")
    func refreshByTier() {
        #expect(QualityTier.full.refreshIntervalSeconds == 30)
        #expect(QualityTier.reduced.refreshIntervalSeconds == 60)
        #expect(QualityTier.minimal.refreshIntervalSeconds == 180)
    }

    @Test("reduced inference runs one frame in three; suspended runs none")
    func inferenceFrames() {
        let reduced = InferenceBudget(state: .serious)
        #expect((0..<9).filter { reduced.allows(frame: $0) } == [0, 3, 6])
        #expect((0..<9).allSatisfy { InferenceBudget(state: .fair).allows(frame: $0) })
        #expect((0..<9).allSatisfy { !InferenceBudget(state: .critical).allows(frame: $0) })
    }

    @Test("low-power adjustments: skip background refresh, defer prefetch, coarse location, long batched sync")
    func lowPowerAdjustments() {
        let on = QualityPolicy(state: .nominal, lowPower: true).lowPowerAdjustments
        #expect(on.skipBackgroundRefresh && on.deferPrefetch && on.coarseLocation && on.longBatchedSync)
        let off = QualityPolicy(state: .nominal, lowPower: false).lowPowerAdjustments
        #expect(!off.skipBackgroundRefresh && !off.deferPrefetch && !off.coarseLocation && !off.longBatchedSync)
    }

    // MARK: low power

    struct LowPowerCase: Sendable, CustomTestStringConvertible {
        let name: String
        var ppd: String? = nil
        var profile: String? = nil
        var classProfile: String? = nil
        var battery: (ThermalBatteryStatus, Double)? = nil
        let enabled: Bool
        var reason: String? = nil
        var testDescription: String { name }
    }

    static let lowPowerCases: [LowPowerCase] = [
        LowPowerCase(name: "nothing says so", enabled: false),
        LowPowerCase(name: "power-profiles-daemon power-saver", ppd: "power-saver", enabled: true,
                     reason: "power-profiles-daemon profile is power-saver"),
        LowPowerCase(name: "power-profiles-daemon balanced", ppd: "balanced", enabled: false),
        LowPowerCase(name: "platform_profile low-power", profile: "low-power", enabled: true,
                     reason: "platform_profile is low-power"),
        LowPowerCase(name: "platform_profile quiet", profile: "quiet", enabled: true, reason: "platform_profile is quiet"),
        LowPowerCase(name: "platform_profile balanced", profile: "balanced", enabled: false),
        LowPowerCase(name: "platform_profile custom", profile: "custom", enabled: false),
        LowPowerCase(name: "platform-profile class low-power", classProfile: "low-power", enabled: true,
                     reason: "platform profile platform-profile-0 is low-power"),
        LowPowerCase(name: "battery 20 % discharging", battery: (.discharging, 20), enabled: true,
                     reason: "battery 20 % ≤ 20 % and discharging"),
        LowPowerCase(name: "battery 15 % discharging", battery: (.discharging, 15), enabled: true,
                     reason: "battery 15 % ≤ 20 % and discharging"),
        LowPowerCase(name: "battery 21 % discharging", battery: (.discharging, 21), enabled: false),
        LowPowerCase(name: "battery 15 % charging", battery: (.charging, 15), enabled: false),
        LowPowerCase(name: "battery 15 % not charging (on AC)", battery: (.notCharging, 15), enabled: false),
        LowPowerCase(name: "battery 5 % full", battery: (.full, 5), enabled: false),
    ]

    @Test("low power: ppd power-saver, platform_profile low-power, battery ≤ 20 % discharging, not while charging",
          arguments: lowPowerCases)
    func lowPower(_ c: LowPowerCase) {
        var snap = ThermalSnapshot(time: 0)
        snap.lowPower = LowPowerSignals(
            platformProfile: c.profile, platformProfileChoices: ["low-power", "balanced", "performance"],
            classProfiles: c.classProfile.map { [.init(name: "platform-profile-0", profile: $0)] } ?? [],
            powerProfilesDaemon: c.ppd)
        if let (status, pct) = c.battery {
            snap.batteries = [ThermalBattery(id: "BAT0", status: status, capacity: pct, energyNow: 50 * pct / 100, energyFull: 50, powerNow: 8)]
        }
        let a = LowPowerAssessment.assess(snap, config: ThermalConfig())
        #expect(a.enabled == c.enabled)
        if let r = c.reason { #expect(a.reasons.contains(r), "reasons: \(a.reasons)") }
        if !c.enabled { #expect(a.reasons.isEmpty) }
    }

    @Test("every low-power signal present is listed as a reason")
    func lowPowerBothReasons() {
        var snap = ThermalSnapshot(time: 0)
        snap.lowPower = LowPowerSignals(platformProfile: "low-power")
        snap.batteries = [ThermalBattery(id: "BAT0", status: .discharging, capacity: 15)]
        let a = LowPowerAssessment.assess(snap, config: ThermalConfig())
        #expect(a.reasons.count == 2)
        #expect(a.summary.hasPrefix("on: "))
    }

    @Test("the battery-saver percentage comes from the configuration")
    func batterySaverConfigurable() {
        var snap = ThermalSnapshot(time: 0)
        snap.batteries = [ThermalBattery(id: "BAT0", status: .discharging, capacity: 28)]
        var config = ThermalConfig()
        #expect(!LowPowerAssessment.assess(snap, config: config).enabled)
        config.batterySaverPercent = 30
        #expect(LowPowerAssessment.assess(snap, config: config).enabled)
    }

    @Test("the battery-saver rule uses the energy-weighted combined percentage")
    func batterySaverCombined() {
        // A nearly empty small internal pack and a big external one at 30 %: 23 % overall
        // (a plain mean would say 16 % and wrongly turn the battery saver on).
        var snap = ThermalSnapshot(time: 0)
        snap.batteries = [
            ThermalBattery(id: "BAT0", status: .discharging, capacity: 2, energyNow: 0.48, energyFull: 24),
            ThermalBattery(id: "BAT1", status: .discharging, capacity: 30, energyNow: 21.6, energyFull: 72),
        ]
        #expect(!LowPowerAssessment.assess(snap, config: ThermalConfig()).enabled)
    }
}

extension InferenceBudget {
    func framesAllowed(outOf n: Int) -> Int { (0..<n).filter { allows(frame: $0) }.count }
}
