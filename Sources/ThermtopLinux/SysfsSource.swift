import ThermtopCore

/// The Linux source: reads thermal zones, cooling devices, hwmon, power supplies, platform
/// profile and throttle counters from a sysfs root through `SysfsRoot`.
///
/// Static attributes are read by `rediscover()`; `sample(at:)` rereads only what changes and
/// notices devices that appear or vanish (hot-plug), rediscovering on the next sample.
public final class SysfsSource: SensorSource {
    public let root: SysfsRoot
    public let label: String
    public let isSimulated = false

    private var zones: [ZoneLayout] = []
    private var cooling: [CoolingLayout] = []
    private var hwmon: [HwmonLayout] = []
    private var supplies: [SupplyLayout] = []
    private var lowPower: LowPowerReader
    private var throttle: ThrottleReader
    private var ppdStatePath: String?
    private var needsRediscovery = false
    private var discoveryIssues: [ReadingIssue] = []
    /// Rediscoveries since creation (hot-plug and the tier-paced refresh), for tests and stats.
    public private(set) var discoveryCount = 0
    /// Entries of the class folders at the last discovery, to notice hot-plug cheaply.
    private var known: [String: [String]] = [:]

    /// - Parameters:
    ///   - path: the sysfs root (`/sys`, or a fixture tree laid out like it).
    ///   - ppdStatePath: power-profiles-daemon's state file; by default read only for the
    ///     live `/sys`, where it belongs to the same machine.
    public init(path: String = "/sys", ppdStatePath: String?? = .none) {
        root = SysfsRoot(path: path)
        label = root.path == "/sys" ? "live /sys" : root.path
        switch ppdStatePath {
        case .some(let p): self.ppdStatePath = p
        case .none: self.ppdStatePath = root.path == "/sys" ? "/var/lib/power-profiles-daemon/state.ini" : nil
        }
        lowPower = LowPowerReader(hasLegacyProfile: false, classProfiles: [], choices: [], ppdState: nil)
        throttle = ThrottleReader(cpuDirs: [], packageDirs: [])
        rediscover()
    }

    static let watchedClasses = ["class/thermal", "class/hwmon", "class/power_supply"]

    public func rediscover() {
        discoveryCount += 1
        zones = ZoneLayout.discover(root)
        cooling = CoolingLayout.discover(root)
        hwmon = HwmonLayout.discover(root, zones: zones, previous: hwmon)
        supplies = SupplyLayout.discover(root)
        lowPower = LowPowerReader.discover(root, ppdStatePath: ppdStatePath)
        throttle = ThrottleReader.discover(root)
        discoveryIssues = []
        for c in Self.watchedClasses {
            let entries = root.list(c) ?? []
            known[c] = entries
            // A class entry whose device folder is gone (a dangling link) was unplugged.
            for e in entries where !root.isDirectory("\(c)/\(e)") {
                discoveryIssues.append(ReadingIssue(file: "\(c)/\(e)", reason: .vanished, detail: "device folder gone"))
            }
        }
        let gone = Set(discoveryIssues.map(\.file))
        zones.removeAll { gone.contains($0.dir) }
        cooling.removeAll { gone.contains($0.dir) }
        hwmon.removeAll { gone.contains("class/hwmon/\($0.device)") }
        supplies.removeAll { gone.contains($0.dir) }
        needsRediscovery = false
    }

    public func sample(at time: Double) -> Snapshot {
        // Hot-plug: a listing that differs from the last discovery means devices came or went.
        if needsRediscovery || Self.watchedClasses.contains(where: { (root.list($0) ?? []) != known[$0] }) {
            rediscover()
        }
        var snap = Snapshot(time: time)
        snap.zones = zones.map { $0.sample(root) }
        snap.coolingDevices = cooling.map { $0.sample(root) }
        for i in hwmon.indices {
            let h = hwmon[i].sample(root, zones: snap.zones, time: time)
            snap.hwmon += h.channels
            snap.fans += h.fans
            snap.powerMeters += h.power
            snap.issues += h.issues
        }
        for s in supplies {
            switch s.role {
            case .adapter: snap.adapters.append(s.sampleAdapter(root))
            case .battery, .peripheral:
                let (battery, note) = s.sampleBattery(root)
                if let battery { s.role == .battery ? snap.batteries.append(battery) : snap.peripherals.append(battery) }
                if let note { snap.issues.append(note) }
            case .other: break
            }
        }
        snap.lowPower = lowPower.sample(root)
        snap.throttle = throttle.sample(root)
        // A device whose folder vanished since discovery: drop its stale layout next time.
        let missingDirs = (snap.zones.flatMap(\.issues) + snap.hwmon.flatMap(\.issues) + snap.batteries.flatMap(\.issues))
            .filter { $0.reason == .missing }
            .map { String($0.file[..<($0.file.lastIndex(of: "/") ?? $0.file.endIndex)]) }
        if Set(missingDirs).contains(where: { !root.isDirectory($0) }) { needsRediscovery = true }
        snap.issues += discoveryIssues
        return snap
    }
}
