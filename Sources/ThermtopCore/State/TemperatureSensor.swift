/// A temperature the classifier can judge: a thermal zone, an hwmon channel (not a mirror of a
/// zone), or a battery's own temperature. Carries the sensor's own limits.
public struct TemperatureSensor: Sendable, Equatable, Identifiable {
    public enum Kind: String, Sendable, Codable {
        case zone, hwmon, battery
    }

    public var id: String
    /// `x86_pkg_temp`, `coretemp Package id 0`, `BAT0`.
    public var name: String
    public var kind: Kind
    public var celsius: Double?
    /// Why `celsius` is nil.
    public var issue: ReadingIssue?
    /// Usable trips by kind (junk trips already dropped).
    public var passiveTrips: [TripPoint]
    public var hotTrip: TripPoint?
    public var criticalTrip: TripPoint?
    /// hwmon limits (°C; `critHyst` is absolute).
    public var max: Double?
    public var crit: Double?
    public var critHyst: Double?
    public var emergency: Double?
    /// True for battery-like sensors (a lower default limit applies).
    public var isBattery: Bool

    public init(id: String, name: String, kind: Kind, celsius: Double?, issue: ReadingIssue? = nil,
                passiveTrips: [TripPoint] = [], hotTrip: TripPoint? = nil, criticalTrip: TripPoint? = nil,
                max: Double? = nil, crit: Double? = nil, critHyst: Double? = nil, emergency: Double? = nil,
                isBattery: Bool = false) {
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
    }
}

extension TemperatureSensor {
    public init(zone: ThermalZone) {
        let usable = zone.trips.filter(\.isUsable)
        let name = zone.type ?? zone.id
        self.init(
            id: zone.id, name: name, kind: .zone, celsius: zone.celsius,
            issue: zone.celsius == nil ? zone.issues.first(forFile: "temp") : nil,
            passiveTrips: usable.filter { $0.kind == .passive }.sorted { $0.celsius! < $1.celsius! },
            hotTrip: usable.filter { $0.kind == .hot }.min { $0.celsius! < $1.celsius! },
            criticalTrip: usable.filter { $0.kind == .critical }.min { $0.celsius! < $1.celsius! },
            isBattery: name.lowercased().contains("bat")
        )
    }

    public init(channel: HwmonChannel) {
        let issue: ReadingIssue?
        if let asleep = channel.asleep {
            issue = ReadingIssue(file: "\(channel.device)/device/power_state", reason: .deviceAsleep, detail: asleep)
        } else if channel.celsius == nil {
            issue = channel.issues.first(forFile: "\(channel.channel)_input")
        } else {
            issue = nil
        }
        self.init(
            id: channel.id, name: channel.displayName, kind: .hwmon, celsius: channel.celsius, issue: issue,
            max: channel.max, crit: channel.crit, critHyst: channel.critHyst, emergency: channel.emergency,
            isBattery: (channel.chip ?? "").uppercased().hasPrefix("BAT")
        )
    }
}

extension Snapshot {
    /// Every temperature worth judging, each physical sensor once: zones, then hwmon channels
    /// that do not mirror a zone, then batteries that report a temperature.
    public var temperatureSensors: [TemperatureSensor] {
        var out = zones.map(TemperatureSensor.init(zone:))
        out += hwmon.filter { $0.mirrorsZone == nil }.map(TemperatureSensor.init(channel:))
        for b in batteries where b.celsius != nil {
            out.append(TemperatureSensor(id: "\(b.id)/temp", name: b.id, kind: .battery, celsius: b.celsius, isBattery: true))
        }
        return out
    }
}
