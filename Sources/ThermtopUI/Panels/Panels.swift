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

    static func header(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let s = state.status
        let wide = r.width >= Layout.wideWidth
        var x = r.x
        // Narrow windows keep the badge, tier and pulse; the name goes first when they do not fit.
        let essentials = Screen.badgeText(s).count + "tier \(s.tier) ".count + 6
        if wide || essentials + 9 <= r.width {
            x += buf.put(wide ? " thermtop " : "thermtop ", x: x, y: r.y, style: theme.title)
        }
        if wide { x += buf.text(Format.pad(state.hostname, min(16, max(4, r.width / 8))), x: x, y: r.y, style: theme.dim, theme: theme) + 1 }
        x += buf.put(Screen.badgeText(s), x: x, y: r.y, style: theme.badge(s.thermalState)) + 1
        x += buf.text("tier \(s.tier) ", x: x, y: r.y, style: theme.title, theme: theme)
        let pulse = Pulse.frame(tick: state.tick, tier: s.tier, unicode: theme.unicode)
        if x + 5 <= r.maxX { x += buf.text(pulse, x: x, y: r.y, style: theme.fill(s.thermalState), theme: theme) + 1 }
        var right = state.paused ? "PAUSED  \(state.clockText)" : state.clockText
        if wide {
            var label = s.sourceLabel + (s.sourceIsSimulated ? "" : "")
            let room = r.maxX - x - right.count - 4
            if room >= 6 {
                if label.count > room { label = "…" + label.suffix(room - 1) }
                right += "  " + label
            }
        }
        if x + right.count < r.maxX {
            buf.text(right, x: r.maxX - right.count - (wide ? 1 : 0), y: r.y,
                     style: state.paused ? theme.warning : theme.dim, theme: theme)
        }
    }

    // MARK: - Low power

    static func lowPowerText(_ s: MonitorStatus) -> String {
        let on = s.isLowPowerModeEnabled ? "on" : "off"
        if let forced = s.overrides.lowPower {
            return "low power \(forced ? "on" : "off") (SIMULATED; measured \(s.lowPowerAssessment.enabled ? "on" : "off"))"
        }
        let reasons = s.lowPowerAssessment.reasons
        return reasons.isEmpty ? "low power \(on)" : "low power \(on): " + reasons.joined(separator: "; ")
    }

    static func lowPower(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let s = state.status
        fit(lowPowerText(s), into: &buf, x: r.x + 1, y: r.y, in: r,
            style: s.isLowPowerModeEnabled ? theme.level(.fair) : .plain, theme: theme)
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
        var parts = s.assessment.fans.map { f -> String in
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
        for m in s.snapshot.powerMeters {
            guard let w = m.watts else { continue }
            parts.append("\(m.chip ?? "power") \(m.label ?? "") \(Format.watts(w))" + (m.capWatts.map { " of \(Format.watts($0))" } ?? ""))
        }
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
            var x = buf.put("Filter: ", x: r.x, y: r.y, style: theme.key)
            x += buf.text(state.filter + "_", x: x, y: r.y, style: theme.title, maxWidth: r.maxX - x, theme: theme)
            fit("  Enter keeps · Esc clears", into: &buf, x: x, y: r.y, in: Rect(x: r.x, y: r.y, width: r.width + 1, height: 1), theme: theme)
            return
        }
        if let m = state.message {
            buf.text(TextWrap.ellipsize(m, width: r.width), x: r.x, y: r.y, style: theme.warning, theme: theme)
            return
        }
        var x = r.x
        for (k, label) in KeyMap.statusLine {
            let keyText = theme.unicode ? k : String(k.map(CellBuffer.asciiFallback))
            guard x + keyText.count + label.count + 2 <= r.maxX else { break }
            x += buf.text(keyText, x: x, y: r.y, style: theme.key, theme: theme)
            x += buf.put(" \(label) ", x: x, y: r.y, style: theme.dim)
        }
    }
}
