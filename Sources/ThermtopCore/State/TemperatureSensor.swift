/// A temperature the classifier can judge: a thermal zone, an hwmon channel (not a mirror of a
/// zone), or a battery's own temperature. Carries the sensor's own limits, its stable identity
/// and how to present it (group, readable name, headline, folding).
public struct ThermalSensor: Sendable, Equatable, Identifiable {
    /// Where the sensor comes from.
    public enum Kind: String, Sendable, Codable {
        /// A thermal zone (`class/thermal/thermal_zoneN`).
        case zone
        /// An hwmon channel (`class/hwmon/hwmonN/tempM`).
        case hwmon
        /// A battery's own temperature (`power_supply/BATn/temp`).
        case battery
        /// A GPU read through NVML.
        case gpu
    }

    /// Stable id (`pci-0000:00:18.3/k10temp/Tctl`; see `DeviceInfo`), used for selection,
    /// overrides, history and JSON. Hand-built snapshots without device data fall back to
    /// the sysfs location.
    public var id: String
    /// The raw name: `x86_pkg_temp`, `coretemp Package id 0`, `BAT0`.
    public var name: String
    /// Where it comes from.
    public var kind: Kind
    /// Degrees Celsius; nil when it could not be read (see `issue`).
    public var celsius: Double?
    /// Why `celsius` is nil.
    public var issue: ReadingIssue?
    /// Usable trips by kind (junk trips already dropped).
    public var passiveTrips: [TripPoint]
    /// The zone's hot trip, if any.
    public var hotTrip: TripPoint?
    /// The zone's critical trip, if any.
    public var criticalTrip: TripPoint?
    /// hwmon limits (°C; `critHyst` is absolute).
    public var max: Double?
    /// hwmon `temp*_crit`.
    public var crit: Double?
    /// hwmon `temp*_crit_hyst` (absolute).
    public var critHyst: Double?
    /// hwmon `temp*_emergency`.
    public var emergency: Double?
    /// True for battery-like sensors (a lower default limit applies).
    public var isBattery: Bool

    /// Where it is read this boot: `thermal_zone1`, `hwmon2/temp1`, `BAT0/temp`.
    public var location: String
    /// hwmon chip name or zone type, and the channel label (raw, as the kernel printed them).
    public var chip: String?
    /// The channel label.
    public var label: String?
    /// The device it belongs to (PCI, platform, NVMe…), for its stable id and name.
    public var deviceInfo: ThermalDeviceInfo?
    /// Set by `SensorCatalog.annotate`:
    public var group: ThermalSensorGroup = .other
    /// `CPU (k10temp Tctl)`, `NVMe Samsung SSD 980 1TB (Composite)`, `Wi-Fi (iwlwifi_1)`.
    public var displayName: String
    /// The CPU temperature to show first for its package (one per package).
    public var isHeadline = false
    /// True when the headline is a fallback (`acpitz`: no CPU sensor was found).
    public var isFallbackHeadline = false
    /// Id of the headline whose foldable group this sensor belongs to (per-core, per-CCD).
    public var memberOf: String?
    /// Id of the sensor this one measures too (x86_pkg_temp zone = coretemp Package id N):
    /// shown once, as that sensor, which takes over this one's trips; never decides alone.
    public var mirrorOf: String?
    /// The zone whose trips this sensor took over (`x86_pkg_temp` for coretemp Package id N):
    /// named in threshold rules so the reason still says where the trip comes from.
    public var tripsFrom: String?
    /// Why the sensor is a known dummy (INT3400's fixed 20 °C); the UI hides it behind a key.
    public var dummyReason: String?
    /// While its device sleeps: the last value read and its time (monitor clock).
    public var lastCelsius: Double?
    /// When `lastCelsius` was read.
    public var lastReadAt: Double?
    /// `device/power_state` or `power/runtime_status` that kept the sensor unread.
    public var asleep: String?

    /// A sensor from its parts (tests and hand-built snapshots).
    public init(id: String, name: String, kind: Kind, celsius: Double?, issue: ReadingIssue? = nil,
                passiveTrips: [TripPoint] = [], hotTrip: TripPoint? = nil, criticalTrip: TripPoint? = nil,
                max: Double? = nil, crit: Double? = nil, critHyst: Double? = nil, emergency: Double? = nil,
                isBattery: Bool = false, location: String? = nil, chip: String? = nil, label: String? = nil,
                deviceInfo: ThermalDeviceInfo? = nil, displayName: String? = nil, lastCelsius: Double? = nil,
                lastReadAt: Double? = nil, asleep: String? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.celsius = celsius
        self.issue = issue
        self.passiveTrips = passiveTrips
        self.hotTrip = hotTrip
        self.criticalTrip = criticalTrip
        self.max = max
        self.crit = crit
        self.critHyst = critHyst
        self.emergency = emergency
        self.isBattery = isBattery
        self.location = location ?? id
        self.chip = chip
        self.label = label
        self.deviceInfo = deviceInfo
        self.displayName = displayName ?? name
        self.lastCelsius = lastCelsius
        self.lastReadAt = lastReadAt
        self.asleep = asleep
    }

    /// True for sensors that never decide the state on their own: mirrors and known dummies.
    public var isFolded: Bool { mirrorOf != nil || dummyReason != nil }
}

extension ThermalSensor {
    /// The sensor a thermal zone gives.
    public init(zone: ThermalZone) {
        // The usable trips sorted out in one pass (four `filter`s built three arrays a zone):
        // passive ones in order, then sorted by temperature; the first coolest hot and critical
        // trip, which `min(by:)` picks.
        var passive: [TripPoint] = []
        var hot: TripPoint?, critical: TripPoint?
        for t in zone.trips where t.isUsable {
            switch t.kind {
            case .passive?: passive.append(t)
            case .hot?: if hot.map({ t.celsius! < $0.celsius! }) ?? true { hot = t }
            case .critical?: if critical.map({ t.celsius! < $0.celsius! }) ?? true { critical = t }
            default: break
            }
        }
        passive.sort { $0.celsius! < $1.celsius! }
        let name = zone.type ?? zone.id
        self.init(
            id: zone.stableID ?? zone.id, name: name, kind: .zone, celsius: zone.celsius,
            issue: zone.asleep.map { ReadingIssue(file: "class/thermal/\(zone.id)/device", reason: .deviceAsleep, detail: $0) }
                ?? (zone.celsius == nil ? zone.issues.first(forFile: "temp") : nil),
            passiveTrips: passive, hotTrip: hot, criticalTrip: critical,
            isBattery: name.lowercased().contains("bat"),
            location: zone.id, chip: zone.type, deviceInfo: zone.deviceInfo, asleep: zone.asleep
        )
    }

    /// The sensor an hwmon channel gives.
    public init(channel: HwmonChannel) {
        let issue: ReadingIssue?
        if let asleep = channel.asleep {
            issue = ReadingIssue(file: "class/hwmon/\(channel.device)/device", reason: .deviceAsleep, detail: asleep)
        } else if channel.celsius == nil {
            issue = channel.issues.first(forFile: "\(channel.channel)_input")
        } else {
            issue = nil
        }
        self.init(
            id: channel.stableID ?? channel.id, name: channel.displayName, kind: .hwmon, celsius: channel.celsius,
            issue: issue,
            max: channel.max, crit: channel.crit, critHyst: channel.critHyst, emergency: channel.emergency,
            isBattery: (channel.chip ?? "").uppercased().hasPrefix("BAT"),
            location: channel.id, chip: channel.chip, label: channel.label ?? channel.channel,
            deviceInfo: channel.deviceInfo, lastCelsius: channel.lastCelsius, lastReadAt: channel.lastReadAt,
            asleep: channel.asleep
        )
    }
}

extension ThermalSnapshot {
    /// Every temperature worth judging, each physical sensor once: zones, then hwmon channels
    /// that do not mirror a zone, then batteries that report a temperature; annotated with
    /// group, readable name, headline CPU, folding and dummies (`SensorCatalog`).
    public var temperatureSensors: [ThermalSensor] {
        var out: [ThermalSensor] = []
        out.reserveCapacity(zones.count + hwmon.count + batteries.count)
        for z in zones { out.append(ThermalSensor(zone: z)) }
        for h in hwmon where h.mirrorsZone == nil { out.append(ThermalSensor(channel: h)) }
        for b in batteries where b.celsius != nil {
            out.append(ThermalSensor(id: "\(b.id)/temp", name: b.id, kind: .battery, celsius: b.celsius,
                                         isBattery: true, chip: b.id, label: "temp"))
        }
        for g in gpus { out += g.temperatureSensors }
        return SensorCatalog.annotate(out)
    }
}
