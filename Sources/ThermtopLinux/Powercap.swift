import ThermtopCore

/// `/sys/class/powercap`: RAPL zones and their subzones (`intel-rapl:0` package-0,
/// `intel-rapl:0:0` core, `intel-rapl:0:1` uncore, `intel-rapl:1` psys or a second package).
/// Names, wrap points and limits are read once per rediscovery; `energy_uj` each sample. Each
/// zone is named by its `name` file, never by its index. `intel-rapl-mmio` zones repeat a
/// package counter of `intel-rapl` through MMIO: one whose name `intel-rapl` already has is
/// left out, so the package is counted once.
struct PowercapLayout: Sendable {
    struct Zone: Sendable {
        var dir: String
        var id: String
        var name: String
        var parent: String?
        var range: Int64?
        var limits: [ThermalPowerLimit]
        var staticIssues: [ReadingIssue]
    }

    var zones: [Zone] = []

    static let base = "class/powercap"
    /// The control types whose zones count energy the RAPL way, in the order they are taken.
    static let controlTypes = ["intel-rapl", "intel-rapl-mmio"]
    static func discover(_ root: SysfsRoot) -> PowercapLayout {
        guard let entries = root.list(base) else { return PowercapLayout() }
        var out = PowercapLayout()
        for type in controlTypes {
            // `intel-rapl:0`, then its subzones `intel-rapl:0:0`…: sorted by their numbers.
            let names = entries.filter { $0.hasPrefix(type + ":") }
                .map { (name: $0, key: $0.dropFirst(type.count + 1).split(separator: ":").map { Int($0) ?? Int.max }) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            var topNames: [String: String] = [:]
            for (entry, key) in names where !key.isEmpty {
                let dir = "\(base)/\(entry)"
                var issues: [ReadingIssue] = []
                let zoneName = root.take("\(dir)/name", Parse.string, into: &issues) ?? entry
                var id: String, display: String, parent: String?
                if key.count == 1 {
                    topNames[String(key[0])] = zoneName
                    id = "rapl:\(zoneName)"
                    display = zoneName
                } else {
                    guard let top = topNames[String(key[0])] else { continue }
                    parent = "rapl:\(top)"
                    id = "rapl:\(top):\(zoneName)"
                    display = "\(top) \(zoneName)"
                }
                // The same counter through MMIO (or a zone listed twice): already counted.
                if out.zones.contains(where: { $0.id == id }) { continue }
                let range = root.take("\(dir)/max_energy_range_uj", Parse.integer, into: &issues)
                var limits: [ThermalPowerLimit] = []
                let files = root.list(dir) ?? []
                for n in HwmonLayout.indices(files, prefix: "constraint_", suffix: "_power_limit_uw") {
                    let c = "\(dir)/constraint_\(n)"
                    let cname = root.value("\(c)_name", Parse.string).value ?? "constraint_\(n)"
                    // A limit of 0 is "not set" on many firmwares: no limit to be held to.
                    if let w = root.value("\(c)_power_limit_uw", Parse.micro(max: ThermalConfig.maximumPlausibleWatts)).value, w > 0 {
                        limits.append(ThermalPowerLimit(constraint: cname, watts: w))
                    }
                }
                out.zones.append(Zone(dir: dir, id: id, name: display, parent: parent, range: range, limits: limits,
                                      staticIssues: issues))
            }
        }
        return out
    }

    func sample(_ root: SysfsRoot) -> [ThermalEnergyCounter] {
        zones.map { z in
            var issues = z.staticIssues
            let uj = root.take("\(z.dir)/energy_uj", Parse.integer, into: &issues)
            return ThermalEnergyCounter(id: z.id, name: z.name, source: .rapl, location: z.dir, parent: z.parent,
                                        microjoules: uj.flatMap { $0 >= 0 ? $0 : nil }, rangeMicrojoules: z.range,
                                        wraps: true, limits: z.limits, issues: issues)
        }
    }
}
