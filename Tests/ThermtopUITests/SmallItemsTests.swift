import Testing
import Foundation
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 9's small ones: the low-power line, the help legend's step.
@Suite struct LowPowerLineTests {
    @Test("the low-power line names a low-power platform profile once, a balanced one once too",
          arguments: ["low-power", "balanced"])
    func profileSaidOnce(profile: String) throws {
        let series = (0..<4).map { Fixtures.intelLaptop(time: Double($0), package: 50, skin: 35, profile: profile) }
        let state = Fixtures.appState(series, sourceLabel: "/sys", simulated: false)
        #expect(state.status.isLowPowerModeEnabled == (profile == "low-power"))
        let screen = state.render(.large)
        let line = try #require(screen.rows.first { $0.contains("low power ") }, "\(screen.text())")
        #expect(line.components(separatedBy: "platform_profile").count - 1 == 1, "\(line)")
        #expect(line.contains(profile), "\(line)")
    }
}

@Suite struct HelpLegendStepTests {
    @Test("the help legend says the step the history is drawn at, for each tier",
          arguments: Fixtures.Scenario.allCases)
    func legendSaysTheStep(scenario: Fixtures.Scenario) throws {
        var state = scenario.state
        let step = state.renderPolicy.historyStep(sampleDelay: state.sampleDelay)
        #expect(step == ["full": 1, "reduced": 5, "minimal": 15][scenario.expectedTier.rawValue])
        state.press(.char("?"))
        let text = state.render(.large).text()
        #expect(text.contains("a column every \(Format.duration(step))"), "\(text)")
    }
}

/// Issue 38 item 9: the history graph's axis, limit labels and sensor.
@Suite struct HistoryGraphTests {
    static func graphRows(_ screen: CellBuffer) -> [String] {
        let rows = screen.rows
        guard let title = rows.firstIndex(where: { $0.contains("History of ") }) else { return [] }
        return Array(rows[title...])
    }

    @Test("the time axis uses one unit: seconds where the labels fall every 15 s, never -3m beside -165s")
    func axisOneUnit() throws {
        let screen = Fixtures.Scenario.full.state.render(.huge)
        let graph = Self.graphRows(screen)
        let axis = try #require(graph.first { $0.contains("└") }, "\(screen.text())")
        let labels = axis.matches(of: /-[0-9]+[smh]/).map { String($0.output) }
        #expect(labels.count >= 8, "\(axis)")
        let units = Set(labels.map { $0.last! })
        #expect(units.count == 1, "\(labels)")
        #expect(labels.contains("-60s") && !labels.contains("-1m"), "\(labels)")
        #expect(Panels.shortDuration(180, unit: 60) == "3m" && Panels.shortDuration(165, unit: 15) == "165s")
    }

    @Test("both limit lines drawn are labelled on the temperature axis")
    func limitsLabelled() throws {
        let state = Fixtures.Scenario.reduced.state
        let screen = state.render(.huge)
        let graph = Self.graphRows(screen)
        #expect(!graph.isEmpty, "\(screen.text())")
        let (a, _) = try #require(state.graphedSensor)
        for limit in [a.thresholds.fair, a.thresholds.serious] {
            let label = state.units.number(limit.celsius)
            let dashed = graph.filter { $0.contains("╌") }
            #expect(dashed.contains { $0.hasPrefix(Format.padLeft(label, 5)) }, "\(label) unlabelled:\n\(graph.joined(separator: "\n"))")
        }
    }

    @Test("the number beside every dashed line is that limit's, also on the graph's top or bottom row",
          arguments: [Size.standard, Size.medium, Size.large, Size.huge])
    func dashedRowsCarryTheirLimit(size: Size) throws {
        for scenario in [Fixtures.Scenario.full, .reduced, .minimal] {
            let state = scenario.state
            let graph = Self.graphRows(state.render(size))
            guard let (a, _) = state.graphedSensor else { continue }
            let limits = [a.thresholds.fair, a.thresholds.serious].map { Format.padLeft(state.units.number($0.celsius), 5) }
            for row in graph where row.contains("╌") {
                #expect(limits.contains { row.hasPrefix($0) }, "\(scenario) \(size): \(row)\n\(graph.joined(separator: "\n"))")
            }
        }
    }

    @Test("the graph shows the deciding sensor until the person selects another, and its title says which")
    func graphsDecidingSensor() throws {
        var state = Fixtures.Scenario.reduced.state
        let deciding = try #require(state.status.assessment.decidedBy)
        let name = try #require(state.status.assessment.sensors.first { $0.sensor.id == deciding }).sensor.displayName
        // The cursor sits on another row by itself: the graph still follows the deciding sensor.
        state.selectedID = state.sortedSensors.first { $0.sensor.id != deciding }?.sensor.id
        #expect(state.render(.huge).rows.contains { $0.contains("History of \(name) (deciding)") }, "\(state.render(.huge).text())")
        // The person picks a row: the graph follows it.
        let other = try #require(state.sortedSensors.firstIndex { $0.sensor.id != deciding })
        state.selectRow(other)
        let picked = state.sortedSensors[other].sensor.displayName
        #expect(state.render(.huge).rows.contains { $0.contains("History of \(picked) (selected)") }, "\(state.render(.huge).text())")
    }
}

/// Issue 38 item 9: the detail overlay scrolls at 40x10, through the reducer.
@Suite struct DetailScrollsTests {
    @Test("at 40x10 the detail's thresholds are reached with ↓ and PgDn, and ↑ PgUp come back")
    func detailScrolls() throws {
        var state = Fixtures.Scenario.full.state
        _ = Reducer.reduce(&state, .resized(width: 40, height: 10))
        state.press(.enter)
        guard case .detail = state.overlay else { Issue.record("no detail open"); return }
        #expect(!state.render(.compact).text().contains("critical "), "the first page does not reach the thresholds")
        var seen = false
        for _ in 0..<20 where !seen {
            state.press(.down)
            seen = state.render(.compact).text().contains("critical ")
        }
        #expect(seen, "↓ never reached the thresholds")
        guard case .detail = state.overlay else { Issue.record("↓ closed the detail"); return }
        state.press(.pageDown)
        state.press(.pageDown)
        #expect(state.render(.compact).text().contains("lines above"))
        for _ in 0..<10 { state.press(.pageUp) }
        #expect(state.helpTop == 0)
        #expect(!state.render(.compact).text().contains("lines above"))
    }
}

@Suite struct DebugRuleTrailTests {
    @Test("the debug overlay wraps its rule trail at 80x24: every word of every rule is on some page, none cut with …")
    func ruleTrailWraps() throws {
        var state = Fixtures.Scenario.reduced.state
        _ = Reducer.reduce(&state, .resized(width: 80, height: 24))
        let trail = state.status.ruleTrail(state.units)
        #expect(trail.contains { $0.count > 72 }, "a rule longer than the box")
        state.press(.char("d"))
        #expect(state.overlay == .debug)
        var pages = ""
        for _ in 0..<12 {
            pages += state.render(.standard).text() + "\n"
            state.press(.pageDown)
        }
        for rule in trail {
            let words = rule.split(separator: " ").map(String.init)
            for w in words { #expect(pages.contains(w), "\(w) of \(rule) not on any page") }
            #expect(pages.contains(String(rule.suffix(12))), "\(rule)")
        }
    }
}

@Suite struct NamesTakeSpareColumnsTests {
    @Test("a long name takes columns from the history instead of being cut, which keeps 12, at 120x40 and 200x60",
          arguments: [Size.large, .huge])
    func longNameShown(size: Size) throws {
        var state = Fixtures.manySensorsState(count: 12)
        _ = Reducer.reduce(&state, .resized(width: size.width, height: size.height))
        let screen = state.render(size)
        let row = try #require(screen.rows.first { $0.contains("a very long channel") }, "\(screen.text())")
        #expect(row.contains("a very long channel label"), "\(row)")
        let layout = Layout(state, width: size.width, height: size.height)
        #expect(Panels.SensorColumns(state, layout: layout).spark >= 12)
    }
}

@Suite struct IdenticalNamesTests {
    @Test("two NVMe drives whose channels have the same name read differently at 60 columns and at 120")
    func nvmeRowsDiffer() throws {
        let channels = [("hwmon2", 41.0), ("hwmon5", 44.0)].map { dev, c in
            HwmonChannel(device: dev, chip: "nvme", channel: "temp1", label: "Composite", celsius: c, max: 81.85, crit: 84.85)
        }
        let snap = ThermalSnapshot(time: 0, hwmon: channels, batteries: [], adapters: [])
        var state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        for size in [Size(60, 24), Size.large] {
            _ = Reducer.reduce(&state, .resized(width: size.width, height: size.height))
            let rows = state.render(size).rows.filter { $0.dropFirst(2).hasPrefix("NVMe") }
            #expect(rows.count == 2, "\(state.render(size).text())")
            let nameWidth = Panels.SensorColumns(state, layout: Layout(state, width: size.width, height: size.height)).name
            let names = rows.map { String($0.prefix(2 + nameWidth)) }
            #expect(Set(names).count == 2, "\(size): \(names)")
        }
    }

    @Test("channels numbered alike (Sensor 1, Sensor 2) keep their number when the name is cut")
    func numberedChannelsKeepTheirNumber() {
        for width in 16...19 {
            let one = TextWrap.ellipsizeName("NVMe (Sensor 1) [#2]", width: width)
            let two = TextWrap.ellipsizeName("NVMe (Sensor 2) [#2]", width: width)
            #expect(one != two, "width \(width): \(one) | \(two)")
            #expect(one.count <= width)
        }
        #expect(TextWrap.ellipsizeName("NVMe (Sensor 1) [#2]", width: 17) == "NVMe (Se… 1) [#2]")
    }

    @Test("two NVMe drives with Composite, Sensor 1 and Sensor 2 each (the Ryzen desktop capture): no two rows read the same", arguments: [60, 80])
    func ryzenDrivesRowsDiffer(width: Int) throws {
        // amd-ryzen-2x-nvme-telegraf: two drives, each with these three channels.
        let channels: [HwmonChannel] = ["hwmon2", "hwmon5"].flatMap { dev -> [HwmonChannel] in
            [("temp1", "Composite", 35.9), ("temp2", "Sensor 1", 37.9), ("temp3", "Sensor 2", 36.9)].map { ch, label, c in
                HwmonChannel(device: dev, chip: "nvme", channel: ch, label: label, celsius: c, max: 81.85, crit: 84.85)
            }
        }
        let snap = ThermalSnapshot(time: 0, hwmon: channels, batteries: [], adapters: [])
        var state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        _ = Reducer.reduce(&state, .resized(width: width, height: 24))
        let nameWidth = Panels.SensorColumns(state, layout: Layout(state, width: width, height: 24)).name
        let rows = state.render(Size(width, 24)).rows.filter { $0.dropFirst(2).hasPrefix("NVMe") }
        #expect(rows.count == 6, "\(state.render(Size(width, 24)).text())")
        let names = rows.map { String($0.prefix(2 + nameWidth)) }
        #expect(Set(names).count == names.count, "\(names)")
    }
}
