import Testing
@testable import ThermtopCore

@Suite("Watts from energy counters")
struct EnergyRateTests {
    static let range: Int64 = 262_143_328_850

    @Test("an advancing counter gives Δenergy / Δtime")
    func advances() {
        #expect(ThermalEnergyRate.between(previous: 1_000_000, current: 29_000_000, seconds: 2, range: Self.range, wraps: true) == .watts(14))
    }

    @Test("a wrap at max_energy_range_uj is corrected: (range − previous) + current")
    func wraps() {
        let r = ThermalEnergyRate.between(previous: Self.range - 10_000_000, current: 18_000_000, seconds: 1, range: Self.range, wraps: true)
        #expect(r == .watts(28))
    }

    @Test("a counter that went backwards is unknown, never negative and never a spike")
    func backwards() {
        #expect(ThermalEnergyRate.between(previous: 50_000_000, current: 49_000_000, seconds: 1, range: Self.range, wraps: true)
            == .unknown("counter went backwards"))
        #expect(ThermalEnergyRate.between(previous: 50_000_000, current: 49_000_000, seconds: 1, range: nil, wraps: false)
            == .unknown("counter went backwards"))
    }

    @Test("an unreadable range makes the rate unknown: a wrap could hide in any rise")
    func unknownRange() {
        guard case .unknown(let why) = ThermalEnergyRate.between(previous: 1, current: 2_000_000, seconds: 1, range: nil, wraps: true) else {
            Issue.record("a rate without a range"); return
        }
        #expect(why.contains("max_energy_range_uj"))
    }

    @Test("a gap long enough for two wraps at the highest plausible power is not trusted")
    func longGap() {
        // 262 kJ goes round in 131 s at 2000 W.
        guard case .unknown(let why) = ThermalEnergyRate.between(previous: 1, current: 2, seconds: 200, range: Self.range, wraps: true) else {
            Issue.record("a rate over a gap that may hold two wraps"); return
        }
        #expect(why.contains("too long"))
        #expect(ThermalEnergyRate.between(previous: 1, current: 100_000_001, seconds: 100, range: Self.range, wraps: true) == .watts(1))
    }

    @Test("the first sample has no rate: it needs two samples")
    func first() {
        #expect(ThermalEnergyRate.between(previous: nil, current: 5, seconds: 0, range: Self.range, wraps: true) == .unknown("needs two samples"))
    }
}

@Suite("Power domains")
struct PowerDomainTests {
    static func counter(_ uj: Int64?, id: String = "rapl:package-0", issues: [ReadingIssue] = []) -> ThermalEnergyCounter {
        ThermalEnergyCounter(id: id, name: "package-0", source: .rapl, location: "class/powercap/intel-rapl:0",
                             microjoules: uj, rangeMicrojoules: 262_143_328_850,
                             limits: [ThermalPowerLimit(constraint: "long_term", watts: 28)], issues: issues)
    }

    static func snap(_ t: Double, _ uj: Int64?, issues: [ReadingIssue] = []) -> ThermalSnapshot {
        var s = ThermalSnapshot(time: t)
        s.energyCounters = [counter(uj, issues: issues)]
        return s
    }

    @Test("a root-only counter is unknown with the reason and the fix, never 0 and never missing")
    func rootOnly() {
        let denied = [ReadingIssue(file: "class/powercap/intel-rapl:0/energy_uj", reason: .permissionDenied, detail: "EACCES")]
        let d = ThermalPowerDomains.measure(Self.snap(1, nil, issues: denied), previous: Self.snap(0, nil, issues: denied))
        #expect(d.count == 1)
        #expect(d.first?.watts == nil)
        #expect(d.first?.reason == "needs root, or the udev rule in contrib/")
        #expect(d.first?.valueText == "unknown (needs root, or the udev rule in contrib/)")
    }

    @Test("28 W against a 28 W long-term limit reads `28 W of 28 W limit` and is at its limit")
    func atLimit() {
        let d = ThermalPowerDomains.measure(Self.snap(1, 28_000_000), previous: Self.snap(0, 0))
        #expect(d.first?.valueText == "28 W of 28 W limit")
        #expect(d.first?.atLimit == true)
    }

    @Test("NVML power and the battery's rate are domains of the same kind as RAPL")
    func joined() {
        var s = Self.snap(1, 5)
        var g = ThermalGPU(busID: "0000:01:00.0")
        g.name = "NVIDIA H200"
        g.powerWatts = 120
        g.powerLimitWatts = 700
        s.gpus = [g]
        s.batteries = [ThermalBattery(id: "BAT0", powerNow: 9.5)]
        let d = ThermalPowerDomains.measure(s, previous: nil)
        #expect(d.map(\.id) == ["rapl:package-0", "gpu:0", "battery:BAT0"])
        #expect(d.map(\.source) == [.rapl, .nvml, .battery])
        #expect(d[0].reason == "needs two samples")
        #expect(d[1].valueText == "120 W of 700 W limit")
        #expect(d[2].watts == 9.5)
    }

    @Test("the config file renames and hides a domain by its id")
    func config() {
        var c = ThermalConfig()
        c.rules = [SensorRule(match: "rapl:package-0", name: "CPU package").patternOverride,
                   SensorRule(match: "battery:*", hide: true).patternOverride]
        var s = Self.snap(1, 5)
        s.batteries = [ThermalBattery(id: "BAT0")]
        let d = ThermalPowerDomains.measure(s, previous: nil, config: c)
        #expect(d[0].name == "CPU package" && !d[0].hidden)
        #expect(d[1].hidden)
    }
}

@Suite("Throttling, answered plainly")
struct ThrottlingVerdictTests {
    static func snap(_ t: Double, clock: Double?, processor: Int? = nil, package: Int64? = nil) -> ThermalSnapshot {
        var s = ThermalSnapshot(time: t)
        if let clock {
            s.cpuFrequencies = [ThermalCPUFrequency(id: "policy0", cpus: [0], currentKHz: clock, maxKHz: 4_700_000)]
        }
        if let processor { s.coolingDevices = [CoolingDevice(id: "cooling_device0", type: "Processor", currentState: processor, maxState: 10)] }
        if let package { s.throttle = ThrottleCounters(core: 0, package: package, cpus: 4) }
        return s
    }

    @Test("rising package counters and an engaged Processor device: yes, thermal, with the clock")
    func thermal() {
        let v = ThermalThrottling.assess(Self.snap(2, clock: 2_100_000, processor: 5, package: 140),
                                         previous: Self.snap(0, clock: 2_200_000, processor: 5, package: 100), power: [])
        #expect(v.active == true)
        #expect(v.causes == [.thermal])
        #expect(v.text == "yes — thermal: CPU 2.1 of 4.7 GHz, package throttled 40× in 2 s, Processor 5/10")
    }

    @Test("a cool machine at full clock: no, with the clock")
    func cool() {
        let v = ThermalThrottling.assess(Self.snap(1, clock: 4_600_000, processor: 0, package: 7),
                                         previous: Self.snap(0, clock: 4_600_000, processor: 0, package: 7), power: [])
        #expect(v.active == false && v.causes.isEmpty)
        #expect(v.text == "no — CPU 4.6 of 4.7 GHz")
    }

    @Test("an idle machine with a low clock and nothing holding it is not throttling")
    func idleLowClock() {
        let v = ThermalThrottling.assess(Self.snap(1, clock: 800_000, processor: 0, package: 7),
                                         previous: Self.snap(0, clock: 800_000, processor: 0, package: 7), power: [])
        #expect(v.active == false)
        #expect(v.text.hasPrefix("no — CPU 0.8 of 4.7 GHz"))
    }

    @Test("a package at its power limit with the clock held down: yes, power limit")
    func power() {
        let domain = ThermalPowerDomain(id: "rapl:package-0", name: "package-0", source: .rapl, watts: 27.9,
                                        limits: [ThermalPowerLimit(constraint: "long_term", watts: 28)])
        let v = ThermalThrottling.assess(Self.snap(1, clock: 3_000_000), previous: Self.snap(0, clock: 3_000_000), power: [domain])
        #expect(v.active == true && v.causes == [.power])
        #expect(v.text == "yes — power limit: CPU 3.0 of 4.7 GHz, package-0 28 W of 28 W limit")
        // At the limit but at full clock: the limit is not holding it back.
        let full = ThermalThrottling.assess(Self.snap(1, clock: 4_650_000), previous: nil, power: [domain])
        #expect(full.active == false)
    }

    @Test("GPU clock-event reasons give the causes: thermal slowdown and power cap")
    func gpu() {
        var s = ThermalSnapshot(time: 0)
        var g = ThermalGPU(busID: "0000:01:00.0")
        g.name = "H200"
        g.clockReasons = ThermalGPUClockReason.swThermalSlowdown | ThermalGPUClockReason.swPowerCap
        s.gpus = [g]
        let v = ThermalThrottling.assess(s, previous: nil, power: [])
        #expect(v.active == true && v.causes == [.thermal, .power])
        #expect(v.text == "yes — thermal and power limit: GPU H200 thermal slowdown, GPU H200 power cap")
    }

    @Test("nothing that could tell: unknown (null), and counters alone need two samples")
    func unknown() {
        #expect(ThermalThrottling.assess(ThermalSnapshot(time: 0), previous: nil, power: []).active == nil)
        let once = ThermalThrottling.assess(Self.snap(0, clock: nil, package: 5), previous: nil, power: [])
        #expect(once.active == nil && once.text == "unknown — needs two samples")
    }
}

@Suite("The simulated laptop's power and clock")
struct SimulatedPowerTests {
    @Test("at full load it heats past its passive trip: package watts from its counter, and Throttling yes — thermal with the clock held down")
    func fullLoad() {
        let laptop = SimulatedLaptop(load: 1, adapterOnline: true)
        var previous: ThermalSnapshot?
        var last: (power: [ThermalPowerDomain], throttling: ThermalThrottling)?
        for t in 0...120 {
            let snap = laptop.sample(at: Double(t))
            let power = ThermalPowerDomains.measure(snap, previous: previous)
            last = (power, ThermalThrottling.assess(snap, previous: previous, power: power))
            previous = snap
        }
        let pkg = last?.power.first { $0.id == "rapl:package-0" }
        // Held below its 28 W limit by the throttling.
        #expect(pkg?.watts.map { $0 > 10 && $0 < 28 } == true, "\(String(describing: pkg))")
        #expect(last?.throttling.active == true && last?.throttling.causes.contains(.thermal) == true)
        #expect(last?.throttling.text.hasPrefix("yes — thermal: CPU ") == true, "\(last?.throttling.text ?? "")")
    }
}
