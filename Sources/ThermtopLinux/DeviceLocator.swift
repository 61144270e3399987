import ThermtopCore

/// Names the device behind a class entry (`class/hwmon/hwmon2/device`) for stable ids and
/// labels, and finds the power-management files that say whether it sleeps. Everything here
/// is read once per rediscovery and never touches the sensor itself.
enum DeviceLocator {
    /// What one discovery has learnt about device folders: devices share ancestors (every
    /// platform device has `devices/platform`, the zones and chips of one PCI device the same
    /// folder), and each is looked at once per discovery, not once per device under it.
    /// Made per discovery pass and dropped with it, so a device that changes is seen afresh.
    final class Memo {
        /// By device folder: whether `power/runtime_status` is there and managed.
        var managedRuntimeStatus: [String: Bool] = [:]
        /// By device folder: whether `power_state` is there.
        var hasPowerState: [String: Bool] = [:]
        /// By file: the text of `vendor` and `model` files read.
        var strings: [String: String?] = [:]
        init() {}

        func string(_ root: SysfsRoot, _ file: String) -> String? {
            if let known = strings[file] { return known }
            let v = root.value(file, Parse.string).value
            strings[file] = .some(v)
            return v
        }

        /// Whether `folder/power/runtime_status` is managed, remembered as `key`'s answer (the
        /// device folder a `device` link names, or the folder itself).
        func runtimeStatusIsManaged(_ root: SysfsRoot, _ folder: String, key: String) -> Bool {
            if let known = managedRuntimeStatus[key] { return known }
            let m = DeviceLocator.managedRuntimeStatus(root, path("\(folder)/power/runtime_status"))
            managedRuntimeStatus[key] = m
            return m
        }

        /// Whether `folder/power_state` is there, remembered as `key`'s answer.
        func hasPowerState(_ root: SysfsRoot, _ folder: String, key: String) -> Bool {
            if let known = hasPowerState[key] { return known }
            let e = root.exists("\(folder)/power_state")
            hasPowerState[key] = e
            return e
        }
    }

    /// Where a class entry's device is.
    struct Location {
        var info: ThermalDeviceInfo
        /// The device's folder (`devices/...`), nil when unlinked.
        var path: String?
        /// Whether `path` is what the entry's `device` link resolves to (else the entry's own
        /// folder, or nothing): the link is resolved once per entry (a guarded lookup), and
        /// `gate` and the zones go by this answer.
        var viaLink: Bool
    }

    /// The device a class entry belongs to. `link` is the entry's `device` link
    /// (`class/hwmon/hwmon2/device`); `entry` the class entry itself, used when there is no
    /// link (virtual zones, copied trees).
    static func locate(_ root: SysfsRoot, entry: String, link: String, memo: Memo = Memo()) -> Location {
        let path: String?
        let viaLink: Bool
        if let p = root.resolved(link), p.hasPrefix("devices/") {
            (path, viaLink) = (p, true)
        } else if let e = root.resolved(entry), e.hasPrefix("devices/") {
            // No `device` link: the entry lives under devices/virtual (x86_pkg_temp zones)
            // or directly under its device; its own folder is the class device: drop it.
            (path, viaLink) = (e, false)
        } else {
            (path, viaLink) = (nil, false)
        }
        guard let path else { return Location(info: .unlinked, path: nil, viaLink: false) }
        let (key, slot) = ThermalDeviceInfo.key(forDevicePath: path)
        var info = ThermalDeviceInfo(key: key, pciSlot: slot)
        if let slot {
            let comps = ThermalDeviceInfo.pathComponents(path)
            if let i = comps.lastIndex(of: slot) {
                // Built by hand: `joined` costs a generic lookup at first use that scans every
                // conformance record of the binary.
                var pciDir = ""
                for c in comps[...i] {
                    if !pciDir.isEmpty { pciDir += "/" }
                    pciDir += c
                }
                info.pciVendor = memo.string(root, SysfsPath("\(pciDir)/vendor").string)
            }
        }
        // One read, not a lookup and a read: a missing `model` reads as missing, which is nil.
        if key != "virtual", mayHaveModel(path) { info.model = memo.string(root, SysfsPath("\(path)/model").string) }
        return Location(info: info, path: path, viaLink: viaLink)
    }

    /// The files to check before reading a device's sensors: the first device up from it
    /// whose `power/runtime_status` is managed (not `unsupported`: class devices such as
    /// `nvme0` report that), and the nearest PCI `power_state`. `device` is what `locate`
    /// found for the entry whose `device` link is `link`.
    ///
    /// `power_state` (D0, D3hot, D3cold) is a PCI device's attribute, so on the way up only a
    /// folder named as a PCI device (`0000:03:00.0`) is asked for one: the platform, ACPI and
    /// virtual folders above most sensors have none (on a laptop those were ~24 failed lookups
    /// a start), and an ACPI object's own `power_state` is not what waking a sensor's device
    /// depends on. A copied tree's plain `device` folder (no link to follow) is asked whatever
    /// its name, as nothing else tells what it is.
    static func gate(_ root: SysfsRoot, device: Location, link: String, memo: Memo = Memo()) -> PowerGate {
        var gate = PowerGate()
        let devicePath = device.path
        // A copied tree may hold the device as a plain folder: look there first. When the link
        // resolves to the device folder (as on sysfs), that is the folder's own answer, for the
        // walk up from it and for the other devices under it.
        let linkKey = device.viaLink ? devicePath ?? link : link
        if !device.viaLink || devicePath.map(isPCIDevice) ?? true, memo.hasPowerState(root, link, key: linkKey) {
            gate.powerStateFile = path("\(link)/power_state")
        }
        if !(device.viaLink && devicePath.map(neverRuntimeManaged) ?? false),
           memo.runtimeStatusIsManaged(root, link, key: linkKey) {
            gate.runtimeStatusFile = path("\(link)/power/runtime_status")
        }
        guard var p = devicePath else { return gate }
        while p.hasPrefix("devices/"), gate.runtimeStatusFile == nil || gate.powerStateFile == nil {
            if gate.runtimeStatusFile == nil, !neverRuntimeManaged(p), memo.runtimeStatusIsManaged(root, p, key: p) {
                gate.runtimeStatusFile = path("\(p)/power/runtime_status")
            }
            if gate.powerStateFile == nil, isPCIDevice(p), memo.hasPowerState(root, p, key: p) {
                gate.powerStateFile = path("\(p)/power_state")
            }
            guard let slash = p.utf8.lastIndex(of: UInt8(ascii: "/")) else { break }
            p = String(p[..<slash])
        }
        return gate
    }

    /// Whether the last component of a device folder's path is a PCI address.
    static func isPCIDevice(_ folder: String) -> Bool {
        ThermalDeviceInfo.isPCIAddress(String(lastComponent(folder)))
    }

    /// Whether a folder on the way up from a device only groups devices, and so has no
    /// `power/runtime_status` of its own to ask: `devices/virtual`, and a folder named after a
    /// class (`devices/virtual/thermal`, `…/0000:02:00.0/nvme`, `…/PNP0C0A:00/power_supply`),
    /// which the kernel makes to hold that class's devices under their parent.
    static func isGroupFolder(_ folder: String) -> Bool {
        folder == "devices/virtual" || ThermalDeviceInfo.isClassFolder(String(lastComponent(folder)))
    }

    /// Whether a device folder's `power/runtime_status` can only say `unsupported`, so the walk
    /// up passes it without a read: a group folder, the platform bus's root `devices/platform`,
    /// and an ACPI namespace object. The ACPI core never enables runtime PM on its objects
    /// (`devices/LNXSYSTM:00/…/PNP0C0A:00`, a firmware description of a device); a driver
    /// that suspends the device does so on the physical one it binds (a PCI function, a
    /// platform device such as `devices/platform/INT3400:00`), which is still asked. On a laptop
    /// the ACPI objects above its battery and ACPI zones were ~10 reads a start, each answering
    /// `unsupported`.
    static func neverRuntimeManaged(_ folder: String) -> Bool {
        isGroupFolder(folder) || folder == "devices/platform" || isACPIObject(folder)
    }

    /// Whether a device folder is an ACPI namespace object: under `devices/LNXSYSTM:…`, with a
    /// `HID:instance` name (`PNP0C09:00`, `device:1f`). Class folders and class devices there
    /// (`power_supply`, `BAT0`, `input3`) have no colon in their names.
    static func isACPIObject(_ folder: String) -> Bool {
        folder.utf8.starts(with: "devices/LNXSYSTM:".utf8) && lastComponent(folder).utf8.contains(UInt8(ascii: ":"))
    }

    /// Whether a device folder can hold a `model` attribute (SCSI and ATA disks, NVMe
    /// controllers do), so is worth a read. Not a PCI function (`0000:00:04.0`: vendor
    /// and device ids instead), a platform device (`devices/platform/coretemp.0`) or an ACPI
    /// object (`devices/LNXSYSTM:00/…/LNXTHERM:00`), none of which ever has one, so asking
    /// would only be a failed open. Devices below a platform device (a USB disk behind an
    /// SoC's controller) are still asked.
    static func mayHaveModel(_ folder: String) -> Bool {
        if ThermalDeviceInfo.isPCIAddress(String(lastComponent(folder))) { return false }
        let platform = "devices/platform/".utf8
        if folder.utf8.starts(with: platform), !folder.utf8.dropFirst(platform.count).contains(UInt8(ascii: "/")) {
            return false
        }
        return !isACPIObject(folder)
    }

    /// What follows a path's last `/` (the whole path when it has none).
    private static func lastComponent(_ path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[path.utf8.index(after: slash)...]
    }

    /// One read, not a lookup and a read: a missing file is unmanaged; one that is there but
    /// cannot be read is taken as managed (each sample then says why it cannot be read).
    static func managedRuntimeStatus(_ root: SysfsRoot, _ file: String) -> Bool {
        switch root.value(file, Parse.string) {
        case .value(let status): return status != "unsupported"
        case .unknown(let issue): return issue.reason != .missing
        }
    }
}

/// Whether a device sleeps, from files that never wake it: `power/runtime_status`
/// (`suspended`) and PCI `power_state` (`D3hot`, `D3cold`).
struct PowerGate: Sendable, Equatable {
    var runtimeStatusFile: String?
    var powerStateFile: String?

    /// `suspended`, `D3cold`… when the device sleeps; nil when awake or unknown.
    func asleep(_ root: SysfsRoot, issues: inout [ReadingIssue]) -> String? {
        if let f = powerStateFile, let s = root.take(f, Parse.string, into: &issues), s.hasPrefix("D3") { return s }
        if let f = runtimeStatusFile, let s = root.take(f, Parse.string, into: &issues), s == "suspended" { return s }
        return nil
    }
}
