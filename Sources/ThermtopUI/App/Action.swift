import ThermtopCore

/// Everything that can happen to the dashboard: keys, and what the run loop sees (a new
/// status from the monitor, a clock tick, a resize, a signal, a frame drawn). Every change to
/// `AppState` is one of these going through `Reducer.reduce`.
public enum Action: Sendable, Equatable {
    // Keys
    case simulateState(ThermalState)
    /// Back to live: clears both overrides and leaves the simulated laptop.
    case backToLive
    case cycleLowPower
    case toggleSimulatedLaptop
    case raiseLoad
    case lowerLoad
    case toggleDebug
    case toggleHelp
    case togglePause
    case refreshNow
    case quit
    case selectNext
    case selectPrevious
    case selectFirst
    case selectLast
    case pageDown
    case pageUp
    case toggleDetail
    case closeOverlay
    case cycleSort
    /// `Tab`: ↑↓ and `Enter` go to the other list (the sensors or the "Heating it" groups).
    case toggleFocus
    /// The "Heating it" panel's order: CPU → estimated watts → GPU.
    case cycleHeatSort
    /// Turn the sort order upside down (htop's `I`).
    case reverseSort
    case toggleShowAll
    case startFilter
    /// F3: type text that moves the selection to the first matching sensor, hiding nothing.
    case startSearch
    case filterInput(Character)
    /// Several characters typed at once (a paste, or keys that arrived together): applied as
    /// one edit, so the list is filtered once for the batch rather than once per character.
    case filterText(String)
    /// Show or hide what the tier means for software under the policy line.
    case togglePolicy
    /// A click or the wheel: selects, opens, scrolls or sorts by where it lands.
    case mouse(MouseEvent)
    /// Text pasted in one piece (bracketed paste): typed into the filter or search while it
    /// takes text, as one line (`pastedLine`); anywhere else it does nothing. Never keys.
    case paste(String)
    case filterBackspace
    case filterCommit
    case filterCancel
    /// Show temperatures in the other unit (°C ↔ °F); decisions stay in °C.
    case toggleUnits
    /// Replay: feed the next recorded sample (pauses first when playing).
    case replayStep
    /// Replay: double or halve the playback speed.
    case replayFaster
    case replaySlower
    // The run loop
    /// The monitor published a new status.
    case statusArrived(MonitorStatus, FeedInfo)
    /// Time passed: monotonic seconds and the local time of day (seconds since midnight).
    case tick(now: Double, wallSeconds: Int)
    case resized(width: Int, height: Int)
    /// A quit signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) or SIGTSTP arrived.
    case signal(Int32)
    /// A frame went to the terminal (`cells` changed), or was skipped because nothing changed.
    case rendered(cells: Int, milliseconds: Double)
    case renderSkipped
    /// The `--on-change` command's counters changed.
    case onChangeCounters(runs: Int, failures: Int, lastFailure: String?)
}

/// Work the run loop must do after the reducer changed the state (I/O stays at the edge).
public enum Effect: Sendable, Equatable {
    /// Apply these overrides to the monitor.
    case setOverrides(ThermalOverrides)
    /// Rediscover devices and sample now.
    case refresh
    /// Change the simulated laptop's load by this much.
    case adjustLoad(Double)
    /// Switch between the simulated laptop (true) and the live source (false).
    case useSimulatedLaptop(Bool)
    /// Stop or resume sampling.
    case setPaused(Bool)
    /// Suspend the process (SIGTSTP): restore the terminal, stop, redraw on resume.
    case suspend
    /// Replay: feed every recorded sample up to this recorded time (seconds since the start)
    /// through the monitor.
    case replayAdvance(through: Double)
}

public enum Reducer {
    /// Signal numbers as Linux defines them (the UI module has no libc).
    public static let sigint: Int32 = 2, sigquit: Int32 = 3, sigtstp: Int32 = 20

    /// Apply an action to the state; returns the effects the run loop must perform.
    public static func reduce(_ state: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .filterInput, .filterText, .paste: break
        default: if isKey(action) { state.message = nil }
        }
        let filter = state.filter
        let effects = apply(&state, action)
        // Only a new status, a resize or a key can change the rows or the page: the loop's own
        // actions (ticks twice a second, render reports) leave the selection as it is, and so
        // does text typed past the filter's cap (the rest of a long paste), and a paste outside
        // the filter.
        switch action {
        case .tick, .rendered, .renderSkipped, .onChangeCounters: break
        case .filterInput, .filterText, .paste: if state.filter != filter || state.searching { normalizeSelection(&state) }
        default: normalizeSelection(&state)
        }
        return effects
    }

    static func isKey(_ action: Action) -> Bool {
        switch action {
        case .statusArrived, .tick, .resized, .signal, .rendered, .renderSkipped, .onChangeCounters: false
        default: true
        }
    }

    static func apply(_ state: inout AppState, _ action: Action) -> [Effect] {
        if state.overlay.scrolls, let lines = overlayScroll(action, state) {
            state.helpTop = max(0, min(state.helpTop + lines, Overlays.maxTop(state)))
            return []
        }
        switch action {
        case .simulateState(let s):
            var o = state.status.overrides
            o.thermalState = s
            return override(&state, o)
        case .backToLive:
            var effects: [Effect] = []
            if state.status.overrides != .none { effects += override(&state, .none) }
            if state.status.sourceIsSimulated { effects.append(.useSimulatedLaptop(false)) }
            if effects.isEmpty {
                state.message = state.replay == nil ? "Already live: nothing is simulated."
                    : "Nothing is simulated: this is the recording as it was read."
            }
            state.lowPowerMode = .live
            return effects
        case .cycleLowPower:
            state.lowPowerMode = state.lowPowerMode.next
            var o = state.status.overrides
            o.lowPower = state.lowPowerMode.override
            return override(&state, o)
        case .toggleSimulatedLaptop:
            if state.replay != nil {
                state.message = "S: a replay shows the recording; run thermtop --simulate for the simulated laptop."
                return []
            }
            return [.useSimulatedLaptop(!state.status.sourceIsSimulated)]
        case .raiseLoad, .lowerLoad:
            guard state.simulatedLoad != nil else {
                state.message = "+/- set the simulated laptop's load; real sensors are only read, never loaded (S: simulated laptop)."
                return []
            }
            return [.adjustLoad(action == .raiseLoad ? 0.1 : -0.1)]
        case .toggleDebug:
            state.overlay = state.overlay == .debug ? .none : .debug
            state.helpTop = 0
        case .togglePolicy:
            state.showPolicy.toggle()
        case .toggleHelp:
            state.overlay = state.overlay == .help ? .none : .help
            state.helpTop = 0
        case .togglePause:
            state.paused.toggle()
            if state.replay != nil {
                // The replay's clock stops and restarts where the replay stands; nothing samples.
                state.replay!.anchor(at: state.now)
                return []
            }
            return [.setPaused(state.paused)]
        case .refreshNow:
            if state.replay != nil {
                state.message = "r: a replay reads only what was recorded (p pause, n step, < > speed)."
                return []
            }
            state.message = "r: rediscovering devices and reading every sensor now."
            return [.refresh]
        case .toggleUnits:
            state.units = state.units.toggled
        case .replayStep:
            guard let r = state.replay else {
                state.message = "n steps through a recording: thermtop --replay FILE."
                return []
            }
            state.paused = true
            state.replay!.anchor(at: state.now)
            guard let next = r.position.nextTime else {
                state.message = "The recording has ended (q quits)."
                return []
            }
            return [.replayAdvance(through: next)]
        case .replayFaster, .replaySlower:
            guard let r = state.replay else {
                state.message = "< > change a replay's speed: thermtop --replay FILE --speed X."
                return []
            }
            let range = ReplayState.speedRange
            let speed = min(max(action == .replayFaster ? r.speed * 2 : r.speed / 2, range.lowerBound), range.upperBound)
            state.replay!.anchorTime = state.paused ? r.position.time : min(r.playbackTime(at: state.now), r.position.nextTime ?? r.total)
            state.replay!.anchorNow = state.now
            state.replay!.speed = speed
        case .quit:
            state.quit = true
        case .selectNext, .selectPrevious, .pageDown, .pageUp, .selectFirst, .selectLast:
            if let heat = heatPanel(state) {
                moveHeat(&state, action, page: heat.height - 1)
                return []
            }
            switch action {
            case .selectNext: move(&state, by: 1)
            case .selectPrevious: move(&state, by: -1)
            case .pageDown: move(&state, by: max(1, pageSize(state) - 1))
            case .pageUp: move(&state, by: -max(1, pageSize(state) - 1))
            case .selectFirst: select(&state, index: 0)
            default: select(&state, index: state.sortedSensors.count - 1)
            }
        case .toggleFocus:
            guard state.focus == .sensors else {
                state.focus = .sensors
                return []
            }
            guard state.status.heatSources != nil else {
                state.message = "Tab selects in the Heating it panel, which shows when processes are read (not here)."
                return []
            }
            guard !Layout(state, width: state.width, height: state.height).heat.isEmpty else {
                state.message = "Tab: the Heating it panel needs a bigger window (the reason names the top source)."
                return []
            }
            state.focus = .heat
        case .cycleHeatSort:
            state.heatSort = state.heatSort.next
        case .toggleDetail:
            if case .detail = state.overlay {
                state.overlay = .none
            } else if case .heatGroup = state.overlay {
                state.overlay = .none
            } else if heatPanel(state) != nil {
                let rows = state.heatRows
                guard !rows.isEmpty else {
                    state.message = "Enter opens a group: none used CPU in the last window."
                    return []
                }
                state.overlay = .heatGroup(rows[state.selectedHeatIndex].command)
                state.helpTop = 0
            } else if let id = state.selectedID {
                state.overlay = .detail(id)
                state.helpTop = 0
            }
        case .closeOverlay:
            // Esc with nothing open takes back an applied filter, as in htop.
            if state.overlay == .none { state.filter = "" }
            state.overlay = .none
        case .cycleSort:
            state.sort = state.sort.next
        case .reverseSort:
            state.sortReversed.toggle()
        case .toggleShowAll:
            state.showAll.toggle()
        case .startFilter:
            state.filterEditing = true
            state.searching = false
        case .startSearch:
            state.filterEditing = true
            state.searching = true
            state.search = ""
        case .filterInput(let c):
            typeText(&state, String(c))
        case .filterText(let text):
            typeText(&state, text)
        case .paste(let text):
            // Outside the filter nothing takes text, and a paste is never keys.
            guard state.filterEditing else { return [] }
            typeText(&state, pastedLine(text))
        case .filterBackspace:
            if state.searching {
                if !state.search.isEmpty { state.search.removeLast() }
                searchSelect(&state)
            } else if !state.filter.isEmpty {
                state.filter.removeLast()
            }
        case .filterCommit:
            state.filterEditing = false
            state.searching = false
            state.search = ""
        case .filterCancel:
            state.filterEditing = false
            if state.searching {
                state.searching = false
                state.search = ""
            } else {
                state.filter = ""
            }
        case .mouse(let m):
            mouse(&state, m)
        case .statusArrived(let status, let info):
            receive(&state, status, info)
        case .tick(let now, let wall):
            state.now = max(state.now, now)
            state.wallSeconds = wall
            let fps = state.renderPolicy.pulseFramesPerSecond
            if fps > 0 { state.tick = Int((state.now * fps + 1e-6).rounded(.down)) }
            if let r = state.replay, !state.paused, let due = r.nextDue, let next = r.position.nextTime,
               due <= state.now + 1e-6 {
                // At least the sample that is due, whatever the rounding of the playback clock.
                return [.replayAdvance(through: max(next, r.playbackTime(at: state.now)))]
            }
        case .resized(let w, let h):
            state.width = max(0, w)
            state.height = max(0, h)
        case .signal(let sig):
            if sig == sigtstp { return [.suspend] }
            state.quit = true
            // Ctrl-C is the documented quit key, so it leaves with 0 like q; other signals
            // report themselves the shell's way (SIGQUIT → 131, SIGTERM → 143).
            state.exitStatus = sig == sigint ? 0 : 128 + sig
        case .rendered(let cells, let ms):
            state.stats.frames += 1
            state.stats.cellsLastFrame = cells
            state.stats.cellsTotal += cells
            state.stats.renderMilliseconds = ms
        case .renderSkipped:
            state.stats.framesSkipped += 1
        case .onChangeCounters(let runs, let failures, let last):
            state.configInfo.onChangeRuns = runs
            state.configInfo.onChangeFailures = failures
            state.configInfo.onChangeLastFailure = last
        }
        return []
    }

    /// Asks the monitor for new overrides and keeps them as the ones in force at once, so a key
    /// that arrives with this one (`2l` in one read) builds on them rather than on the status
    /// from before; the monitor's answer replaces the status right after.
    static func override(_ state: inout AppState, _ o: ThermalOverrides) -> [Effect] {
        state.status.overrides = o
        return [.setOverrides(o)]
    }

    /// Appends typed text to the filter or the search, up to `AppState.filterMaxLength`
    /// characters; what goes past it is dropped (and said).
    static func typeText(_ state: inout AppState, _ text: String) {
        let current = state.searching ? state.search : state.filter
        let room = max(0, AppState.filterMaxLength - current.count)
        let kept = String(text.prefix(room))
        if kept.count < text.count {
            state.message = "The filter keeps its first \(AppState.filterMaxLength) characters."
        }
        if state.searching {
            state.search += kept
            searchSelect(&state)
        } else {
            state.filter += kept
        }
    }

    /// Pasted text as one line of filter text: line breaks and tabs become one space between
    /// the words they separate (none at the ends), and every other character a key could not
    /// type into the filter (control characters, ESC, what the screen cannot show in one
    /// column) is dropped. The filter's length cap is `typeText`'s.
    static func pastedLine(_ text: String) -> String {
        var line = ""
        var space = false
        for c in text {
            if c.isNewline || c == "\t" {
                space = !line.isEmpty
            } else if CellBuffer.isSafe(c) {
                if space { line.append(" ") }
                space = false
                line.append(c)
            }
        }
        return line
    }

    /// F3: the selection moves to the first listed sensor that matches the search text.
    static func searchSelect(_ state: inout AppState) {
        let needle = state.search.lowercased()
        guard !needle.isEmpty else { return }
        if let hit = state.sortedSensors.first(where: { SensorList.matches($0, needle) }) {
            state.selectedID = hit.sensor.id
            state.selectionChosen = true
        }
    }

    /// A click selects the row under it, a click on the selected row (the second click of a
    /// double-click) opens its detail, a click on the list heading's title changes the sort,
    /// the wheel moves the selection (or scrolls an overlay). Over an overlay a click closes it.
    static func mouse(_ state: inout AppState, _ m: MouseEvent) {
        let wheel = m.button == .wheelUp ? -3 : m.button == .wheelDown ? 3 : 0
        if state.overlay != .none {
            if wheel != 0, state.overlay.scrolls {
                state.helpTop = max(0, min(state.helpTop + wheel, Overlays.maxTop(state)))
            } else if wheel == 0 {
                state.overlay = .none
            }
            return
        }
        if wheel != 0 {
            move(&state, by: wheel)
            return
        }
        let layout = Layout(state, width: state.width, height: state.height)
        guard !layout.tooSmall else { return }
        let heat = layout.heat
        if !heat.isEmpty, heat.contains(x: m.x, y: m.y) {
            // The panel's first row is its title; a group under the click is selected, the
            // selected one opened.
            let rows = state.heatRows
            let capacity = heat.height - HeatPanel.chromeRows(layout)
            let row = m.y - heat.y - 1
            let index = HeatPanel.top(state, capacity: capacity) + row
            guard row >= 0, row < capacity, index < rows.count else { return }
            state.focus = .heat
            if state.selectedHeat == rows[index].command {
                state.overlay = .heatGroup(rows[index].command)
                state.helpTop = 0
            } else {
                state.selectedHeat = rows[index].command
            }
            return
        }
        let list = layout.sensorList
        if list.height > 0, m.y >= list.y, m.y < list.maxY, m.x < list.maxX {
            let rows = layout.rows
            let index = state.topIndex(capacity: list.height, rows: rows) + (m.y - list.y)
            guard index < rows.count else { return }
            let id = rows[index].sensor.id
            if id == state.selectedID {
                state.overlay = .detail(id)
                state.helpTop = 0
            } else {
                state.selectedID = id
                state.selectionChosen = true
            }
            return
        }
        let heading = layout.sensorHeading
        if heading.height > 0, m.y == heading.y, m.x < Panels.SensorColumns(state, layout: layout).tempX {
            state.sort = state.sort.next
        }
    }

    /// A new status: keep it, extend the history at the tier's step, follow the overrides.
    static func receive(_ state: inout AppState, _ new: MonitorStatus, _ info: FeedInfo) {
        state.status = new
        if let p = info.replay { state.replay?.position = p }
        state.lowPowerMode = LowPowerMode(override: new.overrides.lowPower)
        state.stats.samples = info.samples
        state.stats.sampleMilliseconds = info.sampleMilliseconds
        state.refreshDueAt = info.refreshDueAt
        state.nextSampleAt = info.nextSampleAt
        state.simulatedLoad = info.simulatedLoad
        let t = new.snapshot.time
        // A replay's snapshots carry recorded times, not this machine's monotonic clock.
        if state.replay == nil { state.now = max(state.now, t) }
        // History is recorded at the measured tier's step: a simulated state (`3`) changes how
        // it is drawn, never what is kept.
        let step = state.recordingStep
        // A sample within the current step replaces the newest point's value, so the line
        // advances at the tier's pace whatever the sampling delay. The point keeps its step's
        // time: moving it to the newer sample would place the points before it half a column
        // further back and leave gaps (samples every 0.5 s on a 1 s step). A new point is
        // placed on the step's grid, whole steps after the last: a sample that comes early
        // (a rediscovery's, between two timed ones) moves the samples after it off the grid
        // by a fraction of a step, which must not read as a missing column.
        let advance = state.historyPointTime.map { t - $0 >= step - 1e-6 } ?? true
        if advance {
            let time = state.historyPointTime.map { $0 + step * max(1, ((t - $0) / step + 1e-6).rounded(.down)) } ?? t
            state.historyPointTime = time
            state.historyTimes.append(time)
            state.historySteps.append(step)
            if state.historyTimes.count > AppState.historyLength {
                state.historyTimes.removeFirst(state.historyTimes.count - AppState.historyLength)
                state.historySteps.removeFirst(state.historySteps.count - AppState.historyLength)
            }
        }
        for a in new.assessment.sensors {
            guard let c = a.sensor.celsius else { continue }
            if state.extremes[a.sensor.id] == nil {
                state.extremes[a.sensor.id] = Extremes(c)
            } else {
                state.extremes[a.sensor.id]!.add(c)
            }
            var h = state.history[a.sensor.id] ?? []
            if advance || h.isEmpty { h.append(c) } else { h[h.count - 1] = c }
            if h.count > AppState.historyLength { h.removeFirst(h.count - AppState.historyLength) }
            state.history[a.sensor.id] = h
        }
        Panels.recordPower(&state, new, advance: advance)
        let ids = Set(new.assessment.sensors.map(\.sensor.id))
        state.history = state.history.filter { ids.contains($0.key) }
        if case .detail(let id) = state.overlay, !ids.contains(id) { state.overlay = .none }
    }

    /// While the help or debug overlay is open the movement keys scroll it: lines to move, nil
    /// for other actions.
    static func overlayScroll(_ action: Action, _ state: AppState) -> Int? {
        let page = max(1, state.height - 6)
        switch action {
        case .selectNext: return 1
        case .selectPrevious: return -1
        case .pageDown: return page
        case .pageUp: return -page
        case .selectFirst: return -Int(Int32.max)
        case .selectLast: return Int(Int32.max)
        default: return nil
        }
    }

    /// The "Heating it" panel while it has the focus and is on screen; nil when ↑↓ and `Enter`
    /// act on the sensors (the panel dropped out at this size: the keys go back to them).
    static func heatPanel(_ state: AppState) -> Rect? {
        guard state.focus == .heat, state.status.heatSources != nil else { return nil }
        let r = Layout(state, width: state.width, height: state.height).heat
        return r.isEmpty ? nil : r
    }

    /// ↑↓ PgUp PgDn Home End over the heat-source groups.
    static func moveHeat(_ state: inout AppState, _ action: Action, page: Int) {
        let rows = state.heatRows
        guard !rows.isEmpty else { return }
        let i = state.selectedHeatIndex
        let step = max(1, page - 1)
        let target: Int
        switch action {
        case .selectNext: target = i + 1
        case .selectPrevious: target = i - 1
        case .pageDown: target = i + step
        case .pageUp: target = i - step
        case .selectFirst: target = 0
        default: target = rows.count - 1
        }
        state.selectedHeat = rows[min(max(target, 0), rows.count - 1)].command
    }

    /// Rows the sensor list shows at the current size.
    static func pageSize(_ state: AppState) -> Int {
        Layout(state, width: state.width, height: state.height).sensorCapacity
    }

    static func move(_ state: inout AppState, by delta: Int) {
        let rows = state.sortedSensors
        guard !rows.isEmpty else { return }
        let current = state.selectedIndex ?? 0
        select(&state, index: current + delta)
    }

    static func select(_ state: inout AppState, index: Int) {
        let rows = state.sortedSensors
        guard !rows.isEmpty else { return }
        let i = min(max(index, 0), rows.count - 1)
        state.selectedID = rows[i].sensor.id
        state.selectionChosen = true
    }

    /// Keep the selection on an existing row (the same sensor when it is still listed, else
    /// the row where it was) and the scroll position on a row that keeps it in view.
    static func normalizeSelection(_ state: inout AppState) {
        let rows = state.sortedSensors
        guard !rows.isEmpty else {
            state.topID = nil
            return
        }
        if let i = state.selectedIndex {
            state.selectedIndexHint = i
        } else {
            state.selectedID = rows[min(max(state.selectedIndexHint, 0), rows.count - 1)].sensor.id
            state.selectedIndexHint = state.selectedIndex ?? 0
        }
        let top = state.topIndex(capacity: pageSize(state))
        state.topID = rows[top].sensor.id
    }
}
