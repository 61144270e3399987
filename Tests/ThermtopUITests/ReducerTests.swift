import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Reducer and key map: every binding")
struct ReducerTests {
    /// The Intel laptop at nominal: five sensor rows, live, no overlay.
    static var base: AppState { Fixtures.Scenario.full.state }

    /// Presses a key through the key map and the reducer only (no effects performed).
    static func reduce(_ state: inout AppState, _ key: Key) -> [Effect] {
        guard let action = KeyMap.action(for: key) else {
            Issue.record("\(key) is not bound")
            return []
        }
        return Reducer.reduce(&state, action)
    }

    // MARK: - the key map itself

    @Test("no key is bound twice across the key map")
    func keysAreUnique() {
        let all = KeyMap.bindings.flatMap(\.keys)
        var seen: [Key: String] = [:]
        for b in KeyMap.bindings {
            for k in b.keys {
                #expect(seen[k] == nil, "\(k) is bound to both \(seen[k] ?? "") and \(b.label)")
                seen[k] = b.label
            }
        }
        #expect(Set(all).count == all.count)
        #expect(Set(KeyMap.bindings.map(\.label)).count == KeyMap.bindings.count)
    }

    @Test("every key of every binding maps to that binding's action, and every binding has help")
    func everyKeyMapsToItsAction() {
        for b in KeyMap.bindings {
            #expect(!b.keys.isEmpty, "\(b.label)")
            #expect(!b.help.isEmpty, "\(b.label)")
            for k in b.keys { #expect(KeyMap.action(for: k) == b.action, "\(k)") }
        }
    }

    @Test("the key map has exactly the keys the dashboard issue lists")
    func issueKeysAreBound() {
        let expected: [(Key, Action)] = [
            (.char("1"), .simulateState(.nominal)), (.char("2"), .simulateState(.fair)),
            (.char("3"), .simulateState(.serious)), (.char("4"), .simulateState(.critical)),
            (.char("0"), .backToLive), (.char("l"), .cycleLowPower),
            (.char("+"), .raiseLoad), (.char("-"), .lowerLoad),
            (.char("d"), .toggleDebug), (.char("?"), .toggleHelp), (.char("h"), .toggleHelp), (.function(1), .toggleHelp),
            (.char("p"), .togglePause), (.char(" "), .togglePause), (.char("r"), .refreshNow),
            (.char("q"), .quit), (.function(10), .quit), (.interrupt, .quit),
            (.down, .selectNext), (.char("j"), .selectNext), (.up, .selectPrevious), (.char("k"), .selectPrevious),
            (.enter, .toggleDetail), (.escape, .closeOverlay),
        ]
        for (k, a) in expected { #expect(KeyMap.action(for: k) == a, "\(k)") }
    }

    @Test("unbound keys do nothing", arguments: [Key.char("x"), .char("Q"), .char("5"), .tab, .resize, .left, .right,
                                                  .pageUp, .function(2), .backspace])
    func unboundKeys(key: Key) {
        #expect(KeyMap.action(for: key) == nil)
    }

    @Test("every action in the key map is covered by a reducer test below")
    func everyActionIsTested() {
        let tested: [Action] = [.simulateState(.nominal), .simulateState(.fair), .simulateState(.serious),
                                .simulateState(.critical), .backToLive, .cycleLowPower, .raiseLoad, .lowerLoad,
                                .toggleDebug, .toggleHelp, .togglePause, .refreshNow, .quit, .selectNext,
                                .selectPrevious, .toggleDetail, .closeOverlay]
        for b in KeyMap.bindings { #expect(tested.contains(b.action), "\(b.label)") }
    }

    // MARK: - simulation

    @Test("1-4 set the thermal state override and keep the low-power override",
          arguments: [(Character("1"), ThermalState.nominal), ("2", .fair), ("3", .serious), ("4", .critical)])
    func simulateState(key: Character, expected: ThermalState) {
        var state = Self.base
        state.status.overrides = Overrides(thermalState: nil, lowPower: true)
        let before = state
        let effects = Self.reduce(&state, .char(key))
        #expect(effects == [.setOverrides(Overrides(thermalState: expected, lowPower: true))])
        #expect(state == before, "the monitor applies overrides; the reducer only asks")
    }

    @Test("0 clears the thermal state override and keeps the low-power override")
    func backToLive() {
        var state = Self.base
        state.status.overrides = Overrides(thermalState: .critical, lowPower: false)
        #expect(Self.reduce(&state, .char("0")) == [.setOverrides(Overrides(thermalState: nil, lowPower: false))])
    }

    @Test("l cycles low power live → forced on → forced off → live, producing the overrides")
    func cycleLowPower() {
        var state = Self.base
        state.status.overrides = Overrides(thermalState: .fair)
        #expect(state.lowPowerMode == .live)
        let expected: [(LowPowerMode, Bool?)] = [(.forcedOn, true), (.forcedOff, false), (.live, nil), (.forcedOn, true)]
        for (mode, lp) in expected {
            let effects = state.press(.char("l"))
            #expect(state.lowPowerMode == mode)
            #expect(effects == [.setOverrides(Overrides(thermalState: .fair, lowPower: lp))])
            #expect(state.status.overrides.lowPower == lp)
        }
    }

    @Test("the low-power mode starts from the override the monitor was started with")
    func lowPowerModeFromStartOverride() {
        var state = Self.base
        state.status.overrides = Overrides(lowPower: false)
        #expect(AppState(status: state.status).lowPowerMode == .forcedOff)
    }

    @Test("+ and - adjust the load only on the simulated laptop",
          arguments: [(Character("+"), 0.1), ("=", 0.1), ("-", -0.1), ("_", -0.1)])
    func adjustLoad(key: Character, delta: Double) {
        var real = Self.base
        #expect(real.simulatedLoad == nil)
        #expect(Self.reduce(&real, .char(key)).isEmpty)
        var sim = Self.base
        sim.simulatedLoad = 0.5
        #expect(Self.reduce(&sim, .char(key)) == [.adjustLoad(delta)])
    }

    // MARK: - overlays

    @Test("d toggles the debug overlay")
    func debugOverlay() {
        var state = Self.base
        _ = Self.reduce(&state, .char("d"))
        #expect(state.overlay == .debug)
        _ = Self.reduce(&state, .char("d"))
        #expect(state.overlay == Overlay.none)
    }

    @Test("?, h and F1 toggle the help overlay", arguments: [Key.char("?"), .char("h"), .function(1)])
    func helpOverlay(key: Key) {
        var state = Self.base
        #expect(Self.reduce(&state, key).isEmpty)
        #expect(state.overlay == .help)
        _ = Self.reduce(&state, key)
        #expect(state.overlay == Overlay.none)
    }

    @Test("Enter toggles the sensor detail overlay")
    func detailOverlay() {
        var state = Self.base
        _ = Self.reduce(&state, .enter)
        #expect(state.overlay == .detail)
        _ = Self.reduce(&state, .enter)
        #expect(state.overlay == Overlay.none)
    }

    @Test("one overlay key replaces another overlay")
    func overlaysReplaceEachOther() {
        var state = Self.base
        _ = Self.reduce(&state, .char("?"))
        _ = Self.reduce(&state, .char("d"))
        #expect(state.overlay == .debug)
        _ = Self.reduce(&state, .enter)
        #expect(state.overlay == .detail)
    }

    @Test("Esc closes whichever overlay is open, and does nothing without one",
          arguments: [Overlay.none, .help, .debug, .detail])
    func escapeCloses(overlay: Overlay) {
        var state = Self.base
        state.overlay = overlay
        #expect(Self.reduce(&state, .escape).isEmpty)
        #expect(state.overlay == Overlay.none)
    }

    // MARK: - run control

    @Test("p and space toggle pause", arguments: [Key.char("p"), .char(" ")])
    func pause(key: Key) {
        var state = Self.base
        #expect(Self.reduce(&state, key).isEmpty)
        #expect(state.paused)
        _ = Self.reduce(&state, key)
        #expect(!state.paused)
    }

    @Test("r asks for a full refresh and changes nothing else")
    func refresh() {
        var state = Self.base
        let before = state
        #expect(Self.reduce(&state, .char("r")) == [.refresh])
        #expect(state == before)
    }

    @Test("q, F10 and Ctrl-C quit", arguments: [Key.char("q"), .function(10), .interrupt])
    func quit(key: Key) {
        var state = Self.base
        state.overlay = .help
        #expect(Self.reduce(&state, key).isEmpty)
        #expect(state.quit)
    }

    // MARK: - selection

    @Test("j and ↓ move the selection down and stop at the last sensor", arguments: [Key.char("j"), .down])
    func selectNext(key: Key) {
        var state = Self.base
        let n = state.sortedSensors.count
        #expect(n == 5)
        for i in 1..<n {
            #expect(Self.reduce(&state, key).isEmpty)
            #expect(state.selected == i)
        }
        for _ in 0..<5 { _ = Self.reduce(&state, key) }
        #expect(state.selected == n - 1)
        #expect(state.selectedSensor?.sensor.name == "iwlwifi_1")
    }

    @Test("k and ↑ move the selection up and stop at the first sensor", arguments: [Key.char("k"), .up])
    func selectPrevious(key: Key) {
        var state = Self.base
        state.selected = 3
        for i in stride(from: 2, through: 0, by: -1) {
            _ = Self.reduce(&state, key)
            #expect(state.selected == i)
        }
        for _ in 0..<5 { _ = Self.reduce(&state, key) }
        #expect(state.selected == 0)
        #expect(state.selectedSensor?.sensor.name == "TSKN")
    }

    @Test("moving the selection with no sensors keeps it at zero", arguments: [Key.char("j"), .char("k"), .down, .up])
    func selectWithoutSensors(key: Key) {
        var state = Fixtures.appState([Snapshot(time: 0)], sourceLabel: "/sys", simulated: false)
        #expect(state.sortedSensors.isEmpty)
        _ = Self.reduce(&state, key)
        #expect(state.selected == 0)
        #expect(state.selectedSensor == nil)
    }

    @Test("a sample with fewer sensors pulls the selection back into range")
    func selectionClampedOnApply() {
        var state = Self.base
        state.selected = 4
        var fewer = state.status
        fewer.assessment.sensors = Array(fewer.assessment.sensors.prefix(2))
        state.apply(fewer)
        #expect(state.selected == 1)
    }
}
