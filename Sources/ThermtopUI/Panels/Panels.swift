import ThermtopCore

/// The dashboard's panels. Each draws one part of `AppState` into the `Rect` the layout gave
/// it and writes nothing outside it.
enum Panels {
    /// Texts wrapped into `r` (indented by one column): each text gets the rows it needs, the
    /// last text takes what is left, and a text cut short ends in `…`, never mid-word silently.
    static func wrapped(_ texts: [String], into buf: inout CellBuffer, in r: Rect, style: CellStyle, theme: Theme) {
        var y = r.y
        for (i, t) in texts.enumerated() where y < r.maxY {
            let rest = texts.dropFirst(i + 1).count
            let room = max(1, r.maxY - y - rest)
            for line in TextWrap.lines(t, width: r.width - 2, maxLines: room) {
                buf.text(line, x: r.x + 1, y: y, style: style, maxWidth: r.width - 2, theme: theme)
                y += 1
            }
        }
    }

    /// Plain lines, one per row of `r`, indented by one column.
    static func lines(_ lines: [String], into buf: inout CellBuffer, in r: Rect, style: CellStyle, theme: Theme) {
        for (i, l) in lines.prefix(r.height).enumerated() {
            buf.text(l, x: r.x + 1, y: r.y + i, style: style, maxWidth: r.width - 2, theme: theme)
        }
    }

    /// Text ellipsised to fit between `x` and the right edge of `r` (one column margin).
    @discardableResult
    static func fit(_ text: String, into buf: inout CellBuffer, x: Int, y: Int, in r: Rect, style: CellStyle = .plain,
                    theme: Theme) -> Int {
        let room = r.maxX - 1 - x
        guard room > 0 else { return 0 }
        return buf.text(TextWrap.ellipsize(text, width: room), x: x, y: y, style: style, theme: theme)
    }

    // MARK: - Header

    /// One piece of the header: kept by priority (0 first) when the row is too narrow for all.
    struct HeaderPiece {
        var text: String
        var style: CellStyle
        var priority: Int
    }

    /// `serious in ~40 s`, `back to fair in ~3 min`, `steady`, `not enough history`: where the
    /// measured state is heading (`status.forecast`), coloured by the level it heads for.
    static func forecastPiece(_ s: MonitorStatus, theme: Theme) -> HeaderPiece {
        let f = s.forecast
        let style: CellStyle
        switch f.outlook {
        case .rising(let to, _): style = theme.level(to)
        case .falling, .steady, .notEnoughHistory: style = theme.dim
        }
        // A forced state is not what the forecast is about (it follows the measured state): say
        // so, and give the room to the rest first.
        if s.stateIsSimulated { return HeaderPiece(text: "live: " + f.summary, style: style, priority: 8) }
        return HeaderPiece(text: f.summary, style: style, priority: 3)
    }

    /// The header's pieces that fit `width` columns: name, host, the state badge, tier, pulse
    /// and forecast on the left; the clock (or, in a replay, REPLAY with the recording's time,
    /// speed and whether it is paused or ended) on the right. What does not fit is left out
    /// whole, least important first (host, clock, name, forecast, pulse), never cut mid-word.
    static func headerPieces(_ state: AppState, width: Int, theme: Theme) -> (left: [HeaderPiece], right: [HeaderPiece]) {
        let s = state.status
        let wide = width >= Layout.wideWidth
        var left: [HeaderPiece] = []
        left.append(HeaderPiece(text: wide ? " thermtop" : "thermtop", style: theme.title, priority: 5))
        if wide {
            left.append(HeaderPiece(text: TextWrap.ellipsize(state.hostname, width: 16), style: theme.dim, priority: 7))
        }
        left.append(HeaderPiece(text: Screen.badgeText(s), style: s.stateIsUnknown ? theme.unknownBadge : theme.badge(s.thermalState), priority: 0))
        left.append(HeaderPiece(text: "tier \(s.tier)", style: theme.title, priority: 1))
        left.append(HeaderPiece(text: Pulse.frame(tick: state.tick, tier: s.tier, unicode: theme.unicode),
                                style: s.stateIsUnknown ? theme.dim : theme.fill(s.thermalState), priority: 2))
        if hasForecast(s) { left.append(forecastPiece(s, theme: theme)) }
        var right: [HeaderPiece] = []
        if let replay = state.replay {
            right.append(HeaderPiece(text: "REPLAY", style: theme.warning, priority: 0))
            if replay.ended {
                right.append(HeaderPiece(text: "ENDED", style: theme.warning, priority: 1))
            } else if state.paused {
                right.append(HeaderPiece(text: "PAUSED", style: theme.warning, priority: 1))
            }
            right.append(HeaderPiece(text: replay.elapsedText, style: theme.title, priority: 2))
            if !replay.wallClock.isEmpty { right.append(HeaderPiece(text: replay.wallClock, style: theme.dim, priority: 4)) }
            right.append(HeaderPiece(text: replay.speedText, style: theme.title, priority: 3))
        } else {
            if state.paused { right.append(HeaderPiece(text: "PAUSED ", style: theme.warning, priority: 2)) }
            right.append(HeaderPiece(text: state.clockText, style: state.paused ? theme.warning : theme.dim, priority: 6))
        }
        let margin = wide ? 1 : 0
        // Drop the least important piece until the two sides fit with a space between them.
        while piecesWidth(left) + (right.isEmpty ? 0 : 1 + piecesWidth(right)) + margin > width,
              let worst = (left + right).map(\.priority).max(), worst > 0 {
            if let i = left.lastIndex(where: { $0.priority == worst }) {
                left.remove(at: i)
            } else if let i = right.lastIndex(where: { $0.priority == worst }) {
                right.remove(at: i)
            }
        }
        return (left, right)
    }

    /// Columns of pieces joined by single spaces.
    static func piecesWidth(_ pieces: [HeaderPiece]) -> Int {
        pieces.reduce(0) { $0 + $1.text.count + 1 } - (pieces.isEmpty ? 0 : 1)
    }

    /// Nothing to forecast without a single reading (a machine without sensors).
    static func hasForecast(_ s: MonitorStatus) -> Bool {
        s.assessment.sensors.contains { $0.sensor.celsius != nil }
    }

    /// Whether the header at this width has room for the forecast (else the low-power line
    /// carries it).
    static func headerShowsForecast(_ state: AppState, width: Int, theme: Theme) -> Bool {
        let text = forecastPiece(state.status, theme: theme).text
        return headerPieces(state, width: width, theme: theme).left.contains { $0.text == text }
    }

    /// The header row (see `headerPieces`), with the source after the clock when there is room.
    static func header(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let s = state.status
        let wide = r.width >= Layout.wideWidth
        let margin = wide ? 1 : 0
        let (left, kept) = headerPieces(state, width: r.width, theme: theme)
        var right = kept
        let width = piecesWidth
        var x = r.x
        for p in left where x < r.maxX {
            x += buf.text(p.text, x: x, y: r.y, style: p.style, maxWidth: r.maxX - x, theme: theme) + 1
        }
        // The source (path or simulated laptop) follows the clock when there is room.
        if wide && state.replay == nil, let clock = right.last, clock.text == state.clockText {
            let room = r.maxX - margin - x - width(right) - 3
            if room >= 6 {
                var label = s.sourceLabel
                if label.count > room { label = "…" + label.suffix(room - 1) }
                right[right.count - 1].text = clock.text + "  " + label
            }
        }
        var rx = r.maxX - margin - width(right)
        for p in right where rx >= x {
            rx += buf.text(p.text, x: rx, y: r.y, style: p.style, maxWidth: r.maxX - rx, theme: theme) + 1
        }
    }

    // MARK: - Low power

    /// The core's wording (`MonitorStatus.lowPowerText`), the same words `status` prints.
    static func lowPowerText(_ s: MonitorStatus) -> String { "low power " + s.lowPowerText }

    /// The low-power line; on windows too narrow for the forecast in the header, the forecast
    /// follows it here when it fits whole.
    static func lowPower(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let s = state.status
        let forecastHere = hasForecast(s) && !headerShowsForecast(state, width: r.width, theme: theme)
        // The power profiles in force follow (`status`'s Profile lines), unless this line carries
        // the forecast: on a window that narrow the forecast matters more. A profile the
        // reasons already name is not said twice.
        let profiles = forecastHere ? [] : s.profileTextsBesideReasons.map { Format.clean($0) }
        let text = ([lowPowerText(s)] + profiles).joined(separator: " · ")
        let x = fit(text, into: &buf, x: r.x + 1, y: r.y, in: r,
                    style: s.isLowPowerModeEnabled ? theme.level(.fair) : .plain, theme: theme)
        guard forecastHere else { return }
        let f = forecastPiece(s, theme: theme)
        let start = r.x + 1 + x
        if text.count == x, start + 3 + f.text.count <= r.maxX - 1 {
            buf.text(" · " + f.text, x: start, y: r.y, style: f.style, theme: theme)
        }
    }

    // MARK: - Cooling

    static func cooling(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0, let text = Screen.coolingText(state.status) else { return }
        let a = state.status.assessment
        let level = (a.cooling.filter { !$0.ignored }.map(\.level) + [a.throttle?.level ?? .nominal]).max() ?? .nominal
        fit(text, into: &buf, x: r.x + 1, y: r.y, in: r, style: theme.level(level), theme: theme)
    }

    // MARK: - Fans

    /// Every hwmon fan on one line: RPM, or stopped / no reading / asleep (never hidden), PWM %,
    /// control, and the level when it counts; GPU power meters follow.
    static func fansText(_ s: MonitorStatus) -> String? {
        let parts = s.assessment.fans.map { f -> String in
            let fan = f.fan
            let name = "\(fan.chip ?? "fan") \(fan.label ?? String(fan.location.split(separator: "/").last ?? ""))"
            var text: String
            switch fan.state {
            case .spinning: text = "\(name) \(Int(fan.rpm ?? 0)) rpm"
            case .stopped: text = "\(name) stopped"
            case .noReading: text = "\(name) no reading"
            case .asleep: text = "\(name) asleep"
            }
            if let p = fan.pwmPercent { text += " \(Int(p.rounded())) %" }
            if let c = fan.control { text += " \(c.rawValue)" }
            if !f.ignored && f.level > .nominal { text += " \(f.level)" }
            return text
        }
        // Power (GPU PPT among it) has a line of its own (`Panels.power`).
        return parts.isEmpty ? nil : "Fans     " + parts.joined(separator: " · ")
    }

    static func fans(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0, let text = fansText(state.status) else { return }
        let level = state.status.assessment.fans.filter { !$0.ignored }.map(\.level).max() ?? .nominal
        fit(text, into: &buf, x: r.x + 1, y: r.y, in: r, style: theme.level(level), theme: theme)
    }

    // MARK: - Status line

    static func statusLine(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        if state.filterEditing {
            var x = buf.put(state.searching ? "Search: " : "Filter: ", x: r.x, y: r.y, style: theme.key)
            x += buf.text((state.searching ? state.search : state.filter) + "_", x: x, y: r.y, style: theme.title, maxWidth: r.maxX - x, theme: theme)
            fit(state.searching ? "  Enter or Esc ends the search" : "  Enter keeps · Esc clears", into: &buf, x: x, y: r.y,
                in: Rect(x: r.x, y: r.y, width: r.width + 1, height: 1), theme: theme)
            return
        }
        if let m = state.message {
            buf.text(TextWrap.ellipsize(m, width: r.width), x: r.x, y: r.y, style: theme.warning, theme: theme)
            return
        }
        var x = r.x
        for (k, label) in state.replay == nil ? KeyMap.statusLine : KeyMap.replayStatusLine {
            let keyText = theme.unicode ? k : String(k.map(CellBuffer.asciiFallback))
            guard x + keyText.count + label.count + 2 <= r.maxX else { break }
            x += buf.text(keyText, x: x, y: r.y, style: theme.key, theme: theme)
            x += buf.put(" \(label) ", x: x, y: r.y, style: theme.dim)
        }
    }
}
