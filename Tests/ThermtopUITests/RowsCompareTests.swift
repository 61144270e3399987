import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 8: rows compare, and colour means alarm.
@Suite struct RowsCompareTests {
    /// A cool desktop: a CPU and an NVMe drive both at 48 °C (with different limits) and a GPU
    /// hotter than the CPU history shows.
    static func coolDesktop(cpu: Double = 48, nvme: Double = 48, gpu: Double = 60) -> ThermalSnapshot {
        ThermalSnapshot(time: 0, hwmon: [
            HwmonChannel(device: "hwmon1", chip: "k10temp", channel: "temp1", label: "Tctl", celsius: cpu),
            HwmonChannel(device: "hwmon2", chip: "nvme", channel: "temp1", label: "Composite", celsius: nvme, max: 81.85, crit: 84.85),
            HwmonChannel(device: "hwmon3", chip: "amdgpu", channel: "temp1", label: "edge", celsius: gpu, crit: 110, emergency: 115),
        ], batteries: [], adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: true)])
    }

    /// Filled cells of the row's bar (before its level word).
    static func filledCells(_ row: String) -> Int {
        let bar = row.range(of: " nominal").map { row[..<$0.lowerBound] } ?? Substring(row)
        return bar.filter { $0 == "█" }.count
    }

    @Test("two sensors at 48.0 °C with different limits get bars of the same length, and a cold machine shows no alarm colour in its rows")
    func barsOnOneScale() throws {
        let state = Fixtures.appState([Self.coolDesktop()], sourceLabel: "/sys", simulated: false)
        #expect(state.status.assessment.state == .nominal)
        let screen = state.render(.large)
        let cpu = try #require(screen.rows.firstIndex { $0.contains("Tctl") && $0.contains("··") }, "\(screen.text())")
        let nvme = try #require(screen.rows.firstIndex { $0.contains("Composite") && $0.contains("··") }, "\(screen.text())")
        #expect(Self.filledCells(screen.rows[cpu]) == Self.filledCells(screen.rows[nvme]),
                "48 °C drawn as \(Self.filledCells(screen.rows[cpu])) and \(Self.filledCells(screen.rows[nvme])) cells:\n\(screen.rows[cpu])\n\(screen.rows[nvme])")
        for y in [cpu, nvme] {
            // The selected row is drawn in reverse video; colours still must not say alarm.
            let selected = screen.rows[y].contains(state.selectedSensor?.sensor.displayName ?? "\u{0}")
            let alarm = (0..<screen.width).filter { let st = screen[$0, y].style; return (st.reverse && !selected) || st.fg == .red || st.fg == .orange }
            #expect(alarm.isEmpty, "alarm colours at columns \(alarm) of a nominal row: \(screen.rows[y])")
        }
    }

    @Test("sparklines share one scale: a hotter sensor in another group never draws lower")
    func sparklinesOnOneScale() throws {
        let series = (0..<30).map { i -> ThermalSnapshot in
            var s = Self.coolDesktop(cpu: 84, gpu: 91)
            s.time = Double(i)
            return s
        }
        let state = Fixtures.appState(series, sourceLabel: "/sys", simulated: false)
        let screen = state.render(.large)
        let sparks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        func height(_ label: String) throws -> Int {
            // The sensor's row: the one with a bar (the reason names the sensor too).
            let row = try #require(screen.rows.first { $0.contains(label) && $0.contains("··") }, "\(screen.text())")
            return row.suffix(12).compactMap { sparks.firstIndex(of: $0) }.max() ?? -1
        }
        #expect(try height("edge") >= height("Tctl"), "91 °C drawn lower than 84 °C:\n\(screen.text())")
    }
}
