/// A small physical model of a laptop, for machines without sensors (containers, VMs, CI) and
/// for demos: a CPU package, a skin (ACPI) zone and an SSD that heat with load and cool toward
/// ambient, a processor cooling device that throttles past the passive trip, a fan, and a
/// battery that drains with load or charges on the adapter. A pure function of the times it is
/// sampled at and the load it is given: no clock or randomness of its own.
public final class SimulatedLaptop: ThermalSensorSource {
    public let label = "simulated laptop"
    public let isSimulated = true

    /// CPU load, 0…1. The dashboard's `+` / `-` move it in steps of 0.1.
    public private(set) var load: Double
    /// Whether the charger is plugged in.
    public var adapterOnline: Bool

    /// The room's temperature, °C.
    public static let ambient = 30.0
    /// The battery's full charge, Wh.
    public static let batteryFullWh = 52.0
    /// The battery's design capacity, Wh.
    public static let batteryDesignWh = 57.0

    /// The CPU package's temperature, °C.
    public private(set) var packageC: Double
    /// The chassis skin's temperature, °C.
    public private(set) var skinC: Double
    /// The SSD's temperature, °C.
    public private(set) var ssdC: Double
    /// The battery's charge, Wh.
    public private(set) var batteryWh: Double
    private var lastTime: Double?
    /// The package's RAPL energy counter, µJ (wraps at `raplRange` like the real one).
    public private(set) var packageMicrojoules: Int64 = 64_311_123_456
    static let raplRange: Int64 = 262_143_328_850
    static let packageLongTermWatts = 28.0
    static let maxClockKHz = 4_700_000.0

    /// A laptop at `load` (0…1), with or without its charger, at `batteryPercent`.
    public init(load: Double = 0.25, adapterOnline: Bool = false, batteryPercent: Double = 72) {
        self.load = min(max(load, 0), 1)
        self.adapterOnline = adapterOnline
        let eq = Self.equilibria(load: self.load)
        packageC = eq.package
        skinC = eq.skin
        ssdC = eq.ssd
        batteryWh = Self.batteryFullWh * batteryPercent / 100
    }

    /// Set the load (0…1, in steps of 0.1).
    public func setLoad(_ value: Double) { load = min(max((value * 10).rounded() / 10, 0), 1) }
    /// Raise the load by 0.1.
    public func raiseLoad() { setLoad(load + 0.1) }
    /// Lower the load by 0.1.
    public func lowerLoad() { setLoad(load - 0.1) }

    public func adjustLoad(by delta: Double) -> Double? {
        setLoad(load + delta)
        return load
    }

    public var simulatedLoad: Double? { load }

    /// Temperatures each part settles at for a given load.
    public static func equilibria(load: Double) -> (package: Double, skin: Double, ssd: Double) {
        (ambient + 12 + 66 * load, ambient + 8 + 52 * load, ambient + 6 + 30 * load)
    }

    /// Watts leaving (positive) or entering (negative) the battery.
    public var batteryWatts: Double {
        if adapterOnline { return batteryWh < Self.batteryFullWh - 0.01 ? -25 : 0 }
        return 5 + 30 * load
    }

    /// Throttle step of the processor cooling device (0…10): the kernel throttles past the
    /// passive trip at 90 °C.
    public var processorCoolingState: Int { min(10, max(0, Int(((packageC - 88) / 1.0).rounded(.down)))) }
    /// Package power: idle 4 W up to its 28 W long-term limit at full load, less while the
    /// processor cooling device throttles it.
    public var packageWatts: Double {
        (4 + 24 * load) * (1 - 0.05 * Double(processorCoolingState))
    }
    /// The CPU clock: 0.8 GHz idle up to 4.7 GHz under load, held down while throttled.
    public var clockKHz: Double {
        (800_000 + (Self.maxClockKHz - 800_000) * load) * (1 - 0.06 * Double(processorCoolingState))
    }

    /// Fan stage 0…3 from the skin temperature.
    public var fanState: Int { skinC >= 82 ? 3 : skinC >= 70 ? 2 : skinC >= 55 ? 1 : 0 }

    /// Whether the wireless mouse (a peripheral battery) is paired. Each rediscovery pairs or
    /// unpairs it, so the tier-paced refresh visibly finds devices coming and going.
    public private(set) var mousePaired = false
    /// Rediscoveries asked of it.
    public private(set) var rediscoveries = 0

    public func rediscover() {
        rediscoveries += 1
        mousePaired.toggle()
    }

    public func sample(at time: Double) -> ThermalSnapshot {
        if let last = lastTime, time > last { advance(by: min(time - last, 600)) }
        lastTime = time
        return snapshot(at: time)
    }

    private func advance(by seconds: Double) {
        let eq = Self.equilibria(load: load)
        var remaining = seconds
        while remaining > 0 {
            let dt = min(remaining, 0.5)
            // Newtonian heating/cooling with a time constant per part; throttling pulls the
            // package back toward its passive trip.
            var pkgTarget = eq.package
            if processorCoolingState > 0 { pkgTarget -= Double(processorCoolingState) * 1.5 }
            packageC += (pkgTarget - packageC) * dt / 6
            skinC += (eq.skin - skinC) * dt / 40
            ssdC += (eq.ssd - ssdC) * dt / 60
            batteryWh = min(Self.batteryFullWh, max(0, batteryWh - batteryWatts * dt / 3600))
            packageMicrojoules = (packageMicrojoules + Int64(packageWatts * dt * 1e6)) % Self.raplRange
            remaining -= dt
        }
    }

    private func snapshot(at time: Double) -> ThermalSnapshot {
        let pkgTrips = [
            TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: 2),
            TripPoint(index: 1, kind: .critical, celsius: 105, hysteresis: 0),
        ]
        let skinTrips = [
            TripPoint(index: 0, kind: .passive, celsius: 80, hysteresis: 3),
            TripPoint(index: 1, kind: .hot, celsius: 92, hysteresis: 2),
            TripPoint(index: 2, kind: .critical, celsius: 98, hysteresis: 0),
        ]
        let w = batteryWatts
        let status: ThermalBatteryStatus = adapterOnline ? (w < 0 ? .charging : .full) : .discharging
        let pct = 100 * batteryWh / Self.batteryFullWh
        let battery = ThermalBattery(
            id: "BAT0", present: true, status: status, capacity: pct.rounded(.down), capacityLevel: "Normal",
            energyNow: batteryWh, energyFull: Self.batteryFullWh, energyFullDesign: Self.batteryDesignWh,
            powerNow: abs(w), voltageNow: 11.4 + 1.2 * pct / 100, voltageMinDesign: 11.4, cycleCount: 212,
            model: "SIM-52Wh", manufacturer: "thermtop", technology: "Li-ion", scope: "System")
        var snap = ThermalSnapshot(
            time: time,
            zones: [
                ThermalZone(id: "thermal_zone0", type: "acpitz", celsius: round1(skinC), mode: "enabled",
                            policy: "step_wise", trips: skinTrips),
                ThermalZone(id: "thermal_zone1", type: "x86_pkg_temp", celsius: round1(packageC), mode: "enabled",
                            policy: "step_wise", trips: pkgTrips),
            ],
            coolingDevices: [
                CoolingDevice(id: "cooling_device0", type: "Processor", currentState: processorCoolingState, maxState: 10),
                CoolingDevice(id: "cooling_device1", type: "Fan", currentState: fanState, maxState: 3),
            ],
            hwmon: [
                HwmonChannel(device: "hwmon1", chip: "coretemp", channel: "temp1", label: "Package id 0",
                             celsius: round1(packageC), max: 90, crit: 105, mirrorsZone: "thermal_zone1"),
                HwmonChannel(device: "hwmon2", chip: "nvme", channel: "temp1", label: "Composite",
                             celsius: round1(ssdC), max: 81.85, crit: 84.85),
            ],
            batteries: [battery],
            peripherals: mousePaired ? [ThermalBattery(id: "hidpp_battery_0", present: true, status: .discharging,
                                                capacity: 64, model: "SIM Mouse", manufacturer: "thermtop",
                                                scope: "Device")] : [],
            adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: adapterOnline)],
            lowPower: LowPowerSignals(platformProfile: "balanced", platformProfileChoices: ["low-power", "balanced", "performance"])
        )
        snap.energyCounters = [ThermalEnergyCounter(
            id: "rapl:package-0", name: "package-0", source: .rapl, location: "class/powercap/intel-rapl:0",
            microjoules: packageMicrojoules, rangeMicrojoules: Self.raplRange,
            limits: [ThermalPowerLimit(constraint: "long_term", watts: Self.packageLongTermWatts),
                     ThermalPowerLimit(constraint: "short_term", watts: 64)])]
        snap.cpuFrequencies = [ThermalCPUFrequency(id: "policy0", cpus: [0, 1, 2, 3], currentKHz: clockKHz.rounded(),
                                                   maxKHz: Self.maxClockKHz)]
        return snap
    }

    private func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}
