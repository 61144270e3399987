/// Heat sources in `status` (text and JSON), written once here.
extension ThermalStatusReport {
    /// `heat_sources[]` (biggest first) and `heat_sources_status` (null when `/proc` was not
    /// walked) of `status --json`. Estimated watts are always an estimate (docs/heat-sources.md).
    package static func writeHeatSources(_ s: MonitorStatus, into w: inout JSONWriter) {
        let h = s.heatSources
        w.array("heat_sources") { w in
            for src in h?.sources ?? [] {
                w.object { w in
                    w.field("command", .string(src.command))
                    w.field("count", .int(src.count))
                    w.field("cpu_percent", .num(src.cpuPercent, places: 1))
                    w.field("estimated_watts", .num(src.estimatedWatts, places: 2))
                    writeGPUUses(src.gpus, into: &w)
                    w.array("processes") { w in
                        for p in src.processes {
                            w.object { w in
                                w.field("pid", .int(p.pid))
                                w.field("uid", .int(p.uid))
                                w.field("user", .str(p.user))
                                w.field("cpu_percent", .num(p.cpuPercent, places: 1))
                                w.field("command_line", .str(p.commandLine))
                                w.field("cgroup", .str(p.cgroup))
                                w.field("kernel_thread", .bool(p.isKernelThread))
                                w.field("in_process_table", .bool(p.inProcessTable))
                                writeGPUUses(p.gpus, into: &w)
                            }
                        }
                    }
                }
            }
        }
        guard let h else { w.field("heat_sources_status", .null); return }
        w.object("heat_sources_status") { w in
            w.field("measured", .bool(h.reason == nil))
            w.field("reason", .str(h.reason))
            w.field("window_seconds", .num(s.window))
            w.field("package_watts", .num(h.packageWatts, places: 2))
            w.field("watts_reason", .str(h.wattsReason))
            w.field("processes", .int(h.processCount))
            w.field("unreadable", .int(h.unreadable))
            writeGPUProcessStatus(s.snapshot.gpus, into: &w)
        }
    }
}

extension Format {
    /// The groups `status` lists, and the processes under each.
    static let heatSourceLines = 5
    static let heatProcessLines = 3
    static let heatCommandLineWidth = 100

    /// The `Heating it` lines of `status`; none when `/proc` was not walked.
    package static func heatSourceLines(_ s: MonitorStatus) -> [String] {
        guard let h = s.heatSources else { return [] }
        let head = "Heating it "
        let indent = "           "
        if let why = h.reason { return ["\(head)unknown (\(clean(why)))"] }
        var lines: [String] = []
        for src in h.sources.filter({ $0.cpuPercent > 0 }).prefix(heatSourceLines) {
            lines.append("\(lines.isEmpty ? head : indent)\(clean(src.label)): \(src.figures)")
            for p in src.processes.prefix(heatProcessLines) {
                let who = p.user ?? p.uid.map { "uid \($0)" } ?? "?"
                var line = "\(indent)  pid \(p.pid) \(clean(who)) \(ThermalHeatSources.percent(p.cpuPercent)) %"
                if let cg = p.cgroup { line += " [\(clean(cg))]" }
                if let cmd = p.commandLine { line += " " + clean(cmd.count > heatCommandLineWidth ? String(cmd.prefix(heatCommandLineWidth - 1)) + "…" : cmd) }
                lines.append(line)
            }
        }
        if lines.isEmpty { lines.append("\(head)nothing used the CPU over the \(fixed(s.window ?? 0, places: 1)) s window") }
        var notes = ["\(h.processCount) processes over \(fixed(s.window ?? 0, places: 1)) s"]
        if let why = h.wattsReason { notes.append("watts unknown: \(clean(why))") } else { notes.append("≈ W: share of the CPU packages' power") }
        if h.unreadable > 0 { notes.append("\(h.unreadable) unreadable (hidepid or permissions)") }
        lines.append("\(indent)(\(notes.joined(separator: "; ")))")
        return lines + gpuHeatSourceLines(h, gpus: s.snapshot.gpus, indent: indent)
    }
}

extension MetricsReport {
    /// The most heat sources `export --heat-sources` writes: each is a label set, and a
    /// scraper's series must stay few.
    public static let maximumHeatSources = 10
    /// Command names in labels are cut to this many characters (the kernel's `comm` is 15;
    /// a kernel thread's group name is shorter still), after cleaning.
    static let heatSourceLabelLength = 32

    /// `thermtop_heat_source_*` for the top `top` sources (none for 0), labelled by rank and
    /// command name: opt-in, bounded, cleaned.
    static func writeHeatSources(_ s: MonitorStatus, top: Int, into w: inout MetricsWriter) {
        guard top > 0, let h = s.heatSources else { return }
        // A group only on a GPU (no CPU in the window) is in the GPU's series instead.
        let shown = h.sources.filter { $0.cpuPercent > 0 }.prefix(min(top, maximumHeatSources))
        func labels(_ i: Int, _ src: ThermalHeatSource) -> [(String, String)] {
            [("rank", String(i + 1)), ("command", String(Format.clean(src.command).prefix(heatSourceLabelLength)))]
        }
        w.family("thermtop_heat_source_cpu_percent", .gauge, help: "CPU of the top heat sources over the last window, percent of one core (processes grouped by command name).")
        for (i, src) in shown.enumerated() { w.sample("thermtop_heat_source_cpu_percent", labels(i, src), src.cpuPercent) }
        w.family("thermtop_heat_source_processes", .gauge, help: "Processes of each top heat source that used CPU over the last window.")
        for (i, src) in shown.enumerated() { w.sample("thermtop_heat_source_processes", labels(i, src), Double(src.count)) }
        w.family("thermtop_heat_source_estimated_watts", .gauge, help: "Estimated power of each top heat source: its share of busy CPU time times the CPU packages' power (absent when package power is unknown).")
        for (i, src) in shown.enumerated() {
            if let v = src.estimatedWatts { w.sample("thermtop_heat_source_estimated_watts", labels(i, src), v) }
        }
        writeGPUHeatSources(h, gpus: s.snapshot.gpus, top: min(top, maximumHeatSources), into: &w)
    }
}
