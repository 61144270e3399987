import Testing
import ThermtopCore
@testable import ThermtopUI

/// What people bring from htop and btop: F-keys, Esc, a reversible sort, the mouse, peaks,
/// scrolling overlays, and names that keep what tells them apart.
@Suite("Top habits: F-keys, Esc, sort, mouse, peaks, scrolling overlays, narrow names")
struct TopHabitsTests {
    static var base: AppState { Fixtures.Scenario.full.state }

    // MARK: - filter and search

    @Test("Esc clears an applied filter when no overlay is open")
    func escapeClearsAppliedFilter() {
        var state = Self.base
        for k in "/nv" { state.press(.char(k)) }
        state.press(.enter)
        #expect(state.filter == "nv" && !state.filterEditing)
        #expect(state.sortedSensors.count == 1)
        state.press(.escape)
        #expect(state.filter == "")
        #expect(state.sortedSensors.count == 5)
    }

    @Test("Esc closes an open overlay first and keeps the filter")
    func escapeClosesOverlayFirst() {
        var state = Self.base
        for k in "/nv" { state.press(.char(k)) }
        state.press(.enter)
        state.press(.char("d"))
        state.press(.escape)
        #expect(state.overlay == .none)
        #expect(state.filter == "nv")
    }

    @Test("F4 filters, F3 searches: the selection moves to the first match and nothing is hidden")
    func functionKeysFilterAndSearch() {
        var state = Self.base
        state.press(.function(4))
        #expect(state.filterEditing && !state.searching)
        state.press(.escape)
        state.press(.function(3))
        #expect(state.filterEditing && state.searching)
        for k in "nvme" { state.press(.char(k)) }
        #expect(state.render(.standard).rows.last?.hasPrefix("Search: nvme_") == true)
        #expect(state.selectedSensor?.sensor.name == "nvme Composite")
        #expect(state.sortedSensors.count == 5, "a search hides nothing")
        #expect(state.filter == "")
        state.press(.enter)
        #expect(!state.filterEditing && state.search == "")
        #expect(state.selectedSensor?.sensor.name == "nvme Composite")
    }

    @Test("a paste into the filter is one edit, capped at 64 characters")
    func pasteIsOneCappedEdit() {
        var state = Self.base
        state.press(.char("/"))
        let keys = Array(repeating: Key.char("z"), count: 10_000) + [.enter]
        let (action, count) = KeyMap.next(keys[...], in: state)
        #expect(count == 10_000, "every character up to the Enter is one batch")
        guard case .filterText(let text)? = action else {
            Issue.record("not one filter edit: \(String(describing: action))")
            return
        }
        _ = Reducer.reduce(&state, .filterText(text))
        #expect(state.filter.count == AppState.filterMaxLength)
        #expect(state.message?.contains("64") == true, "the cut is said")
        // Typing past the cap, one key at a time, is dropped too.
        state.press(.char("y"))
        #expect(state.filter.count == AppState.filterMaxLength && !state.filter.contains("y"))
        // Outside the filter every key is its own action.
        var idle = Self.base
        idle.filterEditing = false
        #expect(KeyMap.next([Key.char("s"), .char("s")][...], in: idle).count == 1)
    }

    // MARK: - sort

    @Test("F6 changes the sort, I reverses it, and no two orders look alike", arguments: [false, true])
    func sortOrdersDiffer(reversed: Bool) {
        var state = Self.base
        if reversed { state.press(.char("I")) }
        var seen: [[String]] = []
        var labels: Set<String> = []
        for _ in SortOrder.allCases {
            seen.append(state.sortedSensors.map(\.sensor.id))
            labels.insert(Panels.listTitle(state, count: 5, width: 200))
            state.press(.function(6))
        }
        #expect(Set(seen).count == SortOrder.allCases.count, "two orders list the sensors alike: \(seen)")
        #expect(labels.count == SortOrder.allCases.count)
        #expect(state.sort == .headroom, "F6 cycles back to the default")
    }

    @Test("I turns the order upside down and says so")
    func reverseSort() {
        var state = Self.base
        state.press(.char("s"))  // hottest first
        let hottest = state.sortedSensors.map(\.sensor.id)
        state.press(.char("I"))
        #expect(state.sortedSensors.map(\.sensor.id) == hottest.reversed())
        #expect(state.render(.large).text().contains("coolest first"))
    }

    // MARK: - overlays

    @Test("End in the help keeps the box at its full height; Home goes back", arguments: [Size.standard, Size.large])
    func helpEndKeepsBox(size: Size) {
        var state = Self.base
        _ = Reducer.reduce(&state, .resized(width: size.width, height: size.height))
        state.press(.char("?"))
        let top = state.render(size).rows
        state.press(.end)
        let end = state.render(size).rows
        func boxHeight(_ rows: [String]) -> Int { rows.filter { $0.contains("│ ") || $0.contains("╭") || $0.contains("╰") }.count }
        #expect(boxHeight(end) == boxHeight(top), "End shrank the help box:\n\(end.joined(separator: "\n"))")
        #expect(end.contains { $0.contains("Esc or ? closes") }, "End does not show the last line")
        #expect(end.contains { $0.contains("lines above") })
        state.press(.home)
        #expect(state.helpTop == 0)
    }

    @Test("the debug overlay scrolls to its last line with End, PgDn and the wheel")
    func debugScrolls() {
        var state = Self.base
        _ = Reducer.reduce(&state, .resized(width: 80, height: 24))
        state.press(.char("d"))
        let first = state.render(.standard).text()
        #expect(first.contains("more lines"), "the fixture's debug overlay fits: nothing to scroll")
        state.press(.pageDown)
        #expect(state.helpTop > 0)
        state.press(.end)
        let last = state.render(.standard).text()
        #expect(!last.contains("more lines"), "End leaves lines below:\n\(last)")
        #expect(last.contains("lines above"))
        #expect(last.contains("Config"))
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 10, y: 10, button: .wheelUp)))
        #expect(state.helpTop == Overlays.maxTop(state) - 3)
    }

    // MARK: - mouse

    @Test("a click selects a row, a second click on it opens the detail, a click closes it")
    func clickSelectsThenOpens() {
        var state = Self.base
        let layout = Layout(state, width: state.width, height: state.height)
        let y = layout.sensorList.y + 2
        let id = layout.rows[2].sensor.id
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 5, y: y, button: .left)))
        #expect(state.selectedID == id)
        #expect(state.overlay == .none)
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 5, y: y, button: .left)))
        #expect(state.overlay == .detail(id))
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 5, y: y, button: .left)))
        #expect(state.overlay == .none)
    }

    @Test("the wheel moves the selection; a click on the list heading changes the sort; a click below the rows does nothing")
    func wheelAndHeading() {
        var state = Self.base
        let layout = Layout(state, width: state.width, height: state.height)
        state.selectRow(0)
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 5, y: 20, button: .wheelDown)))
        #expect(state.selectedIndex == 3)
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 5, y: 20, button: .wheelUp)))
        #expect(state.selectedIndex == 0)
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 3, y: layout.sensorHeading.y, button: .left)))
        #expect(state.sort == .temperature)
        let before = state
        _ = Reducer.reduce(&state, .mouse(MouseEvent(x: 3, y: layout.sensorList.y + layout.rows.count, button: .left)))
        #expect(state.selectedID == before.selectedID && state.overlay == .none)
    }

    @Test("mouse reports become actions through the key map")
    func mouseKeyIsAnAction() {
        let m = MouseEvent(x: 1, y: 2, button: .left)
        #expect(KeyMap.action(for: .mouse(m)) == .mouse(m))
        var editing = Self.base
        editing.press(.char("/"))
        #expect(KeyMap.action(for: .mouse(m), in: editing) == .mouse(m))
    }

    // MARK: - peaks

    @Test("each sensor's peak and minimum since start: in its row when there is room, and in the detail")
    func peaksAndMinimums() {
        var state = Self.base  // the package went from 62 to 71 °C
        let cpu = "thermal_zone1"
        #expect(state.extremes[cpu] == Extremes(62).adding(71))
        let wide = state.render(.huge).rows
        let row = wide.first { $0.contains("CPU (x86_pkg_temp)") } ?? ""
        #expect(row.contains("71.0  62.0"), "no peak and minimum in the row: \(row)")
        #expect(wide.contains { $0.contains(" peak   min") })
        state.press(.enter)
        #expect(state.render(.large).text().contains("peak 71.0 °C · minimum 62.0 °C"))
        state.press(.enter)
        state.press(.char("f"))
        #expect(state.render(.huge).rows.contains { $0.contains("159.8 143.6") }, "°F peaks")
    }

    // MARK: - names, groups, legend, policy

    @Test("thermtop status lines its columns up by display width: CJK and emoji names do not push the readings")
    func statusPadsByDisplayWidth() {
        var status = Self.base.status
        let names = ["温度センサー (CJK)", "🔥 hot zone", "Cafe\u{301} (combining)"]
        for (i, n) in names.enumerated() { status.assessment.sensors[i].sensor.displayName = n }
        status.assessment.sensors[3].sensor.displayName = "plain ASCII name"
        let lines = ThermalStatusReport.text(status).split(separator: "\n").map(String.init)
        var columns: [Int] = []
        for n in names + ["plain ASCII name"] {
            guard let line = lines.first(where: { $0.contains(n) }), let r = line.range(of: n) else {
                Issue.record("no status line for \(n)")
                continue
            }
            // The display column where the reading ends (right-aligned after the padded name).
            let rest = line[r.upperBound...]
            guard let level = rest.range(of: "  nominal") ?? rest.range(of: "  unknown") else {
                Issue.record("no level after \(n): \(line)")
                continue
            }
            columns.append(DisplayWidth.columns(String(line[..<level.lowerBound])))
        }
        #expect(Set(columns).count == 1, "the readings end at columns \(columns)\n\(lines.joined(separator: "\n"))")
        #expect(DisplayWidth.columns("温度") == 4 && DisplayWidth.columns("🔥") == 2 && DisplayWidth.columns("e\u{301}") == 1)
    }

    @Test("a board chip's channel labelled CPU (dell_smm) is listed with the CPU, its other channels with the board")
    func labelledCPUChannelIsCPU() {
        let smm = [
            ThermalSensor(id: "hwmon5/temp1", name: "dell_smm CPU", kind: .hwmon, celsius: 55, chip: "dell_smm", label: "CPU"),
            ThermalSensor(id: "hwmon5/temp2", name: "dell_smm Ambient", kind: .hwmon, celsius: 35, chip: "dell_smm", label: "Ambient"),
        ]
        let groups = SensorCatalog.annotate(smm).map(\.group)
        #expect(groups == [.cpu, .board])
    }

    @Test("a narrow name keeps its fold marker, its device tag and its channel", arguments: [
        ("CPU (coretemp Physical id 0) +2", 22, "CPU (coretemp P… 0) +2"),
        ("NVMe SAMSUNG MZVL2512HCJQ-00BL7 (Composite) [#1]", 22, "NVMe… (Composite) [#1]"),
        ("NVMe SAMSUNG MZVL2512HCJQ-00BL7 (Composite) [#2]", 34, "NVMe SAMSUNG MZV… (Composite) [#2]"),
        ("NVMe SAMSUNG MZVL2512HCJQ-00BL7 (Sensor 1)", 28, "NVMe SAMSUNG MZV… (Sensor 1)"),
        ("Board (TSKN)", 22, "Board (TSKN)"),
    ])
    func narrowNames(name: String, width: Int, expected: String) {
        let shown = TextWrap.ellipsizeName(name, width: width)
        #expect(shown == expected)
        #expect(shown.count <= width)
    }

    @Test("the list heading and the help agree on where the bar starts", arguments: [TemperatureUnit.celsius, .fahrenheit])
    func oneLegend(units: TemperatureUnit) {
        var state = Self.base
        state.units = units
        let from = units == .celsius ? "20 °C" : "68 °F"
        #expect(state.render(.large).rows.contains { $0.contains("from \(from) to past critical") })
        let help = Overlays.helpLines(state, theme: Theme(unicode: true, color: true)).map(\.0)
        #expect(help.contains { $0.contains("bar from \(from) to past critical") })
        #expect(!state.render(.standard).text().contains("0 → critical"))
    }

    @Test("the policy's detail lines are off the default screen; i shows them")
    func policyBehindKey() {
        var state = Self.base
        let plain = state.render(.huge).text()
        #expect(plain.contains("Policy tier full"))
        #expect(!plain.contains("may load ahead") && !plain.contains("heavy extras"))
        state.press(.char("i"))
        #expect(state.render(.huge).text().contains("heavy extras"))
    }
}

extension Extremes {
    fileprivate func adding(_ c: Double) -> Extremes {
        var e = self
        e.add(c)
        return e
    }
}
