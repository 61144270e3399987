/// What a GPU's clock-event reasons say about heat. The temperatures themselves are judged by
/// the ordinary sensor rule against NVML's limits (`ThermalGPU.temperatureSensors`); this is
/// the direct evidence on top of them:
/// - HW thermal slowdown active: critical (the hardware is already cutting clocks for heat);
/// - SW thermal slowdown active: at least serious;
/// - a power cap or power brake is not heat: the GPU is shown as `power-limited`, no level.
public enum ThermalGPUClockRule {
    /// What the clock-event reasons say.
    public struct Finding: Sendable, Equatable {
        /// The level they mean.
        public var level: ThermalState
        /// Why, as `status` prints it.
        public var reason: String
        /// The GPU's id (`pci-0000:00:06.0`).
        public var gpuID: String
    }

    /// The level one GPU's reasons give, nil when they give none (unknown, or no thermal bit).
    public static func assess(_ g: ThermalGPU) -> Finding? {
        guard let bits = g.clockReasons, g.asleep == nil else { return nil }
        let who = "GPU " + (g.name ?? "NVIDIA") + " (" + g.busID + ")"
        if bits & ThermalGPUClockReason.hwThermalSlowdown != 0 {
            return Finding(level: .critical, reason: "critical: \(who) HW thermal slowdown active (NVML clock-event reason)", gpuID: g.id)
        }
        if bits & ThermalGPUClockReason.swThermalSlowdown != 0 {
            return Finding(level: .serious, reason: "serious: \(who) SW thermal slowdown active (NVML clock-event reason)", gpuID: g.id)
        }
        return nil
    }

    /// The highest finding over every GPU (the first of equals).
    public static func assess(_ gpus: [ThermalGPU]) -> Finding? {
        var best: Finding?
        for g in gpus {
            if let f = assess(g), f.level > (best?.level ?? .nominal) { best = f }
        }
        return best
    }

    /// `power-limited` while a power cap or brake holds the clocks, else nil.
    public static func powerNote(_ g: ThermalGPU) -> String? {
        guard let bits = g.clockReasons, ThermalGPUClockReason.isPowerLimited(bits) else { return nil }
        return "power-limited"
    }
}
