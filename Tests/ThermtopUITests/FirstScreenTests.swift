import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38: the first screen answers at a glance and never misleads.
@Suite struct FirstScreenTests {
    /// A laptop whose coretemp package is folded with its cores under one headline row.
    static func coretemp(package: Double, cores: [Double], max: Double = 85) -> ThermalSnapshot {
        var channels = [HwmonChannel(device: "hwmon3", chip: "coretemp", channel: "temp1", label: "Package id 0",
                                     celsius: package, max: max, crit: 100)]
        for (i, c) in cores.enumerated() {
            channels.append(HwmonChannel(device: "hwmon3", chip: "coretemp", channel: "temp\(i + 2)", label: "Core \(i)",
                                         celsius: c, max: max, crit: 100))
        }
        return ThermalSnapshot(time: 0, hwmon: channels, batteries: [], adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: true)])
    }

    /// The desktop of the issue: k10temp's Tctl reads 10 °C above Tdie.
    static func k10temp(tctl: Double, tdie: Double) -> ThermalSnapshot {
        ThermalSnapshot(time: 0, hwmon: [
            HwmonChannel(device: "hwmon1", chip: "k10temp", channel: "temp1", label: "Tctl", celsius: tctl),
            HwmonChannel(device: "hwmon1", chip: "k10temp", channel: "temp2", label: "Tdie", celsius: tdie),
            HwmonChannel(device: "hwmon1", chip: "k10temp", channel: "temp3", label: "Tccd1", celsius: tdie - 3),
        ], batteries: [], adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: true)])
    }

    static func row(_ text: String, of buffer: CellBuffer) -> String? {
        buffer.rows.first { $0.contains(text) }
    }

    @Test("the deciding sensor is on the first screen and marked ▶ even when it is a core folded under its package, at every size")
    func decidingMemberIsShown() throws {
        let state = Fixtures.appState([Self.coretemp(package: 80, cores: [70, 91, 72, 71])], sourceLabel: "/sys", simulated: false)
        let decider = try #require(state.status.assessment.decidedBy)
        let a = try #require(state.status.assessment.sensors.first { $0.sensor.id == decider })
        #expect(a.sensor.displayName.contains("Core 1"), "Core 1 should decide: \(state.status.assessment.reason)")
        #expect(a.sensor.memberOf != nil, "the test needs Core 1 folded under the package")
        #expect(state.sortedSensors.first?.sensor.id == decider, "the deciding sensor is the first row")
        for size in [Size.compact, .standard, .medium, .large] {
            let screen = state.render(size)
            let marked = screen.rows.filter { $0.hasPrefix("▶") }
            #expect(marked.count == 1 && marked.first?.contains("Core 1") == true, "Core 1 not listed and marked ▶ at \(size):\n\(screen.text())")
        }
        // The package's fold counts only the cores still folded under it.
        let screen = state.render(.large)
        #expect(screen.rows.contains { $0.contains("Package id 0") && $0.contains("+3") }, "\(screen.text())")
    }

    @Test("at nominal the sensor the reason cites (Tctl) is listed, not only the headline that reads 10 °C less")
    func citedSensorIsShown() throws {
        let state = Fixtures.appState([Self.k10temp(tctl: 61.5, tdie: 51.5)], sourceLabel: "/sys", simulated: false)
        let reason = state.status.assessment.reason
        #expect(reason.contains("Tctl"), "reason: \(reason)")
        let screen = state.render(.standard)
        // A sensor row (the reason line names Tctl itself).
        #expect(screen.rows.contains { $0.contains("Tctl") && !$0.contains("closest") }, "the reason cites Tctl but no row shows it:\n\(screen.text())")
    }
}
