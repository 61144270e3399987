import ThermtopCore

/// `/sys/devices/system/cpu/cpufreq/policyN`: one policy per group of CPUs clocked together.
/// `affected_cpus` and `cpuinfo_max_freq` are read once per rediscovery, `scaling_cur_freq`
/// each sample.
struct CPUFreqLayout: Sendable {
    struct Policy: Sendable {
        var id: String
        var dir: String
        var cpus: [Int]
        var maxKHz: Double?
        var staticIssues: [ReadingIssue]
    }

    var policies: [Policy] = []

    static let base = "devices/system/cpu/cpufreq"
    /// No CPU clocks above 20 GHz: a larger value is junk.
    static let maxKHz = 20_000_000.0

    static func discover(_ root: SysfsRoot) -> CPUFreqLayout {
        let names = (root.list(base) ?? []).filter { $0.hasPrefix("policy") && Int($0.dropFirst(6)) != nil }
            .sorted { Int($0.dropFirst(6))! < Int($1.dropFirst(6))! }
        return CPUFreqLayout(policies: names.map { name in
            let dir = "\(base)/\(name)"
            var issues: [ReadingIssue] = []
            let cpus = (root.take("\(dir)/affected_cpus", Parse.string, into: &issues, required: false) ?? "")
                .split(separator: " ").compactMap { Int($0) }
            let mx = root.take("\(dir)/cpuinfo_max_freq", Parse.bounded(0...maxKHz), into: &issues)
            return Policy(id: name, dir: dir, cpus: cpus, maxKHz: mx, staticIssues: issues)
        })
    }

    func sample(_ root: SysfsRoot) -> [ThermalCPUFrequency] {
        policies.map { p in
            var issues = p.staticIssues
            let cur = root.take("\(p.dir)/scaling_cur_freq", Parse.bounded(0...Self.maxKHz), into: &issues)
            return ThermalCPUFrequency(id: p.id, cpus: p.cpus, currentKHz: cur, maxKHz: p.maxKHz, issues: issues)
        }
    }
}
