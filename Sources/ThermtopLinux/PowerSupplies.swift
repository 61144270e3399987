import ThermtopCore

/// `/sys/class/power_supply/NAME`. Names, type, scope, model and design capacity are read once
/// per rediscovery; the changing attributes each sample, from the attribute files of one pass
/// (never mixed with `uevent`, which may have been written at another moment).
struct SupplyLayout: Sendable {
    enum Role: Sendable { case battery, peripheral, adapter, other }

    var id: String
    var dir: String
    var type: String?
    var role: Role
    var scope: String?
    var model, manufacturer, technology: String?
    var energyFullDesign, chargeFullDesign, voltageMinDesign, voltageMaxDesign: Double?
    /// Attribute files present at discovery; only these are read per sample.
    var files: Set<String>
    var staticIssues: [ReadingIssue]

    static func discover(_ root: SysfsRoot) -> [SupplyLayout] {
        let base = "class/power_supply"
        return (root.list(base) ?? []).map { id in
            let dir = path("\(base)/\(id)")
            var issues: [ReadingIssue] = []
            let listing = root.list(dir).map(Set.init)
            let (type, inferred) = resolveType(root, dir: dir, name: id, files: listing ?? [])
            if let inferred { issues.append(inferred) }
            // An adapter has none of these, a battery some: only the ones its folder lists.
            func optional<T>(_ name: String, _ parse: (String, String) -> Reading<T>) -> T? {
                guard SysfsRoot.mayHave(name, listing: listing) else { return nil }
                return root.take("\(dir)/\(name)", parse, into: &issues, required: false)
            }
            let scope = optional("scope", Parse.string)
            let model = optional("model_name", Parse.string)
            let lower = id.lowercased()
            let role: Role
            switch type {
            case "Battery"?:
                // Mice and keyboards report through HID (`hidpp_battery_0`, `hid-…-battery`)
                // with scope Device: they are never the system battery.
                let hid = lower.hasPrefix("hidpp") || lower.hasPrefix("hid-") || lower.contains("wacom")
                    || lower.contains("controller")
                role = (scope == "Device" || hid) ? .peripheral : .battery
            case "Mains"?, "UPS"?: role = .adapter
            case let t? where t.hasPrefix("USB"): role = .adapter
            case "Wireless"?: role = .adapter
            default: role = .other
            }
            func micro(_ name: String, max: Double) -> Double? { optional(name, Parse.micro(max: max)) }
            return SupplyLayout(
                id: id, dir: dir, type: type, role: role, scope: scope, model: model,
                manufacturer: optional("manufacturer", Parse.string),
                technology: optional("technology", Parse.string),
                energyFullDesign: micro("energy_full_design", max: 10_000),
                chargeFullDesign: micro("charge_full_design", max: 1_000),
                voltageMinDesign: micro("voltage_min_design", max: 100),
                voltageMaxDesign: micro("voltage_max_design", max: 100),
                files: listing ?? [], staticIssues: issues)
        }
    }

    /// Files that only a battery has.
    static func hasBatteryFiles(_ files: Set<String>) -> Bool {
        files.contains("capacity") || files.contains("capacity_level")
            || files.contains { $0.hasPrefix("energy_") || $0.hasPrefix("charge_now") || $0.hasPrefix("charge_full") }
    }

    /// The supply's type: the `type` file; else `POWER_SUPPLY_TYPE` in `uevent`; else what the
    /// folder holds (battery files → Battery, only `online` → Mains); else the name (`BAT*`,
    /// `*battery*` → Battery; `AC*`, `ADP*` → Mains). Anything but the file is reported as an
    /// `inferred-type` issue saying how.
    static func resolveType(_ root: SysfsRoot, dir: String, name: String, files: Set<String>)
        -> (String?, ReadingIssue?) {
        var ignored: [ReadingIssue] = []
        if let t = root.take("\(dir)/type", Parse.string, into: &ignored, required: false) { return (t, nil) }
        func inferred(_ t: String, _ how: String) -> (String?, ReadingIssue?) {
            (t, ReadingIssue(file: "\(dir)/type", reason: .inferredType, detail: "\(t) \(how)"))
        }
        if files.contains("uevent"), let text = root.value("\(dir)/uevent", Parse.string).value,
           let t = ueventValue(text, key: "POWER_SUPPLY_TYPE") {
            return inferred(t, "from uevent POWER_SUPPLY_TYPE")
        }
        if hasBatteryFiles(files) { return inferred("Battery", "from its battery files") }
        if files.contains("online") { return inferred("Mains", "from its online file") }
        let lower = name.lowercased()
        if lower.hasPrefix("bat") || lower.contains("battery") { return inferred("Battery", "from its name") }
        if lower.hasPrefix("ac") || lower.hasPrefix("adp") { return inferred("Mains", "from its name") }
        return (nil, ReadingIssue(file: "\(dir)/type", reason: .missing, detail: "no type file, uevent TYPE, or telling files"))
    }

    /// The first `KEY=value` of a uevent (newer kernels print `POWER_SUPPLY_TYPE` twice).
    static func ueventValue(_ text: String, key: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix(key + "=") {
            let v = SysfsValue.trimmed(String(line.dropFirst(key.count + 1)))
            if !v.isEmpty { return v }
        }
        return nil
    }

    func sampleAdapter(_ root: SysfsRoot) -> ThermalPowerAdapter {
        var issues = staticIssues
        let online = root.take("\(dir)/online", Parse.flag, into: &issues)
        return ThermalPowerAdapter(id: id, type: type, online: online, issues: issues)
    }

    /// The battery, or nil when `present` is 0 (an empty bay is not a battery).
    func sampleBattery(_ root: SysfsRoot) -> (ThermalBattery?, ReadingIssue?) {
        var issues = staticIssues
        func r<T>(_ name: String, _ parse: (String, String) -> Reading<T>) -> T? {
            guard files.contains(name) else { return nil }
            return root.take("\(dir)/\(name)", parse, into: &issues)
        }
        let present = r("present", Parse.flag)
        if present == false {
            return (nil, ReadingIssue(file: "\(dir)/present", reason: .missing, detail: "present 0: empty bay, not a battery"))
        }
        let statusText = r("status", Parse.string)
        let status = statusText.map(ThermalBatteryStatus.init(kernel:))
        if let t = statusText, status == .unknown, t.lowercased() != "unknown" {
            // Shown as unknown, with the kernel's word kept.
            issues.append(ReadingIssue(file: "\(dir)/status", reason: .unrecognised, detail: String(t.prefix(24))))
        }
        var energyNow = r("energy_now", Parse.micro(max: 10_000))
        let energyFull = r("energy_full", Parse.micro(max: 10_000))
        var chargeNow = r("charge_now", Parse.micro(max: 1_000))
        let chargeFull = r("charge_full", Parse.micro(max: 1_000))
        // A gauge that reports more than full is recalibrating: clamp for percent, keep a note.
        if let n = energyNow, let f = energyFull, n > f * ThermalConfig.batteryOverFullTolerance {
            issues.append(ReadingIssue(file: "\(dir)/energy_now", reason: .implausible, detail: "above energy_full"))
            energyNow = f
        }
        if let n = chargeNow, let f = chargeFull, n > f * ThermalConfig.batteryOverFullTolerance {
            issues.append(ReadingIssue(file: "\(dir)/charge_now", reason: .implausible, detail: "above charge_full"))
            chargeNow = f
        }
        // Vendor drivers that break the ABI's units (legacy sunxi AXP: design in mAh, mV) give
        // values orders of magnitude off their siblings: never shown, never used for health.
        var energyFullDesign = energyFullDesign, chargeFullDesign = chargeFullDesign
        var voltageMinDesign = voltageMinDesign, voltageMaxDesign = voltageMaxDesign
        func offScale(_ design: inout Double?, _ full: Double?, _ name: String, _ sibling: String) {
            guard let d = design, let f = full, d > 0, f > 0 else { return }
            let ratio = f / d
            if ratio >= ThermalConfig.batteryUnitMismatchRatio || ratio <= 1 / ThermalConfig.batteryUnitMismatchRatio {
                issues.append(ReadingIssue(file: "\(dir)/\(name)", reason: .implausible,
                                           detail: "\(name) is \(Int(ratio >= 1 ? ratio : 1 / ratio))× off \(sibling): wrong unit"))
                design = nil
            }
        }
        offScale(&energyFullDesign, energyFull, "energy_full_design", "energy_full")
        offScale(&chargeFullDesign, chargeFull, "charge_full_design", "charge_full")
        func volts(_ v: inout Double?, _ name: String) {
            guard let x = v, x < ThermalConfig.minimumPackVolts else { return }
            issues.append(ReadingIssue(file: "\(dir)/\(name)", reason: .implausible,
                                       detail: "\(Int((x * SysfsValue.microPerUnit).rounded())) µV is under 1 V: wrong unit"))
            v = nil
        }
        volts(&voltageMinDesign, "voltage_min_design")
        volts(&voltageMaxDesign, "voltage_max_design")
        var voltageNow = r("voltage_now", Parse.micro(max: 100))
        volts(&voltageNow, "voltage_now")
        let battery = ThermalBattery(
            id: id, present: present ?? true, status: status,
            capacity: r("capacity", Parse.percent),
            capacityLevel: r("capacity_level", Parse.string),
            energyNow: energyNow, energyFull: energyFull, energyFullDesign: energyFullDesign,
            chargeNow: chargeNow, chargeFull: chargeFull, chargeFullDesign: chargeFullDesign,
            powerNow: r("power_now", Parse.micro(max: 500, signed: true)),
            currentNow: r("current_now", Parse.micro(max: 50, signed: true)),
            voltageNow: voltageNow,
            voltageMinDesign: voltageMinDesign, voltageMaxDesign: voltageMaxDesign,
            cycleCount: r("cycle_count", Parse.int).flatMap { $0 >= 0 ? $0 : nil },
            model: model, manufacturer: manufacturer, technology: technology, scope: scope,
            celsius: r("temp", Parse.tenthsCelsius), issues: issues)
        return (battery, nil)
    }
}
