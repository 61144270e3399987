/// The GPU half of heat sources in `status` (text and JSON), written once here.
extension ThermalStatusReport {
    /// `gpu` of a heat source or one of its processes: null when on no GPU (or GPU processes
    /// were not read), else its use of each GPU.
    static func writeGPUUses(_ uses: [ThermalHeatGPUUse], into w: inout JSONWriter) {
        guard !uses.isEmpty else { w.field("gpu", .null); return }
        w.array("gpu") { w in
            for u in uses {
                w.object { w in
                    w.field("bus_id", .string(u.busID))
                    w.field("index", .int(u.index))
                    w.field("uuid", .str(u.uuid))
                    w.field("processes", .int(u.processCount))
                    w.field("memory_bytes", .int(u.memoryBytes))
                    w.field("sm_percent", .num(u.smPercent, places: 1))
                    w.field("estimated_watts", .num(u.estimatedWatts, places: 2))
                }
            }
        }
    }

    /// `heat_sources_status.gpus`: for each GPU NVML answered for, whether its processes
    /// were read and why not (null reasons when they were).
    static func writeGPUProcessStatus(_ gpus: [ThermalGPU], into w: inout JSONWriter) {
        w.array("gpus") { w in
            for g in gpus where g.processes != nil || g.processesReason != nil {
                w.object { w in
                    w.field("bus_id", .string(g.busID))
                    w.field("index", .int(g.index))
                    w.field("processes", .int(g.processes?.count))
                    w.field("reason", .str(g.processesReason))
                    w.field("sm_reason", .str(g.smReason))
                    w.field("power_watts", .num(g.powerWatts))
                }
            }
        }
    }
}

extension Format {
    /// The GPU lines under `Heating it`: for each GPU whose processes were asked for, its
    /// groups (biggest SM share first) with their processes, or why they are unknown.
    static func gpuHeatSourceLines(_ h: ThermalHeatSources, gpus: [ThermalGPU], indent: String) -> [String] {
        var lines: [String] = []
        for g in gpus where g.processes != nil || g.processesReason != nil {
            let who = "GPU \(g.index.map { "\($0) " } ?? "")\(clean(g.name ?? "NVIDIA GPU")) (\(g.busID))"
            guard g.processes != nil else {
                lines.append("\(indent)\(who): processes unknown (\(clean(g.processesReason ?? "not read")))")
                continue
            }
            var notes: [String] = []
            if let why = g.processesReason { notes.append(clean(why)) }
            if let why = g.smReason { notes.append("SM unknown: \(clean(why))") }
            if g.powerWatts == nil { notes.append("watts unknown: no board power") } else { notes.append("≈ W: SM share of the board's power") }
            let groups = h.onGPU(g.busID)
            let n = g.processes?.count ?? 0
            lines.append("\(indent)\(who): \(n == 0 ? "no processes" : n == 1 ? "1 process" : "\(n) processes") (\(notes.joined(separator: "; ")))")
            for (src, use) in groups.prefix(heatSourceLines) {
                let label = use.processCount > 1 ? "\(src.command) ×\(use.processCount)" : src.command
                lines.append("\(indent)  \(clean(label)): \(use.figures)")
                for p in src.processes.filter({ $0.gpus.contains { $0.busID == g.busID } }).prefix(heatProcessLines) {
                    let mine = p.gpus.first { $0.busID == g.busID }
                    var line = "\(indent)    pid \(p.pid)"
                    if !p.inProcessTable { line += " (not in the process table)" }
                    if let who = p.user ?? p.uid.map({ "uid \($0)" }) { line += " \(clean(who))" }
                    if let mine { line += " \(mine.figures)" }
                    if let cmd = p.commandLine { line += " " + clean(cmd.count > heatCommandLineWidth ? String(cmd.prefix(heatCommandLineWidth - 1)) + "…" : cmd) }
                    lines.append(line)
                }
            }
        }
        return lines
    }
}

extension MetricsReport {
    /// `thermtop_heat_source_gpu_*` for the top `top` groups on each GPU (by SM share),
    /// labelled by the GPU's id, the rank on it and the command name: opt-in with the CPU's
    /// (`export --heat-sources N`), at most N series per GPU each.
    static func writeGPUHeatSources(_ h: ThermalHeatSources, gpus: [ThermalGPU], top: Int, into w: inout MetricsWriter) {
        let ranked = gpus.filter { $0.processes != nil }.map { g in (g, h.onGPU(g.busID).prefix(top)) }
        guard ranked.contains(where: { !$0.1.isEmpty }) else { return }
        func labels(_ g: ThermalGPU, _ i: Int, _ src: ThermalHeatSource) -> [(String, String)] {
            [("gpu", g.id), ("rank", String(i + 1)), ("command", String(Format.clean(src.command).prefix(heatSourceLabelLength)))]
        }
        let families: [(String, String, (ThermalHeatGPUUse) -> Double?)] = [
            ("thermtop_heat_source_gpu_sm_percent", "SM share of the top heat sources on each GPU (NVML), percent (absent when unknown).", { $0.smPercent }),
            ("thermtop_heat_source_gpu_memory_bytes", "GPU memory held by the top heat sources on each GPU (NVML), bytes (absent when unknown).", { $0.memoryBytes.map { Double($0) } }),
            ("thermtop_heat_source_gpu_estimated_watts", "Estimated power of the top heat sources on each GPU: SM share times the board's power (absent when either is unknown).", { $0.estimatedWatts }),
        ]
        for (name, help, value) in families {
            w.family(name, .gauge, help: help)
            for (g, groups) in ranked {
                for (i, e) in groups.enumerated() { if let v = value(e.use) { w.sample(name, labels(g, i, e.source), v) } }
            }
        }
    }
}
