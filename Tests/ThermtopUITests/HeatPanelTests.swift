import Foundation
import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Heating it: the panel of heat sources beside the sensors, its order, its groups")
struct HeatPanelTests {
    static let sizes = [Size.huge, Size.large, Size.standard, Size.compact]

    @Test("the dashboard with heat sources matches its golden snapshot at each size", arguments: sizes)
    func golden(size: Size) {
        GoldenSnapshot.check(Fixtures.heatState.render(size).text(), named: "heat-\(size.width)x\(size.height)")
    }

    @Test("an opened group matches its golden snapshot")
    func goldenGroup() {
        var s = Fixtures.heatState
        s.press(.tab)
        s.press(.enter)
        GoldenSnapshot.check(s.render(.large).text(), named: "heat-group-120x40")
    }

    @Test("from 150 columns the panel sits beside the sensors, on their rows, biggest group first")
    func beside() throws {
        let state = Fixtures.heatState
        let layout = Layout(state, width: 200, height: 60)
        #expect(layout.heatBeside)
        #expect(layout.heat.y == layout.sensorHeading.y && layout.heat.x == layout.sensorList.maxX)
        let rows = state.render(.huge).rows
        let title = try #require(rows.firstIndex { $0.contains("Heating it (5) by CPU") })
        #expect(rows[title].contains("Sensors (5) nearest limit first"), "the title shares the sensors' heading row, which keeps its words")
        #expect(rows[title + 1].contains("cc1plus ×8") && rows[title + 1].contains("640 %") && rows[title + 1].contains("≈ 38 W"))
        #expect(rows[title + 2].contains("kworker ×12"))
        // Unknown GPU use is a dash, never 0.
        #expect(rows[title + 1].trimmingCharacters(in: .whitespaces).hasSuffix("≈ 38 W     –"), "\(rows[title + 1])")
        #expect(!rows[title + 1].contains(" 0 %"), "\(rows[title + 1])")
    }

    @Test("under 150 columns the panel goes under the sensors with the top groups")
    func stacked() throws {
        let state = Fixtures.heatState
        let layout = Layout(state, width: 80, height: 24)
        #expect(!layout.heatBeside && layout.heat.height >= 2 && layout.heat.y > layout.sensorList.maxY - 1)
        let rows = state.render(.standard).rows
        let title = try #require(rows.firstIndex { $0.contains("Heating it (5) by CPU") })
        #expect(rows[title].contains("7 of 312 unreadable"), "\(rows[title])")
        #expect(rows[title + 1].contains("cc1plus ×8"))
    }

    @Test("at 40×10 the panel drops out and the reason still names the top source")
    func dropsOut() {
        let state = Fixtures.heatState
        #expect(Layout(state, width: 40, height: 10).heat.isEmpty)
        let text = state.render(.compact).text()
        #expect(!text.contains("Heating it"))
        #expect(text.contains("mostly cc1plus"), "\(text)")
    }

    @Test("processes /proc refused are counted as unreadable on screen, not left out silently")
    func unreadableSaid() {
        let text = Fixtures.heatState.render(.huge).text()
        #expect(text.contains("7 of 312 processes unreadable (hidepid"), "\(text)")
        let clean = Fixtures.withHeat(Fixtures.Scenario.reduced.state, Fixtures.heatSources(unreadable: 0)).render(.huge).text()
        #expect(!clean.contains("unreadable") && clean.contains("≈ W: shares of 42 W package"))
    }

    @Test("unknown heat sources say why, never an empty list read as fine")
    func unknownSaid() {
        let state = Fixtures.withHeat(Fixtures.Scenario.reduced.state, ThermalHeatSources(sources: [], reason: "not in the recording"))
        let text = state.render(.large).text()
        #expect(text.contains("Heating it (0)") && text.contains("unknown: not in the recording"))
        let idle = Fixtures.withHeat(Fixtures.Scenario.reduced.state, ThermalHeatSources(sources: [], processCount: 200))
        #expect(idle.render(.large).text().contains("no process used CPU in the last window"))
    }

    @Test("a terminal escape in a command name or command line reaches the screen as text")
    func escaped() {
        var s = Fixtures.heatState
        let panel = s.render(.huge).text()
        #expect(!panel.contains("\u{1B}") && panel.contains("evil?[2Jname"))
        s.press(.tab)
        for _ in 0..<3 { s.press(.down) }
        s.press(.enter)
        #expect(s.overlay == .heatGroup("evil\u{1B}[2Jname"))
        let group = s.render(.large).text()
        #expect(!group.contains("\u{1B}") && !group.contains("\u{07}") && group.contains("evil ?]0;pwned?"))
        #expect(group.contains("docker 3f2a9c1b7d4e") && group.contains("bob"))
    }

    @Test("without heat sources (the simulated laptop) there is no panel and the screen is as before")
    func absentWithoutSources() {
        let state = Fixtures.Scenario.full.state
        #expect(state.status.heatSources == nil)
        #expect(Layout(state, width: 120, height: 40).heat.isEmpty)
        #expect(!state.render(.large).text().contains("Heating it"))
    }

    // MARK: - reducer

    @Test("w cycles the order CPU → estimated watts → GPU, shown in the title")
    func sortCycles() {
        var store = TestStore(Fixtures.heatState)
        store.press(.char("w")) { $0.heatSort = .watts }
        #expect(store.state.render(.large).text().contains("Heating it (5) by ≈ W"))
        store.press(.char("w")) { $0.heatSort = .gpu }
        store.press(.char("w")) { $0.heatSort = .cpu }
    }

    @Test("the order by watts puts the most watts first, by GPU unknowns last in CPU order")
    func sortOrders() {
        let sources = [
            ThermalHeatSource(command: "a", cpuPercent: 90, estimatedWatts: 5, processes: []),
            ThermalHeatSource(command: "b", cpuPercent: 50, estimatedWatts: 9, processes: []),
            ThermalHeatSource(command: "c", cpuPercent: 70, estimatedWatts: nil, processes: []),
        ]
        #expect(HeatPanelRows.sorted(sources, by: .cpu).map(\.command) == ["a", "c", "b"])
        #expect(HeatPanelRows.sorted(sources, by: .watts).map(\.command) == ["b", "a", "c"])
        #expect(HeatPanelRows.sorted(sources, by: .gpu).map(\.command) == ["a", "c", "b"])
    }

    @Test("a group's GPU column is its SM share summed over its GPUs; by GPU the busiest GPU user comes first, the unknowns after")
    func gpuColumnFromNVML() throws {
        let train = ThermalHeatSource(command: "train", cpuPercent: 12, estimatedWatts: 1, processes: [],
                                      gpus: [ThermalHeatGPUUse(busID: "0000:01:00.0", smPercent: 60),
                                             ThermalHeatGPUUse(busID: "0000:02:00.0", smPercent: 37)])
        let render = ThermalHeatSource(command: "render", cpuPercent: 5, estimatedWatts: nil, processes: [],
                                       gpus: [ThermalHeatGPUUse(busID: "0000:01:00.0", smPercent: 20)])
        let idle = ThermalHeatSource(command: "idle", cpuPercent: 90, estimatedWatts: nil, processes: [],
                                     gpus: [ThermalHeatGPUUse(busID: "0000:01:00.0", smPercent: nil)])
        #expect(HeatPanelRows.gpuPercent(train) == 97)
        #expect(HeatPanelRows.gpuPercent(idle) == nil, "a GPU use NVML gave no share for is unknown, not 0")
        #expect(HeatPanelRows.sorted([idle, render, train], by: .gpu).map(\.command) == ["train", "render", "idle"])
        let state = Fixtures.withHeat(Fixtures.heatState, ThermalHeatSources(sources: [idle, train, render], processCount: 3))
        let rows = state.render(.huge).rows
        let title = try #require(rows.firstIndex { $0.contains("Heating it (3)") }, "\(state.render(.huge).text())")
        let row = try #require(rows[(title + 1)...].first { $0.contains("train") }, "\(state.render(.huge).text())")
        #expect(row.trimmingCharacters(in: .whitespaces).hasSuffix("97 %"), "\(row)")
    }

    @Test("Tab gives ↑↓ to the groups; Enter opens the selected group, Enter or Esc closes it; Tab gives them back")
    func openClose() {
        var store = TestStore(Fixtures.heatState)
        store.press(.tab) { $0.focus = .heat }
        store.press(.down) { $0.selectedHeat = "kworker" }
        store.press(.enter) { $0.overlay = .heatGroup("kworker") }
        #expect(store.state.render(.large).text().contains("Heating it: kworker (Enter/Esc closes)"))
        store.press(.enter) { $0.overlay = .none }
        store.press(.enter) { $0.overlay = .heatGroup("kworker") }
        store.press(.escape) { $0.overlay = .none }
        store.press(.end) { $0.selectedHeat = "python3" }
        store.press(.home) { $0.selectedHeat = "cc1plus" }
        store.press(.up) { $0.selectedHeat = "cc1plus" }
        store.press(.tab) { $0.focus = .sensors }
        // The sensors have ↑↓ and Enter again.
        let before = store.state.selectedID
        store.press(.down) { s in s.selectedID = s.sortedSensors[1].sensor.id; s.selectionChosen = true; s.selectedIndexHint = 1 }
        #expect(store.state.selectedID != before)
    }

    @Test("the selection follows the group across a re-sort")
    func selectionFollows() {
        var s = Fixtures.heatState
        s.press(.tab)
        s.press(.down)
        s.press(.char("w"))
        #expect(s.heatRows[s.selectedHeatIndex].command == "kworker")
    }

    @Test("Tab where the panel has no room, or no processes are read, says why and leaves the focus")
    func tabRefused() {
        var small = Fixtures.heatState
        _ = Reducer.reduce(&small, .resized(width: 40, height: 10))
        var store = TestStore(small)
        store.press(.tab) { $0.message = "Tab: the Heating it panel needs a bigger window (the reason names the top source)." }
        var none = TestStore(Fixtures.Scenario.full.state)
        none.press(.tab) { $0.message = "Tab selects in the Heating it panel, which shows when processes are read (not here)." }
    }

    @Test("with the focus on the panel and the window shrunk below it, ↑↓ move the sensors again")
    func shrunkFocus() {
        var s = Fixtures.heatState
        s.press(.tab)
        _ = Reducer.reduce(&s, .resized(width: 40, height: 10))
        let before = s.selectedID
        s.press(.down)
        #expect(s.selectedID != before && s.selectedHeat == nil)
    }

    @Test("a click on a group selects it and gives the panel the focus; a second click opens it")
    func clicks() throws {
        var s = Fixtures.heatState
        _ = Reducer.reduce(&s, .resized(width: 200, height: 60))
        let heat = Layout(s, width: 200, height: 60).heat
        _ = Reducer.reduce(&s, .mouse(MouseEvent(x: heat.x + 3, y: heat.y + 2, button: .left)))
        #expect(s.focus == .heat && s.selectedHeat == "kworker" && s.overlay == .none)
        _ = Reducer.reduce(&s, .mouse(MouseEvent(x: heat.x + 3, y: heat.y + 2, button: .left)))
        #expect(s.overlay == .heatGroup("kworker"))
        // The title and the footer select nothing.
        var t = Fixtures.heatState
        _ = Reducer.reduce(&t, .resized(width: 200, height: 60))
        _ = Reducer.reduce(&t, .mouse(MouseEvent(x: heat.x + 3, y: heat.y, button: .left)))
        _ = Reducer.reduce(&t, .mouse(MouseEvent(x: heat.x + 3, y: heat.maxY - 1, button: .left)))
        #expect(t.focus == .sensors && t.selectedHeat == nil)
    }
}
