import Synchronization
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

    /// What discovery found and the samples carry on (energy counters): taken at the start
    /// of a step and stored at its end, never held across a read, so a fork made while a read
    /// hangs (`readOnThisThread`) starts from the last stored state.
    private let devices: Mutex<Devices>
    private let ppdState: (root: SysfsRoot, file: String)?
    /// Rediscoveries since creation (hot-plug and the tier-paced refresh), for tests and stats.
    public var discoveryCount: Int { devices.withLock { $0.discoveries } }
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
        // Discovered by the first sample, on the thread that samples, not on whichever thread
        // made the source: no file is read while the source is made.
        devices = Mutex(Devices(
            found: Layout(zones: [], cooling: [], hwmon: [], supplies: [],
                          lowPower: LowPowerReader(hasLegacyProfile: false, classProfiles: [], choices: [], ppdState: nil),
                          throttle: ThrottleReader(cpuDirs: [], packageDirs: []), issues: [],
                          powercap: PowercapLayout(), cpufreq: CPUFreqLayout()),
            needsRediscovery: true, discoveries: 0))
    }

    /// A source on a fork of `from`'s root carrying its devices and state on; the GPU reader,
    /// the process table and the state file are shared (the source forked from reads none of
    /// them again: its root is retired).
    private init(forking from: SysfsSource, root: SysfsRoot) {
        self.root = root
        gpus = from.gpus
        gpuDeadlines = from.gpuDeadlines
        label = from.label
        ppdState = from.ppdState
        processes = from.processes
        powerProfiles = from.powerProfiles
        capturedHeatSources = from.capturedHeatSources
        devices = Mutex(from.devices.withLock { $0 })
    }

    /// Reads on the calling thread from now on (see `SysfsRoot.readOnThisThread`); when a read
    /// there hangs, `replaced` gets a source on a fork of the root that goes on from the last
    /// stored state, and this one reads nothing more.
    public func readOnThisThread(replaced: @escaping @Sendable (any ThermalSensorSource) -> Void) -> Bool {
        let me = Forkable(self)
        return root.readOnThisThread {
            guard let source = me.source, let fork = source.root.fork() else { return }
            replaced(SysfsSource(forking: source, root: fork))
        }
    }

    public func endReadsOnThisThread() { root.endReadsOnThisThread() }

    /// The source as the watchdog's thread sees it when a read hangs: the thread that owns it
    /// is then in the kernel, and a fork reads only what is set up before sampling (`let`s,
    /// `processes`, `powerProfiles`) and the devices' state under its lock.
    private final class Forkable: @unchecked Sendable {
        weak var source: SysfsSource?
        init(_ source: SysfsSource) { self.source = source }
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
        // Built in locals and stored once the pass is over, so the pass's closure holds no
        // access to this object's properties.
        let previous = devices.withLock { d -> [HwmonLayout] in
            d.discoveries += 1
            return d.found.hwmon
        }
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
        // Given up while a read hung: the fork goes on, this source touches nothing shared.
        guard !root.isRetired else { return }
        var layout = found
        let gone = Set(layout.issues.map(\.file))
        layout.zones.removeAll { gone.contains($0.dir) }
        layout.cooling.removeAll { gone.contains($0.dir) }
        layout.hwmon.removeAll { gone.contains("class/hwmon/\($0.device)") }
        layout.supplies.removeAll { gone.contains($0.dir) }
        devices.withLock { d in
            d.found = layout
            d.needsRediscovery = false
        }
        gpus.rediscover(root)
    }

    private struct Devices {
        var found: Layout
        var needsRediscovery: Bool
        var discoveries: Int
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
        if devices.withLock({ $0.needsRediscovery }) { rediscover() }
        var snap = readValues(at: time)
        if devices.withLock({ $0.needsRediscovery }) {
            // A device vanished under this very sample (hot-unplug): rediscover and read again
            // rather than show it with its values missing.
            rediscover()
            snap = readValues(at: time)
        }
        // Given up while a read hung: the process table is the fork's now.
        guard !root.isRetired else { return snap }
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
        let found = devices.withLock { $0.found }
        let (zones, cooling, supplies, lowPower, throttle) = (found.zones, found.cooling, found.supplies, found.lowPower, found.throttle)
        let profile = powerProfiles?.reading
        let (powercap, cpufreq) = (found.powercap, found.cpufreq)
        var hwmon = found.hwmon
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
        // Given up while a read hung: the GPU reader and the devices are the fork's now.
        guard !root.isRetired else { return snap }
        devices.withLock { $0.found.hwmon = hwmon }
        gpus.sample(root, time: time, deadline: gpuDeadlines.call, initDeadline: gpuDeadlines.start,
                    processes: processes != nil, into: &snap)
        // A device whose folder vanished since discovery: its layout is stale.
        let missingDirs = (snap.zones.flatMap(\.issues) + snap.hwmon.flatMap(\.issues) + snap.batteries.flatMap(\.issues))
            .filter { $0.reason == .missing }
            .map { String($0.file[..<($0.file.lastIndex(of: "/") ?? $0.file.endIndex)]) }
        if Set(missingDirs).contains(where: { !root.isDirectory($0) }) { devices.withLock { $0.needsRediscovery = true } }
        snap.issues += found.issues
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
