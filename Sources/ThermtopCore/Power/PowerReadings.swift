/// Where a power domain's watts come from. The raw values are the `source` label of
/// `thermtop_power_watts` and the `source` field of `status --json`'s `power[]`.
public enum ThermalPowerSource: String, Sendable, Hashable, CaseIterable {
    /// `class/powercap/intel-rapl:*` (Intel, and AMD Zen since Linux 5.11): energy counters.
    case rapl
    /// hwmon `power*_input` / `power*_average` (W) or `energy*_input` (µJ counters).
    case hwmon
    /// NVIDIA GPUs through NVML (`nvmlDeviceGetPowerUsage`).
    case nvml
    /// The system battery's own rate (`power_now`, or current × voltage).
    case battery
}

/// A power limit the kernel or driver states for a domain.
public struct ThermalPowerLimit: Sendable, Equatable {
    /// `long_term`, `short_term`, `peak_power` (RAPL `constraint_N_name`) or `cap` (hwmon
    /// `power*_cap`, NVML's enforced limit).
    public var constraint: String
    /// The limit in watts.
    public var watts: Double

    /// A limit of `watts` for `constraint`.
    public init(constraint: String, watts: Double) {
        self.constraint = constraint
        self.watts = watts
    }
}

/// A cumulative energy counter as read in one sample: a RAPL zone's `energy_uj` or an hwmon
/// `energyN_input`. Watts come from two samples (`ThermalEnergyRate`), never from one.
public struct ThermalEnergyCounter: Sendable, Equatable, Identifiable {
    /// The domain's stable id: `rapl:package-0`, `rapl:package-0:core`, `hwmon:xe:pkg`.
    public var id: String
    /// What every output calls it: `package-0`, `package-0 core`, `xe pkg`.
    public var name: String
    /// `rapl` for powercap zones, `hwmon` for `energyN_input`.
    public var source: ThermalPowerSource
    /// The folder or file it was read from (`class/powercap/intel-rapl:0`).
    public var location: String
    /// The id of the zone this one is part of (a RAPL subzone's package), nil for a top zone.
    public var parent: String?
    /// The counter, in µJ; nil when it could not be read (`issues` says why).
    public var microjoules: Int64?
    /// Where the counter wraps to 0 (`max_energy_range_uj`); nil when unreadable.
    public var rangeMicrojoules: Int64?
    /// False for counters that do not wrap in a machine's lifetime (hwmon's are 64-bit µJ).
    public var wraps: Bool
    /// The zone's stated limits (RAPL constraints); empty for hwmon counters.
    public var limits: [ThermalPowerLimit]
    /// Why the counter or its range could not be read.
    public var issues: [ReadingIssue]

    /// A counter as read in one sample, in µJ.
    public init(id: String, name: String, source: ThermalPowerSource, location: String, parent: String? = nil,
                microjoules: Int64?, rangeMicrojoules: Int64? = nil, wraps: Bool = true,
                limits: [ThermalPowerLimit] = [], issues: [ReadingIssue] = []) {
        self.id = id
        self.name = name
        self.source = source
        self.location = location
        self.parent = parent
        self.microjoules = microjoules
        self.rangeMicrojoules = rangeMicrojoules
        self.wraps = wraps
        self.limits = limits
        self.issues = issues
    }

    /// What `energy_uj` being unreadable by an ordinary user means, and the fix. Since Linux
    /// 5.10 (CVE-2020-8694) the counter is root-only; contrib/udev/ grants a group.
    public static let needsRootReason = "needs root, or the udev rule in contrib/"

    /// Why the counter has no value, in words; nil when it has one.
    public var unreadableReason: String? {
        guard microjoules == nil else { return nil }
        if issues.contains(where: { $0.reason == .permissionDenied }) { return Self.needsRootReason }
        if let i = issues.first { return "\(i.reason.rawValue) (\(i.file))" }
        return "no reading"
    }
}

/// One cpufreq policy (`devices/system/cpu/cpufreq/policyN`): the CPUs it clocks, its clock
/// now and its maximum, in kHz as the kernel gives them.
public struct ThermalCPUFrequency: Sendable, Equatable, Identifiable {
    /// `policy0`.
    public var id: String
    /// `affected_cpus`.
    public var cpus: [Int]
    /// `scaling_cur_freq` (kHz).
    public var currentKHz: Double?
    /// `cpuinfo_max_freq` (kHz): the hardware's maximum, boost included.
    public var maxKHz: Double?
    /// Why a clock of this policy could not be read.
    public var issues: [ReadingIssue]

    /// A policy with clocks in kHz.
    public init(id: String, cpus: [Int] = [], currentKHz: Double?, maxKHz: Double?, issues: [ReadingIssue] = []) {
        self.id = id
        self.cpus = cpus
        self.currentKHz = currentKHz
        self.maxKHz = maxKHz
        self.issues = issues
    }
}

/// The CPU clock folded over every policy: the fastest clock now against the highest
/// maximum (a hybrid CPU's performance cores set both; an idle policy does not hide a busy one).
public struct ThermalCPUClock: Sendable, Equatable {
    /// The fastest policy's current clock, in kHz.
    public var currentKHz: Double
    /// The highest policy maximum, in kHz.
    public var maxKHz: Double

    /// Folds `policies`; nil when no policy has both a current clock and a positive maximum.
    public init?(_ policies: [ThermalCPUFrequency]) {
        let cur = policies.compactMap(\.currentKHz).max()
        let mx = policies.compactMap(\.maxKHz).max()
        guard let cur, let mx, mx > 0 else { return nil }
        currentKHz = cur
        maxKHz = mx
    }

    /// Current clock over maximum: 1 at full speed, lower when clocked down.
    public var ratio: Double { currentKHz / maxKHz }

    /// `CPU 2.1 of 4.7 GHz`.
    public var text: String {
        "CPU \(Format.fixed(currentKHz / 1e6, places: 1)) of \(Format.fixed(maxKHz / 1e6, places: 1)) GHz"
    }
}
