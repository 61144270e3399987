/// A GPU's reading as text, `key=value` a line: what `capture` stores in `nvml/<bus id>` beside
/// the sysfs tree and `record` writes as that file's read, so `--sysfs-root` and `--replay` show
/// the GPU exactly as NVML reported it. Absent keys are unknown values. Unknown keys are
/// skipped (keys may be added).
extension ThermalGPU {
    /// This GPU as `key=value` lines (`temp=`, `power_w=`, `issue=`…), known values only.
    public var recordText: String {
        var lines: [String] = []
        func put(_ k: String, _ v: String?) { if let v { lines.append(k + "=" + v) } }
        func num(_ d: Double?) -> String? { d.map { Format.fixed($0, places: $0.rounded() == $0 ? 0 : 3) } }
        put("name", name)
        put("uuid", uuid)
        put("temp", num(celsius))
        put("mem_temp", num(memoryCelsius))
        put("slowdown", num(limits.slowdown))
        put("shutdown", num(limits.shutdown))
        put("gpu_max", num(limits.gpuMax))
        put("mem_max", num(limits.memoryMax))
        put("power_w", num(powerWatts))
        put("power_limit_w", num(powerLimitWatts))
        put("reasons", clockReasons.map { "0x" + String($0, radix: 16) })
        put("fans", fanPercent.isEmpty ? nil : fanPercent.map(String.init).joined(separator: ","))
        put("pstate", performanceState.map(String.init))
        put("util", utilisationPercent.map(String.init))
        put("mem_util", memoryUtilisationPercent.map(String.init))
        put("asleep", asleep)
        put("last_temp", num(lastCelsius))
        put("last_read_at", num(lastReadAt))
        put("index", index.map(String.init))
        if let procs = processes {
            // `procs=` says the list was read (and how long it is), so an empty one stays known.
            put("procs", String(procs.count))
            func opt<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "-" }
            for p in procs {
                let kind = (p.compute ? "c" : "") + (p.graphics ? "g" : "")
                lines.append("proc=\(p.pid) \(kind.isEmpty ? "-" : kind) \(opt(p.memoryBytes)) \(opt(p.smPercent.map { Format.fixed($0, places: 1) }))")
            }
        }
        put("procs_reason", processesReason)
        put("sm_reason", smReason)
        for i in issues {
            lines.append("issue=" + i.reason.rawValue + " " + i.file + (i.detail.map { " " + $0 } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads `recordText` back.
    public init(busID: String, recordText text: String) {
        self.init(busID: busID)
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let k = line[..<eq], v = String(line[line.index(after: eq)...])
            let d = Double(v)
            switch k {
            case "name": name = v
            case "uuid": uuid = v
            case "temp": celsius = d
            case "mem_temp": memoryCelsius = d
            case "slowdown": limits.slowdown = d
            case "shutdown": limits.shutdown = d
            case "gpu_max": limits.gpuMax = d
            case "mem_max": limits.memoryMax = d
            case "power_w": powerWatts = d
            case "power_limit_w": powerLimitWatts = d
            case "reasons": clockReasons = v.hasPrefix("0x") ? UInt64(v.dropFirst(2), radix: 16) : UInt64(v)
            case "fans": fanPercent = v.split(separator: ",").compactMap { Int($0) }
            case "pstate": performanceState = Int(v)
            case "util": utilisationPercent = Int(v)
            case "mem_util": memoryUtilisationPercent = Int(v)
            case "asleep": asleep = v
            case "last_temp": lastCelsius = d
            case "last_read_at": lastReadAt = d
            case "index": index = Int(v)
            case "procs": if processes == nil { processes = [] }
            case "proc":
                let f = v.split(separator: " ").map(String.init)
                guard f.count == 4, let pid = Int(f[0]), pid > 0 else { continue }
                if processes == nil { processes = [] }
                processes?.append(ThermalGPUProcess(pid: pid, compute: f[1].contains("c"), graphics: f[1].contains("g"),
                                                    memoryBytes: UInt64(f[2]), smPercent: Double(f[3]).flatMap { $0.isFinite ? min(max($0, 0), 100) : nil }))
            case "procs_reason": processesReason = v
            case "sm_reason": smReason = v
            case "issue":
                let parts = v.split(separator: " ", maxSplits: 2).map(String.init)
                guard parts.count >= 2, let reason = ReadingIssueReason(rawValue: parts[0]) else { continue }
                issues.append(ReadingIssue(file: parts[1], reason: reason, detail: parts.count > 2 ? parts[2] : nil))
            default: continue
            }
        }
    }
}
