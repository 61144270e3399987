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
          arguments: Scenario.allCases, [Size.huge, Size.large, Size.medium, Size.standard])
    func fullLayoutContent(scenario: Scenario, size: Size) {
        let state = scenario.state
        let buf = state.render(size)
        let rows = buf.rows
        let tier = scenario.expectedTier
        #expect(rows[0].hasPrefix(" thermtop testbox"))
        #expect(rows[0].contains(scenario.expectedBadge))
        #expect(rows[0].contains(" tier \(tier) "))
        // The clock keeps its seconds at every tier (issue 29).
        #expect(rows[0].contains("12:34:56"))
        let battery = buf.firstRow(containing: " Battery ")
        #expect(battery.map { rows[$0].contains(scenario.batteryPercent) } == true)
        let policy = buf.firstRow(containing: " Policy ")
        #expect(policy.map { rows[$0].contains("Policy tier \(tier): ") } == true)
        // What the tier means for software is behind `i`: the default screen is about heat.
        let countdown = RenderPolicy(tier: tier).countdownText(17)
        #expect(!rows.contains { $0.contains("rediscovery every") || $0.contains("animations o") })
        var detailed = state
        detailed.press(.char("i"))
        let policyRows = detailed.render(size).rows
        #expect(policyRows.contains { $0.contains("rediscovery every \(Format.duration(tier.refreshIntervalSeconds)) (\(countdown), r = now)") })
        #expect(policyRows.contains { $0.contains(tier == .minimal ? "animations off" : "animations on") })
        #expect(rows[size.height - 1].hasPrefix("? help q quit ↑↓ select Enter detail 1-4 simulate"))
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
        if scenario == .minimal { #expect(text.contains("SIMULATED: thermal state forced")) }
        if scenario == .reducedLowPower { #expect(text.contains("low power forced on")) }
    }

    @Test("sensor rows: headline CPU first, then nearest-serious first, unknown last; only the deciding sensor is marked",
          arguments: Scenario.allCases, [Size.large, Size.standard, Size.compact])
    func sensorRowsSortedAndMarked(scenario: Scenario, size: Size) throws {
        let state = scenario.state
        let buf = state.render(size)
        let rows = buf.rows
        let sorted = state.sortedSensors
        // Headline sensors lead; after them headroom never increases down the list and
        // sensors without a reading come last.
        let headlines = sorted.prefix { $0.sensor.isHeadline }.count
        #expect(!sorted.dropFirst(headlines).contains { $0.sensor.isHeadline })
        let headrooms = sorted.dropFirst(headlines).map(\.headroom)
        let known = headrooms.prefix { $0 != nil }.map { $0! }
        #expect(zip(known, known.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(headrooms.dropFirst(known.count).allSatisfy { $0 == nil })
        // Rows appear on screen in that order (as many as fit).
        var indexes: [Int] = []
        for a in sorted {
            guard let i = rows.firstIndex(where: { $0.dropFirst(2).hasPrefix(a.sensor.displayName + " ") }) else { continue }
            indexes.append(i)
            let marked = rows[i].hasPrefix("▶")
            #expect(marked == (a.sensor.id == state.status.assessment.decidedBy), "row \(i): \(rows[i])")
        }
        #expect(indexes.count >= min(sorted.count, 3))
        #expect(indexes == indexes.sorted())
        #expect(indexes == Array((indexes.first ?? 0)..<((indexes.first ?? 0) + indexes.count)))
        #expect(rows.filter { $0.hasPrefix("▶") }.count == (state.status.assessment.decidedBy == nil ? 0 : 1))
    }

    @Test("the Intel laptop lists the CPU, then skin, nvme, ACPI, then the unreadable Wi-Fi zone, by readable names")
    func intelLaptopOrder() {
        let rows = Scenario.full.state.render(.large).rows
        let names = ["CPU (x86_pkg_temp)", "Board (TSKN)", "NVMe (Composite)", "ACPI (acpitz)", "Wi-Fi (iwlwifi_1)"]
        let at = names.map { n in rows.firstIndex { $0.dropFirst(2).hasPrefix(n + " ") } }
        #expect(at == [5, 6, 7, 8, 9])
        #expect(rows[9].hasPrefix("? Wi-Fi (iwlwifi_1)"), "an unreadable sensor is marked ?")
        #expect(rows[9].contains("unknown: io-error EIO"))
        #expect(!rows.contains { $0.hasPrefix("▶") }, "nominal: nothing decides")
    }

    @Test("a live fair state marks the package zone that decided it")
    func decidingSensorMarked() {
        let state = Scenario.reduced.state
        #expect(state.status.assessment.decidedBy == "thermal_zone1")
        let rows = state.render(.large).rows
        #expect(rows[5].hasPrefix("▶ CPU (x86_pkg_temp)"))
        #expect(rows[5].contains("83.0"))
        #expect(rows[5].contains(" fair "))
        #expect(rows[2].hasPrefix(" fair: x86_pkg_temp 83.0 °C ≥ 80.0 °C"))
    }

    // MARK: - compact (40×10) and too small (20×5)

    @Test("at 40×10 the state, tier, pulse, reason, sensors and battery all fit", arguments: Scenario.allCases)
    func compactLayout(scenario: Scenario) {
        let state = scenario.state
        let buf = state.render(.compact)
        let rows = buf.rows
        #expect(rows[0].hasPrefix("thermtop " + scenario.expectedBadge) || rows[0].hasPrefix(scenario.expectedBadge),
                "the name may give way to the badge, never the other way round")
        #expect(rows[0].contains("tier \(scenario.expectedTier) " + Pulse.frame(tick: state.tick, tier: scenario.expectedTier, unicode: true)))
        #expect(rows[1].hasPrefix(" low power "))
        #expect(rows[2].hasPrefix(" " + String(state.status.reason.prefix(20))))
        if scenario.simulated { #expect(rows[3].hasPrefix(" SIMULATED: ")) }
        #expect(rows.contains { $0.hasPrefix(" Sensors (") })
        #expect(rows[8].hasPrefix(" Battery") && rows[8].contains(scenario.batteryPercent))
        #expect(rows[9].hasPrefix("? help q quit"))
        // Every line that does not fit ends in an ellipsis instead of being cut mid-word.
        for r in rows[1...3] where r.count >= 39 && r.last != " " { #expect(r.hasSuffix("…") || r.hasSuffix("… "), "\(r)") }
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
        for overlay in [Overlay.none, .help, .debug, .detail("thermal_zone1")] {
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
        #expect(first.contains { $0.contains("more below") })
        #expect(!first.contains { $0.contains("more above") })
        for _ in 0..<29 { state.press(.char("j")) }
        #expect(state.selectedIndex == 29)
        let buf = state.render(.standard)
        #expect(buf.rows.contains { $0.contains("▲ ") && $0.contains(" more above") })
        let name = state.selectedSensor!.sensor.displayName
        let row = buf.rows.firstIndex { $0.dropFirst(2).hasPrefix(name + " ") }
        #expect(row != nil, "selected \(name) scrolled out of view:\n\(buf.text())")
        if let row { #expect(buf[2, row].style.reverse, "the selected row is highlighted") }
    }

    @Test("wherever the selection is in a long list, its row is visible and the more markers cover no sensor",
          arguments: [Size.large, Size.standard, Size.medium])
    func selectionNeverHiddenByMoreLine(size: Size) {
        var state = Fixtures.manySensorsState(count: 30)
        _ = Reducer.reduce(&state, .resized(width: size.width, height: size.height))
        let sorted = state.sortedSensors
        for i in sorted.indices {
            state.selectRow(i)
            let rows = state.render(size).rows
            // The name column is sized from the rows on screen, so it is taken after scrolling.
            let nameWidth = Panels.SensorColumns(state, layout: Layout(state, width: size.width, height: size.height)).name
            let name = Format.pad(TextWrap.ellipsizeName(sorted[i].sensor.displayName, width: nameWidth), nameWidth)
            #expect(rows.contains { $0.dropFirst(2).hasPrefix(name) }, "selected row \(i) hidden at \(size.testDescription)")
            for r in rows where r.contains("more below") || r.contains("more above") {
                #expect(!r.contains("█") && !r.contains(" nominal "), "marker drawn over a sensor: \(r)")
            }
        }
    }

    @Test("a long list scrolled to the middle matches its golden snapshot")
    func goldenLongList() {
        var state = Fixtures.manySensorsState(count: 30)
        state.selectRow(13)
        GoldenSnapshot.check(state.render(.standard).text(), named: "long-list-selected-13-80x24")
    }

    @Test("paused shows PAUSED in the header and in the countdown")
    func pausedIsShown() {
        var state = Scenario.full.state
        state.press(.char("p"))
        state.press(.char("i"))
        let text = state.render(.large).text()
        #expect(text.contains("PAUSED  12:34:56"))
        #expect(text.contains("(paused, r = now)"))
    }

    @Test("a machine without a battery says none was found, without guessing what kind of machine it is")
    func noBattery() {
        var snap = Fixtures.intelLaptop(time: 0, package: 60, skin: 40)
        snap.batteries = []
        snap.adapters = [ThermalPowerAdapter(id: "AC", type: "Mains", online: true)]
        let state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        let rows = state.render(.standard).rows
        let row = rows.first { $0.hasPrefix(" Battery") }
        #expect(row?.contains("Battery none found · AC online") == true)
        #expect(!rows.joined().contains("desktop"))
    }
}
