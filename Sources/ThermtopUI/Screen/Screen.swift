import ThermtopCore

/// Draws the whole dashboard for a state into a cell buffer. Pure: the same state and size give
/// the same cells, so tests snapshot it as text.
public enum Screen {
    public static let minimumWidth = 40
    public static let minimumHeight = 10
    public static let fullWidth = 80
    public static let fullHeight = 24

    public static func render(_ state: AppState, width: Int, height: Int) -> CellBuffer {
        renderFrame(state, width: width, height: height).buffer
    }

    /// A rendered screen and where its pulse is, so an animation-only frame can redraw just
    /// the pulse (`redrawPulse`) instead of the whole screen.
    public struct Frame: Sendable, Equatable {
        public var buffer: CellBuffer
        /// Origin of the pulse text; nil when the layout shows none.
        public var pulseX: Int?
        public var pulseY: Int?
    }

    public static func renderFrame(_ state: AppState, width: Int, height: Int) -> Frame {
        var buf = CellBuffer(width: max(width, 0), height: max(height, 0))
        guard width > 0, height > 0 else { return Frame(buffer: buf) }
        let theme = Theme(unicode: state.unicode, color: state.color)
        var pulseAt: (x: Int, y: Int)?
        if width < minimumWidth || height < minimumHeight {
            drawTooSmall(&buf, theme: theme)
        } else if width < fullWidth || height < fullHeight {
            pulseAt = drawCompact(state, into: &buf, theme: theme)
        } else {
            pulseAt = drawFull(state, into: &buf, theme: theme)
        }
        if width >= minimumWidth && height >= minimumHeight {
            switch state.overlay {
            case .none: break
            case .help: Overlays.help(state, into: &buf, theme: theme)
            case .debug: Overlays.debug(state, into: &buf, theme: theme)
            case .detail: Overlays.detail(state, into: &buf, theme: theme)
            }
        }
        return Frame(buffer: buf, pulseX: pulseAt?.x, pulseY: pulseAt?.y)
    }

    /// Redraw only the pulse of `frame` for `state.tick`: the cells equal those a full
    /// `renderFrame` would produce when nothing but the tick changed.
    public static func redrawPulse(_ state: AppState, in frame: inout Frame) {
        guard let x = frame.pulseX, let y = frame.pulseY else { return }
        let theme = Theme(unicode: state.unicode, color: state.color)
        frame.buffer.text(pulse(state, theme), x: x, y: y, style: theme.level(state.status.thermalState), theme: theme)
    }

    static func drawTooSmall(_ buf: inout CellBuffer, theme: Theme) {
        let lines = ["terminal too small", "need \(minimumWidth)x\(minimumHeight)", "q quits"]
        let top = max(0, (buf.height - lines.count) / 2)
        for (i, l) in lines.enumerated() where top + i < buf.height {
            let x = max(0, (buf.width - l.count) / 2)
            buf.put(l, x: x, y: top + i, style: i == 0 ? theme.title : .plain)
        }
    }

    /// `SERIOUS`, or `SERIOUS (SIM)` when forced.
    static func badgeText(_ s: MonitorStatus) -> String {
        " \(s.thermalState.name.uppercased())\(s.stateIsSimulated ? " (SIMULATED)" : "") "
    }

    static func lowPowerText(_ s: MonitorStatus) -> String {
        let on = s.isLowPowerModeEnabled ? "on" : "off"
        if s.lowPowerIsSimulated { return "low power \(on) (SIMULATED)" }
        if let r = s.lowPowerAssessment.reasons.first { return "low power \(on) (\(r))" }
        return "low power \(on)"
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
        return parts.isEmpty ? nil : "SIMULATED: " + parts.joined(separator: " · ") + "  (0 = live)"
    }

    // MARK: - compact (40×10 up to 80×24)

    @discardableResult
    static func drawCompact(_ state: AppState, into buf: inout CellBuffer, theme: Theme) -> (x: Int, y: Int) {
        let s = state.status
        var y = 0
        var x = buf.put("thermtop ", x: 0, y: y, style: theme.title)
        x += buf.put(badgeText(s), x: x, y: y, style: theme.badge(s.thermalState))
        let pulseAt = (x: buf.width - 6, y: y)
        buf.text(pulse(state, theme), x: pulseAt.x, y: pulseAt.y, style: theme.level(s.thermalState), theme: theme)
        y += 1
        buf.text("tier \(s.tier) \(theme.dot) refresh \(Int(s.policy.refreshIntervalSeconds)) s", x: 0, y: y, style: theme.title, theme: theme)
        y += 1
        buf.text(lowPowerText(s), x: 0, y: y, maxWidth: buf.width, theme: theme)
        y += 1
        if let banner = simulationBanner(state) {
            buf.text(banner, x: 0, y: y, style: theme.warning, maxWidth: buf.width, theme: theme)
            y += 1
        }
        buf.text(s.reason, x: 0, y: y, style: theme.dim, maxWidth: buf.width, theme: theme)
        y += 1
        let rows = state.sortedSensors
        let nameWidth = buf.width - 18
        for a in rows where y < buf.height - 1 {
            let mark = a.sensor.id == s.assessment.decidedBy ? String(theme.pointer) : " "
            buf.text(mark, x: 0, y: y, style: theme.level(a.level), theme: theme)
            buf.text(Format.pad(a.sensor.name, nameWidth), x: 2, y: y, theme: theme)
            buf.text(Format.padLeft(Format.degrees(a.sensor.celsius), 6), x: 2 + nameWidth, y: y, theme: theme)
            buf.put(a.sensor.celsius == nil ? "unknown" : a.level.name, x: 10 + nameWidth, y: y, style: theme.level(a.level))
            y += 1
        }
        buf.put("? help  q quit", x: 0, y: buf.height - 1, style: theme.dim)
        return pulseAt
    }

    static func pulse(_ state: AppState, _ theme: Theme) -> String {
        Pulse.frame(tick: state.tick, tier: state.status.tier, unicode: theme.unicode)
    }

    // MARK: - full layout

    @discardableResult
    static func drawFull(_ state: AppState, into buf: inout CellBuffer, theme: Theme) -> (x: Int, y: Int) {
        let s = state.status
        let w = buf.width
        // Header
        var x = buf.put(" thermtop ", x: 0, y: 0, style: theme.title)
        x += buf.text(Format.pad(state.hostname, 16), x: x, y: 0, style: theme.dim, theme: theme) + 1
        x += buf.put(badgeText(s), x: x, y: 0, style: theme.badge(s.thermalState)) + 1
        x += buf.text(" tier \(s.tier) ", x: x, y: 0, style: theme.title, theme: theme) + 1
        let pulseAt = (x: x + 1, y: 0)
        x += buf.text(" \(pulse(state, theme)) ", x: x, y: 0, style: theme.level(s.thermalState), theme: theme)
        var label = s.sourceLabel
        let room = max(8, w - x - state.clock.count - (state.paused ? 8 : 0) - 4)
        if label.count > room { label = "…" + label.suffix(room - 1) }
        let right = "\(state.paused ? "PAUSED  " : "")\(state.clock)  \(label)"
        buf.text(right, x: max(x + 1, w - right.count - 1), y: 0, style: state.paused ? theme.warning : theme.dim, theme: theme)
        var y = 1
        buf.text(lowPowerText(s), x: 1, y: y, style: s.isLowPowerModeEnabled ? theme.level(.fair) : .plain, maxWidth: w - 2, theme: theme)
        y += 1
        buf.text(s.reason, x: 1, y: y, style: theme.level(s.thermalState), maxWidth: w - 2, theme: theme)
        y += 1
        if let banner = simulationBanner(state) {
            buf.text(banner, x: 1, y: y, style: theme.warning, maxWidth: w - 2, theme: theme)
            y += 1
        }
        if let note = state.note {
            buf.text(note, x: 1, y: y, style: theme.warning, maxWidth: w - 2, theme: theme)
            y += 1
        }

        // Bottom panels: battery (2), policy (3), status line (1).
        let bottomRows = 2 + 3 + 1
        let sensorsBottom = buf.height - bottomRows
        y += 1
        y = drawSensors(state, into: &buf, top: y, bottom: sensorsBottom, theme: theme)
        drawBattery(state, into: &buf, y: sensorsBottom, theme: theme)
        drawPolicy(state, into: &buf, y: sensorsBottom + 2, theme: theme)
        drawStatusLine(into: &buf, theme: theme)
        return pulseAt
    }

    static func drawSensors(_ state: AppState, into buf: inout CellBuffer, top: Int, bottom: Int, theme: Theme) -> Int {
        let s = state.status
        let w = buf.width
        let rows = state.sortedSensors
        var y = top
        let nameW = min(28, max(16, w / 4))
        let tempW = 7
        let levelW = 9
        let rest = w - 2 - nameW - tempW - levelW - 3
        let barW = max(10, rest * 3 / 5)
        let sparkW = max(0, rest - barW - 1)
        let bx = 2 + nameW + tempW + 1
        let lx = bx + barW + 1
        let sx = lx + levelW + 1
        let heading = nameW >= 27 ? "Sensor, nearest limit first" : "Sensor"
        buf.text(heading, x: 1, y: y, style: theme.title, maxWidth: nameW + 1, theme: theme)
        buf.text(Format.padLeft(theme.degree, tempW), x: 2 + nameW, y: y, style: theme.dim, theme: theme)
        buf.text("0 ─ fair │ serious │ critical", x: bx, y: y, style: theme.dim, maxWidth: barW, theme: theme)
        buf.put("level", x: lx, y: y, style: theme.dim)
        if sparkW > 4 { buf.put("history", x: sx, y: y, style: theme.dim) }
        y += 1
        // Extra rows below the list: cooling + throttle summary, and the selected sensor line.
        let coolingLines = s.assessment.cooling.isEmpty && s.assessment.throttle == nil ? 0 : 1
        let fanLines = s.assessment.fans.isEmpty ? 0 : 1
        let listBottom = bottom - coolingLines - fanLines - 1
        if rows.isEmpty {
            buf.text("No temperature sensors under \(s.sourceLabel).", x: 2, y: y, style: theme.dim, maxWidth: w - 4, theme: theme)
            y += 1
        }
        // Keep the selection visible. When the list overflows, its last row says how many more
        // there are, so it is not drawn over a sensor (possibly the selected one).
        let room = max(listBottom - y, 1)
        let visible = rows.count > room ? max(room - 1, 1) : room
        let first = state.selected >= visible ? state.selected - visible + 1 : 0
        for (i, a) in rows.enumerated().dropFirst(first) where y < listBottom && i < first + visible {
            let isSel = i == min(state.selected, rows.count - 1)
            let decides = a.sensor.id == s.assessment.decidedBy
            buf.text(decides ? String(theme.pointer) : " ", x: 0, y: y, style: theme.level(a.level), theme: theme)
            let name = a.sensor.name
            buf.text(Format.pad(name, nameW), x: 2, y: y, style: isSel ? theme.selected : .plain, theme: theme)
            buf.text(Format.padLeft(Format.degrees(a.sensor.celsius), tempW - 1), x: 2 + nameW, y: y, style: theme.level(a.level), theme: theme)
            if a.sensor.celsius != nil {
                buf.thermalBar(a, x: bx, y: y, width: barW, theme: theme)
                var lvl = a.level.name
                if a.heldByHysteresis { lvl += "*" }
                buf.put(lvl, x: lx, y: y, style: theme.level(a.level))
                if sparkW > 0, let h = state.history[a.sensor.id] {
                    buf.sparkline(h, x: sx, y: y, width: sparkW, low: a.thresholds.fair.celsius - 30,
                                  high: a.thresholds.critical.celsius, theme: theme, style: theme.level(a.level))
                }
            } else {
                let why = a.sensor.issue.map { "unknown: \($0.reason.rawValue)\($0.detail.map { " \($0)" } ?? "")" } ?? "unknown"
                if let h = a.hold, !h.expired {
                    // Fail safe: the level it last read still counts; say so and since when.
                    let since = h.sinceLabel.map { " since \($0)" } ?? ""
                    buf.text("HELD \(h.level) · \(h.issue.reason.rawValue)\(since)", x: bx, y: y,
                             style: theme.level(h.level), maxWidth: w - bx - 1, theme: theme)
                } else {
                    buf.text(why, x: bx, y: y, style: theme.dim, maxWidth: w - bx - 1, theme: theme)
                }
            }
            y += 1
        }
        if rows.count > visible + first, y < listBottom {
            buf.text("… \(rows.count - visible - first) more (↓)", x: 2, y: y, style: theme.dim, theme: theme)
        }
        y = listBottom
        if let sel = state.selectedSensor {
            let th = sel.thresholds
            let line = "selected: \(sel.sensor.name) · fair \(formatDegrees(th.fair.celsius)) · serious \(th.serious.label) · critical \(th.critical.label) · clears \(formatDegrees(th.serious.clearsBelow)) · Enter: detail"
            buf.text(line, x: 2, y: y, style: theme.dim, maxWidth: w - 3, theme: theme)
        }
        y += 1
        if coolingLines > 0 {
            var parts: [String] = []
            for c in s.assessment.cooling {
                let name = c.device.type ?? c.device.id
                let st = "\(c.device.currentState.map(String.init) ?? "?")/\(c.device.maxState.map(String.init) ?? "?")"
                parts.append(c.level > .nominal ? "\(name) \(st) \(c.level)" : "\(name) \(st)")
            }
            if let t = s.assessment.throttle {
                parts.append(t.level > .nominal ? "THROTTLING (counters +\(t.lastIncrease))" : "throttle counters steady")
            }
            let coolingLevel = (s.assessment.cooling.map(\.level) + [s.assessment.throttle?.level ?? .nominal]).max() ?? .nominal
            buf.text("Cooling  " + parts.joined(separator: " · "), x: 1, y: y,
                     style: coolingLevel > .nominal ? theme.level(coolingLevel) : .plain, maxWidth: w - 2, theme: theme)
            y += 1
        }
        if fanLines > 0 {
            // hwmon fans (truth, minimal): every fan, 0 RPM said as stopped or no reading, never hidden.
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
            let fanLevel = s.assessment.fans.filter { !$0.ignored }.map(\.level).max() ?? .nominal
            buf.text("Fans     " + parts.joined(separator: " · "), x: 1, y: y,
                     style: fanLevel > .nominal ? theme.level(fanLevel) : .plain, maxWidth: w - 2, theme: theme)
            y += 1
        }
        return y
    }

    static func drawBattery(_ state: AppState, into buf: inout CellBuffer, y: Int, theme: Theme) {
        let snap = state.status.snapshot
        let w = buf.width
        buf.put("Battery", x: 1, y: y, style: theme.title)
        guard !snap.batteries.isEmpty else {
            let ac = snap.adapters.isEmpty ? "" : " · AC \(snap.adapters.contains { $0.online == true } ? "online" : "offline")"
            buf.text("no battery on this machine (desktop or server)\(ac)", x: 10, y: y, style: theme.dim, maxWidth: w - 11, theme: theme)
            return
        }
        let sys = CombinedBattery(snap.batteries)
        let pct = sys.percent
        let lvl: ThermalState = (pct ?? 100) <= 10 ? .critical : (pct ?? 100) <= 20 ? .fair : .nominal
        var x = 10
        x += buf.put(Format.padLeft(pct.map(Format.percent) ?? "?", 6), x: x, y: y, style: theme.level(lvl)) + 1
        buf.gauge(percent: pct, x: x, y: y, width: 20, theme: theme, style: CellStyle(fg: theme.color ? theme.levelColor(lvl) : .defaultColor))
        x += 21
        var parts: [String] = [sys.status?.rawValue ?? "status unknown"]
        if let watts = sys.watts {
            parts.append("\(Format.watts(watts)) \(sys.status == .charging ? "in" : sys.status == .discharging ? "out" : "")")
        }
        if let t = sys.secondsToEmpty { parts.append("\(Format.duration(t)) to empty") } else if let t = sys.secondsToFull {
            parts.append("\(Format.duration(t)) to full")
        } else if sys.status == .discharging || sys.status == .charging {
            parts.append("time unknown (\(snap.batteries.first?.timeUnknownReason ?? "no rate"))")
        }
        buf.text(parts.joined(separator: " · "), x: x, y: y, maxWidth: w - x - 1, theme: theme)
        var second: [String] = []
        if snap.batteries.count > 1 { second.append("\(snap.batteries.count) batteries, weighted by energy") }
        for b in snap.batteries {
            var d = b.id
            if let h = b.healthPercent { d += " health \(Format.percent(h))" }
            if let c = b.cycleCount { d += ", \(c) cycles" }
            second.append(d)
        }
        let acOnline = snap.adapters.compactMap(\.online)
        second.append(acOnline.isEmpty ? "AC unknown" : "AC \(acOnline.contains(true) ? "online" : "offline")")
        if !snap.peripherals.isEmpty { second.append("\(snap.peripherals.count) peripheral battery(ies) not counted") }
        buf.text(second.joined(separator: " · "), x: 10, y: y + 1, style: theme.dim, maxWidth: w - 11, theme: theme)
    }

    static func drawPolicy(_ state: AppState, into buf: inout CellBuffer, y: Int, theme: Theme) {
        let s = state.status
        let p = s.policy
        let w = buf.width
        buf.put("Policy", x: 1, y: y, style: theme.title)
        let countdown = state.paused ? "paused" : "next in \(Int(state.secondsUntilRefresh.rounded(.up))) s"
        let line1 = "tier \(p.tier) · refresh every \(Int(p.refreshIntervalSeconds)) s (\(countdown), r = now) · sampling every \(formatSeconds(state.sampleDelay))"
        buf.text(line1, x: 10, y: y, style: theme.title, maxWidth: w - 11, theme: theme)
        let line2 = "animations \(p.animationsEnabled ? "on" : "off") · prefetch \(p.prefetchEnabled ? "on" : "off") · inference \(p.inference)"
        buf.text(line2, x: 10, y: y + 1, maxWidth: w - 11, theme: theme)
        let line3 = p.lowPower
            ? "low power: " + p.lowPowerAdjustments.summary.joined(separator: ", ") + "; work you ask for still runs"
            : "low power off: background refresh, prefetch and sync run normally"
        buf.text(line3, x: 10, y: y + 2, style: theme.dim, maxWidth: w - 11, theme: theme)
    }

    static func formatSeconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

    static func drawStatusLine(into buf: inout CellBuffer, theme: Theme) {
        let y = buf.height - 1
        var x = 0
        for (k, label) in KeyMap.statusLine {
            guard x + k.count + label.count + 2 < buf.width else { break }
            x += buf.put(k, x: x, y: y, style: theme.key)
            x += buf.put(" \(label) ", x: x, y: y, style: theme.dim)
        }
    }
}
