/// Who a sensor belongs to, independent of the `hwmonN` / `thermal_zoneN` numbers the kernel
/// hands out in probe order (they change across boots, resume and module reloads).
///
/// Stable sensor ids have the shape `<device key>/<class or chip>/<channel>`:
/// - `pci-0000:00:18.3/k10temp/Tctl`          (hwmon of a PCI device; channel = label)
/// - `platform-coretemp.0/coretemp/Package id 0`
/// - `pci-0000:02:00.0/nvme/Composite`        (the `nvme/nvmeN` class folder is skipped)
/// - `acpi-LNXTHERM:00/thermal/acpitz`        (thermal zone whose `device` is an ACPI node)
/// - `virtual/thermal/x86_pkg_temp`           (zone with no parent device)
/// - `pci-0000:03:00.0/amdgpu/fan1`           (fans; `cooling/<type>` for cooling devices)
/// - `unlinked/nvme/Composite#2`              (a copied tree whose class entries are plain
///   folders: no device to name, so class order breaks the tie)
/// The channel part is the label when there is one, else the attribute stem (`temp1`): the
/// channel index inside one chip is fixed by its driver. Two sensors that would get the same
/// id get `#2`, `#3`… in class order.
public struct ThermalDeviceInfo: Sendable, Equatable, Hashable {
    /// `pci-0000:00:18.3`, `platform-coretemp.0`, `acpi-LNXTHERM:00`, `virtual`, `unlinked`.
    public var key: String
    /// PCI address of the device or its closest PCI ancestor (`0000:03:00.0`).
    public var pciSlot: String?
    /// PCI vendor id (`0x1002`) when the device is a PCI function.
    public var pciVendor: String?
    /// Model from sysfs (`device/model`: nvme controller, SCSI disk for drivetemp).
    public var model: String?

    /// Identity from the device's stable key and, when known, its PCI slot, vendor and model.
    public init(key: String, pciSlot: String? = nil, pciVendor: String? = nil, model: String? = nil) {
        self.key = key
        self.pciSlot = pciSlot
        self.pciVendor = pciVendor
        self.model = model
    }

    /// For captured trees without device links.
    public static let unlinked = ThermalDeviceInfo(key: "unlinked")

    /// Vendor name for the PCI vendor ids thermtop labels GPUs with.
    public var vendorName: String? {
        switch pciVendor?.lowercased() {
        case "0x1002"?: "AMD"
        case "0x10de"?: "NVIDIA"
        case "0x8086"?: "Intel"
        default: nil
        }
    }

    /// The device key for a resolved sysfs device path (`devices/pci0000:00/0000:00:18.3`).
    /// Class-device folders (`nvme/nvme0`, `drm/card0`, `hwmon/hwmon2`, `thermal/thermal_zone1`)
    /// are dropped: their numbers are probe-order, like hwmonN.
    public static func key(forDevicePath path: String) -> (key: String, pciSlot: String?) {
        var comps = pathComponents(path)
        if comps.first == "devices" { comps.removeFirst() } else { return ("unlinked", nil) }
        while comps.count >= 2, isClassFolder(comps[comps.count - 2]) { comps.removeLast(2) }
        guard let first = comps.first else { return ("virtual", nil) }
        if first == "virtual" { return ("virtual", nil) }
        let leaf = comps.last!
        if let i = comps.lastIndex(where: isPCIAddress) {
            let slot = comps[i]
            return (leaf == slot ? "pci-\(slot)" : "pci-\(slot)/\(leaf)", slot)
        }
        if first == "platform", comps.count >= 2 {
            let anchor = comps[1]
            return (leaf == anchor ? "platform-\(anchor)" : "platform-\(anchor)/\(leaf)", nil)
        }
        if first.hasPrefix("LNXSYSTM") { return ("acpi-\(leaf)", nil) }
        let bus = String(first.prefix { $0.isLetter })
        return ("\(bus.isEmpty ? "dev" : bus)-\(leaf)", nil)
    }

    /// `path` split at `/` with empty parts left out.
    package static func pathComponents(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// Class folders under a device whose children are numbered in probe order.
    package static func isClassFolder(_ name: String) -> Bool {
        classFolders.contains(name)
    }

    private static let classFolders: Set<String> = [
        "hwmon", "thermal", "nvme", "drm", "power_supply", "ieee80211", "net", "block", "input",
        "scsi_disk", "scsi_device", "scsi_generic", "bsg", "nvme-generic",
    ]

    /// `0000:00:18.3` (domain:bus:device.function, hex).
    public static func isPCIAddress(_ s: String) -> Bool {
        let s = Array(s.utf8)
        guard s.count == 12 else { return false }
        for (i, c) in s.enumerated() {
            switch i {
            case 4, 7: if c != UInt8(ascii: ":") { return false }
            case 10: if c != UInt8(ascii: ".") { return false }
            default: if !((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)) { return false }
            }
        }
        return true
    }
}

/// What kind of part a sensor watches, for grouping and sorting.
public enum ThermalSensorGroup: String, Sendable, Hashable, Codable, CaseIterable {
    /// CPU package, core and die sensors.
    case cpu
    /// GPU sensors.
    case gpu
    /// NVMe and SATA drives.
    case disk
    /// Wireless adapters.
    case wifi
    /// Battery temperatures.
    case battery
    /// ACPI zones, embedded controllers, PCH, motherboard Super I/O chips.
    case board
    /// Anything else.
    case other
}

/// Stable ids from device keys: the same physical sensor gets the same id on every boot.
package enum SensorIDs {
    /// `<device key>/<middle>/<channel>`; a `/` inside a label is kept (labels never carry one
    /// in practice, and ids are opaque strings).
    public static func make(device: ThermalDeviceInfo?, middle: String, channel: String) -> String {
        "\(device?.key ?? ThermalDeviceInfo.unlinked.key)/\(middle)/\(channel)"
    }

    /// Makes ids unique in order: the second `x` becomes `x#2`, the third `x#3`.
    public static func disambiguate(_ ids: [String]) -> [String] {
        var seen = [String: Int](minimumCapacity: ids.count)
        return ids.map { id in
            let n = (seen[id] ?? 0) + 1
            seen[id] = n
            return n == 1 ? id : "\(id)#\(n)"
        }
    }
}
