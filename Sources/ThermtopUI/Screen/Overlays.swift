import ThermtopCore

/// Help, debug and sensor-detail overlays, drawn in a box over the dashboard. Everything they
/// show comes in the status; the UI never builds sysfs paths itself.
enum Overlays {
    static func boxRect(_ buf: CellBuffer, lines: Int, maxWidth: Int = 100) -> Rect {
        let w = min(buf.width - 2, maxWidth)
        let h = min(buf.height - 2, lines + 2)
        return Rect(x: (buf.width - w) / 2, y: max(1, (buf.height - h) / 2), width: w, height: h)
    }

    /// Draws `lines` in a centred box; when they do not fit, the last row says how many more
    /// there are and `more` says how to see them.
    static func draw(_ lines: [(String, CellStyle)], title: String, into buf: inout CellBuffer, theme: Theme,
                     more: String = "a taller window shows them") {
        let r = boxRect(buf, lines: lines.count)
        // A blank column either side: a row's ▶ or ? must not sit against the border as if
        // it were part of the overlay.
        buf.fill(Rect(x: r.x - 1, y: r.y, width: r.width + 2, height: r.height).intersection(Rect(x: 0, y: 0, width: buf.width, height: buf.height)), with: .blank)
        buf.box(r, title: title, theme: theme)
        let room = r.height - 2
        let cut = lines.count > room
        for (i, (text, style)) in lines.enumerated() where i < room {
            let last = cut && i == room - 1
            let t = last ? "\(theme.moreBelow) \(lines.count - room + 1) more lines (\(more))" : text
            buf.text(TextWrap.ellipsize(t, width: r.width - 4), x: r.x + 2, y: r.y + 1 + i, style: last ? theme.title : style, theme: theme)
        }
    }

    /// The legend, the keys (from the key map), then the rules: what the dashboard shows before
    /// what it does, as htop's help does. Lines fit an 80-column window.
    static func helpLines(_ state: AppState, theme: Theme) -> [(String, CellStyle)] {
        let t = theme
        let step = state.renderPolicy.historyStep(sampleDelay: state.sampleDelay)
        let bar = "\(t.barFull)\(t.barFull)\(t.barEmpty)\(t.marker)\(t.barEmpty)\(t.marker)"
        let u = state.units
        var lines: [(String, CellStyle)] = [("Legend", t.title)]
        lines.append(("  \(bar)   bar from \(Panels.barBottomText(u)) to past critical; \(t.marker) = fair, serious, critical", .plain))
        lines.append(("  \(t.pointer)        what decides the state (a sensor, cooling device, counter)", .plain))
        lines.append(("  ?        no reading; the row says why", .plain))
        lines.append(("  fair*    held by hysteresis: clears only a little below the limit", .plain))
        lines.append(("  8/10     a cooling device at step 8 of 10; high steps raise the state", .plain))
        lines.append(("  \(String(t.sparks.prefix(4)))     history, a column every \(Format.duration(step)), one \(u.symbol) scale for all rows", .plain))
        lines.append(("  colours  green nominal, yellow fair, orange serious, red critical;", .plain))
        lines.append(("           only values above nominal; bold/reverse without colour", .plain))
        lines.append(("  \(Pulse.frame(tick: 1, tier: .full, unicode: t.unicode))    pulse: beats at full, slower at reduced, still at minimal", .plain))
        lines.append(("  in ~40 s the forecast: when the state reaches the next level at this trend", .plain))
        lines.append(("  \(t.moreAbove) \(t.moreBelow)      more sensors above / below the visible rows", .plain))
        lines.append(("Keys", t.title))
        for b in KeyMap.bindings {
            lines.append(("  " + Format.pad(b.label, 10) + b.help, .plain))
        }
        lines.append(("  mouse     click a row: select it; click it again: detail; wheel: move;", .plain))
        lines.append(("            click the list heading: next sort", .plain))
        lines.append(("Rules", t.title))
        lines.append(("  State: the highest level of any sensor (against its own limits),", .plain))
        lines.append(("  any cooling device (by its step) and the Intel throttle counters", .plain))
        lines.append(("  (rising → serious): not only the hottest sensor decides.", .plain))
        lines.append(("  Tier: serious/critical → minimal; fair → reduced, minimal when saving", .plain))
        lines.append(("  power; nominal → full, reduced when saving power.", .plain))
        lines.append(("  thermtop obeys its own tier:", .plain))
        lines.append(("  " + RenderPolicy.helpHeader, .plain))
        for tier in QualityTier.allCases {
            lines.append(("  " + RenderPolicy(tier: tier, sampleDelay: state.sampleDelay).helpRow, tier == state.status.tier ? t.title : .plain))
        }
        lines.append(("  Sensors are still read every --delay; new readings reach the screen", .plain))
        lines.append(("  at the tier's step, but a change of state, tier or low power and the", .plain))
        lines.append(("  answer to a key show at once. The screen is written only when", .plain))
        lines.append(("  something shown changed. ↑↓ PgUp PgDn scroll; Esc or ? closes.", .plain))
        return lines
    }

    static func helpLineCount(_ state: AppState) -> Int {
        helpLines(state, theme: Theme(unicode: state.unicode, color: state.color)).count
    }

    /// The furthest the open help, debug or detail overlay scrolls: its last page fills the box.
    static func maxTop(_ state: AppState) -> Int {
        let theme = Theme(unicode: state.unicode, color: state.color)
        let count: Int
        switch state.overlay {
        case .debug: count = debugLines(state, theme: theme).count
        case .detail(let id): count = detailLines(state, id: id, theme: theme)?.count ?? 1
        case .heatGroup(let command): count = HeatPanel.groupLines(state, command: command, theme: theme).count
        default: count = helpLines(state, theme: theme).count
        }
        return maxTop(lineCount: count, height: state.height)
    }

    /// Scrolled, the box's first row says how many lines are above, so the last page starts
    /// one line later than `lineCount - room`; the box keeps its height to the end.
    static func maxTop(lineCount: Int, height: Int) -> Int {
        let room = min(height - 2, lineCount + 2) - 2
        guard room > 1, lineCount > room else { return 0 }
        return lineCount - room + 1
    }

    /// `all` from line `top`, in a box that says what is above and below.
    static func drawScrolled(_ all: [(String, CellStyle)], top wanted: Int, title: String, into buf: inout CellBuffer, theme: Theme) {
        let top = min(wanted, maxTop(lineCount: all.count, height: buf.height))
        var lines = Array(all.dropFirst(top))
        if top > 0 { lines.insert(("\(theme.moreAbove) \(top) lines above (↑ PgUp)", theme.title), at: 0) }
        draw(lines, title: title, into: &buf, theme: theme, more: "↓ PgDn")
    }

    static func help(_ state: AppState, into buf: inout CellBuffer, theme: Theme) {
        drawScrolled(helpLines(state, theme: theme), top: state.helpTop, title: "thermtop help", into: &buf, theme: theme)
    }

    static func debug(_ state: AppState, into buf: inout CellBuffer, theme: Theme) {
        drawScrolled(debugLines(state, theme: theme, width: buf.width), top: state.helpTop, title: "debug (d closes)", into: &buf, theme: theme)
    }

    /// The debug overlay's lines for a window `width` columns wide (the state's by default).
    static func debugLines(_ state: AppState, theme: Theme, width windowWidth: Int? = nil) -> [(String, CellStyle)] {
        let s = state.status
        let st = state.stats
        var lines: [(String, CellStyle)] = []
        lines.append(("Rule trail", theme.title))
        // Wrapped to the box (as `boxRect` and `draw` size it), never cut: the trail is why.
        let width = min((windowWidth ?? state.width) - 2, 100) - 4
        for l in s.ruleTrail(state.units) {
            for (i, part) in TextWrap.lines(l, width: max(width - 4, 10)).enumerated() {
                lines.append(((i == 0 ? "  " : "    ") + part, .plain))
            }
        }
        // The sensor that decides the state, or at nominal the one closest to its limit.
        let deciding = s.assessment.decidedBy.flatMap { id in s.assessment.sensors.first { $0.sensor.id == id } }
            ?? (s.assessment.decidedBy == nil ? state.sortedSensors.first { $0.sensor.celsius != nil } : nil)
        if let a = deciding {
            lines.append(("\(s.assessment.decidedBy == nil ? "Closest sensor" : "Deciding sensor") \(a.sensor.name) (\(a.sensor.location)): raw \(a.sensor.celsius.map { String(Int(($0 * 1000).rounded())) } ?? "?") m°C", theme.title))
            let u = state.units
            lines.append(("  serious \(a.thresholds.serious.label(u)), hyst \(u.formatDelta(a.thresholds.serious.hysteresis)); critical \(a.thresholds.critical.label(u))", .plain))
        } else if let id = s.assessment.decidedBy {
            lines.append(("Decided by \(id)", theme.title))
        }
        let p = s.policy
        lines.append(("Policy (developer terms, as in the JSON)", theme.title))
        lines.append(("  prefetch \(p.prefetchEnabled ? "on" : "off") · inference \(p.inference) · animations \(p.animationsEnabled ? "on" : "off")\(p.lowPower ? " · low power: " + p.lowPowerAdjustments.summary.joined(separator: ", ") : "")", .plain))
        let issues = s.snapshot.allIssues
        lines.append(("Reading issues (\(issues.count))", theme.title))
        for i in issues.prefix(6) { lines.append(("  " + i.description, .plain)) }
        if issues.count > 6 { lines.append(("  … \(issues.count - 6) more (thermtop status lists all)", .plain)) }
        lines.append(("Event sources", theme.title))
        if state.replay != nil {
            lines.append(("  none: a replay feeds the recorded samples at their recorded times", .plain))
        } else if s.eventSources.isEmpty {
            lines.append(("  none: sampling on the timer only (--simulate and --sysfs-root trees get no kernel events)", .plain))
        }
        for e in s.eventSources {
            lines.append(("  \(e.name): \(e.active ? "active" : "unavailable") — \(e.detail) (\(e.events) events)", e.active ? .plain : theme.level(.fair)))
        }
        let sampler = s.sampler
        var samplerLine = "  sampler \(sampler.running ? "running" : "stopped") · last woken by \(sampler.wokenBy) · rediscoveries \(sampler.rediscoveries)"
        if let r = sampler.reads {
            samplerLine += " · file reads \(r.fileReads), open \(r.openFiles), stuck \(r.stuckFiles.count), timed out \(r.timedOutReads)"
        }
        lines.append(("Runtime", theme.title))
        lines.append((samplerLine, .plain))
        // A read hung in the kernel keeps its reader thread until it returns: worth seeing.
        if let n = sampler.reads?.abandonedReaders, n > 0 {
            let replaced = sampler.samplerReplacements > 0 ? ", samplers replaced \(sampler.samplerReplacements)" : ""
            lines.append(("  hung readers \(n)\(replaced): reads the kernel has not returned (bounded; each ends with its read)", theme.level(.fair)))
        }
        lines.append(("  sample \(Format.fixed(st.sampleMilliseconds, places: 2)) ms · render \(Format.fixed(st.renderMilliseconds, places: 2)) ms · frames \(st.frames), skipped \(st.framesSkipped) · samples \(st.samples)", .plain))
        lines.append(("  cells redrawn: last frame \(st.cellsLastFrame), total \(st.cellsTotal)" + (state.replay == nil ? " · next refresh in \(Int(state.secondsUntilRefresh.rounded(.up))) s" : ""), .plain))
        let o = s.overrides
        lines.append(("  overrides: state \(o.thermalState?.name ?? "live"), low power \(o.lowPower.map { $0 ? "on" : "off" } ?? "live") · source \(s.sourceLabel)\(s.sourceIsSimulated ? " (simulated)" : "")", .plain))
        let rp = state.renderPolicy
        lines.append(("  terminal \(state.width)x\(state.height) · colours \(st.colorCount) · \(state.unicode ? "UTF-8" : "ASCII") · temperatures in \(state.units.symbol) (f toggles)", .plain))
        if let r = state.replay {
            lines.append(("  replay \(r.file): sample \(r.position.index + 1) of \(r.sampleCount) · \(r.elapsedText) · speed \(r.speedText) · recorded on \(r.host) (\(r.kernel)) from \(r.startTime)", .plain))
        }
        lines.append(("  " + rp.helpLine, .plain))
        lines.append(("Config", theme.title))
        for l in state.configInfo.overlayLines { lines.append(("  " + l, .plain)) }
        return lines
    }

    /// A sensor's forecast: how far it is from its next limit now and in 10 s, in degrees
    /// (`9.0 °C to serious`; JSON keeps Android's headroom), its trend, and when it reaches
    /// its next level at that trend.
    static func forecastLines(_ state: AppState, id: String, theme: Theme) -> [(String, CellStyle)] {
        var lines: [(String, CellStyle)] = [("Forecast", theme.title)]
        guard let f = state.status.forecast.sensor(id),
              let a = state.status.assessment.sensors.first(where: { $0.sensor.id == id }) else {
            lines.append(("  none: this sensor does not count toward the state", .plain))
            return lines
        }
        let u = state.units
        let t = f.trend
        let now = a.sensor.celsius.map { a.thresholds.distanceText($0, units: u) } ?? "no reading"
        let later = t.projected(seconds: 10).map { " · \(a.thresholds.distanceText($0, units: u)) in 10 s" } ?? ""
        lines.append(("  \(now) now\(later)", .plain))
        var trend: String
        switch t.kind {
        case .notEnoughHistory:
            trend = "not enough history (\(t.samples) sample\(t.samples == 1 ? "" : "s"))"
        case .steady:
            trend = "steady" + (t.note.map { " (\($0))" } ?? "")
        case .rising, .falling:
            trend = "\(t.kind.rawValue) \(state.units.formatDelta(abs(t.slope ?? 0) * 60))/min over \(t.samples) samples (\(state.status.forecast.method))"
            if let a = t.asymptote { trend += ", levelling off near \(state.units.format(a))" }
        }
        lines.append(("  trend " + trend, .plain))
        if let n = f.next {
            let level = state.status.assessment.sensors.first { $0.sensor.id == id }?.level ?? .nominal
            let text = n.state > level ? "\(n.state) in \(ThermalForecast.approximate(n.seconds))"
                : "back to \(n.state) in \(ThermalForecast.approximate(n.seconds))"
            lines.append(("  next level: " + text, theme.level(max(n.state, level))))
        } else if t.kind != .notEnoughHistory {
            lines.append(("  next level: none ahead at this trend", .plain))
        }
        return lines
    }

    /// The detail of sensor `id`, scrolled to `helpTop` (↑↓ PgUp PgDn, the wheel): on a small
    /// window its thresholds and trips are below the first page.
    static func detail(_ state: AppState, id: String, into buf: inout CellBuffer, theme: Theme) {
        guard let lines = detailLines(state, id: id, theme: theme) else {
            draw([("That sensor is gone.", .plain)], title: "sensor", into: &buf, theme: theme)
            return
        }
        drawScrolled(lines, top: state.helpTop, title: "sensor detail (Enter/Esc closes)", into: &buf, theme: theme)
    }

    /// Every line of sensor `id`'s detail; nil when the sensor is gone.
    static func detailLines(_ state: AppState, id: String, theme: Theme) -> [(String, CellStyle)]? {
        guard let a = state.status.assessment.sensors.first(where: { $0.sensor.id == id }) else { return nil }
        let s = a.sensor
        let th = a.thresholds
        var lines: [(String, CellStyle)] = []
        lines.append(("\(s.displayName) · group \(s.group.label)\(s.isHeadline ? " · headline" : "")", theme.title))
        lines.append(("kernel name \(s.name) · \(s.location) · kind \(s.kind.rawValue)", .plain))
        if s.id != s.location { lines.append(("id \(s.id)", .plain)) }
        if let m = s.mirrorOf { lines.append(("mirror of \(m): shown once, as that row", .plain)) }
        if let d = s.dummyReason { lines.append(("hidden as a dummy: \(d)", .plain)) }
        let u = state.units
        let temp = s.celsius.map(u.format) ?? "unknown (\(s.issue.map(\.description) ?? "no reading"))"
        lines.append(("now \(temp) · level \(a.level)\(a.heldByHysteresis ? " (held by hysteresis)" : "")\(a.ignored ? " · ignored by configuration" : "")", theme.level(a.level)))
        if let e = state.extremes[s.id] {
            lines.append(("since thermtop started: peak \(u.format(e.high)) · minimum \(u.format(e.low))", .plain))
        }
        lines.append((a.why.text(u), .plain))
        lines.append(("Thresholds", theme.title))
        // Limits are where levels start, not alarms: a limit is drawn in its level's style only
        // once the sensor has reached it.
        for level in [ThermalState.fair, .serious, .critical] {
            let t = th[level]!
            lines.append(("  \(Format.pad(level.name, 9))\(Format.pad(u.format(t.celsius), 10)) clears below \(u.format(t.clearsBelow)) · \(t.rulePhrase.text(u))",
                          a.level >= level ? theme.level(level) : .plain))
        }
        lines += forecastLines(state, id: id, theme: theme)
        let members = SensorList.members(of: s.id, in: state.status.assessment.sensors)
        if !members.isEmpty {
            lines.append(("Folded under this row (a shows them in the list)", theme.title))
            for m in members {
                lines.append(("  \(Format.pad(m.sensor.displayName, 28)) \(Format.padLeft(u.number(m.sensor.celsius), 6)) \(m.level)", theme.level(m.level)))
            }
        }
        if let zone = state.status.snapshot.zones.first(where: { $0.id == s.location }) {
            lines.append(("Trips (mode \(zone.mode ?? "?"), policy \(zone.policy ?? "?"))", theme.title))
            for t in zone.trips {
                let temp = t.celsius.map(u.format) ?? "—"
                let hyst = t.hysteresis.map(u.formatDelta) ?? "—"
                let ign = t.ignored.map { " IGNORED: \($0.why)" } ?? ""
                lines.append(("  trip \(t.index): \(t.kind?.rawValue ?? "?") \(temp) hyst \(hyst)\(ign)", .plain))
            }
            if zone.trips.isEmpty { lines.append(("  none", .plain)) }
        }
        if s.kind == .hwmon {
            lines.append(("hwmon limits: max \(s.max.map(u.format) ?? "—") · crit \(s.crit.map(u.format) ?? "—") · crit_hyst \(s.critHyst.map(u.format) ?? "—") · emergency \(s.emergency.map(u.format) ?? "—")", .plain))
        }
        if s.kind == .gpu, let g = state.status.snapshot.gpus.first(where: { s.id.hasPrefix($0.id + "/") }) {
            lines += gpuLines(g, units: u, theme: theme)
        }
        let device = s.kind == .hwmon ? String(s.location.split(separator: "/").first ?? "") : s.location
        let issues = state.status.snapshot.allIssues.filter { !device.isEmpty && $0.file.contains(device + "/") }
        if !issues.isEmpty {
            lines.append(("Reading issues", theme.title))
            for i in issues { lines.append(("  " + i.description, .plain)) }
        }
        return lines
    }

    /// A GPU sensor's detail: NVML's own limits, power, clock limits in words, P-state, load, fans.
    static func gpuLines(_ g: ThermalGPU, units u: TemperatureUnit, theme: Theme) -> [(String, CellStyle)] {
        func t(_ c: Double?) -> String { c.map(u.format) ?? "—" }
        func w(_ v: Double?) -> String { v.map { Format.watts($0) } ?? "—" }
        var lines: [(String, CellStyle)] = [("GPU \(g.name ?? "NVIDIA") · PCI \(g.busID)", theme.title)]
        lines.append(("  NVML limits: GPU max \(t(g.limits.gpuMax)) · slowdown \(t(g.limits.slowdown)) · shutdown \(t(g.limits.shutdown)) · memory max \(t(g.limits.memoryMax))", .plain))
        lines.append(("  power \(w(g.powerWatts)) of \(w(g.powerLimitWatts)) · P\(g.performanceState.map(String.init) ?? "?") · load \(g.utilisationPercent.map { "\($0) %" } ?? "—")"
                      + (g.fanPercent.isEmpty ? " · no fan" : " · fan " + g.fanPercent.map { "\($0) %" }.joined(separator: ", ")), .plain))
        let reasons = g.reasonWords.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "not reported"
        lines.append(("  clocks limited by: \(reasons)", .plain))
        return lines
    }
}
