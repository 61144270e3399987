/// `status` of a power supply (Documentation/ABI/testing/sysfs-class-power).
public enum ThermalBatteryStatus: String, Sendable, Hashable, Codable {
    /// Taking charge.
    case charging
    /// Running the machine (or a peripheral) from the battery.
    case discharging
    /// On AC but not charging (charge thresholds, firmware): upower's "pending-charge".
    case notCharging = "not-charging"
    /// Charged and no longer taking charge.
    case full
    /// The kernel says `Unknown`, or a word thermtop does not know.
    case unknown

    /// Parses the kernel's spelling (`Charging`, `Discharging`, `Not charging`, `Full`, `Unknown`).
    public init(kernel text: String) {
        switch text.lowercased() {
        case "charging": self = .charging
        case "discharging": self = .discharging
        case "not charging": self = .notCharging
        case "full": self = .full
        default: self = .unknown
        }
    }
}

/// One battery from `/sys/class/power_supply/NAME` (type Battery, present).
/// Raw values are in base units (Wh, Ah, W, A, V); derived values are computed properties.
public struct ThermalBattery: Sendable, Equatable, Identifiable {
    /// The power supply's folder name (`BAT0`, `hidpp_battery_0`).
    public var id: String
    /// `present`; nil when the driver has no such file.
    public var present: Bool?
    /// `status`; nil when unreadable.
    public var status: ThermalBatteryStatus?
    /// The kernel's `capacity` (%), what desktops show.
    public var capacity: Double?
    /// `capacity_level` (`Normal`, `Low`, `Critical`…), the coarse level some peripherals give instead of a percentage.
    public var capacityLevel: String?
    /// `energy_now` in Wh; nil on charge gauges (see `chargeNow`).
    public var energyNow: Double?
    /// `energy_full` in Wh: what the pack holds today.
    public var energyFull: Double?
    /// `energy_full_design` in Wh: what it held new.
    public var energyFullDesign: Double?
    /// `charge_now` in Ah, for gauges that count charge instead of energy.
    public var chargeNow: Double?
    /// `charge_full` in Ah.
    public var chargeFull: Double?
    /// `charge_full_design` in Ah.
    public var chargeFullDesign: Double?
    /// `power_now` magnitude in W (some drivers sign it).
    public var powerNow: Double?
    /// `current_now` magnitude in A (positive while discharging on many ACPI batteries).
    public var currentNow: Double?
    /// `voltage_now` in V.
    public var voltageNow: Double?
    /// `voltage_min_design` in V; `designVoltage` falls back to it after `voltageMaxDesign`.
    public var voltageMinDesign: Double?
    /// `voltage_max_design` in V: `designVoltage` prefers it to convert charge to energy.
    public var voltageMaxDesign: Double?
    /// `cycle_count`; 0 usually means not reported (see `cyclesText`), nil when absent.
    public var cycleCount: Int?
    /// `model_name`, as the firmware spells it.
    public var model: String?
    /// `manufacturer`.
    public var manufacturer: String?
    /// `technology`: `Li-ion`, `Li-poly`…
    public var technology: String?
    /// `scope`: `System` or `Device` (peripheral).
    public var scope: String?
    /// Battery temperature (`temp`, tenths of °C in sysfs) in °C.
    public var celsius: Double?
    /// Why a value of this battery is missing or ignored.
    public var issues: [ReadingIssue]

    /// Cycle count as the dashboard and `status` show it: the kernel's `cycle_count` of 0 means
    /// "not reported" on most firmware (a real battery that has never cycled is rare and reads
    /// the same); nil when the file is absent.
    public var cyclesText: String? {
        guard let n = cycleCount else { return nil }
        return n == 0 ? "cycles not reported" : "\(n) cycles"
    }

    /// What the dashboard and `status` say when no system battery is found. Not "desktop or
    /// server": handhelds and laptops whose battery driver is not loaded read the same.
    public static let noneText = "none found"

    /// A battery with values already in base units (Wh, Ah, W, A, V, °C).
    public init(id: String, present: Bool? = true, status: ThermalBatteryStatus? = nil, capacity: Double? = nil,
                capacityLevel: String? = nil, energyNow: Double? = nil, energyFull: Double? = nil,
                energyFullDesign: Double? = nil, chargeNow: Double? = nil, chargeFull: Double? = nil,
                chargeFullDesign: Double? = nil, powerNow: Double? = nil, currentNow: Double? = nil,
                voltageNow: Double? = nil, voltageMinDesign: Double? = nil, voltageMaxDesign: Double? = nil,
                cycleCount: Int? = nil, model: String? = nil, manufacturer: String? = nil,
                technology: String? = nil, scope: String? = nil, celsius: Double? = nil, issues: [ReadingIssue] = []) {
        self.id = id
        self.present = present
        self.status = status
        self.capacity = capacity
        self.capacityLevel = capacityLevel
        self.energyNow = energyNow
        self.energyFull = energyFull
        self.energyFullDesign = energyFullDesign
        self.chargeNow = chargeNow
        self.chargeFull = chargeFull
        self.chargeFullDesign = chargeFullDesign
        self.powerNow = powerNow
        self.currentNow = currentNow
        self.voltageNow = voltageNow
        self.voltageMinDesign = voltageMinDesign
        self.voltageMaxDesign = voltageMaxDesign
        self.cycleCount = cycleCount
        self.model = model
        self.manufacturer = manufacturer
        self.technology = technology
        self.scope = scope
        self.celsius = celsius
        self.issues = issues
    }
}

extension ThermalBattery {
    /// Where `percent` came from.
    public enum PercentSource: String, Sendable, Codable {
        /// The kernel's `capacity` file.
        case capacity
        /// energy (or charge) now ÷ full.
        case computed
    }

    /// energy (or charge) now ÷ full × 100, psutil style.
    public var computedPercent: Double? {
        if let now = energyNow, let full = energyFull, full > 0 { return min(100 * now / full, 100) }
        if let now = chargeNow, let full = chargeFull, full > 0 { return min(100 * now / full, 100) }
        return nil
    }

    /// The percentage to show: `capacity` when the kernel exports it, else computed.
    public var percent: Double? { capacity ?? computedPercent }

    /// Where `percent` came from; nil when there is no percentage at all.
    public var percentSource: PercentSource? {
        if capacity != nil { return .capacity }
        return computedPercent != nil ? .computed : nil
    }

    /// full ÷ design × 100, unclamped (above 100 % is common on new packs).
    public var healthPercent: Double? {
        if let full = energyFull, let design = energyFullDesign, design > 0 { return 100 * full / design }
        if let full = chargeFull, let design = chargeFullDesign, design > 0 { return 100 * full / design }
        return nil
    }

    /// The voltage used to turn charge (Ah) into energy (Wh), as upower does.
    public var designVoltage: Double? {
        for v in [voltageMaxDesign, voltageMinDesign, voltageNow] { if let v, v > 1 { return v } }
        return nil
    }

    /// Power in or out, in W: `power_now`, else |current| × voltage.
    public var watts: Double? {
        if let p = powerNow { return p }
        if let i = currentNow, let v = voltageNow { return i * v }
        return nil
    }

    /// The rate in W that matches `energyNowWh`: `power_now` for energy gauges; for charge
    /// gauges |current| × the same voltage that turned charge into energy (mixing voltages
    /// skews a combined time to empty).
    var energyRateWatts: Double? {
        if energyNow == nil, chargeNow != nil, let i = currentNow, let v = designVoltage { return i * v }
        return watts
    }

    /// Energy now / full in Wh (charge × design voltage when only charge is known).
    public var energyNowWh: Double? {
        energyNow ?? chargeNow.flatMap { c in designVoltage.map { c * $0 } }
    }

    /// Full energy in Wh (charge × design voltage when only charge is known).
    public var energyFullWh: Double? {
        energyFull ?? chargeFull.flatMap { c in designVoltage.map { c * $0 } }
    }

    /// The rate behind a time estimate, in the gauge's own units: W for energy gauges
    /// (`power_now`), A for charge gauges (`current_now`: charge ÷ current needs no voltage).
    enum Rate { case watts(Double), amps(Double) }

    var timeRate: Rate? {
        if energyNow != nil, let p = powerNow { return .watts(p) }
        if chargeNow != nil, let i = currentNow { return .amps(i) }
        if let w = watts { return .watts(w) }
        return nil
    }

    /// True when the rate is too small for a time estimate to mean anything ("112208 days").
    var rateTooLow: Bool {
        switch timeRate {
        case .watts(let w)?: w < ThermalConfig.minimumMeaningfulBatteryWatts
        case .amps(let a)?: a < ThermalConfig.minimumMeaningfulBatteryAmps
        case nil: true
        }
    }

    /// Seconds until empty while discharging at a meaningful rate; nil otherwise.
    public var secondsToEmpty: Double? {
        guard status == .discharging, !rateTooLow, let rate = timeRate else { return nil }
        let seconds: Double
        switch rate {
        case .watts(let w):
            guard let now = energyNowWh else { return nil }
            seconds = now / w * 3600
        case .amps(let a):
            guard let now = chargeNow else { return nil }
            seconds = now / a * 3600
        }
        return seconds <= ThermalConfig.maximumSecondsToEmpty ? seconds.rounded(.down) : nil
    }

    /// Seconds until full while charging at a meaningful rate; nil otherwise.
    public var secondsToFull: Double? {
        guard status == .charging, !rateTooLow, let rate = timeRate else { return nil }
        let seconds: Double
        switch rate {
        case .watts(let w):
            guard let now = energyNowWh, let full = energyFullWh else { return nil }
            seconds = max(full - now, 0) / w * 3600
        case .amps(let a):
            guard let now = chargeNow, let full = chargeFull else { return nil }
            seconds = max(full - now, 0) / a * 3600
        }
        return seconds <= ThermalConfig.maximumSecondsToFull ? seconds.rounded(.down) : nil
    }

    /// Why there is no time to empty/full, for the UI ("unknown: rate too low").
    public var timeUnknownReason: String? {
        switch status {
        case .discharging:
            if secondsToEmpty != nil { return nil }
        case .charging:
            if secondsToFull != nil { return nil }
        default:
            return "not charging or discharging"
        }
        guard timeRate != nil else { return "no power or current reading" }
        return rateTooLow ? "rate too low to estimate" : "estimate out of range"
    }
}

/// Several system batteries seen as one, as upower's DisplayDevice does: energies and powers
/// are summed, so a small internal pack and a large external one are weighted by their size.
public struct ThermalCombinedBattery: Sendable, Equatable {
    /// The system batteries combined, in discovery order.
    public var batteries: [ThermalBattery]

    /// Combines `batteries`; one battery gives that battery's own values.
    public init(_ batteries: [ThermalBattery]) { self.batteries = batteries }

    /// The whole system's charge, as upower's DisplayDevice computes it: the energy left over
    /// the energy when full, summed over the batteries (BAT0 80 % of 20 Wh and BAT1 7 % of
    /// 60 Wh: 22.4 %, whatever each gauge's rounded `capacity` says). Without every battery's
    /// energies, each one's percentage weighted by its full energy; unknown (never a plain
    /// mean) when a battery's size is unknown.
    public var percent: Double? {
        if batteries.count > 1 {
            var now = 0.0, full = 0.0, all = true
            for i in batteries.indices {
                guard let n = batteries[i].energyNowWh, let f = batteries[i].energyFullWh, f > 0 else { all = false; break }
                now += Swift.min(n, f)
                full += f
            }
            if all { return Swift.min(100, 100 * now / full) }
        }
        // One pass over the batteries that know their percentage, summed in order (no array of
        // (percent, size) pairs: a generic type of its own, its metadata made on first use).
        var known = 0, first = 0.0, allSized = true, total = 0.0, weighted = 0.0
        for i in batteries.indices {
            guard let p = batteries[i].percent else { continue }
            known += 1
            if known == 1 { first = p }
            if let e = batteries[i].energyFullWh, e > 0 {
                total += e
                weighted += p * e
            } else {
                allSized = false
            }
        }
        if known == 0 { return nil }
        if known == 1 { return first }
        return allSized ? weighted / total : nil
    }

    /// Summed power (W) of the batteries that report one.
    public var watts: Double? {
        let ws = batteries.compactMap(\.watts)
        return ws.isEmpty ? nil : ws.reduce(0, +)
    }

    /// Discharging if any battery discharges, charging if any charges, else the first status.
    public var status: ThermalBatteryStatus? {
        // One pass, no array of the known statuses.
        var first: ThermalBatteryStatus?, discharging = false, charging = false, allFull = true
        for i in batteries.indices {
            guard let s = batteries[i].status else { continue }
            if first == nil { first = s }
            if s == .discharging { discharging = true }
            if s == .charging { charging = true }
            if s != .full { allFull = false }
        }
        if discharging { return .discharging }
        if charging { return .charging }
        if first != nil, allFull { return .full }
        return first
    }

    /// Summed rate (W), each battery's at the voltage its energy was computed with.
    var energyRateWatts: Double? {
        let ws = batteries.compactMap(\.energyRateWatts)
        return ws.isEmpty ? nil : ws.reduce(0, +)
    }

    /// Seconds until empty at the summed rate, rounded down; nil unless discharging at a meaningful rate with every battery's energy known, or when implausibly long.
    public var secondsToEmpty: Double? {
        if batteries.count == 1 { return batteries[0].secondsToEmpty }
        guard status == .discharging, let w = energyRateWatts, w >= ThermalConfig.minimumMeaningfulBatteryWatts else { return nil }
        let energies = batteries.compactMap(\.energyNowWh)
        guard energies.count == batteries.count else { return nil }
        let s = energies.reduce(0, +) / w * 3600
        return s <= ThermalConfig.maximumSecondsToEmpty ? s.rounded(.down) : nil
    }

    /// Seconds until full at the summed rate, rounded down; nil unless charging at a meaningful rate with every battery's energies known, or when implausibly long.
    public var secondsToFull: Double? {
        if batteries.count == 1 { return batteries[0].secondsToFull }
        guard status == .charging, let w = energyRateWatts, w >= ThermalConfig.minimumMeaningfulBatteryWatts else { return nil }
        let now = batteries.compactMap(\.energyNowWh), full = batteries.compactMap(\.energyFullWh)
        guard now.count == batteries.count, full.count == batteries.count else { return nil }
        let s = max(full.reduce(0, +) - now.reduce(0, +), 0) / w * 3600
        return s <= ThermalConfig.maximumSecondsToFull ? s.rounded(.down) : nil
    }
}
