import Testing
import Thermtop
import ThermtopCore

@MainActor
@Suite("SimulatedLaptop")
struct SimulatedLaptopTests {
    private func package(_ s: ThermalSnapshot) -> Double? { s.zones.first { $0.type == "x86_pkg_temp" }?.celsius }

    @Test("raising the load heats the package until the machine is serious; lowering it cools back to nominal")
    func heatsAndCools() {
        let laptop = SimulatedLaptop(load: 0.2)
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: laptop, clock: clock)
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
        let idle = try! #require(package(monitor.snapshot))

        laptop.setLoad(0.9)
        clock.advance(by: 10)
        monitor.sample()
        let warming = try! #require(package(monitor.snapshot))
        #expect(warming > idle)

        var reachedSerious: Double?
        for step in 1...60 {
            clock.advance(by: 10)
            monitor.sample()
            if monitor.thermalState >= .serious { reachedSerious = Double(step) * 10; break }
        }
        #expect(reachedSerious != nil, "still \(monitor.thermalState) at \(package(monitor.snapshot) ?? -1) °C")
        #expect(monitor.tier == .minimal)
        let hot = try! #require(package(monitor.snapshot))
        #expect(hot >= 90)

        laptop.setLoad(0)
        for _ in 1...60 {
            clock.advance(by: 10)
            monitor.sample()
        }
        #expect(try! #require(package(monitor.snapshot)) < hot - 20)
        #expect(monitor.thermalState == .nominal)
        #expect(monitor.tier == .full)
    }

    @Test("the load moves in steps of 0.1 and stays within 0…1")
    func loadSteps() {
        let laptop = SimulatedLaptop(load: 0.95)
        laptop.raiseLoad()
        #expect(laptop.load == 1)
        laptop.setLoad(-3)
        #expect(laptop.load == 0)
        laptop.raiseLoad()
        laptop.raiseLoad()
        #expect(abs(laptop.load - 0.2) < 1e-9)
        laptop.lowerLoad()
        #expect(abs(laptop.load - 0.1) < 1e-9)
    }

    @Test("on battery the battery drains, faster under load; on the adapter it charges")
    func battery() {
        let idle = SimulatedLaptop(load: 0, batteryPercent: 50)
        let busy = SimulatedLaptop(load: 1, batteryPercent: 50)
        for l in [idle, busy] {
            _ = l.sample(at: 0)
            _ = l.sample(at: 600)
        }
        let idleDrop = 26 - idle.batteryWh
        let busyDrop = 26 - busy.batteryWh
        #expect(idleDrop > 0)
        #expect(busyDrop > idleDrop)
        let snap = busy.sample(at: 600)
        #expect(snap.batteries.first?.status == .discharging)
        #expect(snap.adapters.first?.online == false)
        #expect((snap.batteries.first?.percent ?? 100) < 50)

        let plugged = SimulatedLaptop(load: 0.5, adapterOnline: true, batteryPercent: 50)
        _ = plugged.sample(at: 0)
        let later = plugged.sample(at: 600)
        #expect(plugged.batteryWh > 26)
        #expect(later.batteries.first?.status == .charging)
        #expect(later.batteries.first?.secondsToFull != nil)
    }

    @Test("sampling twice at the same time changes nothing; the source says it is simulated")
    func pureInTime() {
        let laptop = SimulatedLaptop(load: 0.8)
        let a = laptop.sample(at: 5)
        let b = laptop.sample(at: 5)
        #expect(a == b)
        #expect(laptop.isSimulated)
        let monitor = ThermalMonitor(source: laptop, clock: ManualMonitorClock())
        monitor.sample()
        #expect(monitor.status.sourceIsSimulated)
        #expect(ThermalStatusReport.text(monitor.status).contains("SIMULATED"))
    }
}
