import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Reducer and key map: every binding, every run-loop action, whole states")
struct ReducerTests {
    /// The Intel laptop at nominal: five sensor rows, live, no overlay.
    static var base: AppState { Fixtures.Scenario.full.state }

    // MARK: - the key map itself

    @Test("no key is bound twice across the key map")
    func keysAreUnique() {
        var seen: [Key: String] = [:]
        for b in KeyMap.bindings {
            for k in b.keys {
                #expect(seen[k] == nil, "\(k) is bound to both \(seen[k] ?? "") and \(b.label)")
                seen[k] = b.label
            }
        }
        #expect(Set(KeyMap.bindings.map(\.label)).count == KeyMap.bindings.count)
    }

    @Test("the key map binds exactly these keys to these actions, nothing more")
    func keyMapIsExactly() {
        let expected: [Key: Action] = [
            .char("1"): .simulateState(.nominal), .char("2"): .simulateState(.fair),
            .char("3"): .simulateState(.serious), .char("4"): .simulateState(.critical),
            .char("0"): .backToLive, .char("l"): .cycleLowPower, .char("S"): .toggleSimulatedLaptop,
            .char("+"): .raiseLoad, .char("="): .raiseLoad, .char("-"): .lowerLoad, .char("_"): .lowerLoad,
            .char("d"): .toggleDebug, .char("?"): .toggleHelp, .char("h"): .toggleHelp, .function(1): .toggleHelp,
            .char("p"): .togglePause, .char(" "): .togglePause, .char("r"): .refreshNow,
            .char("q"): .quit, .function(10): .quit, .interrupt: .quit,
            .down: .selectNext, .char("j"): .selectNext, .up: .selectPrevious, .char("k"): .selectPrevious,
            .pageDown: .pageDown, .pageUp: .pageUp, .home: .selectFirst, .char("g"): .selectFirst,
            .end: .selectLast, .char("G"): .selectLast,
            .enter: .toggleDetail, .escape: .closeOverlay, .char("s"): .cycleSort, .function(6): .cycleSort,
            .char("I"): .reverseSort, .char("/"): .startFilter, .function(4): .startFilter, .function(3): .startSearch,
            .char("i"): .togglePolicy, .tab: .toggleFocus, .char("w"): .cycleHeatSort,
            .char("a"): .toggleShowAll, .char("f"): .toggleUnits,
            .char("n"): .replayStep, .char("."): .replayStep, .char(">"): .replayFaster, .char("<"): .replaySlower,
        ]
        var actual: [Key: Action] = [:]
        for b in KeyMap.bindings { for k in b.keys { actual[k] = b.action } }
        #expect(actual == expected)
        for b in KeyMap.bindings { #expect(!b.help.isEmpty, "\(b.label)") }
    }

    @Test("unbound keys do nothing", arguments: [Key.char("x"), .char("Q"), .char("5"), .resize, .left, .right,
                                                  .function(2), .backspace])
    func unboundKeys(key: Key) {
        #expect(KeyMap.action(for: key) == nil)
    }

    // MARK: - simulation

    @Test("1-4 ask for the thermal state override, keep the low-power override, take it as in force, and change nothing else",
          arguments: [(Character("1"), ThermalState.nominal), ("2", .fair), ("3", .serious), ("4", .critical)])
    func simulateState(key: Character, expected: ThermalState) {
        var state = Self.base
        state.status.overrides = ThermalOverrides(thermalState: nil, lowPower: true)
        var store = TestStore(state)
        let o = ThermalOverrides(thermalState: expected, lowPower: true)
        store.press(.char(key), effects: [.setOverrides(o)]) { $0.status.overrides = o }
    }

    @Test("0 clears both overrides and leaves the simulated laptop: back to live in one key")
    func backToLiveClearsEverything() {
        var state = Fixtures.simulatedState()
        state.press(.char("3"))
        state.press(.char("l"))
        #expect(state.status.overrides == ThermalOverrides(thermalState: .serious, lowPower: true))
        var store = TestStore(state)
        store.press(.char("0"), effects: [.setOverrides(.none), .useSimulatedLaptop(false)]) {
            $0.lowPowerMode = .live
            $0.status.overrides = .none
        }
    }

    @Test("0 when nothing is simulated says so and asks for nothing")
    func backToLiveWhenLive() {
        var store = TestStore(Self.base)
        store.press(.char("0")) { $0.message = "Already live: nothing is simulated." }
        // The next key clears the message.
        store.press(.char("d")) {
            $0.message = nil
            $0.overlay = .debug
        }
    }

    @Test("l cycles low power live → forced on → forced off → live, producing the overrides")
    func cycleLowPower() {
        var state = Self.base
        state.status.overrides = ThermalOverrides(thermalState: .fair)
        #expect(state.lowPowerMode == .live)
        let expected: [(LowPowerMode, Bool?)] = [(.forcedOn, true), (.forcedOff, false), (.live, nil), (.forcedOn, true)]
        for (mode, lp) in expected {
            let effects = state.press(.char("l"))
            #expect(state.lowPowerMode == mode)
            #expect(effects == [.setOverrides(ThermalOverrides(thermalState: .fair, lowPower: lp))])
            #expect(state.status.overrides.lowPower == lp)
        }
    }

    @Test("the low-power mode follows the overrides of each status that arrives")
    func lowPowerModeFollowsStatus() {
        var state = Self.base
        var forced = state.status
        forced.overrides = ThermalOverrides(lowPower: false)
        var store = TestStore(state)
        store.send(.statusArrived(forced, FeedInfo(samples: 25, refreshDueAt: state.refreshDueAt))) {
            $0.status = forced
            $0.lowPowerMode = .forcedOff
            $0.stats.samples = 25
            $0.stats.sampleMilliseconds = 0
        }
        state = store.state
        #expect(AppState(status: forced).lowPowerMode == .forcedOff)
    }

    @Test("S switches to the simulated laptop and back")
    func toggleSimulatedLaptop() {
        var store = TestStore(Self.base)
        store.press(.char("S"), effects: [.useSimulatedLaptop(true)])
        var sim = TestStore(Fixtures.simulatedState())
        sim.press(.char("S"), effects: [.useSimulatedLaptop(false)])
    }

    @Test("+ and - adjust the load on the simulated laptop", arguments: [(Character("+"), 0.1), ("=", 0.1), ("-", -0.1), ("_", -0.1)])
    func adjustLoad(key: Character, delta: Double) {
        var store = TestStore(Fixtures.simulatedState())
        store.press(.char(key), effects: [.adjustLoad(delta)])
    }

    @Test("+ and - on real sensors say why they do nothing", arguments: [Character("+"), "-"])
    func loadKeysOnRealSensorsExplain(key: Character) {
        var store = TestStore(Self.base)
        store.press(.char(key)) {
            $0.message = "+/- set the simulated laptop's load; real sensors are only read, never loaded (S: simulated laptop)."
        }
        #expect(store.state.render(.standard).rows[23].hasPrefix("+/- set the simulated laptop's load"))
    }

    // MARK: - overlays

    @Test("d toggles the debug overlay; ?, h and F1 the help")
    func overlays() {
        var store = TestStore(Self.base)
        store.press(.char("d")) { $0.overlay = .debug }
        store.press(.char("d")) { $0.overlay = .none }
        for key in [Key.char("?"), .char("h"), .function(1)] {
            store.press(key) { $0.overlay = .help }
            store.press(key) { $0.overlay = .none }
        }
    }

    @Test("Enter opens the detail of the selected sensor, by identity; Enter again closes it")
    func detailOverlay() {
        var store = TestStore(Self.base)
        store.press(.down) {
            $0.selectedID = "thermal_zone3"
            $0.selectedIndexHint = 1
            $0.selectionChosen = true
        }
        store.press(.enter) { $0.overlay = .detail("thermal_zone3") }
        store.press(.enter) { $0.overlay = .none }
    }

    @Test("Esc closes whichever overlay is open, and does nothing without one",
          arguments: [Overlay.none, .help, .debug, .detail("thermal_zone1")])
    func escapeCloses(overlay: Overlay) {
        var state = Self.base
        state.overlay = overlay
        var store = TestStore(state)
        store.press(.escape) { $0.overlay = .none }
    }

    // MARK: - run control and signals

    @Test("p and space toggle pause and tell the sampler", arguments: [Key.char("p"), .char(" ")])
    func pause(key: Key) {
        var store = TestStore(Self.base)
        store.press(key, effects: [.setPaused(true)]) { $0.paused = true }
        store.press(key, effects: [.setPaused(false)]) { $0.paused = false }
    }

    @Test("r asks for a full refresh and says so")
    func refresh() {
        var store = TestStore(Self.base)
        store.press(.char("r"), effects: [.refresh]) { $0.message = "r: rediscovering devices and reading every sensor now." }
    }

    @Test("q, F10 and Ctrl-C quit with status 0; F10 and Ctrl-C also over the help", arguments: [Key.char("q"), .function(10), .interrupt])
    func quit(key: Key) {
        var store = TestStore(Self.base)
        store.press(key) { $0.quit = true }
        var state = Self.base
        state.overlay = .help
        guard key != .char("q") else { return }
        var help = TestStore(state)
        help.press(key) { $0.quit = true }
    }

    @Test("q in the help closes it and does not quit; over the debug or detail overlay it quits")
    func qClosesHelp() {
        var state = Self.base
        state.overlay = .help
        var store = TestStore(state)
        store.press(.char("q")) { $0.overlay = .none }
        for overlay in [Overlay.debug, .detail("thermal_zone1")] {
            var s = Self.base
            s.overlay = overlay
            var other = TestStore(s)
            other.press(.char("q")) { $0.quit = true }
        }
    }

    @Test("quit signals quit with 128 + the signal, SIGINT with 0", arguments: [(Int32(2), Int32(0)), (3, 131), (15, 143), (1, 129)])
    func quitSignals(signal: Int32, status: Int32) {
        var store = TestStore(Self.base)
        store.send(.signal(signal)) {
            $0.quit = true
            $0.exitStatus = status
        }
    }

    @Test("SIGTSTP asks the run loop to suspend and changes nothing")
    func suspendSignal() {
        var store = TestStore(Self.base)
        store.send(.signal(Reducer.sigtstp), effects: [.suspend])
    }

    @Test("a resize changes the size; rendering reports what it sent or that it sent nothing")
    func resizeAndRenderStats() {
        var store = TestStore(Self.base)
        store.send(.resized(width: 100, height: 30)) {
            $0.width = 100
            $0.height = 30
        }
        store.send(.rendered(cells: 12, milliseconds: 0.5)) {
            $0.stats.frames += 1
            $0.stats.cellsLastFrame = 12
            $0.stats.cellsTotal += 12
            $0.stats.renderMilliseconds = 0.5
        }
        store.send(.renderSkipped) { $0.stats.framesSkipped += 1 }
    }

    // MARK: - selection keyed by identity

    @Test("j/↓ and k/↑ move the selection and stop at the ends")
    func selectNextAndPrevious() {
        var state = Self.base
        let ids = state.sortedSensors.map(\.sensor.id)
        // The headline CPU first, then nearest its limit first, the unreadable Wi-Fi zone last.
        #expect(ids == ["thermal_zone1", "thermal_zone3", "hwmon2/temp1", "thermal_zone0", "thermal_zone2"])
        #expect(state.selectedID == ids[0], "the first row is selected from the start")
        for i in 1..<ids.count {
            state.press(i % 2 == 0 ? .down : .char("j"))
            #expect(state.selectedID == ids[i])
        }
        state.press(.down)
        #expect(state.selectedID == ids.last)
        for i in stride(from: ids.count - 2, through: 0, by: -1) {
            state.press(i % 2 == 0 ? .up : .char("k"))
            #expect(state.selectedID == ids[i])
        }
        state.press(.up)
        #expect(state.selectedID == ids[0])
    }

    @Test("Home/g and End/G jump to the first and last sensor")
    func homeAndEnd() {
        var state = Self.base
        for key in [Key.end, .char("G")] {
            state.press(.home)
            state.press(key)
            #expect(state.selectedID == "thermal_zone2")
        }
        for key in [Key.home, .char("g")] {
            state.press(.end)
            state.press(key)
            #expect(state.selectedID == "thermal_zone1")
        }
    }

    @Test("PgDn and PgUp move by a page of the list at the current size")
    func pages() {
        var state = Fixtures.manySensorsState(count: 30)
        _ = Reducer.reduce(&state, .resized(width: 80, height: 24))
        let page = Layout(state, width: 80, height: 24).sensorCapacity
        #expect(page >= 5 && page < 30)
        state.press(.pageDown)
        #expect(state.selectedIndex == page - 1)
        state.press(.pageDown)
        #expect(state.selectedIndex == 2 * (page - 1))
        state.press(.pageUp)
        #expect(state.selectedIndex == page - 1)
        for _ in 0..<10 { state.press(.pageDown) }
        #expect(state.selectedIndex == 29)
        let rows = state.render(.standard).rows
        #expect(rows.contains { $0.contains("more above") })
        #expect(!rows.contains { $0.contains("more below") })
    }

    @Test("the cursor follows the sensor when a new sample re-sorts the list, and Enter opens that sensor")
    func selectionFollowsSensorAcrossResort() {
        var state = Self.base
        state.press(.down)
        state.press(.down)
        #expect(state.selectedSensor?.sensor.name == "nvme Composite")
        #expect(state.selectedIndex == 2)
        // The drive heats up: it is now the sensor nearest its limit and sorts first.
        var hot = Fixtures.intelLaptop(time: 24, package: 71, skin: 42, nvme: 78)
        hot.time = 24
        var memory = ClassifierMemory()
        let status = MonitorStatus(snapshot: hot, assessment: ThermalClassifier.assess(hot, config: ThermalConfig(), memory: &memory),
                                   lowPowerAssessment: LowPowerAssessment.assess(hot, config: ThermalConfig()),
                                   overrides: .none, sourceLabel: "/sys", sourceIsSimulated: false)
        _ = Reducer.reduce(&state, .statusArrived(status, FeedInfo(refreshDueAt: 41)))
        // The drive decides the state (fair): it comes first, before the headline CPU.
        #expect(state.status.assessment.decidedBy == "hwmon2/temp1")
        #expect(state.sortedSensors.map(\.sensor.id).prefix(2) == ["hwmon2/temp1", "thermal_zone1"])
        #expect(state.selectedID == "hwmon2/temp1")
        #expect(state.selectedIndex == 0)
        state.press(.enter)
        #expect(state.overlay == .detail("hwmon2/temp1"))
        #expect(state.render(.large).text().contains("NVMe (Composite) · group disk"))
    }

    @Test("when the selected sensor vanishes, the selection stays where it was in the list")
    func selectionWhenSensorVanishes() {
        var state = Self.base
        state.selectRow(2)
        var fewer = state.status
        fewer.assessment.sensors.removeAll { $0.sensor.id == "hwmon2/temp1" }
        _ = Reducer.reduce(&state, .statusArrived(fewer, FeedInfo()))
        #expect(state.selectedIndex == 2)
        #expect(state.selectedID == "thermal_zone0")
    }

    @Test("a detail overlay closes when its sensor vanishes")
    func detailClosesWhenSensorVanishes() {
        var state = Self.base
        state.selectRow(2)
        state.press(.enter)
        var fewer = state.status
        fewer.assessment.sensors.removeAll { $0.sensor.id == "hwmon2/temp1" }
        _ = Reducer.reduce(&state, .statusArrived(fewer, FeedInfo()))
        #expect(state.overlay == .none)
    }

    @Test("moving the selection with no sensors keeps it empty", arguments: [Key.char("j"), .char("k"), .end, .pageDown])
    func selectWithoutSensors(key: Key) {
        var state = Fixtures.appState([ThermalSnapshot(time: 0)], sourceLabel: "/sys", simulated: false)
        #expect(state.sortedSensors.isEmpty)
        state.press(key)
        #expect(state.selectedID == nil)
        #expect(state.selectedSensor == nil)
        state.press(.enter)
        #expect(state.overlay == .none)
    }

    // MARK: - sort, filter, show all

    @Test("s cycles the sort: nearest limit, hottest, name, group; the selection stays on its sensor")
    func sortCycles() {
        var state = Self.base
        state.selectRow(1)  // TSKN
        state.press(.char("s"))
        #expect(state.sort == .temperature)
        // Hottest first: CPU 71, ACPI 48, TSKN 42, NVMe 39.5, then the Wi-Fi without a reading.
        #expect(state.sortedSensors.map(\.sensor.name) == ["x86_pkg_temp", "acpitz", "TSKN", "nvme Composite", "iwlwifi_1"])
        state.press(.char("s"))
        #expect(state.sort == .name)
        // By the name shown: ACPI, Board, CPU, NVMe, Wi-Fi.
        #expect(state.sortedSensors.map(\.sensor.name) == ["acpitz", "TSKN", "x86_pkg_temp", "nvme Composite", "iwlwifi_1"])
        #expect(state.selectedID == "thermal_zone3")
        state.press(.char("s"))
        #expect(state.sort == .group)
        #expect(state.sortedSensors.map(\.sensor.group) == [.cpu, .disk, .wifi, .board, .board])
        // Within a group by name (ACPI before Board): not the default order with other labels.
        #expect(state.sortedSensors.map(\.sensor.name) == ["x86_pkg_temp", "nvme Composite", "iwlwifi_1", "acpitz", "TSKN"])
        state.press(.char("s"))
        #expect(state.sort == .headroom)
    }

    @Test("/ takes filter text (keys type instead of acting), Enter keeps it, Esc clears it")
    func filter() {
        var store = TestStore(Self.base)
        store.press(.char("/")) { $0.filterEditing = true }
        // "n" keeps TSKN and the NVMe drive: the CPU row was selected, so the cursor lands on
        // the row where it was.
        store.press(.char("n")) {
            $0.filter = "n"
            $0.selectedID = "thermal_zone3"
            $0.topID = "thermal_zone3"
        }
        // q types while filtering; it does not quit. Nothing matches: the selection is kept
        // for when the filter is cleared, the scroll position forgotten.
        store.press(.char("q")) {
            $0.filter = "nq"
            $0.topID = nil
        }
        store.press(.backspace) {
            $0.filter = "n"
            $0.topID = "thermal_zone3"
        }
        store.press(.char("v")) {
            $0.filter = "nv"
            $0.selectedID = "hwmon2/temp1"
            $0.topID = "hwmon2/temp1"
        }
        #expect(store.state.sortedSensors.map(\.sensor.name) == ["nvme Composite"])
        store.press(.enter) { $0.filterEditing = false }
        #expect(store.state.render(.standard).text().contains("Sensors (1) filter \"nv\""))
        store.press(.char("/")) { $0.filterEditing = true }
        store.press(.escape) {
            $0.filterEditing = false
            $0.filter = ""
            $0.topID = "thermal_zone1"
            $0.selectedIndexHint = 2
        }
        #expect(store.state.sortedSensors.count == 5)
        #expect(store.state.selectedID == "hwmon2/temp1", "the cursor stays on the sensor found")
    }

    @Test("a paste into the filter types its text as one line: line breaks and tabs become spaces, control characters go, nothing acts")
    func pasteIntoFilterTypesCleanedText() {
        var store = TestStore(Self.base)
        store.press(.char("/")) { $0.filterEditing = true }
        // q, 1 and l are keys outside the filter; Enter and Esc would end it.
        store.press(.paste("\r\nnv\n\u{1B}q\t1\u{7}l\r\n")) {
            $0.filter = "nv q 1l"
            $0.topID = nil
        }
        store.press(.paste("\u{1B}[A")) { $0.filter = "nv q 1l[A" }
        #expect(store.state.filterEditing && !store.state.quit)
        // F3's search takes a paste the same way.
        var search = TestStore(Self.base)
        search.press(.function(3)) {
            $0.filterEditing = true
            $0.searching = true
        }
        search.press(.paste("nvme\n")) {
            $0.search = "nvme"
            $0.selectedID = "hwmon2/temp1"
            $0.selectedIndexHint = 2
            $0.selectionChosen = true
        }
    }

    @Test("a paste outside the filter changes nothing: its characters are never keys", arguments: [
        "q", "cpu\nq", "1234l", "\u{1B}", "/x\r", "S+0",
    ])
    func pasteOutsideFilterChangesNothing(text: String) {
        var help = Self.base
        help.overlay = .help
        var told = Self.base
        told.message = "Already live: nothing is simulated."
        for state in [Self.base, help, told] {
            var store = TestStore(state)
            store.press(.paste(text))
        }
    }

    @Test("a long paste into the filter is cut at the filter's cap, and the cut is said")
    func longPasteIsCapped() {
        var state = Self.base
        state.press(.char("/"))
        _ = Reducer.reduce(&state, .paste(String(repeating: "ab\n", count: 1000)))
        #expect(state.filter.count == AppState.filterMaxLength)
        #expect(state.filter.hasPrefix("ab ab ab"))
        #expect(state.message?.contains("\(AppState.filterMaxLength)") == true)
    }

    @Test("a filter matches the group too")
    func filterByGroup() {
        var state = Self.base
        for k in "/disk" { state.press(.char(k)) }
        #expect(state.sortedSensors.map(\.sensor.name) == ["nvme Composite"])
    }

    @Test("ignored sensors are hidden, counted, and shown with a")
    func showAll() {
        var snap = Fixtures.intelLaptop(time: 0, package: 60, skin: 40)
        snap.time = 0
        var config = ThermalConfig()
        config.overrides["acpitz"] = SensorOverride(ignore: true)
        var memory = ClassifierMemory()
        let status = MonitorStatus(snapshot: snap, assessment: ThermalClassifier.assess(snap, config: config, memory: &memory),
                                   lowPowerAssessment: LowPowerAssessment.assess(snap, config: config),
                                   overrides: .none, sourceLabel: "/sys", sourceIsSimulated: false)
        var state = AppState(status: status)
        _ = Reducer.reduce(&state, .statusArrived(status, FeedInfo()))
        #expect(!state.sortedSensors.contains { $0.sensor.name == "acpitz" })
        #expect(state.hiddenCount == 1)
        #expect(state.render(.large).text().contains("1 hidden (a)"))
        state.press(.char("a"))
        #expect(state.sortedSensors.contains { $0.sensor.name == "acpitz" })
        #expect(state.render(.large).text().contains("showing all"))
    }

    // MARK: - the tier's own rules (issue 7 §5)

    @Test("history gets a point per sample at full; a simulated serious (tier minimal) draws it coarser but records it the same")
    func historyStepFollowsMeasuredTier() {
        let state = Fixtures.simulatedState()
        #expect(state.historyTimes == (0..<30).map(Double.init), "one point a second at full")
        var s = state
        var serious = state.status
        serious.overrides = ThermalOverrides(thermalState: .serious)
        for t in 30...44 {
            var next = serious
            next.snapshot.time = Double(t)
            _ = Reducer.reduce(&s, .statusArrived(next, FeedInfo(refreshDueAt: 47)))
        }
        #expect(s.status.tier == .minimal)
        #expect(s.historyTimes == (0...44).map(Double.init), "a forced state changed what is recorded: \(s.historyTimes.suffix(16))")
        #expect(s.historySteps.allSatisfy { $0 == 1 })
        #expect(s.history.values.allSatisfy { $0.count == 45 })
    }

    @Test("ticks move the pulse at full and leave it still at minimal; the clock keeps its seconds at every tier")
    func ticksFollowTier() {
        var full = TestStore(Self.base)
        full.send(.tick(now: 30, wallSeconds: 100)) {
            $0.now = 30
            $0.wallSeconds = 100
            $0.tick = 60
        }
        #expect(full.state.clockText == "00:01:40")
        var minimal = TestStore(Fixtures.Scenario.minimal.state)
        minimal.send(.tick(now: 31, wallSeconds: 100)) {
            $0.now = 31
            $0.wallSeconds = 100
        }
        #expect(minimal.state.clockText == "00:01:40")
    }
}

