import ThermtopCore

/// One `/sys/class/hwmon/hwmonN` chip: name, labels and limits read once per rediscovery;
/// inputs each sample, unless the device sleeps (`device/power_state` ≠ D0) — reading a
/// sensor of a device in D3cold would wake it.
struct HwmonLayout: Sendable {
    struct Channel: Sendable {
        var channel: String
        var label: String?
        var max, crit, critHyst, emergency, min: Double?
        var mirrorsZone: String?
        var staticIssues: [ReadingIssue]
    }

    var device: String
    /// Folder holding the channel files: `class/hwmon/hwmonN` or its `device/` (older drivers).
    var dir: String
    var chip: String?
    var channels: [Channel]
    var powerStateFile: String?
    var staticIssues: [ReadingIssue]

    static func discover(_ root: SysfsRoot, zones: [ZoneLayout]) -> [HwmonLayout] {
        let base = "class/hwmon"
        var zonesByType: [String: [ZoneLayout]] = [:]
        for z in zones { if let t = z.type { zonesByType[normalise(t), default: []].append(z) } }
        return (root.list(base) ?? []).filter { $0.hasPrefix("hwmon") }.map { device in
            var dir = "\(base)/\(device)"
            var issues: [ReadingIssue] = []
            var chip = root.take("\(dir)/name", Parse.string, into: &issues, required: false)
            var files = root.list(dir) ?? []
            if !files.contains(where: isTempInput), let deviceFiles = root.list("\(dir)/device"),
               deviceFiles.contains(where: isTempInput) {
                dir += "/device"
                files = deviceFiles
                if chip == nil { chip = root.take("\(dir)/name", Parse.string, into: &issues, required: false) }
            }
            if chip == nil { issues.append(ReadingIssue(file: "\(base)/\(device)/name", reason: .missing)) }
            let powerState = "\(base)/\(device)/device/power_state"
            let hasPowerState = root.exists(powerState)
            let numbers = files.filter(isTempInput).compactMap { Int($0.dropFirst(4).prefix { $0.isNumber }) }.sorted()
            // The thermal core registers an hwmon copy of each zone, named after the zone type
            // (`-` becomes `_`): channel k of that chip is the k-th zone of that type.
            let mirrored = chip.flatMap { zonesByType[normalise($0)] }
            let mirrors = (mirrored?.count ?? 0) >= numbers.count ? mirrored : nil
            let channels = numbers.enumerated().map { (i, n) -> Channel in
                let c = "temp\(n)"
                var ci: [ReadingIssue] = []
                func lim(_ suffix: String) -> Double? {
                    root.take("\(dir)/\(c)_\(suffix)", Parse.limit, into: &ci, required: false)
                }
                return Channel(
                    channel: c,
                    label: root.take("\(dir)/\(c)_label", Parse.string, into: &ci, required: false),
                    max: lim("max"), crit: lim("crit"),
                    critHyst: root.value("\(dir)/\(c)_crit_hyst", Parse.limit).value,
                    emergency: lim("emergency"),
                    min: root.value("\(dir)/\(c)_min", Parse.limit).value,
                    mirrorsZone: mirrors?[i].id, staticIssues: ci)
            }
            return HwmonLayout(device: device, dir: dir, chip: chip, channels: channels,
                               powerStateFile: hasPowerState ? powerState : nil, staticIssues: issues)
        }
    }

    static func isTempInput(_ name: String) -> Bool { name.hasPrefix("temp") && name.hasSuffix("_input") }
    static func normalise(_ s: String) -> String { String(s.lowercased().map { $0 == "-" ? "_" : $0 }) }

    func sample(_ root: SysfsRoot, zones: [ThermalZone]) -> [HwmonChannel] {
        var asleep: String?
        var deviceIssues = staticIssues
        if let f = powerStateFile, let state = root.take(f, Parse.string, into: &deviceIssues), state != "D0" {
            asleep = state
        }
        return channels.enumerated().map { (i, c) in
            var issues = (i == 0 ? deviceIssues : []) + c.staticIssues
            var celsius: Double?
            if let zone = c.mirrorsZone {
                celsius = zones.first { $0.id == zone }?.celsius
            } else if asleep == nil {
                celsius = root.take("\(dir)/\(c.channel)_input", Parse.temperature, into: &issues)
            }
            return HwmonChannel(device: device, chip: chip, channel: c.channel, label: c.label, celsius: celsius,
                                max: c.max, crit: c.crit, critHyst: c.critHyst, emergency: c.emergency, min: c.min,
                                asleep: asleep, mirrorsZone: c.mirrorsZone, issues: issues)
        }
    }
}
