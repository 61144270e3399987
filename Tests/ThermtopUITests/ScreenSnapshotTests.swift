import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Screen: golden snapshots and content at every size and tier")
struct ScreenSnapshotTests {
    typealias Scenario = Fixtures.Scenario

    @Test("the whole screen matches its golden snapshot at each size in each tier",
          arguments: Scenario.allCases, Size.all)
    func goldenSnapshot(scenario: Scenario, size: Size) {
        let buf = scenario.state.render(size)
        #expect(buf.width == size.width && buf.height == size.height)
        GoldenSnapshot.check(buf.text(), named: "\(scenario.rawValue)-\(size.width)x\(size.height)")
    }

    @Test("each scenario reaches the tier it is named for")
    func scenariosReachTheirTier() {
        for scenario in Scenario.allCases {
            let s = scenario.state.status
            #expect(s.tier == scenario.expectedTier, "\(scenario)")
        }
        #expect(Scenario.reducedLowPower.state.status.isLowPowerModeEnabled)
        #expect(Scenario.reducedLowPower.state.status.lowPowerIsSimulated)
        #expect(Scenario.minimalLowPower.state.status.isLowPowerModeEnabled)
        #expect(!Scenario.minimalLowPower.state.status.lowPowerIsSimulated)
        #expect(Scenario.minimal.state.status.stateIsSimulated)
    }

    // MARK: - full layout (80×24 and larger)

    @Test("the full layout shows the badge, tier, host, clock, battery, policy and key line",
          arguments: Scenario.allCases, [Size.large, Size.standard])
    func fullLayoutContent(scenario: Scenario, size: Size) {
        let state = scenario.state
        let buf = state.render(size)
        let rows = buf.rows
        let tier = scenario.expectedTier
        #expect(rows[0].hasPrefix(" thermtop testbox"))
        #expect(rows[0].contains(scenario.expectedBadge))
        #expect(rows[0].contains(" tier \(tier) "))
        #expect(rows[0].contains("12:34:56"))
        let battery = buf.firstRow(containing: " Battery ")
        #expect(battery.map { rows[$0].contains(scenario.batteryPercent) } == true)
        let policy = buf.firstRow(containing: " Policy ")
        #expect(policy.map { rows[$0].contains("tier \(tier) · refresh every \(Int(tier.refreshIntervalSeconds)) s (next in 17 s") } == true)
        #expect(policy.map { rows[$0 + 1].contains(tier == .minimal ? "animations off" : "animations on") } == true)
        #expect(rows[size.height - 1].hasPrefix("1-4 simulate 0 live l low power d debug ? help"))
        #expect(rows[1].hasPrefix(state.status.isLowPowerModeEnabled ? " low power on" : " low power off"))
    }

    @Test("a SIMULATED banner shows exactly when something is simulated",
          arguments: Scenario.allCases, Size.all.filter { $0 != .tiny })
    func simulatedBanner(scenario: Scenario, size: Size) {
        let text = scenario.state.render(size).text()
        let bannerRows = text.split(separator: "\n").filter { $0.trimmingPrefix(" ").hasPrefix("SIMULATED:") }
        if scenario.simulated {
            #expect(bannerRows.count == 1, "\(text)")
        } else {
            #expect(bannerRows.isEmpty)
            #expect(!text.contains("SIMULATED"))
        }
        if scenario == .minimal { #expect(text.contains("thermal state forced to seri")) }
        if scenario == .reducedLowPower { #expect(text.contains("low power forced on")) }
    }

    @Test("sensor rows are sorted nearest-serious first, unknown last, and only the deciding sensor is marked",
          arguments: Scenario.allCases, [Size.large, Size.standard, Size.compact])
    func sensorRowsSortedAndMarked(scenario: Scenario, size: Size) throws {
        let state = scenario.state
        let buf = state.render(size)
        let rows = buf.rows
        let sorted = state.sortedSensors
        // Headroom never increases down the list; sensors without a reading come last.
        let headrooms = sorted.map(\.headroom)
        let known = headrooms.prefix { $0 != nil }.map { $0! }
        #expect(zip(known, known.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(headrooms.dropFirst(known.count).allSatisfy { $0 == nil })
        // Rows appear on screen in that order (as many as fit).
        var indexes: [Int] = []
        for a in sorted {
            guard let i = rows.firstIndex(where: { $0.dropFirst(2).hasPrefix(a.sensor.name + " ") }) else { continue }
            indexes.append(i)
            let marked = rows[i].hasPrefix("▶")
            #expect(marked == (a.sensor.id == state.status.assessment.decidedBy), "row \(i): \(rows[i])")
        }
        #expect(indexes.count >= min(sorted.count, 3))
        #expect(indexes == indexes.sorted())
        #expect(indexes == Array((indexes.first ?? 0)..<((indexes.first ?? 0) + indexes.count)))
        #expect(rows.filter { $0.hasPrefix("▶") }.count == (state.status.assessment.decidedBy == nil ? 0 : 1))
    }

    @Test("the Intel laptop lists skin, package, nvme, ACPI, then the unreadable Wi-Fi zone")
    func intelLaptopOrder() {
        let rows = Scenario.full.state.render(.large).rows
        let names = ["TSKN", "x86_pkg_temp", "nvme Composite", "acpitz", "iwlwifi_1"]
        let at = names.map { n in rows.firstIndex { $0.hasPrefix("  " + n + " ") } }
        #expect(at == [5, 6, 7, 8, 9])
        #expect(rows[9].contains("unknown: io-error EIO"))
        #expect(!rows.contains { $0.hasPrefix("▶") }, "nominal: nothing decides")
    }

    @Test("a live fair state marks the package zone that decided it")
    func decidingSensorMarked() {
        let state = Scenario.reduced.state
        #expect(state.status.assessment.decidedBy == "thermal_zone1")
        let rows = state.render(.large).rows
        #expect(rows[5].hasPrefix("▶ x86_pkg_temp"))
        #expect(rows[5].contains("83.0"))
        #expect(rows[5].contains(" fair "))
        #expect(rows[2].hasPrefix(" fair: x86_pkg_temp 83.0 °C ≥ 80.0 °C"))
    }

    // MARK: - compact (40×10) and too small (20×5)

    @Test("at 40×10 the compact layout shows the state, tier and pulse", arguments: Scenario.allCases)
    func compactLayout(scenario: Scenario) {
        let state = scenario.state
        let buf = state.render(.compact)
        let rows = buf.rows
        #expect(rows[0].hasPrefix("thermtop " + scenario.expectedBadge))
        let pulse = String(rows[0].dropFirst(34).prefix(5))
        #expect(pulse == Pulse.frame(tick: state.tick, tier: scenario.expectedTier, unicode: true))
        #expect(rows[1].hasPrefix("tier \(scenario.expectedTier) · refresh \(Int(scenario.expectedTier.refreshIntervalSeconds)) s"))
        #expect(rows[2].hasPrefix("low power "))
        if scenario.simulated { #expect(rows[3].hasPrefix("SIMULATED: ")) }
        #expect(rows[9] == "? help  q quit" + String(repeating: " ", count: 26))
        // No room for the battery, policy or key line panels.
        #expect(!buf.text().contains("Battery"))
        #expect(!buf.text().contains("Policy"))
    }

    @Test("at 20×5 the screen says the terminal is too small and nothing else",
          arguments: Scenario.allCases)
    func tooSmall(scenario: Scenario) {
        let text = scenario.state.render(.tiny).text()
        #expect(text == "\n terminal too small\n     need 40x10\n      q quits\n")
        #expect(!text.contains(String(scenario.expectedBadge.split(separator: " ")[0])))
    }

    @Test("every size from empty to huge renders without crashing, at its exact size, with or without overlays")
    func everySizeRenders() {
        let state = Scenario.reduced.state
        let widths = [0, 1, 19, 20, 39, 40, 41, 79, 80, 81, 119, 120, 250]
        let heights = [0, 1, 4, 5, 9, 10, 11, 23, 24, 25, 39, 40, 80]
        for overlay in [Overlay.none, .help, .debug, .detail] {
            var s = state
            s.overlay = overlay
            for w in widths {
                for h in heights {
                    let buf = Screen.render(s, width: w, height: h)
                    #expect(buf.width == w && buf.height == h)
                    guard w > 0, h > 0 else { continue }
                    let text = buf.text()
                    if w < Screen.minimumWidth || h < Screen.minimumHeight {
                        #expect(!text.contains("FAIR"), "\(w)x\(h)")
                    } else if overlay == .none {
                        #expect(text.contains(" FAIR "), "\(w)x\(h)")
                        #expect(text.contains("tier reduced"), "\(w)x\(h)")
                    }
                }
            }
        }
        #expect(Screen.render(state, width: -3, height: -1).cells.isEmpty)
    }

    // MARK: - keys driving the screen

    @Test("pressing 3 then 0 simulates serious and goes back to live, and the banner goes with it")
    func simulateThenLive() {
        var state = Scenario.full.state
        state.press(.char("3"))
        var text = state.render(.standard).text()
        #expect(text.contains(" SERIOUS (SIMULATED) "))
        #expect(text.contains("tier minimal"))
        #expect(text.contains("SIMULATED: thermal state forced to serious"))
        state.press(.char("0"))
        text = state.render(.standard).text()
        #expect(text.contains(" NOMINAL "))
        #expect(text.contains("tier full"))
        #expect(!text.contains("SIMULATED"))
    }

    @Test("a long sensor list keeps the selection visible and says how many more there are")
    func longListScrolls() {
        var state = Fixtures.manySensorsState(count: 30)
        let first = state.render(.standard).rows
        #expect(first.contains { $0.contains("more (↓)") })
        for _ in 0..<29 { state.press(.char("j")) }
        #expect(state.selected == 29)
        let buf = state.render(.standard)
        let name = state.selectedSensor!.sensor.name
        let row = buf.rows.firstIndex { $0.dropFirst(2).hasPrefix(name + " ") }
        #expect(row != nil, "selected \(name) scrolled out of view:\n\(buf.text())")
        if let row { #expect(buf[2, row].style.reverse, "the selected row is highlighted") }
    }

    @Test("wherever the selection is in a long list, its row is fully visible and the more line overwrites no sensor",
          arguments: [Size.large, Size.standard, Size(100, 30)])
    func selectionNeverHiddenByMoreLine(size: Size) {
        var state = Fixtures.manySensorsState(count: 30)
        let sorted = state.sortedSensors
        for i in sorted.indices {
            state.selected = i
            let rows = state.render(size).rows
            let name = Format.pad(sorted[i].sensor.name, min(28, max(16, size.width / 4)))
            #expect(rows.contains { $0.dropFirst(2).hasPrefix(name) }, "selected row \(i) hidden at \(size.testDescription)")
            // The "more" line is a line of its own: nothing else follows it on its row.
            for r in rows where r.contains("more (↓)") {
                #expect(r.drop { $0 == " " }.hasPrefix("…"), "\(r)")
                #expect(!r.contains("nominal") && !r.contains("fair") && !r.contains("serious"), "more line drawn over a sensor: \(r)")
            }
        }
    }

    @Test("a long list scrolled to the middle matches its golden snapshot")
    func goldenLongList() {
        var state = Fixtures.manySensorsState(count: 30)
        state.selected = 13
        GoldenSnapshot.check(state.render(.standard).text(), named: "long-list-selected-13-80x24")
    }

    @Test("paused shows PAUSED in the header and in the countdown")
    func pausedIsShown() {
        var state = Scenario.full.state
        state.press(.char("p"))
        let text = state.render(.large).text()
        #expect(text.contains("PAUSED  12:34:56"))
        #expect(text.contains("(paused, r = now)"))
    }

    @Test("a desktop without a battery gets a one-line note instead of the gauge")
    func noBattery() {
        var snap = Fixtures.intelLaptop(time: 0, package: 60, skin: 40)
        snap.batteries = []
        snap.adapters = [PowerAdapter(id: "AC", type: "Mains", online: true)]
        let state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        let rows = state.render(.standard).rows
        let row = rows.first { $0.hasPrefix(" Battery") }
        #expect(row?.contains("no battery on this machine (desktop or server) · AC online") == true)
    }
}
