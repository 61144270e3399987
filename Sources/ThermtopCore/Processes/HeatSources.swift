/// One process behind the heat, over one window.
public struct ThermalHeatProcess: Sendable, Equatable {
    /// The process id.
    public var pid: Int
    /// The real user id; nil when `/proc/[pid]/status` was unreadable.
    public var uid: Int?
    /// The user name of `uid` on this machine; nil when it has none.
    public var user: String?
    /// The full command line, cleaned; nil when unreadable or empty (kernel threads, zombies).
    public var commandLine: String?
    /// The systemd unit, container or cgroup path; nil when unreadable or the root cgroup.
    public var cgroup: String?
    /// CPU over the window, in percent of one core (two busy threads: 200).
    public var cpuPercent: Double
    /// A kernel thread (`PF_KTHREAD`), which has no command line.
    public var isKernelThread: Bool
    /// Its use of each GPU it is on (NVML), in the GPUs' order; empty when on none or not read.
    public var gpus: [ThermalHeatGPUUse]
    /// False for a pid NVML lists that the process table does not have (another pid
    /// namespace, `hidepid`, gone since): its name is unknown (`?`).
    public var inProcessTable: Bool

    /// A process with its CPU over the window in percent of one core.
    public init(pid: Int, uid: Int? = nil, user: String? = nil, commandLine: String? = nil, cgroup: String? = nil,
                cpuPercent: Double, isKernelThread: Bool = false, gpus: [ThermalHeatGPUUse] = [], inProcessTable: Bool = true) {
        self.pid = pid
        self.uid = uid
        self.user = user
        self.commandLine = commandLine
        self.cgroup = cgroup
        self.cpuPercent = cpuPercent
        self.isKernelThread = isKernelThread
        self.gpus = gpus
        self.inProcessTable = inProcessTable
    }
}

/// A process's (or a group's) use of one GPU, from NVML.
public struct ThermalHeatGPUUse: Sendable, Equatable {
    /// The GPU's PCI address as sysfs spells it (`0000:01:00.0`), as in `ThermalGPU.busID`.
    public var busID: String
    /// NVML's index (`nvidia-smi -i`), nil when unread.
    public var index: Int?
    /// The GPU's UUID, nil when unread (or left out of a capture).
    public var uuid: String?
    /// GPU memory held, in bytes; nil when NVML cannot tell (for a group: when any of its
    /// processes' is unknown).
    public var memoryBytes: UInt64?
    /// Share of the GPU's SMs, 0–100 % (a group's adds up its processes'); nil when unknown.
    public var smPercent: Double?
    /// SM share × the board's power: an estimate (`≈`), nil when either is unknown. The model:
    /// docs/heat-sources.md.
    public var estimatedWatts: Double?
    /// The processes this use adds up (1 for a process's own).
    public var processCount: Int

    /// One use of one GPU; unknown values nil.
    public init(busID: String, index: Int? = nil, uuid: String? = nil, memoryBytes: UInt64? = nil,
                smPercent: Double? = nil, estimatedWatts: Double? = nil, processCount: Int = 1) {
        self.busID = busID
        self.index = index
        self.uuid = uuid
        self.memoryBytes = memoryBytes
        self.smPercent = smPercent
        self.estimatedWatts = estimatedWatts
        self.processCount = processCount
    }
}

/// The processes of one command name that used CPU over the window (`cc1plus ×8`).
public struct ThermalHeatSource: Sendable, Equatable, Identifiable {
    /// The command name (`cc1plus`, `kworker`), cleaned.
    public var command: String
    /// The command name: a window's groups are keyed by it.
    public var id: String { command }
    /// Processes of this name that used CPU in the window or are on a GPU (`processes` lists
    /// the biggest).
    public var count: Int
    /// Their CPU together, in percent of one core.
    public var cpuPercent: Double
    /// Their share of the busy CPU time × the CPU packages' power: an estimate (`≈`), nil when
    /// package power is unknown. The model: docs/heat-sources.md.
    public var estimatedWatts: Double?
    /// Biggest first.
    public var processes: [ThermalHeatProcess]
    /// The group's use of each GPU its processes are on (NVML), in the GPUs' order; empty when
    /// on none or when GPU processes were not read.
    public var gpus: [ThermalHeatGPUUse]

    /// A group; `count` defaults to the number of `processes` listed.
    public init(command: String, count: Int? = nil, cpuPercent: Double, estimatedWatts: Double?,
                processes: [ThermalHeatProcess], gpus: [ThermalHeatGPUUse] = []) {
        self.command = command
        self.count = count ?? processes.count
        self.cpuPercent = cpuPercent
        self.estimatedWatts = estimatedWatts
        self.processes = processes
        self.gpus = gpus
    }

    /// `cc1plus ×8`, or the bare name for one process.
    public var label: String { count > 1 ? "\(command) ×\(count)" : command }

    /// `640 % CPU, ≈ 38 W` (the watts only where known).
    public var figures: String {
        let cpu = "\(ThermalHeatSources.percent(cpuPercent)) % CPU"
        guard let w = estimatedWatts else { return cpu }
        return "\(cpu), ≈ \(ThermalHeatSources.watts(w))"
    }
}

/// Who is heating the machine: CPU time per command name over the same window as the power
/// readings, biggest first, with each one's estimated share of the package power.
public struct ThermalHeatSources: Sendable, Equatable {
    /// Groups that used CPU in the window, biggest first (at most `maximumSources`).
    public var sources: [ThermalHeatSource]
    /// Why there are no figures (`needs two samples`, `/proc unreadable`), nil when measured.
    public var reason: String?
    /// The CPU packages' power the estimates share out, nil when unknown (`wattsReason`).
    public var packageWatts: Double?
    /// Why `packageWatts` is unknown (`no CPU package power domain`, a package domain's own reason, `/proc/stat unreadable`); nil when known.
    public var wattsReason: String?
    /// Processes seen in the walk, and those listed but unreadable (`hidepid`, EACCES).
    public var processCount: Int
    /// Process folders listed but unreadable: counted, never guessed at.
    public var unreadable: Int

    /// Heat sources as measured over one window.
    public init(sources: [ThermalHeatSource], reason: String? = nil, packageWatts: Double? = nil,
                wattsReason: String? = nil, processCount: Int = 0, unreadable: Int = 0) {
        self.sources = sources
        self.reason = reason
        self.packageWatts = packageWatts
        self.wattsReason = wattsReason
        self.processCount = processCount
        self.unreadable = unreadable
    }

    /// The most groups kept: every output shows the top few, and a process table of 10,000
    /// must not make a status of 10,000 entries.
    public static let maximumSources = 32
    /// The most processes kept per group.
    public static let maximumProcessesPerSource = 64
    /// A group below this CPU (percent of one core) is not named in the verdict.
    public static let verdictMinimumPercent = 5.0
    /// Groups named in the verdict.
    public static let verdictSources = 2

    /// The power domains whose watts the CPU's processes share: the RAPL packages (all of
    /// them, for a multi-socket machine). nil with the reason when any is unknown or there is none.
    static func packagePower(_ power: [ThermalPowerDomain]) -> (watts: Double?, reason: String?) {
        let packages = power.filter { $0.source == .rapl && $0.parent == nil && $0.id.hasPrefix("rapl:package") }
        guard !packages.isEmpty else { return (nil, "no CPU package power domain") }
        if let unknown = packages.first(where: { $0.watts == nil }) {
            return (nil, "\(unknown.name) \(unknown.reason ?? "unknown")")
        }
        return (packages.compactMap(\.watts).reduce(0, +), nil)
    }

    /// Heat sources from two walks `seconds` apart; nil when no walk was made (not asked for).
    /// - A process is the same one in both walks only with the same pid and start time: a
    ///   reused pid is a new process.
    /// - A process new in this walk counts all its CPU time when it started after the previous
    ///   walk's newest process (it began inside the window), none otherwise (it was there but
    ///   unreadable before: its time in the window is not known).
    /// - A process that ended inside the window is not in this walk: its last CPU time is lost,
    ///   as with top.
    /// - GPU processes (`gpus`' NVML lists) join the group of their pid's command name; a pid
    ///   the table lacks is grouped as `?`. A group on a GPU is kept even past `maximumSources`.
    public static func measure(_ current: ThermalProcessTable?, previous: ThermalProcessTable?, seconds: Double?,
                               power: [ThermalPowerDomain], gpus: [ThermalGPU] = []) -> ThermalHeatSources? {
        guard let current else { return nil }
        if let issue = current.issue {
            return ThermalHeatSources(sources: [], reason: "\(issue.reason.rawValue) (\(issue.file))")
        }
        var seconds = seconds
        if let t1 = current.walkTime, let t0 = previous?.walkTime, seconds != nil { seconds = t1 - t0 }
        guard let previous, previous.issue == nil, let seconds, seconds > 0, seconds.isFinite else {
            return ThermalHeatSources(sources: [], reason: ThermalEnergyRate.needsTwoSamples,
                                      processCount: current.processes.count, unreadable: current.unreadable)
        }
        var before: [Int: ThermalProcess] = [:]
        before.reserveCapacity(previous.processes.count)
        var newestBefore: UInt64 = 0
        for p in previous.processes {
            before[p.pid] = p
            newestBefore = max(newestBefore, p.startTicks)
        }
        let tps = current.ticksPerSecond > 0 ? current.ticksPerSecond : 100
        var busy: Double?
        if let b1 = current.busyTicks, let b0 = previous.busyTicks { busy = b1 >= b0 ? Double(b1 - b0) : nil }
        let (package, wattsReason) = packagePower(power)
        var groups: [String: (ticks: UInt64, processes: [(ticks: UInt64, p: ThermalProcess)])] = [:]
        var onGPU = ThermalHeatGPUUse.byProcess(gpus).mapValues { (uses: $0, inTable: false) }
        for p in current.processes {
            let used: UInt64
            if let old = before[p.pid], old.startTicks == p.startTicks {
                used = p.cpuTicks >= old.cpuTicks ? p.cpuTicks - old.cpuTicks : 0
            } else {
                used = p.startTicks > newestBefore ? p.cpuTicks : 0
            }
            guard used > 0 || onGPU[p.pid] != nil else { continue }
            groups[p.command, default: (0, [])].ticks &+= used
            groups[p.command, default: (0, [])].processes.append((used, p))
            onGPU[p.pid]?.inTable = true
        }
        for (pid, g) in onGPU where !g.inTable {
            groups[unknownCommand, default: (0, [])].processes.append((0, ThermalProcess(pid: pid, startTicks: 0, command: unknownCommand, cpuTicks: 0)))
        }
        func percent(_ ticks: UInt64) -> Double { Double(ticks) / tps / seconds * 100 }
        func estimate(_ ticks: UInt64) -> Double? {
            guard let package, let busy else { return nil }
            return busy > 0 ? package * min(1, Double(ticks) / busy) : 0
        }
        let ordered = groups.sorted { a, b in a.value.ticks != b.value.ticks ? a.value.ticks > b.value.ticks : a.key < b.key }
        let kept = ordered.enumerated().filter { i, g in i < maximumSources || g.value.processes.contains { onGPU[$0.p.pid] != nil } }
        let sources = kept.map { _, group in
            let (name, g) = group
            let procs = g.processes.sorted { a, b in
                if a.ticks != b.ticks { return a.ticks > b.ticks }
                let (ga, gb) = (onGPU[a.p.pid] != nil, onGPU[b.p.pid] != nil)
                return ga != gb ? ga : a.p.pid < b.p.pid
            }
                .prefix(maximumProcessesPerSource)
                .map { ThermalHeatProcess(pid: $0.p.pid, uid: $0.p.uid, user: $0.p.user, commandLine: $0.p.commandLine, cgroup: $0.p.cgroup,
                                          cpuPercent: percent($0.ticks), isKernelThread: $0.p.isKernelThread,
                                          gpus: onGPU[$0.p.pid]?.uses ?? [], inProcessTable: onGPU[$0.p.pid]?.inTable ?? true) }
            let uses = g.processes.compactMap { onGPU[$0.p.pid]?.uses }
            return ThermalHeatSource(command: name, count: g.processes.count, cpuPercent: percent(g.ticks),
                                     estimatedWatts: estimate(g.ticks), processes: Array(procs),
                                     gpus: ThermalHeatGPUUse.adding(uses, order: gpus.map(\.busID)))
        }
        let why = package == nil ? wattsReason : (busy == nil ? "/proc/stat unreadable" : nil)
        return ThermalHeatSources(sources: sources, packageWatts: busy == nil ? nil : package, wattsReason: why,
                                  processCount: current.processes.count, unreadable: current.unreadable)
    }

    /// What the verdict adds when the state is fair or worse: ` — mostly cc1plus ×8 (640 % CPU,
    /// ≈ 38 W)`, with the second group when it too is busy; empty when no group is.
    public var verdictSuffix: String {
        let named = sources.prefix(Self.verdictSources).filter { $0.cpuPercent >= Self.verdictMinimumPercent }
        guard !named.isEmpty else { return "" }
        return " — mostly " + named.map { "\($0.label) (\($0.figures))" }.joined(separator: ", ")
    }

    /// The assessment's reason, naming the top sources when the state is fair or worse: the
    /// one place the verdict gets them, so `status`, JSON, hooks and export say the same.
    /// A state decided by a GPU (its sensor or NVML's slowdown rule) is not named after CPU
    /// processes: the processes behind it are the GPU's (NVML's, `gpuVerdictSuffix`).
    public static func verdict(_ assessment: ThermalAssessment, sources: ThermalHeatSources?,
                               gpus: [ThermalGPU] = []) -> ThermalReason {
        var why = assessment.why
        guard assessment.state >= .fair, let sources else { return why }
        why.heatSources = suffix(assessment, sources: sources, gpus: gpus)
        return why
    }

    /// What the verdict adds to the reason: the GPU's processes when a GPU decided, else the
    /// CPU's sources.
    static func suffix(_ assessment: ThermalAssessment, sources: ThermalHeatSources, gpus: [ThermalGPU]) -> String {
        guard decidedByGPU(assessment, gpus: gpus) else { return sources.verdictSuffix }
        return decidingGPU(assessment, gpus: gpus).map { sources.gpuVerdictSuffix(busID: $0.busID) } ?? ""
    }

    static func decidedByGPU(_ a: ThermalAssessment, gpus: [ThermalGPU]) -> Bool {
        guard let id = a.decidedBy else { return false }
        if let s = a.sensors.first(where: { $0.sensor.id == id }) { return SensorCatalog.group(of: s.sensor) == .gpu }
        // NVML's clock-event rule is decided by the GPU itself.
        return decidingGPU(a, gpus: gpus) != nil
    }

    /// CPU percent as every output words it: whole percent from 10 up, one decimal below.
    public static func percent(_ p: Double) -> String { Format.fixed(p, places: p >= 10 ? 0 : 1) }
    /// Estimated watts: `38 W`, `4.2 W`.
    public static func watts(_ w: Double) -> String { "\(Format.fixed(w, places: w >= 10 ? 0 : 1)) W" }
}
