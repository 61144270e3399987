/// Heat sources as a recording (`record`, a sample line's `heat_sources`) and a capture
/// (`capture`'s `thermtop-heat-sources.json`) carry them: what was measured, so a replay or a
/// capture names the same processes. Command names, counts, CPU and estimated watts always;
/// full command lines only when asked (`--command-lines`: they can hold secrets).
package enum RecordedHeatSources {
    /// Processes kept per group: enough to say who, without a table of thousands per second.
    public static let processesPerSource = 8
    /// What a replay says of heat sources in a recording made without them.
    public static let notRecorded = "not in the recording (recorded without heat sources)"
    /// What a capture's status says without a heat-sources file.
    public static let notCaptured = "not in the capture"

    public static func value(_ h: ThermalHeatSources, commandLines: Bool) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        if let r = h.reason { fields.append(("reason", .string(r))) }
        fields.append(("package_watts", .num(h.packageWatts)))
        if let w = h.wattsReason { fields.append(("watts_reason", .string(w))) }
        fields.append(("processes", .int(h.processCount)))
        fields.append(("unreadable", .int(h.unreadable)))
        fields.append(("sources", .array(h.sources.map { s in
            .object([
                ("command", .string(s.command)), ("count", .int(s.count)), ("cpu_percent", .num(s.cpuPercent)),
                ("estimated_watts", .num(s.estimatedWatts)),
                ("processes", .array(s.processes.prefix(processesPerSource).map { p in
                    var f: [(String, JSONValue)] = [("pid", .int(p.pid)), ("uid", .int(p.uid)), ("user", .str(p.user)),
                                                    ("cpu_percent", .num(p.cpuPercent)), ("kernel_thread", .bool(p.isKernelThread)),
                                                    ("cgroup", .str(p.cgroup))]
                    if commandLines { f.append(("command_line", .str(p.commandLine))) }
                    return .object(f)
                })),
            ])
        })))
        return .object(fields)
    }

    /// The heat sources of `value`; nil when it is not an object of them. Every string is
    /// cleaned again: a recording is a file anyone may have edited.
    public static func parse(_ v: JSONValue) -> ThermalHeatSources? {
        guard case .object = v, case .array(let items)? = v["sources"] else { return nil }
        func clean(_ s: String?) -> String? { s.map { Format.clean($0) } }
        func int(_ x: JSONValue?) -> Int? { x?.numberValue.flatMap { $0.isFinite && abs($0) < 1e15 ? Int($0) : nil } }
        func number(_ x: JSONValue?) -> Double? { x?.numberValue.flatMap { $0.isFinite ? $0 : nil } }
        var sources: [ThermalHeatSource] = []
        for item in items.prefix(ThermalHeatSources.maximumSources) {
            guard let command = clean(item["command"]?.stringValue), let cpu = number(item["cpu_percent"]) else { return nil }
            var processes: [ThermalHeatProcess] = []
            if case .array(let ps)? = item["processes"] {
                for p in ps.prefix(ThermalHeatSources.maximumProcessesPerSource) {
                    guard let pid = int(p["pid"]) else { continue }
                    processes.append(ThermalHeatProcess(pid: pid, uid: int(p["uid"]), user: clean(p["user"]?.stringValue),
                                                        commandLine: clean(p["command_line"]?.stringValue),
                                                        cgroup: clean(p["cgroup"]?.stringValue), cpuPercent: number(p["cpu_percent"]) ?? 0,
                                                        isKernelThread: p["kernel_thread"]?.boolValue ?? false))
                }
            }
            sources.append(ThermalHeatSource(command: command, count: max(int(item["count"]) ?? processes.count, processes.count),
                                             cpuPercent: cpu, estimatedWatts: number(item["estimated_watts"]), processes: processes))
        }
        return ThermalHeatSources(sources: sources, reason: clean(v["reason"]?.stringValue), packageWatts: number(v["package_watts"]),
                                  wattsReason: clean(v["watts_reason"]?.stringValue),
                                  processCount: max(0, int(v["processes"]) ?? 0), unreadable: max(0, int(v["unreadable"]) ?? 0))
    }
}
