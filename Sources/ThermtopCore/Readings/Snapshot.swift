/// What one sample of the machine saw. Every value is optional; `issues` on each part says why
/// a value is missing. Built by a `SensorSource` (sysfs on Linux, the simulated laptop, …).
public struct ThermalSnapshot: Sendable, Equatable {
    /// Monotonic time of the sample, in seconds, from the monitor's clock.
    public var time: Double
    /// Thermal zones (`/sys/class/thermal/thermal_zoneN`), with their trip points.
    public var zones: [ThermalZone]
    /// Cooling devices (`/sys/class/thermal/cooling_deviceN`) and how hard each is working.
    public var coolingDevices: [CoolingDevice]
    /// hwmon temperature channels (`tempN_*`), one per sensor.
    public var hwmon: [HwmonChannel]
    /// System batteries (`/sys/class/power_supply`, `type` Battery, not a peripheral's).
    public var batteries: [ThermalBattery]
    /// Batteries of peripherals (mice, keyboards): listed apart, never the system battery.
    public var peripherals: [ThermalBattery]
    /// Mains and USB power adapters; `acOnline` folds them into one answer.
    public var adapters: [ThermalPowerAdapter]
    /// Platform profile and power-profiles-daemon state, before the battery-saver rule.
    public var lowPower: LowPowerSignals
    /// Throttle counts summed over CPUs; nil where `thermal_throttle` is absent (non-Intel, VMs).
    public var throttle: ThrottleCounters?
    /// Problems that belong to no single device (a class folder that cannot be listed…).
    public var issues: [ReadingIssue]
    /// hwmon fans (`fanN_*`, `pwmN*`).
    public var fans: [ThermalFan] = []
    /// hwmon power channels (`powerN_average` / `_input`: amdgpu PPT…).
    public var powerMeters: [ThermalPowerMeter] = []
    /// Other hwmon inputs (voltages, currents, energy…), shown, not judged.
    public var hwmonExtras: [HwmonExtra] = []
    /// NVIDIA GPUs through NVML (`ThermalGPU`); empty without an NVIDIA driver.
    public var gpus: [ThermalGPU] = []
    /// One line when an NVIDIA GPU is on the PCI bus but NVML cannot be used (library missing,
    /// driver not loaded, version mismatch), with NVML's own words.
    public var gpuNotice: String?
    /// RAPL zones (powercap) and hwmon `energyN_input`: cumulative counters, watts from two samples.
    public var energyCounters: [ThermalEnergyCounter] = []
    /// cpufreq policies: the clock now and its maximum.
    public var cpuFrequencies: [ThermalCPUFrequency] = []
    /// One walk of `/proc` (heat sources), nil when none was asked for.
    public var processes: ThermalProcessTable?
    /// Heat sources as a recording or a capture carries them (measured there): used instead of
    /// measuring `processes`. nil on a live machine.
    public var recordedHeatSources: ThermalHeatSources?

    /// A snapshot at monitor time `time`; the hwmon extras, GPUs, counters and processes start empty.
    public init(
        time: Double, zones: [ThermalZone] = [], coolingDevices: [CoolingDevice] = [],
        hwmon: [HwmonChannel] = [], batteries: [ThermalBattery] = [], peripherals: [ThermalBattery] = [],
        adapters: [ThermalPowerAdapter] = [], lowPower: LowPowerSignals = LowPowerSignals(),
        throttle: ThrottleCounters? = nil, issues: [ReadingIssue] = []
    ) {
        self.time = time
        self.zones = zones
        self.coolingDevices = coolingDevices
        self.hwmon = hwmon
        self.batteries = batteries
        self.peripherals = peripherals
        self.adapters = adapters
        self.lowPower = lowPower
        self.throttle = throttle
        self.issues = issues
    }

    /// True when the source found no temperature sensor, cooling device or battery at all
    /// (containers, most VMs, CI).
    public var isEmpty: Bool {
        zones.isEmpty && hwmon.isEmpty && batteries.isEmpty && coolingDevices.isEmpty && fans.isEmpty && gpus.isEmpty
    }

    /// The `file` of an issue about the source's whole tree (its root directory is gone).
    public static let sourceRootFile = "."

    /// Why the source itself is gone (its sysfs root vanished), nil while it is there.
    public var sourceVanished: ReadingIssue? {
        issues.first { $0.file == Self.sourceRootFile && $0.reason == .vanished }
    }

    /// Mains or USB power: true when any adapter is online, false when all that report are
    /// offline, nil when none reports (no adapter, or `online` unreadable). One rule for the
    /// dashboard, `status` (`ac_online`) and `export` (`thermtop_ac_online`).
    public var acOnline: Bool? {
        let known = adapters.compactMap(\.online)
        return known.isEmpty ? nil : known.contains(true)
    }

    /// Every issue of every part, for the debug overlay and `--json`.
    public var allIssues: [ReadingIssue] {
        issues + zones.flatMap(\.issues) + coolingDevices.flatMap(\.issues) + hwmon.flatMap(\.issues)
            + fans.flatMap(\.issues) + powerMeters.flatMap(\.issues) + hwmonExtras.flatMap(\.issues)
            + batteries.flatMap(\.issues) + peripherals.flatMap(\.issues) + adapters.flatMap(\.issues)
            + lowPower.issues + gpus.flatMap(\.issues)
            + energyCounters.flatMap(\.issues) + cpuFrequencies.flatMap(\.issues)
    }
}

/// The kind of a thermal zone trip point: what the kernel does when the zone reaches it.
/// 
/// Parsed from `trip_point_K_type`; a kind the kernel adds later reads as nil and the trip is
/// ignored rather than guessed at.
public enum TripKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A fan stage.
    case active
    /// Passive cooling (throttling) starts here.
    case passive
    /// The platform is notified; the last stop before critical.
    case hot
    /// The kernel shuts the machine down here.
    case critical

    /// The kernel's spelling in `trip_point_K_type`. Written out: the synthesized initializer
    /// builds an array of the case names at each call (and, at the first, that array's type),
    /// for every trip a discovery reads.
    public init?(rawValue: String) {
        switch rawValue {
        case "active": self = .active
        case "passive": self = .passive
        case "hot": self = .hot
        case "critical": self = .critical
        default: return nil
        }
    }
}

/// `trip_point_K_*` of a thermal zone. Trip temperatures are read once per rediscovery.
public struct TripPoint: Sendable, Equatable {
    /// `K` of `trip_point_K_*`.
    public var index: Int
    /// What happens at the trip; nil when `trip_point_K_type` is unreadable or unknown.
    public var kind: TripKind?
    /// Trip temperature in °C; nil when unreadable (see `ignored`).
    public var celsius: Double?
    /// A delta in °C: the trip clears below `celsius − hysteresis`.
    public var hysteresis: Double?
    /// Why the trip is ignored (junk temperature or unknown type), nil when usable.
    public var ignored: ReadingIssue?

    /// A trip point as read from sysfs or built by a simulated source.
    public init(index: Int, kind: TripKind?, celsius: Double?, hysteresis: Double? = nil, ignored: ReadingIssue? = nil) {
        self.index = index
        self.kind = kind
        self.celsius = celsius
        self.hysteresis = hysteresis
        self.ignored = ignored
    }

    /// A trip with a known kind and a plausible temperature. Junk temperatures (≤ 0 °C,
    /// −273 °C, implausibly hot) are never usable, whichever source built the trip.
    public var isUsable: Bool {
        guard ignored == nil, kind != nil, let c = celsius else { return false }
        return SysfsValue.plausibleLimit.contains(c)
    }
}

/// `/sys/class/thermal/thermal_zoneN`.
public struct ThermalZone: Sendable, Equatable, Identifiable {
    /// `thermal_zone0`.
    public var id: String
    /// `type`: `acpitz`, `x86_pkg_temp`, `cpu-thermal`…
    public var type: String?
    /// Zone temperature in °C (`temp` is m°C); nil when unread, asleep or junk (see `issues`).
    public var celsius: Double?
    /// `mode`: `enabled` / `disabled`.
    public var mode: String?
    /// `policy`: the thermal governor (`step_wise`, `user_space`, `power_allocator`…).
    public var policy: String?
    /// The zone's trip points, usable or not (see `TripPoint.isUsable`).
    public var trips: [TripPoint]
    /// Why a value of this zone is missing or ignored.
    public var issues: [ReadingIssue]
    /// Id that survives renumbering (`acpi-LNXTHERM:00/thermal/acpitz`, see `DeviceInfo`);
    /// nil for hand-built zones, which then use `id`.
    public var stableID: String?
    /// The device behind the zone's `device` link, if any.
    public var deviceInfo: ThermalDeviceInfo?
    /// `suspended` / `D3cold`… when the zone's device sleeps and `temp` was not read.
    public var asleep: String?

    /// A zone as read from sysfs or built by a simulated source.
    public init(id: String, type: String?, celsius: Double?, mode: String? = nil, policy: String? = nil,
                trips: [TripPoint] = [], issues: [ReadingIssue] = [], stableID: String? = nil,
                deviceInfo: ThermalDeviceInfo? = nil) {
        self.stableID = stableID
        self.deviceInfo = deviceInfo
        self.id = id
        self.type = type
        self.celsius = celsius
        self.mode = mode
        self.policy = policy
        self.trips = trips
        self.issues = issues
    }
}

/// `/sys/class/thermal/cooling_deviceN`.
public struct CoolingDevice: Sendable, Equatable, Identifiable {
    /// `cooling_device0`.
    public var id: String
    /// `Processor`, `intel_powerclamp`, `thermal-cpufreq-0`, `Fan`, `TCHG`…
    public var type: String?
    /// `cur_state`: how hard the device cools now, 0 (idle) to `maxState`; nil when unreadable.
    public var currentState: Int?
    /// `max_state`: the strongest state; nil when unreadable.
    public var maxState: Int?
    /// Why a value of this device is missing.
    public var issues: [ReadingIssue]
    /// `virtual/cooling/intel_powerclamp`, `acpi-LNXCPU:00/cooling/Processor` (see `DeviceInfo`).
    public var stableID: String?

    /// A cooling device as read from sysfs or built by a simulated source.
    public init(id: String, type: String?, currentState: Int?, maxState: Int?, issues: [ReadingIssue] = [],
                stableID: String? = nil) {
        self.stableID = stableID
        self.id = id
        self.type = type
        self.currentState = currentState
        self.maxState = maxState
        self.issues = issues
    }
}

/// One `tempK_*` channel of `/sys/class/hwmon/hwmonN`.
public struct HwmonChannel: Sendable, Equatable, Identifiable {
    /// `hwmon2/temp1`.
    public var id: String { "\(device)/\(channel)" }
    /// `hwmon2`.
    public var device: String
    /// `name` of the chip: `coretemp`, `k10temp`, `nvme`, `amdgpu`…
    public var chip: String?
    /// `temp1`.
    public var channel: String
    /// `temp1_label`: `Package id 0`, `Tctl`, `Composite`, `edge`…
    public var label: String?
    /// `tempN_input` in °C; nil when unread, asleep or junk (see `issues`).
    public var celsius: Double?
    /// `tempN_max` in °C, the chip's warning level; nil when absent or junk.
    public var max: Double?
    /// `tempN_crit` in °C, the critical level; nil when absent or junk.
    public var crit: Double?
    /// An absolute temperature (not a delta): the crit alarm clears below it.
    public var critHyst: Double?
    /// `tempN_emergency` in °C, above `crit`; nil when absent or junk.
    public var emergency: Double?
    /// `tempN_min` in °C; nil when absent or junk.
    public var min: Double?
    /// `device/power_state` when it is not D0: the channel was not read so as not to wake it.
    public var asleep: String?
    /// The thermal zone this channel mirrors (the thermal core registers an hwmon copy of
    /// each zone); such channels are shown once, as the zone.
    public var mirrorsZone: String?
    /// Why a value of this channel is missing or ignored.
    public var issues: [ReadingIssue]
    /// `pci-0000:00:18.3/k10temp/Tctl`: survives renumbering of hwmonN (see `DeviceInfo`);
    /// nil for hand-built channels, which then use `id`.
    public var stableID: String?
    /// The chip's parent device: key, PCI slot and vendor, model.
    public var deviceInfo: ThermalDeviceInfo?
    /// While `asleep`: the last value read before the device slept, and when (monitor time).
    public var lastCelsius: Double?
    /// Monitor time, in seconds, of `lastCelsius`; nil when it was never read.
    public var lastReadAt: Double?

    /// A channel as read from sysfs or built by a simulated source.
    public init(device: String, chip: String?, channel: String, label: String? = nil, celsius: Double?,
                max: Double? = nil, crit: Double? = nil, critHyst: Double? = nil, emergency: Double? = nil,
                min: Double? = nil, asleep: String? = nil, mirrorsZone: String? = nil, issues: [ReadingIssue] = [],
                stableID: String? = nil, deviceInfo: ThermalDeviceInfo? = nil, lastCelsius: Double? = nil,
                lastReadAt: Double? = nil) {
        self.stableID = stableID
        self.deviceInfo = deviceInfo
        self.lastCelsius = lastCelsius
        self.lastReadAt = lastReadAt
        self.device = device
        self.chip = chip
        self.channel = channel
        self.label = label
        self.celsius = celsius
        self.max = max
        self.crit = crit
        self.critHyst = critHyst
        self.emergency = emergency
        self.min = min
        self.asleep = asleep
        self.mirrorsZone = mirrorsZone
        self.issues = issues
    }

    /// `nvme Composite`, `coretemp Package id 0`, `radeon temp1`.
    public var displayName: String {
        "\(chip ?? device) \(label ?? channel)"
    }
}

/// A mains or USB power adapter (`type` Mains / USB*).
public struct ThermalPowerAdapter: Sendable, Equatable, Identifiable {
    /// The power supply's folder name (`AC`, `ADP1`, `ucsi-source-psy-USBC000:001`).
    public var id: String
    /// `type`: `Mains`, `USB`, `USB_PD`…; nil when unreadable.
    public var type: String?
    /// `online`: true while it supplies power; nil when unreadable.
    public var online: Bool?
    /// Why a value of this adapter is missing.
    public var issues: [ReadingIssue]

    /// An adapter as read from sysfs or built by a simulated source.
    public init(id: String, type: String?, online: Bool?, issues: [ReadingIssue] = []) {
        self.id = id
        self.type = type
        self.online = online
        self.issues = issues
    }
}

/// `/sys/devices/system/cpu/cpuN/thermal_throttle/*_throttle_count`, summed.
public struct ThrottleCounters: Sendable, Equatable {
    /// Sum of `core_throttle_count` over CPUs.
    public var core: Int64
    /// `package_throttle_count` (the same on every CPU of a package; the maximum is kept).
    public var package: Int64
    /// How many CPUs had a `thermal_throttle` folder.
    public var cpus: Int

    /// Counters already summed over `cpus` CPUs.
    public init(core: Int64, package: Int64, cpus: Int) {
        self.core = core
        self.package = package
        self.cpus = cpus
    }

    /// Core plus package throttle events: any rise between samples means the CPU throttled.
    public var total: Int64 { core + package }
}

/// What the machine says about saving power, before the battery-saver rule is applied.
public struct LowPowerSignals: Sendable, Equatable {
    /// `/sys/firmware/acpi/platform_profile`, verbatim (may be `custom`, not in the choices).
    public var platformProfile: String?
    /// `platform_profile_choices`, split on spaces; empty when absent.
    public var platformProfileChoices: [String]
    /// `/sys/class/platform-profile/platform-profile-N` (kernel 6.14+): name and profile.
    public var classProfiles: [NamedProfile]
    /// power-profiles-daemon's active profile (`power-saver`, `balanced`, `performance`), from
    /// D-Bus (also tuned-ppd) or its state.ini: `powerProfileOrigin` says which.
    public var powerProfilesDaemon: String?
    /// D-Bus `PerformanceDegraded`: why the performance profile is held back (`lap-detected`,
    /// `high-operating-temperature`); nil when it is not, or when the bus is not available.
    public var performanceDegraded: String?
    /// Where `powerProfilesDaemon` came from; nil when there is no profile.
    public var powerProfileOrigin: PowerProfileOrigin?
    /// Why a signal could not be read (unreadable file, D-Bus error).
    public var issues: [ReadingIssue]

    /// Where the power-profiles-daemon profile was read.
    public enum PowerProfileOrigin: String, Sendable, Equatable {
        /// The live service on the system bus (power-profiles-daemon or tuned-ppd).
        case dbus = "dbus"
        /// `/var/lib/power-profiles-daemon/state.ini`, written when the profile changes.
        case stateFile = "state.ini"
    }

    /// One platform-profile class device: its `name` and current `profile`.
    public struct NamedProfile: Sendable, Equatable {
        /// `name`: the driver that offers the profile (`thinkpad-acpi`, `asus-wmi`…).
        public var name: String
        /// `profile`, verbatim; nil when unreadable.
        public var profile: String?
        /// A named profile.
        public init(name: String, profile: String?) {
            self.name = name
            self.profile = profile
        }
    }

    /// Signals as gathered by a source; all start absent.
    public init(platformProfile: String? = nil, platformProfileChoices: [String] = [],
                classProfiles: [NamedProfile] = [], powerProfilesDaemon: String? = nil,
                performanceDegraded: String? = nil, powerProfileOrigin: PowerProfileOrigin? = nil,
                issues: [ReadingIssue] = []) {
        self.platformProfile = platformProfile
        self.platformProfileChoices = platformProfileChoices
        self.classProfiles = classProfiles
        self.powerProfilesDaemon = powerProfilesDaemon
        self.performanceDegraded = performanceDegraded
        self.powerProfileOrigin = powerProfileOrigin
        self.issues = issues
    }
}
