/// `pwmN_enable` (Documentation/hwmon/sysfs-interface.rst): 0 = no control (full speed),
/// 1 = manual, 2+ = automatic (chip or firmware curve; drivers number their auto modes).
public enum ThermalFanControl: String, Sendable, Hashable, Codable {
    /// Fixed at full speed (`pwm_enable` 0).
    case fullSpeed = "full-speed"
    /// Set by hand (`pwm_enable` 1).
    case manual
    /// Driven by the firmware or driver (`pwm_enable` 2 and above).
    case auto

    /// The control a `pwm_enable` value means; nil for a value no driver uses.
    public init?(pwmEnable n: Int) {
        switch n {
        case 0: self = .fullSpeed
        case 1: self = .manual
        case 2...: self = .auto
        default: return nil
        }
    }
}

/// What a fan is doing, never hidden: 0 RPM is ambiguous (stopped on purpose, or no tach).
public enum ThermalFanState: String, Sendable, Hashable, Codable {
    /// Turning.
    case spinning
    /// 0 RPM and the fan was told to stop (PWM 0, `fanN_enable` 0) or its driver is known to
    /// stop it when cool (amdgpu zero-RPM, ThinkPad level 0).
    case stopped
    /// No usable RPM: unreadable, or 0 RPM with no sign the fan should be stopped.
    case noReading = "no-reading"
    /// The device sleeps; the fan was not read so as not to wake it.
    case asleep
}

/// One `fanN_*` / `pwmN*` channel of an hwmon chip.
public struct ThermalFan: Sendable, Equatable, Identifiable {
    /// Stable id: `pci-0000:03:00.0/amdgpu/fan1`, `platform-thinkpad_hwmon/thinkpad/fan1`.
    public var id: String
    /// Where it is read this boot: `hwmon3/fan1`.
    public var location: String
    /// The hwmon chip name.
    public var chip: String?
    /// `fanN_label` when the driver gives one.
    public var label: String?
    /// The device the chip belongs to.
    public var deviceInfo: ThermalDeviceInfo?
    /// `fanN_input` (RPM).
    public var rpm: Double?
    /// `fanN_min`.
    public var minRPM: Double?
    /// `fanN_max`.
    public var maxRPM: Double?
    /// `fanN_target`.
    public var targetRPM: Double?
    /// `pwmN` (0–255) of the same index, when present.
    public var pwm: Int?
    /// `pwmN_enable` as read (drivers use 2, 3, 4… for their automatic modes).
    public var pwmEnable: Int?
    /// `fanN_enable` (amdgpu: 0 = zero-RPM mode, the fan may stop).
    public var enabled: Bool?
    /// The driver stops this fan when cool (amdgpu zero-RPM, thinkpad level 0, dell_smm).
    public var spinsDown: Bool
    /// `suspended` / `D3cold`… when the device sleeps and the fan was not read.
    public var asleep: String?
    /// What could not be read.
    public var issues: [ReadingIssue]

    /// A fan from its parts.
    public init(id: String, location: String, chip: String?, label: String? = nil, deviceInfo: ThermalDeviceInfo? = nil,
                rpm: Double?, minRPM: Double? = nil, maxRPM: Double? = nil, targetRPM: Double? = nil,
                pwm: Int? = nil, pwmEnable: Int? = nil, enabled: Bool? = nil, spinsDown: Bool = false,
                asleep: String? = nil, issues: [ReadingIssue] = []) {
        self.id = id
        self.location = location
        self.chip = chip
        self.label = label
        self.deviceInfo = deviceInfo
        self.rpm = rpm
        self.minRPM = minRPM
        self.maxRPM = maxRPM
        self.targetRPM = targetRPM
        self.pwm = pwm
        self.pwmEnable = pwmEnable
        self.enabled = enabled
        self.spinsDown = spinsDown
        self.asleep = asleep
        self.issues = issues
    }

    /// How the fan is controlled, from `pwm_enable`.
    public var control: ThermalFanControl? { pwmEnable.flatMap(ThermalFanControl.init(pwmEnable:)) }

    /// `pwmN` as a percentage of 255.
    public var pwmPercent: Double? { pwm.map { Double($0) / 255 * 100 } }

    /// Whether it spins, stands still, or is unknown.
    public var state: ThermalFanState {
        if asleep != nil { return .asleep }
        guard let rpm else { return .noReading }
        if rpm > 0 { return .spinning }
        if pwm == 0 || enabled == false || spinsDown { return .stopped }
        return .noReading
    }

    /// How hard the fan is driven, 0…1: the PWM duty when there is one, else RPM ÷ max RPM.
    public var dutyFraction: Double? {
        if let pwm { return Double(pwm) / 255 }
        if let rpm, let max = maxRPM, max > 0 { return Swift.min(rpm / max, 1) }
        return nil
    }

    /// `Fan (amdgpu fan1)`, `Fan (thinkpad fan1)`; the label when the driver gives one.
    public var displayName: String {
        "Fan (\(chip ?? "hwmon") \(label ?? String(location.split(separator: "/").last ?? "")))"
    }
}

/// One `powerN_*` channel of an hwmon chip (amdgpu PPT, slowPPT/fastPPT), in W.
public struct ThermalPowerMeter: Sendable, Equatable, Identifiable {
    /// Stable id: `pci-0000:03:00.0/amdgpu/PPT`.
    public var id: String
    /// `hwmon3/power1`.
    public var location: String
    /// `name` of the hwmon chip (`amdgpu`, `k10temp`); nil when unreadable.
    public var chip: String?
    /// `powerN_label`: `PPT`, `slowPPT`, `fastPPT`.
    public var label: String?
    /// The chip's parent device, if any.
    public var deviceInfo: ThermalDeviceInfo?
    /// `powerN_average` (µW → W).
    public var averageWatts: Double?
    /// `powerN_input` (µW → W).
    public var inputWatts: Double?
    /// `powerN_cap`, `_cap_min`, `_cap_max` (W).
    public var capWatts: Double?
    /// `powerN_cap_min` in W; nil when absent.
    public var capMinWatts: Double?
    /// `powerN_cap_max` in W; nil when absent.
    public var capMaxWatts: Double?
    /// `suspended` / `D3cold`… when the chip's device sleeps and was not read.
    public var asleep: String?
    /// Why a value of this meter is missing.
    public var issues: [ReadingIssue]

    /// A meter with values already in W.
    public init(id: String, location: String, chip: String?, label: String? = nil, deviceInfo: ThermalDeviceInfo? = nil,
                averageWatts: Double? = nil, inputWatts: Double? = nil, capWatts: Double? = nil,
                capMinWatts: Double? = nil, capMaxWatts: Double? = nil, asleep: String? = nil,
                issues: [ReadingIssue] = []) {
        self.id = id
        self.location = location
        self.chip = chip
        self.label = label
        self.deviceInfo = deviceInfo
        self.averageWatts = averageWatts
        self.inputWatts = inputWatts
        self.capWatts = capWatts
        self.capMinWatts = capMinWatts
        self.capMaxWatts = capMaxWatts
        self.asleep = asleep
        self.issues = issues
    }

    /// The value to show: the averaged reading, else the instant one.
    public var watts: Double? { averageWatts ?? inputWatts }
}

/// Any other hwmon `*_input` channel (voltages `in*`, currents `curr*`, energy, humidity…):
/// thermtop does not judge them, but shows them with the value converted where the ABI gives
/// the unit, and raw otherwise, so nothing a machine reports is silently dropped.
public struct HwmonExtra: Sendable, Equatable, Identifiable {
    /// Stable id: `pci-0000:03:00.0/amdgpu/vddgfx`.
    public var id: String
    /// `hwmon3/in0`.
    public var location: String
    /// `name` of the hwmon chip; nil when unreadable.
    public var chip: String?
    /// `<attr>_label`, when the driver gives one.
    public var label: String?
    /// The attribute family: `in`, `curr`, `energy`, `humidity`, `pressure`, or another prefix.
    public var kind: String
    /// The value in `unit` (`V`, `A`, `J`, `%`), or nil when the family's unit is unknown.
    public var value: Double?
    /// The unit of `value`; nil when the family's unit is unknown and only `raw` is shown.
    public var unit: String?
    /// The text as the kernel printed it (trimmed).
    public var raw: String?
    /// Why the value is missing.
    public var issues: [ReadingIssue]

    /// A channel as read from sysfs or built by a simulated source.
    public init(id: String, location: String, chip: String?, label: String? = nil, kind: String,
                value: Double? = nil, unit: String? = nil, raw: String? = nil, issues: [ReadingIssue] = []) {
        self.id = id
        self.location = location
        self.chip = chip
        self.label = label
        self.kind = kind
        self.value = value
        self.unit = unit
        self.raw = raw
        self.issues = issues
    }

    /// Scale and unit of the families Documentation/hwmon/sysfs-interface.rst defines.
    public static func unit(for kind: String) -> (divisor: Double, unit: String)? {
        switch kind {
        case "in": (SysfsValue.milliPerUnit, "V")        // mV
        case "curr": (SysfsValue.milliPerUnit, "A")      // mA
        case "energy": (SysfsValue.microPerUnit, "J")    // µJ
        case "humidity": (SysfsValue.milliPerUnit, "%")  // m%RH
        default: nil
        }
    }
}
