/// The GPUs in `status` (text and JSON) and `export`, written once here.
extension ThermalStatusReport {
    /// `gpus[]` of `status --json`, and `gpu_notice`; written only when NVML found a GPU or has
    /// something to say, so a machine without an NVIDIA GPU reports as before.
    package static func writeGPUs(_ snap: ThermalSnapshot, into w: inout JSONWriter) {
        if let n = snap.gpuNotice { w.field("gpu_notice", .string(n)) }
        guard !snap.gpus.isEmpty else { return }
        w.array("gpus") { w in
            for g in snap.gpus {
                w.object { w in
                    w.field("id", .string(g.id))
                    w.field("bus_id", .string(g.busID))
                    w.field("name", .str(g.name))
                    w.field("uuid", .str(g.uuid))
                    w.field("celsius", .num(g.celsius))
                    w.field("memory_celsius", .num(g.memoryCelsius))
                    w.object("thresholds") { w in
                        w.field("gpu_max_celsius", .num(g.limits.gpuMax))
                        w.field("slowdown_celsius", .num(g.limits.slowdown))
                        w.field("shutdown_celsius", .num(g.limits.shutdown))
                        w.field("memory_max_celsius", .num(g.limits.memoryMax))
                    }
                    w.field("power_watts", .num(g.powerWatts))
                    w.field("power_limit_watts", .num(g.powerLimitWatts))
                    w.field("clock_event_reasons", .str(g.clockReasons.map { "0x" + String($0, radix: 16) }))
                    w.array("clock_event_reason_names") { w in for r in g.reasonWords ?? [] { w.string(r) } }
                    w.field("power_limited", g.clockReasons.map { .bool(ThermalGPUClockReason.isPowerLimited($0)) } ?? .null)
                    w.field("thermal_rule", .str(ThermalGPUClockRule.assess(g)?.reason))
                    w.array("fan_percent") { w in for f in g.fanPercent { w.value(.int(f)) } }
                    w.field("performance_state", .int(g.performanceState))
                    w.field("utilisation_percent", .int(g.utilisationPercent))
                    w.field("memory_utilisation_percent", .int(g.memoryUtilisationPercent))
                    w.field("asleep", .str(g.asleep))
                    w.field("timed_out", .bool(g.timedOut))
                    w.field("last_celsius", .num(g.lastCelsius))
                    w.field("last_read_age_seconds", .num(g.lastReadAt.map { snap.time - $0 }, places: 1))
                    w.array("issues") { w in for i in g.issues { w.string(i.description) } }
                }
            }
        }
    }
}

extension Format {
    /// The `GPU` lines of `thermtop status`: one with the readings, one with NVML's limits.
    package static func gpuLines(_ snap: ThermalSnapshot, units: TemperatureUnit) -> [String] {
        var lines: [String] = []
        if let n = snap.gpuNotice { lines.append("GPU        \(clean(n))") }
        for g in snap.gpus {
            let who = "\(clean(g.name ?? "NVIDIA GPU")) (\(g.busID))"
            var parts: [String] = []
            if let sleep = g.asleep {
                let last = g.lastCelsius.map { c in
                    ", last \(units.format(c))" + (g.lastReadAt.map { " \(Int((snap.time - $0).rounded(.down))) s ago" } ?? "")
                } ?? ""
                lines.append("GPU        \(who): asleep (\(clean(sleep)); not asked so as not to wake it\(last))")
                continue
            }
            if g.timedOut {
                let last = g.lastCelsius.map { ", last \(units.format($0))" } ?? ""
                lines.append("GPU        \(who): timed-out (NVML did not answer\(last))")
                continue
            }
            parts.append(g.celsius.map(units.format) ?? "? °C")
            if let m = g.memoryCelsius { parts[0] += ", memory \(units.format(m))" }
            if let p = g.powerWatts {
                parts.append(watts(p) + (g.powerLimitWatts.map { " of \(watts($0))" } ?? ""))
            }
            if let p = g.performanceState { parts.append("P\(p)") }
            if let u = g.utilisationPercent { parts.append("util \(u) %") }
            if !g.fanPercent.isEmpty { parts.append("fan " + g.fanPercent.map { "\($0) %" }.joined(separator: ", ")) }
            if let words = g.reasonWords {
                parts.append("reasons: " + (words.isEmpty ? "none" : words.joined(separator: ", ")))
            }
            if let note = ThermalGPUClockRule.powerNote(g) { parts.append(note) }
            lines.append("GPU        \(who): \(parts.joined(separator: " · "))")
            var limits: [String] = []
            if let v = g.limits.gpuMax { limits.append("max operating \(units.format(v))") }
            if let v = g.limits.slowdown { limits.append("slowdown \(units.format(v))") }
            if let v = g.limits.shutdown { limits.append("shutdown \(units.format(v))") }
            if let v = g.limits.memoryMax { limits.append("memory max \(units.format(v))") }
            if !limits.isEmpty { lines.append("           NVML limits: \(limits.joined(separator: ", "))") }
        }
        return lines
    }
}

extension MetricsReport {
    /// `thermtop export`'s GPU families (their temperatures are sensors like any other).
    static func writeGPUs(_ snap: ThermalSnapshot, into w: inout MetricsWriter) {
        guard !snap.gpus.isEmpty else { return }
        func labels(_ g: ThermalGPU) -> [(String, String)] { [("id", g.id), ("name", g.name ?? "")] }
        w.family("thermtop_gpu_power_watts", .gauge, help: "GPU power draw (NVML), watts.")
        for g in snap.gpus { if let p = g.powerWatts { w.sample("thermtop_gpu_power_watts", labels(g), p) } }
        w.family("thermtop_gpu_power_limit_watts", .gauge, help: "GPU enforced power limit (NVML), watts.")
        for g in snap.gpus { if let p = g.powerLimitWatts { w.sample("thermtop_gpu_power_limit_watts", labels(g), p) } }
        w.family("thermtop_gpu_clock_event_reason", .gauge, help: "1 for each NVML clock-event reason active on the GPU.")
        for g in snap.gpus {
            for r in g.reasonWords ?? [] { w.sample("thermtop_gpu_clock_event_reason", labels(g) + [("reason", r)], 1) }
        }
        w.family("thermtop_gpu_up", .gauge, help: "1 when NVML answered for the GPU, 0 while it sleeps or did not answer.")
        for g in snap.gpus { w.sample("thermtop_gpu_up", labels(g), g.celsius == nil ? 0 : 1) }
    }
}
