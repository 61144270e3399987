import ThermtopCore

/// What one sample of all hwmon chips gives.
struct HwmonSample: Sendable {
    var channels: [HwmonChannel] = []
    var fans: [ThermalFan] = []
    var power: [ThermalPowerMeter] = []
    var extras: [HwmonExtra] = []
    /// `energyN_input` counters (µJ, 64-bit: they do not wrap).
    var energy: [ThermalEnergyCounter] = []
    /// Chip-level issues of chips without temperature channels.
    var issues: [ReadingIssue] = []
}

extension Parse {
    /// A non-negative integer within `range` (RPM, PWM duty); junk is `implausible`.
    static func bounded(_ range: ClosedRange<Double>) -> @Sendable (String, String) -> Reading<Double> {
        { SysfsValue.scaled($0, file: $1, divisor: 1, range: range) }
    }
}

/// One `/sys/class/hwmon/hwmonN` chip: name, labels, limits, device identity and the files that
/// say whether its device sleeps are read once per rediscovery; inputs each sample, unless the
/// device sleeps (`power/runtime_status` suspended, PCI `power_state` D3hot/D3cold): reading a
/// sensor of a sleeping device wakes it, heats it and drains the battery.
struct HwmonLayout: Sendable {
    struct Channel: Sendable {
        var channel: String
        var label: String?
        var max, crit, critHyst, emergency, min: Double?
        var mirrorsZone: String?
        var stableID: String
        var staticIssues: [ReadingIssue]
    }

    struct FanChannel: Sendable {
        var index: Int
        var label: String?
        var minRPM, maxRPM: Double?
        var hasInput, hasTarget, hasPWM, hasPWMEnable, hasEnable: Bool
        var stableID: String
        var staticIssues: [ReadingIssue]
    }

    struct PowerChannel: Sendable {
        var index: Int
        var label: String?
        var cap, capMin, capMax: Double?
        var hasAverage, hasInput: Bool
        var stableID: String
        var staticIssues: [ReadingIssue]
    }

    struct EnergyChannel: Sendable {
        var index: Int
        var label: String?
    }

    struct ExtraChannel: Sendable {
        var stem: String
        var kind: String
        var label: String?
        var stableID: String
    }

    /// The last value read from a channel while its device was awake, and when.
    struct LastValue: Sendable, Equatable {
        var celsius: Double
        var time: Double
    }

    var device: String
    /// Folder holding the channel files: `class/hwmon/hwmonN` or its `device/` (older drivers).
    var dir: String
    var chip: String?
    var deviceInfo: ThermalDeviceInfo
    var channels: [Channel]
    var fans: [FanChannel]
    var power: [PowerChannel]
    var extras: [ExtraChannel] = []
    var energy: [EnergyChannel] = []
    var gate: PowerGate
    var staticIssues: [ReadingIssue]
    /// By channel stable id; kept across rediscovery so "asleep, last seen" survives it.
    var last: [String: LastValue] = [:]

    /// Drivers that stop their fan when cool: 0 RPM from them is "stopped", not "no reading".
    static let spinDownChips: Set<String> = ["amdgpu", "thinkpad", "dell_smm", "steamdeck_hwmon", "asus_ec_sensors"]
    /// Plausible ceilings: RPM and W beyond these are junk, not readings.
    static let maxRPM = 50_000.0
    static let maxWatts = ThermalConfig.maximumPlausibleWatts

    static func discover(_ root: SysfsRoot, zones: [ZoneLayout], previous: [HwmonLayout] = [],
                         devices: DeviceLocator.Memo = DeviceLocator.Memo()) -> [HwmonLayout] {
        let base = "class/hwmon"
        // Each typed zone's normalised type, in zone order (a machine has a handful of zones: a
        // scan per chip, where a dictionary of them was a type made at run time for this alone).
        var typedZones: [Int] = [], zoneTypes: [String] = []
        for (i, z) in zones.enumerated() {
            if let t = z.type { typedZones.append(i); zoneTypes.append(SensorCatalog.normalised(t)) }
        }
        func zonesOfType(_ type: String) -> [ZoneLayout]? {
            let found = zoneTypes.indices.filter { zoneTypes[$0] == type }.map { zones[typedZones[$0]] }
            return found.isEmpty ? nil : found
        }
        var layouts = (root.list(base) ?? []).filter { $0.hasPrefix("hwmon") }.map { device -> HwmonLayout in
            let entry = path("\(base)/\(device)")
            var dir = entry
            var issues: [ReadingIssue] = []
            let listing = root.list(dir)
            var chip = root.take("\(dir)/name", Parse.string, into: &issues, required: false)
            var chosen = listing ?? []
            var listed = listing != nil
            if !hasTempInput(chosen), let deviceFiles = root.list("\(dir)/device"), hasTempInput(deviceFiles) {
                dir += "/device"
                chosen = deviceFiles
                listed = true
                if chip == nil { chip = root.take("\(dir)/name", Parse.string, into: &issues, required: false) }
            }
            if chip == nil { issues.append(ReadingIssue(file: "\(entry)/name", reason: .missing)) }
            let link = path("\(entry)/device")
            let location = DeviceLocator.locate(root, entry: entry, link: link, memo: devices)
            let info = location.info
            let gate = DeviceLocator.gate(root, device: location, link: link, memo: devices)
            let chipName = chip ?? device
            let files = Set(chosen)
            func optional(_ name: SysfsPath) -> Bool { SysfsRoot.mayHave(name.string, listing: listed ? files : nil) }

            let numbers = indices(files, prefix: "temp", suffix: "_input")
            // The thermal core registers an hwmon copy of each zone, named after the zone type
            // (`-` becomes `_`): channel k of that chip is the k-th zone of that type.
            let mirrored = chip.flatMap { zonesOfType(SensorCatalog.normalised($0)) }
            let mirrors = (mirrored?.count ?? 0) >= numbers.count ? mirrored : nil
            let channels = numbers.enumerated().map { (i, n) -> Channel in
                let c = path("temp\(n)")
                var ci: [ReadingIssue] = []
                func lim(_ suffix: String) -> Double? {
                    guard optional("\(c)_\(suffix)") else { return nil }
                    return root.take("\(dir)/\(c)_\(suffix)", Parse.limit, into: &ci, required: false)
                }
                func silent(_ suffix: String) -> Double? {
                    guard optional("\(c)_\(suffix)") else { return nil }
                    return root.value("\(dir)/\(c)_\(suffix)", Parse.limit).value
                }
                let label = optional("\(c)_label")
                    ? root.take("\(dir)/\(c)_label", Parse.string, into: &ci, required: false) : nil
                return Channel(
                    channel: c, label: label,
                    max: lim("max"), crit: lim("crit"),
                    critHyst: silent("crit_hyst"),
                    emergency: lim("emergency"),
                    min: silent("min"),
                    mirrorsZone: mirrors?[i].id,
                    stableID: SensorIDs.make(device: info, middle: chipName, channel: label ?? c),
                    staticIssues: ci)
            }

            // Fans: every index that has a tachometer or a PWM output (a PWM-only header is
            // still a fan, shown with "no reading").
            let fanIdx = sortedUnique(indices(files, prefix: "fan", suffix: "_input")
                + indices(files, prefix: "pwm", suffix: ""))
            let fans = fanIdx.map { n -> FanChannel in
                var fi: [ReadingIssue] = []
                let label = optional("fan\(n)_label")
                    ? root.take("\(dir)/fan\(n)_label", Parse.string, into: &fi, required: false) : nil
                func rpm(_ name: String) -> Double? {
                    guard files.contains(name) else { return nil }
                    return root.take("\(dir)/\(name)", Parse.bounded(0...maxRPM), into: &fi, required: false)
                }
                return FanChannel(
                    index: n, label: label, minRPM: rpm("fan\(n)_min"), maxRPM: rpm("fan\(n)_max"),
                    hasInput: files.contains("fan\(n)_input"), hasTarget: files.contains("fan\(n)_target"),
                    hasPWM: files.contains("pwm\(n)"), hasPWMEnable: files.contains("pwm\(n)_enable"),
                    hasEnable: files.contains("fan\(n)_enable"),
                    stableID: SensorIDs.make(device: info, middle: chipName, channel: label ?? "fan\(n)"),
                    staticIssues: fi)
            }

            let powerIdx = indices(files, prefix: "power", suffix: "_average", or: "_input")
            let power = powerIdx.map { n -> PowerChannel in
                var pi: [ReadingIssue] = []
                let p = path("power\(n)")
                let label = optional("\(p)_label")
                    ? root.take("\(dir)/\(p)_label", Parse.string, into: &pi, required: false) : nil
                func watts(_ suffix: String) -> Double? {
                    guard files.contains("\(p)_\(suffix)") else { return nil }
                    return root.take("\(dir)/\(p)_\(suffix)", Parse.micro(max: maxWatts), into: &pi, required: false)
                }
                return PowerChannel(
                    index: n, label: label, cap: watts("cap"), capMin: watts("cap_min"), capMax: watts("cap_max"),
                    hasAverage: files.contains("\(p)_average"), hasInput: files.contains("\(p)_input"),
                    stableID: SensorIDs.make(device: info, middle: chipName, channel: label ?? p),
                    staticIssues: pi)
            }
            // Every other `<family>N_input` (in, curr, energy, humidity…): shown, not judged.
            // (`energy` is also read as a counter for its watts: see `energy` below.)
            let known: Set<String> = ["temp", "fan", "pwm", "power"]
            let extras = chosen.filter { $0.hasSuffix("_input") }.compactMap { name -> ExtraChannel? in
                let stem = String(name.dropLast("_input".count))
                let kind = String(stem.prefix { !$0.isNumber })
                guard !kind.isEmpty, !known.contains(kind), stem.count > kind.count else { return nil }
                var ei: [ReadingIssue] = []
                let label = optional("\(stem)_label")
                    ? root.take("\(dir)/\(stem)_label", Parse.string, into: &ei, required: false) : nil
                return ExtraChannel(stem: stem, kind: kind, label: label,
                                    stableID: SensorIDs.make(device: info, middle: chipName, channel: label ?? stem))
            }
            var layout = HwmonLayout(device: device, dir: dir, chip: chip, deviceInfo: info, channels: channels,
                                     fans: fans, power: power, gate: gate, staticIssues: issues)
            layout.extras = extras
            layout.energy = indices(files, prefix: "energy", suffix: "_input").map { n in
                EnergyChannel(index: n, label: optional("energy\(n)_label")
                    ? root.value("\(dir)/energy\(n)_label", Parse.string).value : nil)
            }
            return layout
        }

        // Ids unique over all chips, in class order (two identical chips without device links).
        let tempIDs = SensorIDs.disambiguate(layouts.flatMap { $0.channels.map(\.stableID) })
        let fanIDs = SensorIDs.disambiguate(layouts.flatMap { $0.fans.map(\.stableID) })
        let powerIDs = SensorIDs.disambiguate(layouts.flatMap { $0.power.map(\.stableID) })
        let extraIDs = SensorIDs.disambiguate(layouts.flatMap { $0.extras.map(\.stableID) })
        var t = 0, f = 0, p = 0, x = 0
        let remembered = previous.reduce(into: [String: LastValue]()) { $0.merge($1.last) { a, _ in a } }
        for i in layouts.indices {
            for c in layouts[i].channels.indices {
                layouts[i].channels[c].stableID = tempIDs[t]; t += 1
                if let v = remembered[tempIDs[t - 1]] { layouts[i].last[tempIDs[t - 1]] = v }
            }
            for c in layouts[i].fans.indices { layouts[i].fans[c].stableID = fanIDs[f]; f += 1 }
            for c in layouts[i].power.indices { layouts[i].power[c].stableID = powerIDs[p]; p += 1 }
            for c in layouts[i].extras.indices { layouts[i].extras[c].stableID = extraIDs[x]; x += 1 }
        }
        return layouts
    }

    /// Whether a listing has a `temp…_input` file.
    static func hasTempInput(_ files: [String]) -> Bool {
        files.contains { $0.hasPrefix("temp") && $0.hasSuffix("_input") }
    }

    /// Channel numbers of `<prefix>N<suffix>` files (`temp3_input` → 3), sorted; `or` a second
    /// suffix that also counts.
    static func indices(_ files: some Sequence<String>, prefix: String, suffix: String, or other: String? = nil) -> [Int] {
        var out: [Int] = []
        for name in files where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let n = Int(digits) else { continue }
            let tail = rest.dropFirst(digits.count)
            if tail == suffix || (other.map { tail == $0 } ?? false) { out.append(n) }
        }
        return sortedUnique(out)
    }

    mutating func sample(_ root: SysfsRoot, zones: [ThermalZone], time: Double) -> HwmonSample {
        var deviceIssues = staticIssues
        let asleep = gate.asleep(root, issues: &deviceIssues)
        var out = HwmonSample()
        for (i, c) in channels.enumerated() {
            var issues = (i == 0 ? deviceIssues : []) + c.staticIssues
            var celsius: Double?
            if let zone = c.mirrorsZone {
                celsius = zones.first { $0.id == zone }?.celsius
            } else if asleep == nil {
                celsius = root.take("\(dir)/\(c.channel)_input", Parse.temperature, into: &issues)
            }
            if let celsius { last[c.stableID] = LastValue(celsius: celsius, time: time) }
            let remembered = asleep != nil ? last[c.stableID] : nil
            out.channels.append(HwmonChannel(
                device: device, chip: chip, channel: c.channel, label: c.label, celsius: celsius,
                max: c.max, crit: c.crit, critHyst: c.critHyst, emergency: c.emergency, min: c.min,
                asleep: asleep, mirrorsZone: c.mirrorsZone, issues: issues, stableID: c.stableID,
                deviceInfo: deviceInfo, lastCelsius: remembered?.celsius, lastReadAt: remembered?.time))
        }
        // A chip without temperature channels still reports its own problems (missing name…).
        if channels.isEmpty { out.issues = deviceIssues }
        for f in fans {
            var issues = f.staticIssues
            var fan = ThermalFan(id: f.stableID, location: "\(device)/fan\(f.index)", chip: chip, label: f.label,
                          deviceInfo: deviceInfo, rpm: nil, minRPM: f.minRPM, maxRPM: f.maxRPM,
                          spinsDown: Self.spinDownChips.contains(chip ?? ""), asleep: asleep)
            if asleep == nil {
                let n = f.index
                if f.hasInput { fan.rpm = root.take("\(dir)/fan\(n)_input", Parse.bounded(0...Self.maxRPM), into: &issues) }
                if f.hasTarget {
                    fan.targetRPM = root.take("\(dir)/fan\(n)_target", Parse.bounded(0...Self.maxRPM), into: &issues)
                }
                if f.hasPWM {
                    fan.pwm = root.take("\(dir)/pwm\(n)", Parse.bounded(0...255), into: &issues).map { Int($0) }
                }
                if f.hasPWMEnable {
                    fan.pwmEnable = root.take("\(dir)/pwm\(n)_enable", Parse.int, into: &issues)
                    if let e = fan.pwmEnable, ThermalFanControl(pwmEnable: e) == nil {
                        issues.append(ReadingIssue(file: "\(dir)/pwm\(n)_enable", reason: .unrecognised, detail: "\(e)"))
                    }
                }
                if f.hasEnable { fan.enabled = root.take("\(dir)/fan\(n)_enable", Parse.flag, into: &issues) }
            }
            fan.issues = issues
            out.fans.append(fan)
        }
        for p in power {
            var issues = p.staticIssues
            var meter = ThermalPowerMeter(id: p.stableID, location: "\(device)/power\(p.index)", chip: chip, label: p.label,
                                   deviceInfo: deviceInfo, capWatts: p.cap, capMinWatts: p.capMin,
                                   capMaxWatts: p.capMax, asleep: asleep)
            if asleep == nil {
                let stem = path("\(dir)/power\(p.index)")
                if p.hasAverage { meter.averageWatts = root.take("\(stem)_average", Parse.micro(max: Self.maxWatts), into: &issues) }
                if p.hasInput { meter.inputWatts = root.take("\(stem)_input", Parse.micro(max: Self.maxWatts), into: &issues) }
            }
            meter.issues = issues
            out.power.append(meter)
        }
        for e in energy {
            var issues: [ReadingIssue] = []
            let label = e.label ?? "energy\(e.index)"
            let uj = asleep == nil ? root.take("\(dir)/energy\(e.index)_input", Parse.integer, into: &issues) : nil
            if let asleep { issues.append(ReadingIssue(file: "\(dir)/energy\(e.index)_input", reason: .deviceAsleep, detail: asleep)) }
            out.energy.append(ThermalEnergyCounter(
                id: "hwmon:\(chip ?? device):\(label.lowercased())", name: "\(chip ?? device) \(label)", source: .hwmon,
                location: "\(device)/energy\(e.index)", microjoules: uj.flatMap { $0 >= 0 ? $0 : nil }, wraps: false,
                issues: issues))
        }
        for e in extras {
            var issues: [ReadingIssue] = []
            var extra = HwmonExtra(id: e.stableID, location: "\(device)/\(e.stem)", chip: chip, label: e.label, kind: e.kind)
            let file = path("\(dir)/\(e.stem)_input")
            if asleep == nil, let raw = root.take(file, Parse.string, into: &issues) {
                extra.raw = raw
                if let (divisor, unit) = HwmonExtra.unit(for: e.kind) {
                    // Any integer is a valid voltage or current reading: no plausibility range.
                    switch SysfsValue.scaled(raw, file: file, divisor: divisor) {
                    case .value(let v): extra.value = v; extra.unit = unit
                    case .unknown(let issue): issues.append(issue)
                    }
                }
            }
            extra.issues = issues
            out.extras.append(extra)
        }
        return out
    }
}

/// Ascending, each once: what `Set(xs).sorted()` gives, without a `Set<Int>` (whose first use
/// costs a runtime conformance lookup in a one-shot run). Lists here are a handful long.
func sortedUnique(_ xs: [Int]) -> [Int] {
    var out: [Int] = []
    for x in xs.sorted() where out.last != x { out.append(x) }
    return out
}
