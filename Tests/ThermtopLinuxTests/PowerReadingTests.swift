import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// Powercap RAPL zones, cpufreq policies and throttle counters on trees laid out as the kernel
/// lays them out (`rapl-laptop`, `rapl-laptop-throttled`), read through the real source, with
/// counters written between samples as the kernel advances them.
@Suite("Power and clocks from sysfs")
struct PowerReadingTests {
    static let pkg = "devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj"
    static let core = "devices/virtual/powercap/intel-rapl/intel-rapl:0/intel-rapl:0:0/energy_uj"
    static let range: Int64 = 262_143_328_850

    /// Two samples `seconds` apart with the package (and core) counter set before each, and
    /// the domains measured between them.
    static func domains(_ fixture: String = "rapl-laptop", package: (Int64, Int64), core: (Int64, Int64) = (0, 0),
                        seconds: Double = 1) throws -> [ThermalPowerDomain] {
        let copy = try FixtureCopy(fixture)
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        try copy.write(pkg, "\(package.0)\n")
        try copy.write(Self.core, "\(core.0)\n")
        let first = source.sample(at: 10)
        try copy.write(pkg, "\(package.1)\n")
        try copy.write(Self.core, "\(core.1)\n")
        let second = source.sample(at: 10 + seconds)
        return ThermalPowerDomains.measure(second, previous: first)
    }

    @Test("every zone is named by its `name` file, subzones under their package, and mmio's package counted once")
    func zones() {
        let snap = Fixture.sample("rapl-laptop").1
        #expect(snap.energyCounters.map(\.id) == ["rapl:package-0", "rapl:package-0:core", "rapl:package-0:uncore", "rapl:psys"])
        #expect(snap.energyCounters.map(\.name) == ["package-0", "package-0 core", "package-0 uncore", "psys"])
        #expect(snap.energyCounters[1].parent == "rapl:package-0")
        #expect(snap.energyCounters[0].rangeMicrojoules == Self.range)
        #expect(snap.energyCounters[0].limits == [ThermalPowerLimit(constraint: "long_term", watts: 28),
                                                  ThermalPowerLimit(constraint: "short_term", watts: 64),
                                                  ThermalPowerLimit(constraint: "peak_power", watts: 121)])
        // Limits of 0 are "not set": no limit to be held to.
        #expect(snap.energyCounters[1].limits.isEmpty)
        #expect(snap.cpuFrequencies.map(\.id) == ["policy0", "policy1", "policy2", "policy3"])
        #expect(snap.cpuFrequencies[0].currentKHz == 4_600_000 && snap.cpuFrequencies[0].maxKHz == 4_700_000)
        #expect(snap.cpuFrequencies[2].cpus == [2])
    }

    @Test("counters that advance give their watts: package 14 W and core 9 W over 2 s")
    func advancing() throws {
        let d = try Self.domains(package: (1_000_000_000, 1_028_000_000), core: (500_000_000, 518_000_000), seconds: 2)
        #expect(d.first { $0.id == "rapl:package-0" }?.watts == 14)
        #expect(d.first { $0.id == "rapl:package-0:core" }?.watts == 9)
        #expect(d.first { $0.id == "rapl:package-0" }?.valueText == "14 W of 28 W limit")
        // Only the counters that moved drew power; none is missing.
        #expect(d.filter { $0.source == .rapl }.count == 4)
    }

    @Test("a counter that wraps at max_energy_range_uj reads right through the wrap")
    func wrap() throws {
        let d = try Self.domains(package: (Self.range - 6_000_000, 22_000_000))
        #expect(d.first { $0.id == "rapl:package-0" }?.watts == 28)
    }

    @Test("a counter that goes backwards is an unknown sample with its reason")
    func backwards() throws {
        let d = try Self.domains(package: (900_000_000, 800_000_000))
        let p = try #require(d.first { $0.id == "rapl:package-0" })
        #expect(p.watts == nil && p.reason == "counter went backwards")
    }

    @Test("a gap too long to trust is an unknown sample, not an average")
    func longGap() throws {
        let d = try Self.domains(package: (0, 10_000_000), seconds: 900)
        #expect(d.first { $0.id == "rapl:package-0" }?.reason?.contains("too long") == true)
    }

    @Test("clocks at 2.1 of 4.7 GHz with package throttle counters rising and Processor 5/10: yes, thermal")
    func throttled() throws {
        let copy = try FixtureCopy("rapl-laptop-throttled")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let first = source.sample(at: 0)
        // 40 more package throttle events (the counter repeats on every CPU of a package).
        for n in 0..<4 { try copy.write("devices/system/cpu/cpu\(n)/thermal_throttle/package_throttle_count", "2080\n") }
        let second = source.sample(at: 2)
        let v = ThermalThrottling.assess(second, previous: first, power: ThermalPowerDomains.measure(second, previous: first))
        #expect(v.active == true && v.causes == [.thermal])
        #expect(v.text == "yes — thermal: CPU 2.1 of 4.7 GHz, package throttled 40× in 2 s, Processor 5/10")
    }

    @Test("the cool laptop at 4.6 of 4.7 GHz with steady counters: no")
    func cool() {
        let source = SysfsSource(path: Fixture.path("rapl-laptop"))
        let first = source.sample(at: 0)
        let second = source.sample(at: 1)
        let v = ThermalThrottling.assess(second, previous: first, power: ThermalPowerDomains.measure(second, previous: first))
        #expect(v.active == false)
        #expect(v.text == "no — CPU 4.6 of 4.7 GHz")
    }

    @Test("a machine without powercap or cpufreq (the real captures) has no RAPL domain and no clock")
    func absent() {
        let snap = Fixture.sample("amdgpu-rx5500xt-lact").1
        #expect(snap.energyCounters.isEmpty && snap.cpuFrequencies.isEmpty)
        let d = ThermalPowerDomains.measure(snap, previous: nil)
        #expect(d.map(\.id) == ["hwmon:amdgpu:ppt"])
        #expect(d.first?.valueText == "16 W of 130 W limit")
    }
}
