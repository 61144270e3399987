/// Whether the machine is saving power, and why. Linux has no single Low Power Mode flag:
/// power-profiles-daemon's `power-saver` is the closest, then its `PerformanceDegraded` (the
/// platform itself holding performance back), then the firmware platform profile, then a
/// battery-saver rule (discharging at or below a percentage).
public struct LowPowerAssessment: Sendable, Equatable {
    /// Whether the machine saves power.
    public var enabled: Bool
    /// Each signal that says "saving power", e.g. `platform_profile is low-power`.
    public var reasons: [String]

    /// A verdict and its reasons.
    public init(enabled: Bool, reasons: [String]) {
        self.enabled = enabled
        self.reasons = reasons
    }

    /// `off`, or `on: ` and the reasons.
    public var summary: String {
        enabled ? "on: " + reasons.joined(separator: "; ") : "off"
    }

    /// The reason power-profiles-daemon's power-saver gives.
    static func powerSaverReason(_ lp: LowPowerSignals) -> String {
        "power-profiles-daemon profile is power-saver" + (lp.powerProfileOrigin == .dbus ? " (D-Bus)" : "")
    }

    /// The reason a low-power platform profile gives.
    static func platformProfileReason(_ profile: String) -> String { "platform_profile is \(profile)" }

    /// Decide from a snapshot's profiles and battery, with the config's battery-saver rule.
    public static func assess(_ snapshot: ThermalSnapshot, config: ThermalConfig) -> LowPowerAssessment {
        var reasons: [String] = []
        let lp = snapshot.lowPower
        if let ppd = lp.powerProfilesDaemon, ppd == "power-saver" {
            reasons.append(powerSaverReason(lp))
        }
        // The platform holds performance back (a lap sensor, the firmware's own heat limit):
        // software should ask less of it, as in power-saver.
        if let why = lp.performanceDegraded, !why.isEmpty {
            reasons.append("performance degraded: \(why)")
        }
        if let p = lp.platformProfile, config.lowPowerProfiles.contains(p) {
            reasons.append(platformProfileReason(p))
        }
        for cp in lp.classProfiles {
            if let p = cp.profile, config.lowPowerProfiles.contains(p), p != lp.platformProfile {
                reasons.append("platform profile \(cp.name) is \(p)")
            }
        }
        let system = ThermalCombinedBattery(snapshot.batteries)
        if !snapshot.batteries.isEmpty, system.status == .discharging, let pct = system.percent,
           pct <= config.batterySaverPercent {
            reasons.append("battery \(Int(pct.rounded())) % ≤ \(Int(config.batterySaverPercent)) % and discharging")
        }
        return LowPowerAssessment(enabled: !reasons.isEmpty, reasons: reasons)
    }
}
