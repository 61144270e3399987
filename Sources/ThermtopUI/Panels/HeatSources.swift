import ThermtopCore

/// The "Heating it" panel: the heat-source groups (`cc1plus ×8`), their CPU in percent of one
/// core, their estimated watts and their GPU use, in the order `w` picks; `Tab` gives it
/// ↑↓ and `Enter`, which opens a group's processes (`HeatPanel.groupLines`).
enum HeatPanel {
    /// Right-aligned figure columns: CPU (`1600 %`), estimated watts (`≈ 4.2 W`), GPU.
    static let cpuWidth = 6
    static let wattsWidth = 7
    static let gpuWidth = 5
    /// The group names stop growing here, so the figures stay near them on wide rows.
    static let maximumLabelWidth = 48
    /// What an unknown figure shows: never 0.
    static let unknown = "–"

    /// Rows of the panel that are not groups: the title, and beside the sensors a footer.
    static func chromeRows(_ layout: Layout) -> Int { layout.heatBeside ? 2 : 1 }

    /// The first group shown when `capacity` rows show groups: enough to keep the selection in view.
    static func top(_ state: AppState, capacity: Int) -> Int {
        let selected = state.selectedHeatIndex
        return capacity > 0 && selected >= capacity ? selected - capacity + 1 : 0
    }

    static func labelWidth(_ r: Rect) -> Int {
        min(maximumLabelWidth, max(4, r.width - 1 - cpuWidth - 1 - wattsWidth - 1 - gpuWidth - 1 - 1))
    }

    /// `cc1plus ×8` in `width` columns: the name is shortened, the count kept.
    static func fitLabel(_ s: ThermalHeatSource, width: Int) -> String {
        guard s.label.count > width else { return s.label }
        let count = s.count > 1 ? " ×\(s.count)" : ""
        return TextWrap.ellipsize(s.command, width: max(1, width - count.count)) + count
    }

    /// `640 %`.
    static func cpuText(_ s: ThermalHeatSource) -> String { "\(ThermalHeatSources.percent(s.cpuPercent)) %" }
    /// `≈ 38 W`, `–` where package power is unknown.
    static func wattsText(_ s: ThermalHeatSource) -> String { s.estimatedWatts.map { "≈ " + ThermalHeatSources.watts($0) } ?? unknown }
    /// `12 %`, `–` where not known.
    static func gpuText(_ s: ThermalHeatSource) -> String {
        HeatPanelRows.gpuPercent(s).map { "\(ThermalHeatSources.percent($0)) %" } ?? unknown
    }

    /// `12 of 310 processes unreadable (…): not counted`; nil when all were read.
    static func unreadableText(_ h: ThermalHeatSources) -> String? {
        h.unreadable > 0 ? "\(h.unreadable) of \(h.processCount + h.unreadable) processes unreadable (hidepid, EACCES, cut short): not counted" : nil
    }

    /// Why there are no groups: unknown (`needs two samples`, `not in the recording`) or none busy.
    static func emptyText(_ h: ThermalHeatSources) -> String {
        if let why = h.reason { return "unknown: \(why)" }
        return "no process used CPU in the last window"
    }

    static func draw(_ state: AppState, layout: Layout, into buf: inout CellBuffer, theme: Theme) {
        let r = layout.heat
        guard !r.isEmpty, let h = state.status.heatSources else { return }
        buf.fill(r, with: .blank)
        let rows = state.heatRows
        let focused = state.focus == .heat
        let labelW = labelWidth(r)
        let cpuX = r.x + 1 + labelW + 1
        let wattsX = cpuX + cpuWidth + 1
        let gpuX = wattsX + wattsWidth + 1

        // Title, with the column headings at the right.
        var title = "Heating it (\(rows.count)) \(state.heatSort.label)"
        // Under the sensors there is no footer: the title says what was not counted.
        if !layout.heatBeside, h.unreadable > 0 { title += " · \(h.unreadable) of \(h.processCount + h.unreadable) unreadable" }
        buf.text(TextWrap.ellipsize(title, width: labelW), x: r.x + 1, y: r.y, style: focused ? theme.selected : theme.title, theme: theme)
        for (text, x, w) in [("CPU", cpuX, cpuWidth), ("≈ W", wattsX, wattsWidth), ("GPU", gpuX, gpuWidth)] where x + w < r.maxX {
            buf.text(Format.padLeft(text, w), x: x, y: r.y, style: theme.dim, theme: theme)
        }

        let capacity = r.height - chromeRows(layout)
        guard capacity > 0 else { return }
        if rows.isEmpty {
            let why = emptyText(h)
            buf.text(TextWrap.ellipsize(why, width: r.width - 2), x: r.x + 1, y: r.y + 1, theme: theme)
        }
        let top = top(state, capacity: capacity)
        let selected = state.selectedHeatIndex
        for (offset, s) in rows.dropFirst(top).prefix(capacity).enumerated() {
            let y = r.y + 1 + offset
            let isSelected = focused && top + offset == selected
            buf.text(Format.pad(fitLabel(s, width: labelW), labelW), x: r.x + 1, y: y,
                     style: isSelected ? theme.selected : .plain, theme: theme)
            for (text, x, w) in [(cpuText(s), cpuX, cpuWidth), (wattsText(s), wattsX, wattsWidth), (gpuText(s), gpuX, gpuWidth)]
            where x + w < r.maxX {
                buf.text(Format.padLeft(text, w), x: x, y: y, theme: theme)
            }
        }
        let more = rows.count - top - min(capacity, rows.count - top)
        guard layout.heatBeside else { return }
        // Footer: what is not counted, what the watts are, and the keys.
        let y = r.maxY - 1
        var parts: [String] = []
        if more > 0 { parts.append("\(theme.moreBelow) \(more) more") }
        if let u = unreadableText(h) {
            parts.append(u)
        } else if let w = h.wattsReason {
            parts.append("≈ W unknown: \(w)")
        } else if let p = h.packageWatts {
            parts.append("≈ W: shares of \(ThermalHeatSources.watts(p)) package")
        }
        parts.append(focused ? "Enter: processes · Tab: sensors" : "Tab: select")
        let style = h.unreadable > 0 ? theme.warning : theme.dim
        buf.text(TextWrap.ellipsize(parts.joined(separator: " · "), width: r.width - 2), x: r.x + 1, y: y, style: style, theme: theme)
    }

    // MARK: - A group's processes (Enter)

    static func groupLines(_ state: AppState, command: String, theme: Theme) -> [(String, CellStyle)] {
        guard let s = state.status.heatSources?.sources.first(where: { $0.command == command }) else {
            return [("\(command) used no CPU in the last window: it is not among the heat sources now.", .plain)]
        }
        var lines: [(String, CellStyle)] = []
        lines.append(("\(s.label) · \(cpuText(s)) CPU · \(wattsText(s)) · GPU \(gpuText(s))", theme.title))
        let listed = s.processes.count
        lines.append(("\(s.count) process\(s.count == 1 ? "" : "es") used CPU in the last window, biggest first", .plain))
        lines.append(("    pid user       CPU   cgroup", theme.dim))
        for p in s.processes {
            let user = p.user ?? p.uid.map(String.init) ?? "?"
            let row = Format.padLeft(String(p.pid), 7) + " " + Format.pad(TextWrap.ellipsize(user, width: 10), 10)
                + Format.padLeft("\(ThermalHeatSources.percent(p.cpuPercent)) %", 6) + "  " + (p.cgroup ?? unknown)
            lines.append((row, .plain))
            let command = p.isKernelThread ? "[kernel thread]" : p.commandLine ?? "(command line unreadable or empty)"
            for l in TextWrap.lines(command, width: 88, maxLines: 2) { lines.append(("        " + l, theme.dim)) }
        }
        if s.count > listed { lines.append(("… \(s.count - listed) more not listed", .plain)) }
        if s.estimatedWatts != nil {
            lines.append(("≈ W: the group's share of busy CPU time × the CPU packages' power (an estimate)", theme.dim))
        }
        return lines
    }

    static func group(_ state: AppState, command: String, into buf: inout CellBuffer, theme: Theme) {
        Overlays.drawScrolled(groupLines(state, command: command, theme: theme), top: state.helpTop,
                              title: "Heating it: \(command) (Enter/Esc closes)", into: &buf, theme: theme)
    }
}
