/// The GPU half of heat sources: NVML's process lists joined to the process table's names,
/// each process's SM share turned into an estimated share of the board's power.
extension ThermalHeatGPUUse {
    /// Each process NVML lists on the GPUs, by pid: its use of each GPU it is on, in the GPUs'
    /// order. A GPU whose list is unknown adds nothing.
    ///
    /// The power model (docs/heat-sources.md): a process's SM share is its part of the GPU's
    /// time, so `≈ W = P(board) × SM % / 100`; where the shares add up past 100 % (processes
    /// sharing the SMs, MPS) they are scaled to add up to the board's power. The rest is the
    /// GPU's idle floor, no process's.
    static func byProcess(_ gpus: [ThermalGPU]) -> [Int: [ThermalHeatGPUUse]] {
        var out: [Int: [ThermalHeatGPUUse]] = [:]
        for g in gpus {
            guard let procs = g.processes else { continue }
            let total = procs.compactMap(\.smPercent).reduce(0, +)
            let scale = max(100, total)
            for p in procs {
                let watts = g.powerWatts.flatMap { w in p.smPercent.map { w * $0 / scale } }
                out[p.pid, default: []].append(ThermalHeatGPUUse(busID: g.busID, index: g.index, uuid: g.uuid, memoryBytes: p.memoryBytes,
                                                                 smPercent: p.smPercent, estimatedWatts: watts))
            }
        }
        return out
    }

    /// A group's use of each GPU: its processes' uses added up per GPU, in `order` (the GPUs').
    /// A sum is unknown when any part of it is.
    static func adding(_ uses: [[ThermalHeatGPUUse]], order: [String]) -> [ThermalHeatGPUUse] {
        var byBus: [String: ThermalHeatGPUUse] = [:]
        for u in uses.joined() {
            guard var sum = byBus[u.busID] else { byBus[u.busID] = u; continue }
            sum.memoryBytes = sum.memoryBytes.flatMap { a in u.memoryBytes.map { a &+ $0 } }
            sum.smPercent = sum.smPercent.flatMap { a in u.smPercent.map { a + $0 } }
            sum.estimatedWatts = sum.estimatedWatts.flatMap { a in u.estimatedWatts.map { a + $0 } }
            sum.processCount += u.processCount
            byBus[u.busID] = sum
        }
        return order.compactMap { byBus[$0] }
    }

    /// `SM 97 %, 2.0 GiB, ≈ 650 W` (each part `unknown` where NVML cannot tell; the watts only
    /// where known).
    public var figures: String {
        var parts = [smPercent.map { "SM \(ThermalHeatSources.percent($0)) %" } ?? "SM unknown",
                     memoryBytes.map(ThermalHeatSources.bytes) ?? "memory unknown"]
        if let w = estimatedWatts { parts.append("≈ \(ThermalHeatSources.watts(w))") }
        return parts.joined(separator: ", ")
    }
}

extension ThermalHeatSources {
    /// The group of GPU processes whose pid the process table does not have.
    public static let unknownCommand = "?"

    /// The groups on the GPU at `busID`, biggest SM share first (unknown last), then by memory.
    public func onGPU(_ busID: String) -> [(source: ThermalHeatSource, use: ThermalHeatGPUUse)] {
        sources.compactMap { s in s.gpus.first { $0.busID == busID }.map { (s, $0) } }
            .sorted { a, b in
                let (sa, sb) = (a.use.smPercent ?? -1, b.use.smPercent ?? -1)
                if sa != sb { return sa > sb }
                let (ma, mb) = (a.use.memoryBytes ?? 0, b.use.memoryBytes ?? 0)
                return ma != mb ? ma > mb : a.source.command < b.source.command
            }
    }

    /// What a verdict decided by the GPU at `busID` adds: ` — mostly python ×2 (SM 97 %,
    /// 2.0 GiB, ≈ 650 W)`, the GPU's top two groups (those with a known SM share of at least
    /// `verdictMinimumPercent`, or an unknown one); empty when none.
    public func gpuVerdictSuffix(busID: String) -> String {
        let named = onGPU(busID).filter { ($0.use.smPercent ?? Self.verdictMinimumPercent) >= Self.verdictMinimumPercent }
            .prefix(Self.verdictSources)
        guard !named.isEmpty else { return "" }
        return " — mostly " + named.map { s, use in
            "\(use.processCount > 1 ? "\(s.command) ×\(use.processCount)" : s.command) (\(use.figures))"
        }.joined(separator: ", ")
    }

    /// The NVML GPU that decided the state (its sensor, or NVML's clock-event rule); nil when
    /// the deciding sensor is no NVML GPU's.
    static func decidingGPU(_ a: ThermalAssessment, gpus: [ThermalGPU]) -> ThermalGPU? {
        guard let id = a.decidedBy else { return nil }
        return gpus.first { id == $0.id || id.hasPrefix($0.id + "/") }
    }

    /// GPU memory as every output words it: `512 MiB`, `2.0 GiB`, `80 GiB`.
    public static func bytes(_ b: UInt64) -> String {
        let mib = Double(b) / 1_048_576
        if mib < 1024 { return "\(Format.fixed(mib, places: 0)) MiB" }
        let gib = mib / 1024
        return "\(Format.fixed(gib, places: gib >= 10 ? 0 : 1)) GiB"
    }
}
