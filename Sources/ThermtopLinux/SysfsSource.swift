import ThermtopCore

/// The Linux source: reads thermal zones, cooling devices, hwmon, power supplies, platform
/// profile and throttle counters from a sysfs root through `SysfsRoot`.
///
/// `rediscover()` finds the devices and reads their static attributes; `sample(at:)` rereads
/// only the value files (kept open). New or vanished devices are noticed by
/// a rediscovery: on a uevent (a `.rediscover` hint), at the tier-paced refresh, or on the next
/// sample after a device's folder disappears under a read.
public final class SysfsSource: ThermalSensorSource {
    /// The reading layer every file goes through.
    public let root: SysfsRoot
    /// `live /sys`, or the tree's path.
    public let label: String
    /// Always false: this is a machine (or a tree taken from one).
    public let isSimulated = false

    private var zones: [ZoneLayout] = []
    private var cooling: [CoolingLayout] = []
    private var hwmon: [HwmonLayout] = []
    private var supplies: [SupplyLayout] = []
    private var lowPower: LowPowerReader
    private var throttle: ThrottleReader
    private var powercap = PowercapLayout()
    private var cpufreq = CPUFreqLayout()
    private let ppdState: (root: SysfsRoot, file: String)?
    private var needsRediscovery = false
    private var discoveryIssues: [ReadingIssue] = []
    /// Rediscoveries since creation (hot-plug and the tier-paced refresh), for tests and stats.
    public private(set) var discoveryCount = 0
    /// The D-Bus power-profiles source living on the same (sampler) thread: while it has a
    /// reading, its profile and PerformanceDegraded replace state.ini's profile in each sample.
    public var powerProfiles: PowerProfilesSource?
    /// NVIDIA GPUs: NVML on the live machine, the stored readings elsewhere.
    public let gpus: SysfsGPUReader
    /// The process table walked each sample for heat sources; nil walks none (opt-in: a walk
    /// of `/proc` costs a read per process).
    public var processes: ThermalProcessTableReader?
    /// Heat sources a capture measured (`thermtop-heat-sources.json` in its tree), reported
    /// instead of walking a process table.
    package var capturedHeatSources: ThermalHeatSources?
    private let gpuDeadlines: (call: Double, start: Double)

    /// power-profiles-daemon's state file, read for the live `/sys` only (where it belongs to
    /// the same machine).
    public static let defaultPPDStatePath = "/var/lib/power-profiles-daemon/state.ini"

    /// A source on a sysfs root (`/sys`, or a fixture tree laid out like it); reads
    /// power-profiles-daemon's state file when the root is the live `/sys`.
    public convenience init(path: String = "/sys", config: ThermalConfig = ThermalConfig()) {
        let root = SysfsRoot(path: path, config: config)
        self.init(root: root, ppdStatePath: LinuxWakeSources.apply(toRoot: root.path) ? Self.defaultPPDStatePath : nil)
    }

    /// A source on any root, reading power-profiles-daemon's state file at `ppdStatePath`.
    ///
    /// - Parameters:
    ///   - root: where files come from (a directory, or any backend such as a replay).
    ///   - ppdStatePath: power-profiles-daemon's state file; nil reads none.
    public init(root: SysfsRoot, ppdStatePath: String?) {
        self.root = root
        gpus = SysfsGPUReader(rootPath: root.path)
        gpuDeadlines = (root.gate.deadline, ThermalConfig().uninterruptibleReadDeadlineSeconds)
        label = root.path == "/sys" ? "live /sys" : root.path
        ppdState = ppdStatePath.map(LowPowerReader.stateFile)
        lowPower = LowPowerReader(hasLegacyProfile: false, classProfiles: [], choices: [], ppdState: nil)
        throttle = ThrottleReader(cpuDirs: [], packageDirs: [])
        // Discovered by the first sample, on the thread that samples, not on whichever thread
        // made the source: no file is read while the source is made.
        needsRediscovery = true
    }

    /// Files on a filesystem can hang; a replay's recorded files cannot.
    public var readsCanBlock: Bool { root.backend.readsCanBlock }

    /// What the reading layer did: reads, open files, stuck files, timed-out reads.
    public var readStats: SensorSourceReadStats? {
        SensorSourceReadStats(fileReads: root.readCount + (ppdState?.root.readCount ?? 0), openFiles: root.ioStats?.openFiles ?? 0,
                        stuckFiles: root.stuckFiles, timedOutReads: root.timedOutReads,
                        abandonedReaders: root.abandonedReaders)
    }

    /// The class folders whose entries are devices.
    static let watchedClasses = ["class/thermal", "class/hwmon", "class/power_supply"]

    /// Find the devices and read their static attributes.
    public func rediscover() {
        discoveryCount += 1
        // Built in locals and stored once the pass is over, so the pass's closure holds no
        // access to this object's properties.
        let previous = hwmon
        let found = root.withPass(.discovery) { () -> Layout in
            // Devices share folders (ancestors, a PCI device's zones and chips): each is looked
            // at once in this discovery.
            let devices = DeviceLocator.Memo()
            let zones = ZoneLayout.discover(root, devices: devices)
            var found = Layout(zones: zones, cooling: CoolingLayout.discover(root, devices: devices),
                               hwmon: HwmonLayout.discover(root, zones: zones, previous: previous, devices: devices),
                               supplies: SupplyLayout.discover(root),
                               lowPower: LowPowerReader.discover(root, ppdState: ppdState),
                               throttle: ThrottleReader.discover(root), issues: [],
                               powercap: PowercapLayout.discover(root), cpufreq: CPUFreqLayout.discover(root))
            for c in Self.watchedClasses {
                // A class entry whose device folder is gone (a dangling link) was unplugged.
                for e in root.list(c) ?? [] where !root.isDirectory("\(c)/\(e)") {
                    found.issues.append(ReadingIssue(file: "\(c)/\(e)", reason: .vanished, detail: "device folder gone"))
                }
            }
            return found
        }
        zones = found.zones
        cooling = found.cooling
        hwmon = found.hwmon
        supplies = found.supplies
        lowPower = found.lowPower
        throttle = found.throttle
        powercap = found.powercap
        cpufreq = found.cpufreq
        discoveryIssues = found.issues
        gpus.rediscover(root)
        let gone = Set(discoveryIssues.map(\.file))
        zones.removeAll { gone.contains($0.dir) }
        cooling.removeAll { gone.contains($0.dir) }
        hwmon.removeAll { gone.contains("class/hwmon/\($0.device)") }
        supplies.removeAll { gone.contains($0.dir) }
        needsRediscovery = false
    }

    private struct Layout {
        var zones: [ZoneLayout]
        var cooling: [CoolingLayout]
        var hwmon: [HwmonLayout]
        var supplies: [SupplyLayout]
        var lowPower: LowPowerReader
        var throttle: ThrottleReader
        var issues: [ReadingIssue]
        var powercap: PowercapLayout
        var cpufreq: CPUFreqLayout
    }

    /// Read the values now (discovering devices first when needed); `time` stamps the snapshot.
    public func sample(at time: Double) -> ThermalSnapshot {
        if needsRediscovery { rediscover() }
        var snap = readValues(at: time)
        if needsRediscovery {
            // A device vanished under this very sample (hot-unplug): rediscover and read again
            // rather than show it with its values missing.
            rediscover()
            snap = readValues(at: time)
        }
        // The process table is walked once a sample, whatever the devices did: a second
        // walk would halve the window its CPU rates are measured over. GPU processes are
        // identified in the same walk, also where their pid is idle on the CPU.
        snap.processes = processes?.walk(identify: Set(snap.gpus.flatMap { $0.processes ?? [] }.map(\.pid)))
        snap.recordedHeatSources = capturedHeatSources
        return snap
    }

    private func readValues(at time: Double) -> ThermalSnapshot {
        var snap = ThermalSnapshot(time: time)
        // Locals as in `rediscover`; the hwmon layouts keep state between
        // samples (energy counters) and are stored back after the pass.
        let (zones, cooling, supplies, lowPower, throttle) = (self.zones, self.cooling, self.supplies, self.lowPower, self.throttle)
        let profile = powerProfiles?.reading
        let (powercap, cpufreq) = (self.powercap, self.cpufreq)
        var hwmon = self.hwmon
        root.withPass(.sample) {
            snap.zones = zones.map { $0.sample(root) }
            snap.coolingDevices = cooling.map { $0.sample(root) }
            for i in hwmon.indices {
                let h = hwmon[i].sample(root, zones: snap.zones, time: time)
                snap.hwmon += h.channels
                snap.fans += h.fans
                snap.powerMeters += h.power
                snap.hwmonExtras += h.extras
                snap.energyCounters += h.energy
                snap.issues += h.issues
            }
            for s in supplies {
                switch s.role {
                case .adapter: snap.adapters.append(s.sampleAdapter(root))
                case .battery, .peripheral:
                    let (battery, note) = s.sampleBattery(root)
                    if let battery { s.role == .battery ? snap.batteries.append(battery) : snap.peripherals.append(battery) }
                    if let note { snap.issues.append(note) }
                case .other:
                    // Shown raw and flagged, never silently dropped.
                    snap.issues += s.staticIssues.isEmpty
                        ? [ReadingIssue(file: s.dir, reason: .unrecognised, detail: "power supply type \(s.type ?? "?")")]
                        : s.staticIssues
                }
            }
            snap.lowPower = lowPower.sample(root, readStateFile: profile == nil).merging(profile)
            snap.throttle = throttle.sample(root)
            snap.energyCounters = powercap.sample(root) + snap.energyCounters
            snap.cpuFrequencies = cpufreq.sample(root)
        }
        self.hwmon = hwmon
        gpus.sample(root, time: time, deadline: gpuDeadlines.call, initDeadline: gpuDeadlines.start,
                    processes: processes != nil, into: &snap)
        // A device whose folder vanished since discovery: its layout is stale.
        let missingDirs = (snap.zones.flatMap(\.issues) + snap.hwmon.flatMap(\.issues) + snap.batteries.flatMap(\.issues))
            .filter { $0.reason == .missing }
            .map { String($0.file[..<($0.file.lastIndex(of: "/") ?? $0.file.endIndex)]) }
        if Set(missingDirs).contains(where: { !root.isDirectory($0) }) { needsRediscovery = true }
        snap.issues += discoveryIssues
        // The whole tree gone (an unmounted --sysfs-root, a deleted capture): said in the
        // status, so `watch` can stop without looking inside the source. Checked only when the
        // sample already looks wrong, so a healthy sample makes no extra syscall.
        if snap.isEmpty || !missingDirs.isEmpty, !root.isUsable {
            snap.issues.append(ReadingIssue(file: ThermalSnapshot.sourceRootFile, reason: .vanished,
                                            detail: "\(root.path) is no longer a readable directory"))
        }
        return snap
    }
}

extension SysfsSource {
    /// The event sources that wake the sampler for the live machine: kernel uevents, the
    /// thermal generic-netlink family and the power-profiles daemon on the system bus (wired
    /// into the source, which merges its profile). Made on the sampler thread, where they stay
    /// (sd-bus is not thread-safe). A fixture root gets none: this machine's events say nothing
    /// about it.
    public static func wakeSources(forRoot path: String) -> @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] {
        guard LinuxWakeSources.apply(toRoot: path) else { return { _ in [] } }
        return { source in
            let sources = LinuxWakeSources()
            (source as? SysfsSource)?.powerProfiles = sources.powerProfiles
            return sources.all
        }
    }
}
