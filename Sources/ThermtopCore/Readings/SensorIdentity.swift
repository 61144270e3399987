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
        var path = path
        // An ASCII path (sysfs paths are) is read as byte ranges where it lies, and only the
        // key and slot are made Strings: splitting it into a String per part first cost ~3.5 k
        // instructions a path. Same rules, same answers (a test holds the two equal).
        let fast = path.withUTF8 { bytes -> (key: String, pciSlot: String?)? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: bytes.count / 2 + 1) { parts in
                key(forDevicePath: bytes, parts: parts)
            }
        }
        return fast ?? keyByComponents(forDevicePath: path)
    }

    /// `key(forDevicePath:)` for an ASCII path's bytes; `parts` has room for its parts.
    private static func key(forDevicePath bytes: UnsafeBufferPointer<UInt8>,
                            parts: UnsafeMutableBufferPointer<Range<Int>>) -> (key: String, pciSlot: String?) {
        // The parts `pathComponents` gives (empty ones left out), as ranges.
        var count = 0, start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: "/") {
            if i > start { parts[count] = start..<i; count += 1 }
            start = i + 1
        }
        func part(_ k: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[parts[k]]) }
        func isPart(_ k: Int, _ word: StaticString) -> Bool {
            word.withUTF8Buffer { part(k).elementsEqual($0) }
        }
        func text(_ k: Int) -> String { String(decoding: part(k), as: UTF8.self) }
        guard count > 0, isPart(0, "devices") else { return ("unlinked", nil) }
        var first = 1, end = count  // the parts left: first..<end
        while end - first >= 2, isClassFolder(part(end - 2)) { end -= 2 }
        guard first < end else { return ("virtual", nil) }
        if isPart(first, "virtual") { return ("virtual", nil) }
        let leaf = end - 1
        if let i = (first..<end).last(where: { isPCIAddress(part($0)) }) {
            let slot = text(i)
            if part(leaf).elementsEqual(part(i)) { return (TextBytes.make { $0.literal("pci-"); $0.text(slot) }, slot) }
            return (TextBytes.make { $0.literal("pci-"); $0.text(slot); $0.literal("/"); $0.bytes(part(leaf)) }, slot)
        }
        if isPart(first, "platform"), end - first >= 2 {
            let anchor = first + 1
            if part(leaf).elementsEqual(part(anchor)) { return (TextBytes.make { $0.literal("platform-"); $0.bytes(part(anchor)) }, nil) }
            return (TextBytes.make { $0.literal("platform-"); $0.bytes(part(anchor)); $0.literal("/"); $0.bytes(part(leaf)) }, nil)
        }
        if part(first).starts(with: "LNXSYSTM".utf8) { return (TextBytes.make { $0.literal("acpi-"); $0.bytes(part(leaf)) }, nil) }
        // The bus: the leading letters (in ASCII, what `Character.isLetter` accepts), else `dev`.
        let name = part(first)
        let letters = name.prefix { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }.count
        return (TextBytes.make { t in
            if letters == 0 { t.literal("dev") } else { t.bytes(UnsafeBufferPointer(rebasing: name[..<letters])) }
            t.literal("-"); t.bytes(part(leaf))
        }, nil)
    }

    /// `key(forDevicePath:)` by String parts: the rule as first written, for paths that are not
    /// ASCII (and the reference the byte-level reading is tested against).
    package static func keyByComponents(forDevicePath path: String) -> (key: String, pciSlot: String?) {
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

    /// `path` split at `/` with empty parts left out, the parts `split(separator: "/")` gives.
    /// By bytes when the path is ASCII (sysfs paths are): in ASCII text every byte is its own
    /// Character except CR LF, which is not `/` either, so the parts are the same; the
    /// Character split's grapheme breaking cost ~18 k instructions a path, a tenth of a one-shot
    /// `status`'s own work (15 paths). Other text goes through `split`.
    package static func pathComponents(_ path: String) -> [String] {
        var path = path
        let ascii = path.withUTF8 { bytes -> [String]? in
            var slashes = 0
            for b in bytes {
                if b >= 0x80 { return nil }
                if b == UInt8(ascii: "/") { slashes += 1 }
            }
            var parts: [String] = []
            parts.reserveCapacity(slashes + 1)
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: "/") {
                if i > start { parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)) }
                start = i + 1
            }
            return parts
        }
        return ascii ?? path.split(separator: "/").map(String.init)
    }

    /// Class folders under a device whose children are numbered in probe order. A `switch`, not
    /// a `Set<String>`: the set was built (every member hashed) on first use in each process.
    package static func isClassFolder(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { isClassFolder($0) }
    }

    /// `isClassFolder` of a name's UTF-8 bytes.
    package static func isClassFolder(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        func `is`(_ folder: StaticString) -> Bool {
            folder.utf8CodeUnitCount == name.count && folder.withUTF8Buffer { name.elementsEqual($0) }
        }
        return `is`("hwmon") || `is`("thermal") || `is`("nvme") || `is`("drm") || `is`("power_supply")
            || `is`("ieee80211") || `is`("net") || `is`("block") || `is`("input") || `is`("scsi_disk")
            || `is`("scsi_device") || `is`("scsi_generic") || `is`("bsg") || `is`("nvme-generic")
    }

    /// `0000:00:18.3` (domain:bus:device.function, hex).
    public static func isPCIAddress(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { isPCIAddress($0) }
    }

    /// `isPCIAddress` of a name's UTF-8 bytes.
    package static func isPCIAddress(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
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
    case cpu, gpu, disk, wifi, battery
    /// ACPI zones, embedded controllers, PCH, motherboard Super I/O chips.
    case board
    case other
}

/// Stable ids from device keys: the same physical sensor gets the same id on every boot.
package enum SensorIDs {
    /// `<device key>/<middle>/<channel>`; a `/` inside a label is kept (labels never carry one
    /// in practice, and ids are opaque strings).
    public static func make(device: DeviceInfo?, middle: String, channel: String) -> String {
        // Written as bytes: interpolating the three parts cost ~2 k instructions an id.
        TextBytes.make { t in
            t.text(device?.key ?? DeviceInfo.unlinked.key); t.literal("/"); t.text(middle); t.literal("/"); t.text(channel)
        }
    }

    /// Makes ids unique in order: the second `x` becomes `x#2`, the third `x#3`.
    public static func disambiguate(_ ids: [String]) -> [String] {
        // A few ids (one class's sensors, as a machine has them): each compared with those
        // before it, which hashes nothing (~450 instructions a lookup of an id this long, and a
        // dictionary per call); many: counted in a dictionary, which does not grow as the square.
        if ids.count <= 32 {
            var out = ids
            for i in ids.indices {
                var n = 1
                for j in 0..<i where ids[j] == ids[i] { n += 1 }
                if n > 1 { out[i] = "\(ids[i])#\(n)" }
            }
            return out
        }
        var seen = [String: Int](minimumCapacity: ids.count)
        return ids.map { id in
            let n = (seen[id] ?? 0) + 1
            seen[id] = n
            return n == 1 ? id : "\(id)#\(n)"
        }
    }
}

// thermtop's own code keeps the short name; `import Thermtop` exposes only the prefixed one
// (issue 7 §6: no generic names injected into users' code).
package typealias DeviceInfo = ThermalDeviceInfo
package typealias SensorGroup = ThermalSensorGroup
