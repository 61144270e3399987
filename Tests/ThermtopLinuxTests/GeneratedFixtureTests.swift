import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

@Suite("intel-laptop")
struct IntelLaptopTests {
    @Test("zones: types, temperatures, iwlwifi EIO reported as io-error")
    func zones() throws {
        let (_, snap) = Fixture.sample("intel-laptop")
        #expect(snap.zones.map(\.id) == (0...5).map { "thermal_zone\($0)" })
        #expect(snap.zones.map(\.type) == ["acpitz", "x86_pkg_temp", "INT3400 Thermal", "SEN1", "iwlwifi_1", "B0D4"])
        #expect(snap.zones.map(\.celsius) == [47.0, 53.0, 20.0, 41.05, nil, 52.05])
        let wifi = try #require(snap.zone("thermal_zone4"))
        #expect(wifi.issues.first(forFile: "temp")?.reason == .ioError)
        #expect(wifi.issues.first(forFile: "temp")?.detail == "EIO")
        #expect(wifi.trips.count == 8)
        #expect(wifi.trips.allSatisfy { !$0.isUsable && $0.ignored?.reason == .sentinel })
        #expect(snap.zone("thermal_zone1")?.mode == "enabled")
    }

    @Test("x86_pkg_temp: the passive trip at 90 °C is used, the junk 0 trip is ignored and reported")
    func junkTrip() throws {
        let (_, snap) = Fixture.sample("intel-laptop")
        let pkg = try #require(snap.zone("thermal_zone1"))
        #expect(pkg.trips.count == 2)
        #expect(pkg.trips[0].kind == .passive && pkg.trips[0].celsius == 90 && pkg.trips[0].hysteresis == 2)
        #expect(pkg.trips[0].isUsable)
        #expect(!pkg.trips[1].isUsable)
        #expect(pkg.trips[1].ignored?.reason == .implausible)
        #expect(pkg.issues.contains { $0.file.hasSuffix("thermal_zone1/trip_point_1_temp") })
        let sensor = ThermalSensor(zone: pkg)
        #expect(sensor.passiveTrips.map(\.celsius) == [90])
        let acpitz = ThermalSensor(zone: try #require(snap.zone("thermal_zone0")))
        #expect(acpitz.passiveTrips.map(\.celsius) == [95])
        #expect(acpitz.criticalTrip?.celsius == 103)
    }

    @Test("hwmon: coretemp and nvme values and limits, sentinels as none, zone copies recognised")
    func hwmon() throws {
        let (_, snap) = Fixture.sample("intel-laptop")
        let pkg = try #require(snap.hwmon.first { $0.chip == "coretemp" && $0.label == "Package id 0" })
        #expect(pkg.celsius == 53.0 && pkg.max == 100 && pkg.crit == 100)
        let cores = snap.hwmon.filter { $0.chip == "coretemp" && ($0.label ?? "").hasPrefix("Core") }
        #expect(cores.map(\.celsius) == [51.0, 53.0, 49.0, 50.0])
        let composite = try #require(snap.hwmon.first { $0.chip == "nvme" && $0.label == "Composite" })
        #expect(composite.celsius == 38.85 && composite.max == 81.85 && composite.crit == 84.85 && composite.min == nil)
        let sensor2 = try #require(snap.hwmon.first { $0.chip == "nvme" && $0.label == "Sensor 2" })
        #expect(sensor2.celsius == 42.85 && sensor2.max == nil && sensor2.min == nil)
        #expect(snap.hwmon.first { $0.chip == "acpitz" }?.mirrorsZone == "thermal_zone0")
        #expect(snap.hwmon.first { $0.chip == "iwlwifi_1" }?.mirrorsZone == "thermal_zone4")
        // Shown once: as the zones, not again as hwmon.
        let locations = snap.temperatureSensors.map(\.location)
        #expect(!locations.contains { $0.hasPrefix("hwmon0/") || $0.hasPrefix("hwmon3/") })
        #expect(locations.filter { $0.hasPrefix("thermal_zone") }.count == 6)
        #expect(!snap.hwmon.contains { $0.chip == "BAT0" })
    }

    @Test("cooling devices, battery, AC, profile and throttle counters")
    func power() throws {
        let (_, snap) = Fixture.sample("intel-laptop")
        #expect(snap.coolingDevices.map(\.type) == ["Processor", "Processor", "intel_powerclamp", "TCC Offset"])
        #expect(snap.coolingDevices.map(\.currentState) == [0, 0, 0, 0])
        #expect(snap.coolingDevices.map(\.maxState) == [10, 10, 100, 63])
        let b = try #require(snap.battery("BAT0"))
        #expect(b.percent == 70 && b.percentSource == .capacity)
        #expect(near(b.computedPercent, 70.0, 0.005))
        #expect(b.status == .discharging)
        #expect(b.watts == 8.45)
        #expect(b.voltageNow == 12.412)
        #expect(b.secondsToEmpty == 15468)
        #expect(b.secondsToFull == nil)
        #expect(near(b.healthPercent, 91.0, 0.005))
        #expect(b.model == "5B10W51867" && b.cycleCount == 152)
        #expect(snap.acOnline == false)
        #expect(snap.lowPower.platformProfile == "balanced")
        #expect(snap.lowPower.platformProfileChoices == ["low-power", "balanced", "performance"])
        // Core counters summed over CPUs (3 + 1), the package counter counted once (5).
        #expect(snap.throttle == ThrottleCounters(core: 4, package: 5, cpus: 2))
    }

    @Test("the machine is nominal, not saving power, tier full")
    func verdict() {
        let (_, snap) = Fixture.sample("intel-laptop")
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(thermal.state == .nominal)
        #expect(!lowPower.enabled)
        #expect(QualityTier(state: thermal.state, lowPower: lowPower.enabled) == .full)
        #expect(thermal.sensors.first { $0.sensor.location == "thermal_zone4" }?.sensor.issue?.reason == .ioError)
        #expect(thermal.cooling.first { $0.device.type == "TCC Offset" }?.ignored == true)
    }
}

@Suite("intel-laptop-hot")
struct IntelLaptopHotTests {
    @Test("serious: the package row crossed x86_pkg_temp's passive trip, with that reason; Core 1, furthest past hwmon crit − 15 °C, decides")
    func serious() throws {
        let (_, snap) = Fixture.sample("intel-laptop-hot")
        #expect(snap.zone("thermal_zone1")?.celsius == 91.0)
        let (thermal, _) = Fixture.assess(snap)
        #expect(thermal.state == .serious)
        // x86_pkg_temp and coretemp Package id 0 are one die: the coretemp row takes the zone's
        // passive trip (a warning limit: serious at the trip itself), not hwmon crit − 15 °C.
        let package = try #require(thermal.sensors.first { $0.sensor.id == "platform-coretemp.0/coretemp/Package id 0" })
        #expect(package.level == .serious)
        #expect(package.reason.contains("coretemp Package id 0 91.0 °C ≥ x86_pkg_temp passive trip 90.0 °C (clears below 88.0 °C)"))
        // coretemp's max = crit = 100 °C warns of nothing: the cores are serious at crit − 15 °C
        // (docs/verdict.md), and Core 1, 6 °C past it against the package's 1 °C, decides.
        #expect(thermal.decidedBy == "platform-coretemp.0/coretemp/Core 1")
        #expect(thermal.reason.contains("coretemp Core 1 91.0 °C ≥ 85.0 °C (hwmon crit 100.0 °C − 15.0 °C) (clears below 83.0 °C)"))
        // The Processor cooling device at 5/10 is serious too, by the ChromeOS ratio; nothing is critical.
        let cdev0 = try #require(thermal.cooling.first { $0.device.id == "cooling_device0" })
        #expect(cdev0.device.currentState == 5 && cdev0.level == .serious)
        #expect(!thermal.sensors.contains { $0.level == .critical })
        #expect(!thermal.cooling.contains { $0.level == .critical })
    }

    @Test("low power on for both reasons, tier minimal")
    func lowPowerAndTier() throws {
        let (_, snap) = Fixture.sample("intel-laptop-hot")
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(lowPower.enabled)
        #expect(lowPower.reasons.contains("platform_profile is low-power"))
        #expect(lowPower.reasons.contains("battery 15 % ≤ 20 % and discharging"))
        #expect(lowPower.reasons.count == 2)
        #expect(QualityPolicy(state: thermal.state, lowPower: lowPower.enabled).tier == .minimal)
        let b = try #require(snap.battery("BAT0"))
        #expect(b.percent == 15 && b.watts == 28.5 && b.secondsToEmpty == 982)
        #expect(near(b.healthPercent, 91.0, 0.005))
        #expect(snap.throttle == ThrottleCounters(core: 78, package: 58, cpus: 2))
    }

    @MainActor
    @Test("throttle counters rising between two samples make the machine serious for 30 s")
    func throttleRise() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: SysfsSource(path: copy.path), clock: clock)
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
        try copy.write("devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "41\n")
        try copy.write("devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "58\n")
        clock.advance(by: 5)
        monitor.sample()
        #expect(monitor.thermalState == .serious)
        #expect(monitor.status.assessment.decidedBy == "throttle")
        clock.advance(by: 31)
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
    }
}

@Suite("amd-desktop")
struct AMDDesktopTests {
    @Test("k10temp Tctl/Tccd1/Tccd2, nvme, awake iGPU with limits; no zones, no supplies")
    func readings() throws {
        let (_, snap) = Fixture.sample("amd-desktop")
        #expect(snap.channel("hwmon1/temp1")?.label == "Tctl")
        #expect(snap.channel("hwmon1/temp1")?.celsius == 48.25)
        #expect(snap.channel("hwmon1/temp3")?.celsius == 45.5)
        #expect(snap.channel("hwmon1/temp4")?.celsius == 44.75)
        #expect(snap.channel("hwmon1/temp2") == nil)
        let nvme = try #require(snap.channel("hwmon0/temp1"))
        #expect(nvme.celsius == 36.85 && nvme.max == 81.85 && nvme.crit == 84.85 && nvme.min == nil)
        let igpu = try #require(snap.channel("hwmon3/temp1"))
        #expect(igpu.chip == "amdgpu" && igpu.label == "edge" && igpu.celsius == 45.0)
        #expect(igpu.crit == 100 && igpu.emergency == 105 && igpu.critHyst == nil && igpu.asleep == nil)
        #expect(snap.zones.isEmpty && snap.coolingDevices.isEmpty)
        #expect(snap.batteries.isEmpty && snap.adapters.isEmpty && snap.acOnline == nil)
        #expect(snap.lowPower.platformProfile == nil)
        #expect(snap.throttle == nil)
        #expect(Fixture.assess(snap).0.state == .nominal)
    }

    @Test("the .gitkeep in an empty class folder is not a device and not a problem")
    func gitkeepIgnored() {
        let (_, snap) = Fixture.sample("amd-desktop")
        #expect(!snap.allIssues.contains { $0.file.contains(".gitkeep") }, "\(snap.allIssues)")
        #expect(!snap.allIssues.contains { $0.reason == .vanished })
    }

    @Test("the D3cold dGPU is reported asleep and its temperatures are not read")
    func asleepNotRead() throws {
        let copy = try FixtureCopy("amd-desktop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        source.rediscover()
        var before = source.root.readCount
        let asleep = source.sample(at: 0)
        let asleepReads = source.root.readCount - before
        let edge = try #require(asleep.channel("hwmon2/temp1"))
        let junction = try #require(asleep.channel("hwmon2/temp2"))
        #expect(edge.asleep == "D3cold" && junction.asleep == "D3cold")
        #expect(edge.celsius == nil && junction.celsius == nil)
        #expect(edge.label == "edge" && edge.crit != nil)
        #expect(ThermalSensor(channel: edge).issue?.reason == .deviceAsleep)
        #expect(!asleep.hwmon.contains { $0.celsius == 33.0 || $0.celsius == 34.0 })
        #expect(Fixture.assess(asleep).0.sensors.first { $0.sensor.location == "hwmon2/temp1" }?.sensor.issue?.reason == .deviceAsleep)

        // Wake the GPU (the kernel resumes it: D0 and runtime "active"): the two inputs are now
        // read, plus runtime_status, which is only consulted once power_state says D0.
        try copy.write("class/hwmon/hwmon2/device/power_state", "D0\n")
        try copy.write("class/hwmon/hwmon2/device/power/runtime_status", "active\n")
        before = source.root.readCount
        let awake = source.sample(at: 1)
        #expect(source.root.readCount - before == asleepReads + 3)
        #expect(awake.channel("hwmon2/temp1")?.celsius == 33.0)
        #expect(awake.channel("hwmon2/temp2")?.celsius == 34.0)
        #expect(awake.channel("hwmon2/temp1")?.asleep == nil)
    }
}

@Suite("arm-board")
struct ARMBoardTests {
    @Test("device-tree zones with passive and critical trips, not integer-divided")
    func zones() throws {
        let (_, snap) = Fixture.sample("arm-board")
        let cpu = try #require(snap.zone("thermal_zone0"))
        #expect(cpu.type == "cpu-thermal" && cpu.celsius == 52.582 && cpu.mode == "enabled" && cpu.policy == "step_wise")
        #expect(cpu.trips.map(\.kind) == [.passive, .critical])
        #expect(cpu.trips.map(\.celsius) == [75, 90])
        #expect(cpu.trips[0].hysteresis == 2)
        let gpu = try #require(snap.zone("thermal_zone1"))
        #expect(gpu.type == "gpu-thermal" && gpu.celsius == 49.843)
        #expect(gpu.trips.map(\.celsius) == [80, 95])
    }

    @Test("the hwmon copies of the zones are recognised and shown once; the fan chip has no channels")
    func mirrors() throws {
        let (_, snap) = Fixture.sample("arm-board")
        #expect(snap.channel("hwmon0/temp1")?.mirrorsZone == "thermal_zone0")
        #expect(snap.channel("hwmon1/temp1")?.mirrorsZone == "thermal_zone1")
        #expect(snap.channel("hwmon0/temp1")?.celsius == 52.582)
        #expect(snap.channel("hwmon0/temp1")?.crit == 90)
        #expect(!snap.hwmon.contains { $0.device == "hwmon2" })
        #expect(snap.temperatureSensors.map(\.location) == ["thermal_zone0", "thermal_zone1"])
        #expect(snap.temperatureSensors.map(\.id) == ["virtual/thermal/cpu-thermal", "virtual/thermal/gpu-thermal"])
    }

    @Test("cooling devices: cpufreq 0/4 and pwm-fan 1/3, both nominal; no battery, AC unknown")
    func cooling() throws {
        let (_, snap) = Fixture.sample("arm-board")
        let cpufreq = try #require(snap.cooling("cooling_device0"))
        #expect(cpufreq.type == "thermal-cpufreq-0" && cpufreq.currentState == 0 && cpufreq.maxState == 4)
        let fan = try #require(snap.cooling("cooling_device1"))
        #expect(fan.type == "pwm-fan" && fan.currentState == 1 && fan.maxState == 3)
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(thermal.cooling.map(\.level) == [.nominal, .nominal])
        #expect(thermal.cooling.map(\.kind) == [.processor, .fan])
        #expect(thermal.state == .nominal)
        #expect(!lowPower.enabled)
        #expect(snap.batteries.isEmpty && snap.acOnline == nil && snap.lowPower.platformProfile == nil)
        #expect(snap.allIssues.isEmpty, "\(snap.allIssues)")
    }
}

@Suite("two-battery-laptop")
struct TwoBatteryLaptopTests {
    @Test("BAT0 and BAT1 from charge and current only")
    func batteries() throws {
        let (_, snap) = Fixture.sample("two-battery-laptop")
        #expect(snap.batteries.map(\.id) == ["BAT0", "BAT1"])
        let b0 = try #require(snap.battery("BAT0"))
        #expect(b0.percent == 75 && b0.energyNow == nil && b0.powerNow == nil)
        #expect(near(b0.watts, 5.018, 0.001))
        #expect(b0.secondsToEmpty == 12661)
        #expect(near(b0.healthPercent, 92.0, 0.005))
        let b1 = try #require(snap.battery("BAT1"))
        #expect(b1.percent == 60)
        #expect(near(b1.watts, 11.290, 0.001))
        #expect(b1.secondsToEmpty == 12849)
        #expect(near(b1.healthPercent, 91.09, 0.005))
    }

    @Test("combined percent is weighted by energy (about 63.8 %), never the plain mean 67.5 %")
    func combined() throws {
        let (_, snap) = Fixture.sample("two-battery-laptop")
        let c = ThermalCombinedBattery(snap.batteries)
        let pct = try #require(c.percent)
        #expect(pct > 63.7 && pct < 63.9, "combined \(pct)")
        #expect(near(c.watts, 16.308, 0.001))
        let t = try #require(c.secondsToEmpty)
        #expect([12791, 12793].contains(t), "combined time to empty \(t)")
        #expect(c.status == .discharging)
    }

    @Test("the mouse is a peripheral and the empty bay BAT2 is not a battery")
    func notSystemBatteries() throws {
        let (_, snap) = Fixture.sample("two-battery-laptop")
        #expect(snap.peripherals.map(\.id) == ["hidpp_battery_0"])
        #expect(snap.peripherals.first?.model == "MX Master 3")
        #expect(snap.peripherals.first?.scope == "Device")
        #expect(!snap.batteries.contains { $0.id == "BAT2" || $0.id == "hidpp_battery_0" })
        #expect(!snap.peripherals.contains { $0.id == "BAT2" })
        #expect(snap.acOnline == false)
    }

    @Test("acpitz with only a critical trip at 128 °C: serious at 113 °C, nominal now, the hwmon copy deduplicated")
    func zone() throws {
        let (_, snap) = Fixture.sample("two-battery-laptop")
        let z = try #require(snap.zone("thermal_zone0"))
        #expect(z.type == "acpitz" && z.celsius == 45.0)
        #expect(snap.channel("hwmon0/temp1")?.mirrorsZone == "thermal_zone0")
        #expect(snap.temperatureSensors.map(\.location) == ["thermal_zone0"])
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(thermal.sensors.first?.thresholds.serious.celsius == 113)
        #expect(thermal.state == .nominal)
        #expect(!lowPower.enabled)
    }
}
