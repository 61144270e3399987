import ThermtopCore

/// Help, debug and sensor-detail overlays, drawn in a box over the dashboard.
enum Overlays {
    static func boxRect(_ buf: CellBuffer, lines: Int, maxWidth: Int = 100) -> Rect {
        let w = min(buf.width - 2, maxWidth)
        let h = min(buf.height - 2, lines + 2)
        return Rect(x: (buf.width - w) / 2, y: max(1, (buf.height - h) / 2), width: w, height: h)
    }

    static func draw(_ lines: [(String, CellStyle)], title: String, into buf: inout CellBuffer, theme: Theme) {
        let r = boxRect(buf, lines: lines.count)
        buf.box(r, title: title, theme: theme)
        for (i, (text, style)) in lines.enumerated() where i < r.height - 2 {
            buf.text(text, x: r.x + 2, y: r.y + 1 + i, style: style, maxWidth: r.width - 4, theme: theme)
        }
        if lines.count > r.height - 2 {
            buf.text("…", x: r.maxX - 3, y: r.maxY - 2, style: theme.dim, theme: theme)
        }
    }

    /// The help screen, generated from the key map.
    static func help(_ state: AppState, into buf: inout CellBuffer, theme: Theme) {
        var lines: [(String, CellStyle)] = []
        for b in KeyMap.bindings {
            lines.append((Format.pad(b.label, 10) + b.help, .plain))
        }
        lines.append(("", .plain))
        lines.append(("State: the hottest sensor vs its own trips (passive → serious, hot → critical).", theme.dim))
        lines.append(("Tier: serious/critical → minimal; fair → reduced (minimal on low power);", theme.dim))
        lines.append(("      nominal → full (reduced on low power). Esc or ? closes.", theme.dim))
        draw(lines, title: "thermtop keys", into: &buf, theme: theme)
    }

    /// Files behind a sensor's reading.
    static func files(for sensor: TemperatureSensor, snapshot: Snapshot) -> [String] {
        switch sensor.kind {
        case .zone:
            let trips = snapshot.zones.first { $0.id == sensor.location }?.trips.count ?? 0
            return ["class/thermal/\(sensor.location)/temp", "class/thermal/\(sensor.location)/type"]
                + (trips > 0 ? ["class/thermal/\(sensor.location)/trip_point_{0..\(trips - 1)}_{type,temp,hyst}"] : [])
        case .hwmon:
            let parts = sensor.location.split(separator: "/")
            guard parts.count == 2 else { return [] }
            return ["class/hwmon/\(parts[0])/\(parts[1])_{input,label,max,crit,crit_hyst,emergency}", "class/hwmon/\(parts[0])/name"]
        case .battery:
            return ["class/power_supply/\(sensor.name)/temp"]
        }
    }

    static func debug(_ state: AppState, into buf: inout CellBuffer, theme: Theme) {
        let s = state.status
        let st = state.stats
        var lines: [(String, CellStyle)] = []
        lines.append(("Rule trail", theme.title))
        for l in s.ruleTrail { lines.append(("  " + l, .plain)) }
        // The sensor that decides the state, or at nominal the one closest to its limit.
        let deciding = s.assessment.decidedBy.flatMap { id in s.assessment.sensors.first { $0.sensor.id == id } }
            ?? (s.assessment.decidedBy == nil ? state.sortedSensors.first { $0.sensor.celsius != nil } : nil)
        if let a = deciding {
            let id = a.sensor.id
            lines.append(("\(s.assessment.decidedBy == nil ? "Closest sensor" : "Deciding sensor") \(a.sensor.name) (\(id)): raw \(a.sensor.celsius.map { String(Int(($0 * 1000).rounded())) } ?? "?") m°C", theme.title))
            for f in files(for: a.sensor, snapshot: s.snapshot) { lines.append(("  " + f, theme.dim)) }
            lines.append(("  serious \(a.thresholds.serious.label), hyst \(formatDegrees(a.thresholds.serious.hysteresis)); critical \(a.thresholds.critical.label)", .plain))
        } else if let id = s.assessment.decidedBy {
            lines.append(("Decided by \(id)", theme.title))
        }
        let issues = s.snapshot.allIssues
        lines.append(("Reading issues (\(issues.count))", theme.title))
        for i in issues.prefix(6) { lines.append(("  " + i.description, theme.dim)) }
        if issues.count > 6 { lines.append(("  … \(issues.count - 6) more (thermtop status lists all)", theme.dim)) }
        lines.append(("Runtime", theme.title))
        lines.append(("  sample \(Format.fixed(st.sampleMilliseconds, places: 2)) ms · render \(Format.fixed(st.renderMilliseconds, places: 2)) ms · frames \(st.frames) · samples \(st.samples) · file reads \(st.fileReads)", .plain))
        lines.append(("  cells redrawn: last frame \(st.cellsLastFrame), total \(st.cellsTotal) · next refresh in \(Int(state.secondsUntilRefresh.rounded(.up))) s", .plain))
        let o = s.overrides
        lines.append(("  overrides: state \(o.thermalState?.name ?? "live"), low power \(o.lowPower.map { $0 ? "on" : "off" } ?? "live") · source \(s.sourceLabel)\(s.sourceIsSimulated ? " (simulated)" : "")", .plain))
        lines.append(("  terminal \(st.terminalWidth)x\(st.terminalHeight) · colours \(st.colorCount) · \(state.unicode ? "UTF-8" : "ASCII") · pulse \(Pulse.framesPerSecond(s.tier)) fps", .plain))
        lines.append(("Config", theme.title))
        for l in state.configInfo.overlayLines { lines.append(("  " + l, .plain)) }
        draw(lines, title: "debug (d closes)", into: &buf, theme: theme)
    }

    static func detail(_ state: AppState, into buf: inout CellBuffer, theme: Theme) {
        guard let a = state.selectedSensor else {
            draw([("No sensor selected.", .plain)], title: "sensor", into: &buf, theme: theme)
            return
        }
        let s = a.sensor
        let th = a.thresholds
        var lines: [(String, CellStyle)] = []
        lines.append(("\(s.name) · \(s.location) · \(s.kind.rawValue)", theme.title))
        if s.id != s.location { lines.append(("id \(s.id)", theme.dim)) }
        let temp = s.celsius.map(formatDegrees) ?? "unknown (\(s.issue.map(\.description) ?? "no reading"))"
        lines.append(("now \(temp) · level \(a.level)\(a.heldByHysteresis ? " (held by hysteresis)" : "")", theme.level(a.level)))
        lines.append((a.reason, .plain))
        lines.append(("Thresholds", theme.title))
        for (name, t) in [("fair", th.fair), ("serious", th.serious), ("critical", th.critical)] {
            lines.append(("  \(Format.pad(name, 9))\(Format.pad(formatDegrees(t.celsius), 10)) clears below \(formatDegrees(t.clearsBelow)) · \(t.rule)", theme.level(ThermalState(name: name)!)))
        }
        if let zone = state.status.snapshot.zones.first(where: { $0.id == s.location }) {
            lines.append(("Trips (mode \(zone.mode ?? "?"), policy \(zone.policy ?? "?"))", theme.title))
            for t in zone.trips {
                let temp = t.celsius.map(formatDegrees) ?? "—"
                let hyst = t.hysteresis.map(formatDegrees) ?? "—"
                let ign = t.ignored.map { " IGNORED: \($0.reason.rawValue) \($0.detail ?? "")" } ?? ""
                lines.append(("  trip \(t.index): \(t.kind?.rawValue ?? "?") \(temp) hyst \(hyst)\(ign)", t.ignored == nil ? .plain : theme.dim))
            }
            if zone.trips.isEmpty { lines.append(("  none", theme.dim)) }
        }
        if s.kind == .hwmon {
            lines.append(("hwmon limits: max \(s.max.map(formatDegrees) ?? "—") · crit \(s.crit.map(formatDegrees) ?? "—") · crit_hyst \(s.critHyst.map(formatDegrees) ?? "—") · emergency \(s.emergency.map(formatDegrees) ?? "—")", .plain))
        }
        lines.append(("Files", theme.title))
        for f in files(for: s, snapshot: state.status.snapshot) { lines.append(("  " + f, theme.dim)) }
        draw(lines, title: "sensor detail (Enter/Esc closes)", into: &buf, theme: theme)
    }
}
