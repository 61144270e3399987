import ThermtopCore

/// `/sys/class/thermal/thermal_zoneN`: static part (type, trips) read once per rediscovery.
struct ZoneLayout: Sendable {
    var id: String
    var dir: String
    var type: String?
    var policy: String?
    var trips: [TripPoint]
    var staticIssues: [ReadingIssue]
    var hasMode: Bool
    /// `acpi-LNXTHERM:00/thermal/acpitz`, `virtual/thermal/x86_pkg_temp` (see `DeviceInfo`).
    var stableID = ""
    var deviceInfo: ThermalDeviceInfo = .unlinked
    /// For zones of a real device (iwlwifi, a PCI thermal device): whether it sleeps.
    var gate: PowerGate?

    static func discover(_ root: SysfsRoot, devices: DeviceLocator.Memo = DeviceLocator.Memo()) -> [ZoneLayout] {
        let base = "class/thermal"
        var zones = (root.list(base) ?? []).filter { $0.hasPrefix("thermal_zone") }.map { id in
            let dir = path("\(base)/\(id)")
            var issues: [ReadingIssue] = []
            let listed = root.list(dir).map(Set.init)
            let type = root.take("\(dir)/type", Parse.string, into: &issues)
            let files = listed ?? []
            func optional(_ name: SysfsPath) -> Bool { SysfsRoot.mayHave(name.string, listing: listed) }
            let policy = optional("policy") ? root.take("\(dir)/policy", Parse.string, into: &issues, required: false) : nil
            let tripIndices = sortedUnique(files.compactMap(Self.tripIndex))
            let trips = tripIndices.map { k in
                readTrip(root, dir: dir, index: k, hasHysteresis: optional("trip_point_\(k)_hyst"))
            }
            issues += trips.compactMap(\.ignored)
            let link = path("\(dir)/device")
            let device = DeviceLocator.locate(root, entry: dir, link: link, memo: devices)
            let info = device.info
            // Only a zone with its own `device` link can belong to a device that sleeps.
            let linked = device.viaLink
            return ZoneLayout(id: id, dir: dir, type: type, policy: policy, trips: trips, staticIssues: issues,
                              hasMode: files.contains("mode"),
                              stableID: SensorIDs.make(device: info, middle: "thermal", channel: type ?? "zone"),
                              deviceInfo: info,
                              gate: linked ? DeviceLocator.gate(root, device: device, link: link, memo: devices) : nil)
        }
        for (i, sid) in SensorIDs.disambiguate(zones.map(\.stableID)).enumerated() { zones[i].stableID = sid }
        return zones
    }

    /// The trip number of a zone's `trip_point_<n>_type` or `_temp` file, nil for other names.
    static func tripIndex(_ name: String) -> Int? {
        guard name.hasPrefix("trip_point_"), name.hasSuffix("_type") || name.hasSuffix("_temp") else { return nil }
        return Int(name.dropFirst("trip_point_".count).prefix { $0.isNumber })
    }

    static func readTrip(_ root: SysfsRoot, dir: String, index k: Int, hasHysteresis: Bool = true) -> TripPoint {
        let prefix = path("\(dir)/trip_point_\(k)")
        var kind: TripKind?
        var ignored: ReadingIssue?
        switch root.value("\(prefix)_type", Parse.string) {
        case .value(let t):
            // Kernels print `active` (older ones `active0`…); `high` does not exist for zones.
            if t.hasPrefix("active") { kind = .active } else if let k = TripKind(rawValue: t) { kind = k } else {
                ignored = ReadingIssue(file: "\(prefix)_type", reason: .unrecognised, detail: String(t.prefix(24)))
            }
        case .unknown(let issue): ignored = issue
        }
        var celsius: Double?
        switch root.value("\(prefix)_temp", Parse.limit) {
        case .value(let c): celsius = c
        case .unknown(let issue): if ignored == nil { ignored = issue }
        }
        let hyst = hasHysteresis ? root.value("\(prefix)_hyst", Parse.hysteresis).value : nil
        return TripPoint(index: k, kind: kind, celsius: celsius, hysteresis: hyst, ignored: ignored)
    }

    /// Reread what changes: `temp` and `mode`.
    func sample(_ root: SysfsRoot) -> ThermalZone {
        var issues = staticIssues
        // A zone of a sleeping device is not read: reading `temp` would wake it.
        let asleep = gate?.asleep(root, issues: &issues)
        let celsius = asleep == nil ? root.take("\(dir)/temp", Parse.temperature, into: &issues) : nil
        let mode = hasMode ? root.take("\(dir)/mode", Parse.string, into: &issues, required: false) : nil
        var zone = ThermalZone(id: id, type: type, celsius: celsius, mode: mode, policy: policy, trips: trips, issues: issues,
                               stableID: stableID, deviceInfo: deviceInfo)
        zone.asleep = asleep
        return zone
    }
}

/// `/sys/class/thermal/cooling_deviceN`: type and max_state read once, cur_state each sample.
struct CoolingLayout: Sendable {
    var id: String
    var dir: String
    var type: String?
    var maxState: Int?
    var staticIssues: [ReadingIssue]
    var stableID = ""

    static func discover(_ root: SysfsRoot, devices: DeviceLocator.Memo = DeviceLocator.Memo()) -> [CoolingLayout] {
        let base = "class/thermal"
        var devices = (root.list(base) ?? []).filter { $0.hasPrefix("cooling_device") }.map { id in
            let dir = path("\(base)/\(id)")
            var issues: [ReadingIssue] = []
            let type = root.take("\(dir)/type", Parse.string, into: &issues)
            var maxState = root.take("\(dir)/max_state", Parse.int, into: &issues)
            if let m = maxState, m < 0 {
                issues.append(ReadingIssue(file: "\(dir)/max_state", reason: .implausible, detail: "\(m)"))
                maxState = nil
            }
            let info = DeviceLocator.locate(root, entry: dir, link: path("\(dir)/device"), memo: devices).info
            return CoolingLayout(id: id, dir: dir, type: type, maxState: maxState, staticIssues: issues,
                                 stableID: SensorIDs.make(device: info, middle: "cooling", channel: type ?? "cooling"))
        }
        for (i, sid) in SensorIDs.disambiguate(devices.map(\.stableID)).enumerated() { devices[i].stableID = sid }
        return devices
    }

    func sample(_ root: SysfsRoot) -> CoolingDevice {
        var issues = staticIssues
        var cur = root.take("\(dir)/cur_state", Parse.int, into: &issues)
        // intel_powerclamp prints -1 while idle.
        if let c = cur, c < 0 { cur = 0 }
        if let c = cur, let m = maxState, c > m {
            issues.append(ReadingIssue(file: "\(dir)/cur_state", reason: .implausible, detail: "\(c) > max \(m)"))
            cur = nil
        }
        return CoolingDevice(id: id, type: type, currentState: cur, maxState: maxState, issues: issues, stableID: stableID)
    }
}
