import ThermtopCore

/// Names the device behind a class entry (`class/hwmon/hwmon2/device`) for stable ids and
/// labels, and finds the power-management files that say whether it sleeps. Everything here
/// is read once per rediscovery and never touches the sensor itself.
enum DeviceLocator {
    /// The device a class entry belongs to. `link` is the entry's `device` link
    /// (`class/hwmon/hwmon2/device`); `entry` the class entry itself, used when there is no
    /// link (virtual zones, copied trees).
    static func locate(_ root: SysfsRoot, entry: String, link: String) -> (info: DeviceInfo, path: String?) {
        let path: String?
        if let p = root.resolved(link), p.hasPrefix("devices/") {
            path = p
        } else if let e = root.resolved(entry), e.hasPrefix("devices/") {
            // No `device` link: the entry lives under devices/virtual (x86_pkg_temp zones)
            // or directly under its device; its own folder is the class device: drop it.
            path = e
        } else {
            path = nil
        }
        guard let path else { return (.unlinked, nil) }
        let (key, slot) = DeviceInfo.key(forDevicePath: path)
        var info = DeviceInfo(key: key, pciSlot: slot)
        if let slot {
            let comps = path.split(separator: "/")
            if let i = comps.lastIndex(where: { $0 == slot }) {
                // Built by hand: `joined` costs a generic type lookup at its first use.
                var pciDir = ""
                for c in comps[...i] {
                    if !pciDir.isEmpty { pciDir += "/" }
                    pciDir += c
                }
                info.pciVendor = root.value("\(pciDir)/vendor", Parse.string).value
            }
        }
        if key != "virtual", root.exists("\(path)/model") {
            info.model = root.value("\(path)/model", Parse.string).value
        }
        return (info, path)
    }

    /// The files to check before reading a device's sensors: the first device up from it
    /// whose `power/runtime_status` is managed (not `unsupported`: class devices such as
    /// `nvme0` report that), and the nearest PCI `power_state`.
    static func gate(_ root: SysfsRoot, devicePath: String?, link: String) -> PowerGate {
        var gate = PowerGate()
        // A copied tree may hold the device as a plain folder: look there first.
        if root.exists("\(link)/power_state") { gate.powerStateFile = "\(link)/power_state" }
        if managedRuntimeStatus(root, "\(link)/power/runtime_status") { gate.runtimeStatusFile = "\(link)/power/runtime_status" }
        guard var p = devicePath else { return gate }
        while p.hasPrefix("devices/"), gate.runtimeStatusFile == nil || gate.powerStateFile == nil {
            if gate.runtimeStatusFile == nil, managedRuntimeStatus(root, "\(p)/power/runtime_status") {
                gate.runtimeStatusFile = "\(p)/power/runtime_status"
            }
            if gate.powerStateFile == nil, root.exists("\(p)/power_state") { gate.powerStateFile = "\(p)/power_state" }
            guard let slash = p.lastIndex(of: "/") else { break }
            p = String(p[..<slash])
        }
        return gate
    }

    static func managedRuntimeStatus(_ root: SysfsRoot, _ file: String) -> Bool {
        guard root.exists(file) else { return false }
        return root.value(file, Parse.string).value != "unsupported"
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
