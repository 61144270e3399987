/// One NVIDIA GPU as NVML reported it in a sample (or as a capture or recording stored that
/// report). Every value is optional: nil when the driver does not support it, when the GPU
/// sleeps (`asleep`), or when the query failed (`issues` says why).
public struct ThermalGPU: Sendable, Equatable, Identifiable {
    /// PCI address as sysfs spells it (`0000:00:06.0`): the GPU's stable identity.
    public var busID: String
    /// `NVIDIA H200`.
    public var name: String?
    /// `GPU-1b2c…`.
    public var uuid: String?
    /// Core temperature (°C).
    public var celsius: Double?
    /// Memory (HBM/GDDR) temperature (°C), where the driver reports the field.
    public var memoryCelsius: Double?
    /// NVML's own limits (°C).
    public var limits = ThermalGPULimits()
    /// Board power draw in watts; nil when unsupported or unread.
    public var powerWatts: Double?
    /// The enforced power limit in watts; nil when unsupported or unread.
    public var powerLimitWatts: Double?
    /// `nvmlDeviceGetCurrentClocksEventReasons` (or its older name), raw bits.
    public var clockReasons: UInt64?
    /// One duty per fan, 0–100 %; empty on passive cards.
    public var fanPercent: [Int] = []
    /// P-state, 0 (fastest) to 15.
    public var performanceState: Int?
    /// GPU busy time over NVML's last sample period, 0–100 %.
    public var utilisationPercent: Int?
    /// Memory controller busy time over NVML's last sample period, 0–100 %.
    public var memoryUtilisationPercent: Int?
    /// `suspended` while the PCI function is runtime-suspended: NVML was not asked.
    public var asleep: String?
    /// While `asleep` (or unanswered): the last core temperature read, and when (monitor time).
    public var lastCelsius: Double?
    /// Monitor time, in seconds, of `lastCelsius`; nil when never read.
    public var lastReadAt: Double?
    /// Why values are missing: `timed-out` (NVML did not answer), `vanished` (GPU is lost),
    /// `unrecognised` (not supported), one per NVML call that failed.
    public var issues: [ReadingIssue] = []
    /// NVML's index of the GPU (`nvidia-smi -i`), nil when unread.
    public var index: Int?
    /// The compute and graphics processes NVML lists on the GPU, read only when heat sources
    /// are (`SysfsSource.processes`); nil when not read or unknown (`processesReason`).
    public var processes: [ThermalGPUProcess]?
    /// Why `processes` is nil although asked (`Not Supported`, `Insufficient Permissions`).
    public var processesReason: String?
    /// Why the processes' SM shares are unknown (`nvmlDeviceGetProcessUtilization`: `Not Supported`).
    public var smReason: String?

    /// A GPU at `busID` with no values read yet.
    public init(busID: String) { self.busID = busID }

    /// `pci-0000:00:06.0`, the key a PCI device has everywhere in thermtop.
    public var id: String { "pci-" + busID }

    /// What the GPU's temperature sensors share: its PCI key, vendor and model.
    public var deviceInfo: ThermalDeviceInfo {
        ThermalDeviceInfo(key: id, pciSlot: busID, pciVendor: ThermalGPULimits.nvidiaVendor, model: name)
    }

    /// The decoded clock-event reasons (`["SW power cap"]`); nil when unknown.
    public var reasonWords: [String]? { clockReasons.map(ThermalGPUClockReason.words) }

    /// Whether NVML did not answer (a hung call) in this sample.
    public var timedOut: Bool { issues.contains { $0.reason == .timedOut } }

    /// The core and memory temperatures as sensors judged like any other, with NVML's limits
    /// in the hwmon limit kinds (see `ThermalGPULimits`), so one margin rule covers every kind.
    public var temperatureSensors: [ThermalSensor] {
        let info = deviceInfo
        let asleepIssue = asleep.map { ReadingIssue(file: "bus/pci/devices/\(busID)/power/runtime_status", reason: .deviceAsleep, detail: $0) }
        let failure = issues.first { $0.file.hasSuffix("/temperature") || $0.reason == .timedOut || $0.reason == .vanished }
        var core = ThermalSensor(
            id: id + "/nvidia/gpu", name: name ?? "nvidia " + busID, kind: .gpu, celsius: celsius,
            issue: celsius == nil ? (asleepIssue ?? failure ?? ReadingIssue(file: "nvml/\(busID)/temperature", reason: .noData)) : nil,
            hotTrip: limits.slowdown.map { TripPoint(index: 0, kind: .hot, celsius: $0) },
            max: limits.gpuMax, crit: limits.shutdown,
            location: "nvml/\(busID)/gpu", chip: "nvidia", label: "gpu", deviceInfo: info,
            lastCelsius: lastCelsius, lastReadAt: lastReadAt, asleep: asleep)
        core.displayName = core.name
        var out = [core]
        if memoryCelsius != nil || limits.memoryMax != nil {
            var mem = ThermalSensor(
                id: id + "/nvidia/memory", name: (name ?? "nvidia " + busID) + " memory", kind: .gpu, celsius: memoryCelsius,
                issue: memoryCelsius == nil ? (asleepIssue ?? failure ?? ReadingIssue(file: "nvml/\(busID)/memory_temperature", reason: .noData)) : nil,
                max: limits.memoryMax, location: "nvml/\(busID)/memory", chip: "nvidia", label: "memory", deviceInfo: info,
                asleep: asleep)
            mem.displayName = mem.name
            out.append(mem)
        }
        return out
    }
}

/// A process NVML lists on a GPU: a compute context (CUDA), a graphics context, or both.
public struct ThermalGPUProcess: Sendable, Equatable {
    /// The process id, as NVML reports it (the host's pid namespace).
    public var pid: Int
    /// Listed by `nvmlDeviceGetComputeRunningProcesses`.
    public var compute: Bool
    /// Listed by `nvmlDeviceGetGraphicsRunningProcesses`.
    public var graphics: Bool
    /// GPU memory the process holds, in bytes; nil when NVML cannot tell
    /// (`NVML_VALUE_NOT_AVAILABLE`), never 0 for unknown.
    public var memoryBytes: UInt64?
    /// Its share of the GPU's streaming multiprocessors over NVML's samples since the last
    /// query, 0–100 %; 0 when NVML has no sample of it (it reports only non-zero use); nil when
    /// unknown (`ThermalGPU.smReason`).
    public var smPercent: Double?

    /// A process on a GPU; unknown values nil.
    public init(pid: Int, compute: Bool = true, graphics: Bool = false, memoryBytes: UInt64? = nil, smPercent: Double? = nil) {
        self.pid = pid
        self.compute = compute
        self.graphics = graphics
        self.memoryBytes = memoryBytes
        self.smPercent = smPercent
    }
}

/// NVML's temperature thresholds (°C), as the limit kinds every sensor is judged by
/// (docs/verdict.md): GPU max operating (clocks may drop below base) is the warning limit
/// (`max`); slowdown, where the hardware starts slowing the GPU itself, is its hot point, like a
/// zone's hot trip; shutdown is the shutdown limit (`crit`); memory max is the memory sensor's
/// warning limit. docs/gpu.md lists the levels this gives.
public struct ThermalGPULimits: Sendable, Equatable {
    /// Where the hardware starts slowing the GPU, in °C: the hot point.
    public var slowdown: Double?
    /// Where the GPU shuts down, in °C: the shutdown limit.
    public var shutdown: Double?
    /// Maximum operating temperature in °C: the warning limit.
    public var gpuMax: Double?
    /// Maximum memory temperature in °C: the memory sensor's warning limit.
    public var memoryMax: Double?
    /// Limits as NVML reported them; nil where it has none.
    public init(slowdown: Double? = nil, shutdown: Double? = nil, gpuMax: Double? = nil, memoryMax: Double? = nil) {
        self.slowdown = slowdown
        self.shutdown = shutdown
        self.gpuMax = gpuMax
        self.memoryMax = memoryMax
    }
    /// NVIDIA's PCI vendor id.
    public static let nvidiaVendor = "0x10de"
}

/// The bits of NVML's clock-event (formerly "throttle") reasons, in nvml.h's order.
public enum ThermalGPUClockReason {
    /// Nothing is running, so clocks are low.
    public static let idle: UInt64 = 0x1
    /// Held at the application clocks setting.
    public static let applicationsClocks: UInt64 = 0x2
    /// The driver caps clocks to stay under the power limit.
    public static let swPowerCap: UInt64 = 0x4
    /// Hardware slowdown (heat or power brake), factor of two or more.
    public static let hwSlowdown: UInt64 = 0x8
    /// Held to match another GPU in a sync-boost group.
    public static let syncBoost: UInt64 = 0x10
    /// The driver slows clocks because the GPU or memory runs hot.
    public static let swThermalSlowdown: UInt64 = 0x20
    /// The hardware slows clocks because it runs too hot.
    public static let hwThermalSlowdown: UInt64 = 0x40
    /// An external power brake (the system's power supply) slows the GPU.
    public static let hwPowerBrakeSlowdown: UInt64 = 0x80
    /// Held to the display clock setting.
    public static let displayClock: UInt64 = 0x100

    static let names: [(UInt64, String)] = [
        (idle, "idle"), (applicationsClocks, "applications clocks setting"), (swPowerCap, "SW power cap"),
        (hwSlowdown, "HW slowdown"), (syncBoost, "sync boost"), (swThermalSlowdown, "SW thermal slowdown"),
        (hwThermalSlowdown, "HW thermal slowdown"), (hwPowerBrakeSlowdown, "HW power brake slowdown"),
        (displayClock, "display clock setting"),
    ]

    /// The reasons set in `bits`, in words; a bit nvml.h does not name is given in hex.
    public static func words(_ bits: UInt64) -> [String] {
        var out: [String] = []
        var rest = bits
        for (bit, name) in names where bits & bit != 0 {
            out.append(name)
            rest &= ~bit
        }
        if rest != 0 { out.append("0x" + String(rest, radix: 16)) }
        return out
    }

    /// A power cap or brake holds the clocks: shown as `power-limited`, never a heat level.
    public static func isPowerLimited(_ bits: UInt64) -> Bool {
        bits & (swPowerCap | hwPowerBrakeSlowdown) != 0
    }
}
