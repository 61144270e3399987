/// What thermtop knows about drivers: which group a sensor belongs to, a readable name, the
/// headline CPU temperature of each package, which channels fold under it, which sensors
/// mirror another one and which are known dummies. Pure: the same sensors give the same result.
package enum SensorCatalog {
    /// Chips and zone types, normalised (lowercase, `-` → `_`), by group. Tested by `switch`
    /// (names this short are compared inline): a `Set<String>` was built (every member hashed)
    /// on first use in each process, and hashed the name again for each lookup.
    package static func isCPUName(_ n: String) -> Bool {
        switch n {
        case "coretemp", "k10temp", "zenpower", "k8temp", "via_cputemp", "x86_pkg_temp", "cpu_thermal", "tcpu",
             "b0d4", "soc_thermal", "cpu": true
        default: false
        }
    }
    package static func isGPUName(_ n: String) -> Bool {
        switch n {
        case "amdgpu", "radeon", "nouveau", "i915", "xe", "gpu_thermal", "nvidia": true
        default: false
        }
    }
    package static func isDiskName(_ n: String) -> Bool { n == "nvme" || n == "drivetemp" }
    package static func isBoardName(_ n: String) -> Bool {
        switch n {
        case "acpitz", "thinkpad", "dell_smm", "asus", "asus_ec_sensors", "asus_wmi_sensors", "tskn", "tmem",
             "tamb", "tchg", "sen1", "sen2", "sen3", "sen4", "sen5", "pch_skylake", "pch_cannonlake", "pch_cometlake",
             "pch_tigerlake", "pch_alderlake", "int3400_thermal", "int3400 thermal", "gigabyte_wmi", "hp_wmi": true
        default: false
        }
    }
    static let boardPrefixes = ["pch_", "nct", "it87", "it86", "f71", "w83", "sch5", "lm75", "lm85", "acpi", "int340"]
    static let wifiPrefixes = ["iwlwifi", "ath", "mt76", "mt79", "mt7921", "brcmfmac", "rtw", "wil6210"]

    /// Lowercase, `-` → `_` (the hwmon discovery also pairs an hwmon copy of a zone with it by
    /// this).
    package static func normalised(_ s: String) -> String {
        String(s.lowercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The group of a sensor from its chip name or zone type (and kind for batteries).
    public static func group(of s: ThermalSensor) -> ThermalSensorGroup {
        group(kind: s.kind, name: normalised(s.chip ?? s.name))
    }

    /// `group(of:)` given the sensor's kind and `n`, its `normalised(chip ?? name)`.
    static func group(kind: ThermalSensor.Kind, name n: String) -> ThermalSensorGroup {
        if kind == .battery { return .battery }
        if isCPUName(n) || isARMCPUZone(n) { return .cpu }
        if isGPUName(n) || (n.hasPrefix("gpu") && n.hasSuffix("_thermal")) { return .gpu }
        if isDiskName(n) { return .disk }
        if wifiPrefixes.contains(where: n.hasPrefix) || n.contains("wifi") || n.contains("wlan") { return .wifi }
        if n.hasPrefix("bat") || n.contains("battery") || n == "sbs" { return .battery }
        if isBoardName(n) || boardPrefixes.contains(where: n.hasPrefix) { return .board }
        return .other
    }

    /// `cpu_thermal`, `cpu0_thermal`, `cpu_big0_thermal`, `bigcore0_thermal`, `littlecore_thermal`.
    static func isARMCPUZone(_ n: String) -> Bool {
        guard n.hasSuffix("_thermal") else { return false }
        return n.hasPrefix("cpu") || n.hasPrefix("bigcore") || n.hasPrefix("littlecore")
    }

    /// Known dummies: sensors whose value is a constant, not a measurement, by the sensor's
    /// `chip ?? name`.
    static func dummyReason(chipOrName: String) -> String? {
        let n = chipOrName.lowercased()
        if n.hasPrefix("int3400") {
            return "INT3400 is Intel DPTF's policy device: its zone reports a fixed 20 °C, not a measurement"
        }
        return nil
    }

    /// How strongly a CPU-group sensor stands for its package: lower wins; nil = never a headline.
    /// `member` says the sensor folds under the package headline (per core, per CCD).
    /// `chip` is the sensor's `normalised(chip ?? name)`.
    static func cpuRole(_ s: ThermalSensor, chip: String) -> (rank: Int?, member: Bool, package: String) {
        cpuRole(label: s.label, device: s.deviceInfo?.key, chip: chip)
    }

    /// `cpuRole` from the sensor's label and device key, which `annotate` reads in place (a
    /// sensor handed over whole was copied: a retain and a release of each of its strings).
    static func cpuRole(label: String?, device: String?, chip: String) -> (rank: Int?, member: Bool, package: String) {
        let label = label ?? ""
        let pkg = device ?? chip
        switch chip {
        case "coretemp":
            if label.hasPrefix("Package id") || label.hasPrefix("Physical id") { return (0, false, pkg) }
            return (nil, label.hasPrefix("Core"), pkg)
        case "k10temp", "zenpower":
            // Tdie is the die temperature; Tctl is the fan-control value (Tdie plus an offset on
            // some Ryzen parts). Tccd1..N are per chiplet.
            if label == "Tdie" { return (0, false, pkg) }
            if label == "Tctl" || label == "temp1" { return (1, false, pkg) }
            return (nil, label.hasPrefix("Tccd"), pkg)
        case "k8temp", "via_cputemp":
            return (2, false, pkg)
        case "cpu_thermal":
            return (2, false, "arm")
        case "x86_pkg_temp":
            return (3, false, "x86_pkg_temp")
        default:
            if isARMCPUZone(chip) { return (4, true, "arm") }
            return (nil, false, pkg)
        }
    }

    /// Group, readable name, headline, members, mirrors and dummies for a list of sensors.
    public static func annotate(_ input: consuming [ThermalSensor]) -> [ThermalSensor] {
        // Taken over, not copied: a caller's last use hands its array here, and the first change
        // below would otherwise copy every sensor into a new buffer.
        var out = input
        // Each sensor's name normalised once: `names[i]` is `normalised(chip ?? name)` (what
        // groups and CPU roles go by), `chips[i]` is `normalised(chip ?? "")` (what the rules
        // below that name a driver compare).
        var names: [String] = [], chips: [String] = []
        names.reserveCapacity(out.count)
        chips.reserveCapacity(out.count)
        for i in out.indices {
            // Fields read in place (a `let s = out[i]` copied the whole sensor).
            let chipOrName = out[i].chip ?? out[i].name
            let n = normalised(chipOrName)
            names.append(n)
            chips.append(out[i].chip == nil ? "" : n)
            out[i].group = group(kind: out[i].kind, name: n)
            // A board chip's channel labelled CPU (dell_smm, thinkpad, asus_ec) measures the CPU.
            if out[i].group == .board, let label = out[i].label, normalised(label) == "cpu" { out[i].group = .cpu }
            out[i].dummyReason = dummyReason(chipOrName: chipOrName)
        }

        // x86_pkg_temp zone k and coretemp "Package id k" are the same die: fold the zone into
        // the coretemp channel, which takes over the zone's trips (trips outrank hwmon limits).
        // (Loops over indices here and below: `filter` and closures over `out` copied whole
        // sensors out to read one field.)
        var packages: [Int] = [], pkgZones: [Int] = []
        for i in out.indices {
            if chips[i] == "coretemp" && (out[i].label ?? "").hasPrefix("Package id") { packages.append(i) }
            if out[i].kind == .zone && chips[i] == "x86_pkg_temp" { pkgZones.append(i) }
        }
        packages.sort { packageNumber(out[$0].label) < packageNumber(out[$1].label) }
        for (k, z) in pkgZones.enumerated() where k < packages.count {
            let p = packages[k]
            out[z].mirrorOf = out[p].id
            if out[p].passiveTrips.isEmpty && out[p].hotTrip == nil && out[p].criticalTrip == nil {
                out[p].passiveTrips = out[z].passiveTrips
                out[p].hotTrip = out[z].hotTrip
                out[p].criticalTrip = out[z].criticalTrip
                out[p].tripsFrom = out[z].name
            }
        }

        // One headline per package: the best-ranked CPU sensor; per-core/per-CCD channels fold
        // under it.
        // The best sensor of each package: `best[k]` for package `packageKeys[k]` (a machine has
        // one or two packages: looked up by comparing keys, where a String-keyed dictionary
        // hashed them and was a type of its own to make on first use).
        var packageKeys: [String] = [], best: [Int] = []
        for i in out.indices where out[i].group == .cpu && !out[i].isFolded {
            let role = cpuRole(label: out[i].label, device: out[i].deviceInfo?.key, chip: names[i])
            guard let rank = role.rank else { continue }
            if let k = packageKeys.firstIndex(of: role.package) {
                let b = best[k]
                if let br = cpuRole(label: out[b].label, device: out[b].deviceInfo?.key, chip: names[b]).rank, br <= rank { continue }
                best[k] = i
            } else {
                packageKeys.append(role.package)
                best.append(i)
            }
        }
        // x86_pkg_temp is a headline only where no coretemp package covers it (already folded),
        // and ARM's cpuN-thermal zones only where there is no cpu-thermal.
        let headlines = best.sorted()
        for h in headlines { out[h].isHeadline = true }
        for i in out.indices where out[i].group == .cpu && !out[i].isHeadline && !out[i].isFolded {
            let role = cpuRole(label: out[i].label, device: out[i].deviceInfo?.key, chip: names[i])
            if let k = packageKeys.firstIndex(of: role.package), role.member || role.rank != nil { out[i].memberOf = out[best[k]].id }
        }
        if headlines.isEmpty, let a = out.indices.first(where: {
            chips[$0] == "acpitz" && !out[$0].isFolded
        }) {
            out[a].isHeadline = true
            out[a].isFallbackHeadline = true
        }

        // Readable names.
        var cpuHeads: [Int] = [], gpuDevices = Set<String>(), diskDevices: [String] = []
        for i in out.indices {
            switch out[i].group {
            case .cpu where out[i].isHeadline: cpuHeads.append(i)
            case .gpu: gpuDevices.insert(out[i].deviceInfo?.key ?? out[i].chip ?? "")
            case .disk: diskDevices.append(out[i].deviceInfo?.key ?? "")
            default: break
            }
        }
        // Computed from each sensor in place, then stored: a `let s = out[i]` in a loop that
        // also wrote `out[i]` copied every whole sensor.
        var shown: [String] = []
        shown.reserveCapacity(out.count)
        for i in out.indices {
            shown.append(readableName(at: i, in: out, chip: chips[i], cpuHeads: cpuHeads,
                                      gpuDevices: gpuDevices.count, diskDevices: diskDevices))
        }
        for i in out.indices { out[i].displayName = shown[i] }
        // Names still equal after that (two identical NVMe models, captured trees without
        // device links): tell them apart by slot, else by order.
        func tag(_ idx: [Int]) {
            let slots = idx.map { out[$0].deviceInfo?.pciSlot }
            let distinct = Set(slots.compactMap { $0 }).count == idx.count
            for (n, i) in idx.enumerated() {
                let tag = distinct ? shortSlot(slots[n]!) : "#\(n + 1)"
                out[i].displayName += " [\(tag)]"
            }
        }
        if out.count <= 32 {
            // A few sensors (a machine's usual count): each name compared with those after it,
            // which hashes nothing; the groups are the dictionary's, in another order, which
            // does not matter (each group tags only its own members).
            // The names as set above (`out.map(\.displayName)` copied each whole sensor).
            for i in shown.indices where !shown[..<i].contains(shown[i]) && shown[(i + 1)...].contains(shown[i]) {
                tag(shown.indices.filter { $0 >= i && shown[$0] == shown[i] })
            }
        } else {
            var byName = [String: [Int]](minimumCapacity: out.count)
            for i in out.indices { byName[out[i].displayName, default: []].append(i) }
            for (_, idx) in byName where idx.count > 1 { tag(idx) }
        }
        return out
    }

    /// The readable name of `all[i]` (`chip` its normalised chip, `cpuHeads` the headline CPUs'
    /// indices, `gpuDevices` how many GPU devices there are, `diskDevices` the disks' device
    /// keys), its fields read in place (handed over on its own, the sensor was copied).
    private static func readableName(at i: Int, in all: [ThermalSensor], chip: String,
                                     cpuHeads: [Int], gpuDevices: Int, diskDevices: [String]) -> String {
        let raw = all[i].name
        switch all[i].group {
        case .cpu:
            let pkgIndex: Int? = {
                if all[i].isHeadline { return cpuHeads.firstIndex(of: i) }
                if let m = all[i].memberOf { return cpuHeads.firstIndex { all[$0].id == m } }
                return nil
            }()
            let number = cpuHeads.count > 1 ? pkgIndex : nil
            // `CPU[ n] (<raw>)`, `CPU[ n] <label> (<chip>)` or `CPU (<raw>)`.
            guard all[i].isHeadline || all[i].mirrorOf != nil || all[i].memberOf != nil else {
                return named("CPU", raw)
            }
            let cpu = "CPU" + (number.map { " \($0)" } ?? "")
            if all[i].isHeadline || all[i].mirrorOf != nil { return named(cpu, raw) }
            return "\(cpu) \(all[i].label ?? raw) (\(all[i].chip ?? raw))"
        case .gpu:
            let who: String
            if gpuDevices > 1, let slot = all[i].deviceInfo?.pciSlot {
                who = "GPU \(all[i].deviceInfo?.vendorName.map { "\($0) " } ?? "")\(shortSlot(slot))"
            } else {
                who = "GPU" + (all[i].deviceInfo?.vendorName.map { " \($0)" } ?? "")
            }
            return named(who, raw)
        case .disk:
            let kind = chip == "nvme" ? "NVMe" : "Disk"
            var who = kind
            if let model = all[i].deviceInfo?.model, !model.isEmpty { who += " \(model)" }
            else if Set(diskDevices).count > 1, let slot = all[i].deviceInfo?.pciSlot { who += " \(shortSlot(slot))" }
            return named(who, all[i].label ?? raw)
        case .wifi:
            return named("Wi-Fi", raw)
        case .battery:
            return all[i].kind == .battery ? "Battery \(raw)" : named("Battery", raw)
        case .board:
            return named(chip == "acpitz" ? "ACPI" : "Board", raw)
        case .other:
            return raw
        }
    }

    /// `<head> (<inner>)`.
    private static func named(_ head: String, _ inner: String) -> String {
        "\(head) (\(inner))"
    }

    static func packageNumber(_ label: String?) -> Int {
        Int((label ?? "").split(separator: " ").last ?? "") ?? Int.max
    }

    /// `0000:03:00.0` → `03:00.0` (domain 0 is the common case and only adds noise).
    static func shortSlot(_ slot: String) -> String {
        slot.hasPrefix("0000:") ? String(slot.dropFirst(5)) : slot
    }
}
