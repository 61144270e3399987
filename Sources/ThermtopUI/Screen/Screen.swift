import ThermtopCore

/// Draws the whole dashboard for a state into a cell buffer. Pure: the same state and size give
/// the same cells, so tests snapshot it as text. Each panel draws into the `Rect` that `Layout`
/// gives it (see `Panels/`).
public enum Screen {
    public static let minimumWidth = Layout.minimumWidth
    public static let minimumHeight = Layout.minimumHeight

    public static func render(_ state: AppState, width: Int, height: Int) -> CellBuffer {
        frame(state, width: width, height: height).buffer
    }

    /// A rendered screen, and what it was rendered from: the next frame starts from it when
    /// only time moved (`frame(_:width:height:after:)`).
    public struct Frame: Sendable {
        public let state: AppState
        public let buffer: CellBuffer
        /// nil when the screen has no panels (too small, or empty).
        let layout: Layout?
    }

    /// The screen for `state`, the cells `render` gives. When only time moved since `previous`
    /// (a pulse frame: the pulse, the clock, the refresh countdown), only the rows that show
    /// time are drawn again, onto `previous`'s cells and with its layout; a frame is then a
    /// row or two of work, not the whole screen.
    public static func frame(_ state: AppState, width: Int, height: Int, after previous: Frame? = nil) -> Frame {
        if let previous, let layout = previous.layout, previous.buffer.width == width, previous.buffer.height == height,
           onlyTimeMoved(from: previous.state, to: state) {
            var buf = previous.buffer
            let theme = Theme(unicode: state.unicode, color: state.color)
            for r in timeRects(layout) { buf.fill(r, with: .blank) }
            Panels.header(state, into: &buf, in: layout.header, theme: theme)
            Panels.policy(state, into: &buf, in: layout.policy, theme: theme)
            return Frame(state: state, buffer: buf, layout: layout)
        }
        var buf = CellBuffer(width: max(width, 0), height: max(height, 0))
        guard width > 0, height > 0 else { return Frame(state: state, buffer: buf, layout: nil) }
        let theme = Theme(unicode: state.unicode, color: state.color)
        let layout = Layout(state, width: width, height: height)
        if layout.tooSmall {
            drawTooSmall(&buf, theme: theme)
            return Frame(state: state, buffer: buf, layout: nil)
        }
        Panels.header(state, into: &buf, in: layout.header, theme: theme)
        Panels.lowPower(state, into: &buf, in: layout.lowPower, theme: theme)
        Panels.lines(reasonShown(state, width: layout.reason.width - 2, maxLines: layout.reason.height), into: &buf,
                     in: layout.reason, style: theme.level(state.status.thermalState), theme: theme)
        Panels.wrapped(bannerTexts(state), into: &buf, in: layout.banner, style: theme.warning, theme: theme)
        Panels.sensors(state, layout: layout, into: &buf, theme: theme)
        HeatPanel.draw(state, layout: layout, into: &buf, theme: theme)
        Panels.cooling(state, into: &buf, in: layout.cooling, theme: theme)
        Panels.fans(state, into: &buf, in: layout.fans, theme: theme)
        Panels.throttling(state, into: &buf, in: layout.throttling, theme: theme)
        Panels.power(state, into: &buf, in: layout.power, theme: theme)
        Panels.graph(state, into: &buf, in: layout.graph, theme: theme)
        Panels.battery(state, into: &buf, in: layout.battery, theme: theme)
        Panels.policy(state, into: &buf, in: layout.policy, theme: theme)
        Panels.statusLine(state, into: &buf, in: layout.statusLine, theme: theme)
        switch state.overlay {
        case .none: break
        case .help: Overlays.help(state, into: &buf, theme: theme)
        case .debug: Overlays.debug(state, into: &buf, theme: theme)
        case .detail(let id): Overlays.detail(state, id: id, into: &buf, theme: theme)
        case .heatGroup(let command): HeatPanel.group(state, command: command, into: &buf, theme: theme)
        }
        return Frame(state: state, buffer: buf, layout: layout)
    }

    /// The panels that show time: the header (the pulse, the clock) and the policy (the
    /// refresh countdown). Nothing else reads `now`, `tick`, `wallSeconds` or `stats`.
    static func timeRects(_ layout: Layout) -> [Rect] { [layout.header, layout.policy] }

    /// Whether `b` differs from `a` only in time (now, the pulse's tick, the wall clock) and
    /// the loop's own counters, with no overlay (the debug overlay shows those counters) and
    /// no replay (whose position moves with time).
    static func onlyTimeMoved(from a: AppState, to b: AppState) -> Bool {
        guard b.overlay == .none, b.replay == nil else { return false }
        var t = b
        t.now = a.now
        t.tick = a.tick
        t.wallSeconds = a.wallSeconds
        t.stats = a.stats
        return t == a
    }

    static func drawTooSmall(_ buf: inout CellBuffer, theme: Theme) {
        let lines = ["terminal too small", "need \(minimumWidth)x\(minimumHeight)", "q quits"]
        let top = max(0, (buf.height - lines.count) / 2)
        for (i, l) in lines.enumerated() where top + i < buf.height {
            let x = max(0, (buf.width - l.count) / 2)
            buf.put(l, x: x, y: top + i, style: i == 0 ? theme.title : .plain)
        }
    }

    // MARK: - Text shared by the layout and the panels

    /// The state's reason, in the units shown.
    static func reasonText(_ state: AppState) -> String { state.status.why.text(state.units) }

    /// The state's reason, wrapped.
    static func reasonLines(_ state: AppState, width: Int) -> [String] {
        TextWrap.lines(reasonText(state), width: width, maxLines: Layout.reasonMaxLines)
    }

    /// The reason in `maxLines` lines of `width`. When it does not fit and names heat sources
    /// (` — mostly cc1plus ×8 (…)`), the assessment's words are cut rather than the sources: at
    /// sizes where the "Heating it" panel has no room, the reason still names the top source.
    static func reasonShown(_ state: AppState, width: Int, maxLines: Int) -> [String] {
        let text = reasonText(state)
        guard maxLines > 0, width > 0 else { return [] }
        let whole = TextWrap.lines(text, width: width, maxLines: Int(Int32.max))
        let suffix = state.status.why.heatSources
        guard whole.count > maxLines, !suffix.isEmpty else {
            return TextWrap.lines(text, width: width, maxLines: maxLines)
        }
        var bare = state.status.why
        bare.heatSources = ""
        let head = bare.text(state.units)
        let sources = String(suffix.drop { $0 == " " })
        if maxLines == 1 {
            let headRoom = max(1, min(head.count, width / 3))
            return [TextWrap.ellipsize(TextWrap.ellipsize(head, width: headRoom) + " " + sources, width: width)]
        }
        let tail = TextWrap.lines(sources, width: width, maxLines: maxLines - 1)
        return TextWrap.lines(head, width: width, maxLines: maxLines - tail.count) + tail
    }

    /// The replay, simulation and start-up notes; empty when everything is live.
    static func bannerTexts(_ state: AppState) -> [String] {
        [replayBanner(state), simulationBanner(state), state.note].compactMap { $0 }
    }

    /// What is replayed and the replay keys, or that the recording ended; nil when live.
    static func replayBanner(_ state: AppState) -> String? {
        guard let r = state.replay else { return nil }
        let name = r.file.split(separator: "/").last.map(String.init) ?? r.file
        if r.ended {
            return "REPLAY: the recording ended at \(ReplayState.clock(r.total))\(r.wallClock.isEmpty ? "" : " (\(r.wallClock) UTC)") · q quits"
        }
        return "REPLAY of \(name) from \(r.host) · p pause · n step · < > speed"
    }

    /// The banner texts, wrapped.
    static func bannerLines(_ state: AppState, width: Int) -> [String] {
        bannerTexts(state).flatMap { TextWrap.lines($0, width: width, maxLines: Layout.bannerMaxLines) }
    }

    /// `SERIOUS`, `SERIOUS (SIMULATED)` when forced, `UNKNOWN` when nothing was measured.
    static func badgeText(_ s: MonitorStatus) -> String {
        " \(s.shownStateName.uppercased())\(s.stateIsSimulated ? " (SIMULATED)" : "") "
    }

    /// The simulation banner, nil when everything is live.
    static func simulationBanner(_ state: AppState) -> String? {
        var parts: [String] = []
        let s = state.status
        if let t = s.overrides.thermalState { parts.append("thermal state forced to \(t)") }
        if let lp = s.overrides.lowPower { parts.append("low power forced \(lp ? "on" : "off")") }
        if s.sourceIsSimulated {
            parts.append("simulated laptop" + (state.simulatedLoad.map { ", load \(Int(($0 * 100).rounded())) % (+/-)" } ?? ""))
        }
        return parts.isEmpty ? nil : "SIMULATED: " + parts.joined(separator: " · ") + " · 0 = back to live"
    }

    /// The cooling devices and throttle counters in one line, nil when there are none.
    static func coolingText(_ s: MonitorStatus) -> String? {
        var parts: [String] = []
        for c in s.assessment.cooling {
            let name = c.device.type ?? c.device.id
            let st = "\(c.device.currentState.map(String.init) ?? "?")/\(c.device.maxState.map(String.init) ?? "?")"
            parts.append(c.level > .nominal ? "\(name) \(st) \(c.level)" : "\(name) \(st)")
        }
        if let t = s.assessment.throttle {
            parts.append(t.level > .nominal ? "THROTTLING (counters +\(t.lastIncrease))" : "throttle counters steady")
        }
        return parts.isEmpty ? nil : "Cooling  " + parts.joined(separator: " · ")
    }

    static func formatSeconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}
