import ThermtopCore

/// The sensor list: a heading with the sort, filter and "more above" marker, one row per
/// sensor from the scroll position, and a footer with the selection's limits and "more below".
extension Panels {
    struct SensorColumns {
        var name: Int
        var temp = 6
        var bar: Int
        var level = 8
        /// The peak and the minimum since start (`161.3 -10.5`), when the row has room.
        var extremes = 0
        var spark: Int
        var tempX: Int { 2 + name + 1 }
        var barX: Int { tempX + temp + 1 }
        var levelX: Int { bar > 0 ? barX + bar + 1 : barX }
        var extremesX: Int { levelX + level + 1 }
        var sparkX: Int { extremes > 0 ? extremesX + extremes + 1 : extremesX }
        /// Columns for the peak and the minimum: two values of up to 5 characters.
        static let extremesWidth = 11

        /// `longestName`: the longest row name on screen; a name that does not fit takes columns
        /// from the history, which keeps 12, rather than being cut beside blank history.
        /// The columns for `state`'s list as `layout` places it.
        init(_ state: AppState, layout: Layout) {
            // Only the rows on screen: a name costs a pass over the sensors (its folded
            // members), and a list may hold thousands.
            let rows = layout.rows
            let top = min(rows.count, state.topIndex(capacity: layout.sensorCapacity, rows: rows))
            let shown = rows[top..<min(rows.count, top + max(0, layout.sensorCapacity))]
            let longest = shown.map { DisplayWidth.columns(Panels.rowName($0, state)) }.max() ?? 0
            self.init(width: layout.sensorList.width, narrow: layout.narrow, longestName: longest)
        }

        init(width: Int, narrow: Bool, longestName: Int = 0) {
            if narrow {
                name = max(8, width - 2 - 1 - 6 - 1 - 8 - 1)
                bar = 0
                spark = 0
            } else {
                name = min(34, max(14, width * 2 / 7))
                let rest = width - 2 - name - 1 - temp - 1 - level - 2
                // Bars stop growing at 40 columns; wide windows give the rest to history.
                bar = min(40, max(10, rest * 3 / 5))
                spark = max(0, rest - bar - 1)
                let give = min(max(0, longestName - name), max(0, spark - 12))
                name += give
                spark -= give
                // Peak and minimum before the history, once the history keeps 12 columns.
                if spark >= Self.extremesWidth + 1 + 12 {
                    extremes = Self.extremesWidth
                    spark -= extremes + 1
                }
            }
        }
    }

    /// A row's name: the sensor's, and `+N` for the members folded under it.
    static func rowName(_ a: SensorAssessment, _ state: AppState) -> String {
        let members = state.foldedCounts[a.sensor.id] ?? 0
        return members > 0 && !state.showAll ? "\(a.sensor.displayName) +\(members)" : a.sensor.displayName
    }

    static func sensors(_ state: AppState, layout: Layout, into buf: inout CellBuffer, theme: Theme) {
        let s = state.status
        let rows = layout.rows
        let cols = SensorColumns(state, layout: layout)
        let capacity = layout.sensorCapacity
        let top = state.topIndex(capacity: capacity, rows: rows)
        let shown = rows.count <= capacity ? rows.count : capacity
        let above = top
        let below = max(0, rows.count - top - shown)
        let step = state.renderPolicy.historyStep(sampleDelay: state.sampleDelay)

        // Heading
        let h = layout.sensorHeading
        if h.height > 0 {
            // The name column says what the list is; sort, filter and hidden sensors go on
            // the footer when the column is too narrow for them.
            // The title runs over the °C heading only when a filter or hidden sensors need
            // saying; the sort order alone shortens to its short word instead.
            let degree = state.units.symbol(unicode: theme.unicode)
            let degreeX = cols.tempX + cols.temp - degree.count
            let mustSay = !state.filter.isEmpty || state.hiddenCount > 0 || state.showAll
            let width = mustSay ? cols.barX - 2 : degreeX - 2
            let title = listTitle(state, count: rows.count, width: max(cols.name + 1, width))
            let marker = above > 0 ? "\(theme.moreAbove) \(above) more above" : ""
            buf.text(title, x: 1, y: h.y, style: theme.title, theme: theme)
            if 1 + title.count < degreeX {
                buf.text(degree, x: degreeX, y: h.y, style: theme.dim, theme: theme)
            }
            let from = barBottomText(state.units), n = Int(state.units.value(CellBuffer.barBottomCelsius).rounded())
            let labels = ["from \(from) to past critical, │ = limits", "\(n) to past critical, │ = limits",
                          "\(n) to crit, │ = fair/serious/crit", "\(n) to crit, │ = limits", "│ = limits"]
            if cols.bar > 0, let label = labels.first(where: { $0.count <= cols.bar }) {
                buf.text(label, x: cols.barX, y: h.y, style: theme.dim, theme: theme)
            }
            buf.put("level", x: cols.levelX, y: h.y, style: theme.dim)
            if cols.extremes > 0 {
                buf.put(" peak   min", x: cols.extremesX, y: h.y, style: theme.dim)
            }
            if cols.spark >= 8 && marker.isEmpty {
                let span = Double(cols.spark) * step
                buf.text(TextWrap.ellipsize("last \(Format.duration(span))", width: cols.spark), x: cols.sparkX, y: h.y, style: theme.dim, theme: theme)
            }
            if !marker.isEmpty {
                buf.text(marker, x: h.maxX - marker.count - 1, y: h.y, style: theme.title, theme: theme)
            }
        }

        // Rows
        let list = layout.sensorList
        if rows.isEmpty, list.height > 0 {
            let text: String
            if s.assessment.sensors.isEmpty {
                // The container/VM hint only when nothing at all was found (as `status` says it): a
                // capture or a machine with a battery but no sensor driver is neither.
                let hint = s.snapshot.isEmpty ? " (normal in containers and most VMs)" : ""
                text = "No temperature sensors under \(s.sourceLabel)\(hint). S shows the simulated laptop."
            } else if !state.filter.isEmpty {
                text = "No sensor matches \"\(state.filter)\" (/ edits, Esc clears)."
            } else {
                text = "Every sensor is hidden; a shows them."
            }
            lines(TextWrap.lines(text, width: list.width - 3, maxLines: list.height), into: &buf,
                  in: list.inset(left: 1), style: .plain, theme: theme)
        }
        let scale = historyScale(state, rows: rows)
        let barTop = CellBuffer.barTop(rows)
        for (offset, a) in rows.dropFirst(top).prefix(shown).enumerated() {
            let y = list.y + offset
            let decides = a.sensor.id == s.assessment.decidedBy
            let known = a.sensor.celsius != nil
            buf.text(decides ? String(theme.pointer) : (known ? " " : "?"), x: 0, y: y, style: theme.level(a.level), theme: theme)
            let selected = a.sensor.id == state.selectedID
            let name = rowName(a, state)
            buf.text(Format.pad(TextWrap.ellipsizeName(name, width: cols.name), cols.name), x: 2, y: y,
                     style: selected ? theme.selected : .plain, theme: theme)
            let levelStyle = theme.level(a.level)
            buf.text(Format.padLeft(state.units.number(a.sensor.celsius), cols.temp), x: cols.tempX, y: y, style: levelStyle, theme: theme)
            guard known else {
                if let h = a.hold, !h.expired {
                    // Fail safe: the level it last read still counts; say so and since when.
                    let since = h.sinceLabel.map { " since \($0)" } ?? ""
                    fit("HELD \(h.level) · \(h.issue.reason.rawValue)\(since)", into: &buf, x: cols.barX, y: y, in: list,
                        style: theme.level(h.level), theme: theme)
                } else if let asleep = a.sensor.asleep {
                    let last = a.sensor.lastCelsius.map { ", last \(state.units.format($0))" } ?? ""
                    fit("asleep (\(asleep))\(last)", into: &buf, x: cols.barX, y: y, in: list, theme: theme)
                } else {
                    let why = "unknown: " + (a.sensor.issue?.why ?? "no reading")
                    fit(why, into: &buf, x: cols.barX, y: y, in: list, theme: theme)
                }
                continue
            }
            if cols.bar > 0 { buf.thermalBar(a, x: cols.barX, y: y, width: cols.bar, top: barTop, theme: theme) }
            var lvl = a.ignored ? "ignored" : a.level.name
            if a.heldByHysteresis { lvl += "*" }
            buf.put(lvl, x: cols.levelX, y: y, style: levelStyle)
            if cols.extremes > 0, let e = state.extremes[a.sensor.id] {
                let text = Format.padLeft(state.units.number(e.high), 5) + " " + Format.padLeft(state.units.number(e.low), 5)
                buf.text(text, x: cols.extremesX, y: y, style: theme.dim, theme: theme)
            }
            if cols.spark > 0 {
                buf.sparkline(state.historyColumns(a.sensor.id, columns: cols.spark, step: step), x: cols.sparkX, y: y,
                              low: scale.low, high: scale.high, theme: theme, style: theme.fill(a.level))
            }
        }

        // Footer
        let f = layout.sensorFooter
        guard f.height > 0 else { return }
        let marker = below > 0 ? "\(theme.moreBelow) \(below) more below" : ""
        let room = f.width - 3 - (marker.isEmpty ? 0 : marker.count + 2)
        if let sel = state.selectedSensor, room > 10 {
            let th = sel.thresholds
            let u = state.units
            let line = "selected: \(sel.sensor.displayName) · fair \(u.format(th.fair.celsius)) · serious \(th.serious.label(u)) · critical \(th.critical.label(u)) · Enter: detail"
            buf.text(TextWrap.ellipsize(line, width: room), x: 2, y: f.y, style: theme.dim, theme: theme)
        }
        if !marker.isEmpty { buf.text(marker, x: f.maxX - marker.count - 1, y: f.y, style: theme.title, theme: theme) }
    }

    /// Where the bars start, in the units shown: `20 °C`, `68 °F`.
    static func barBottomText(_ u: TemperatureUnit) -> String {
        "\(Int(u.value(CellBuffer.barBottomCelsius).rounded())) \(u.symbol)"
    }

    /// `Sensors (5) nearest limit first · filter "nv" · 1 hidden (a)`, as much as fits.
    static func listTitle(_ state: AppState, count: Int, width: Int) -> String {
        var parts = ["Sensors (\(count))"]
        if !state.filter.isEmpty { parts.append("filter \"\(state.filter)\"") }
        if state.hiddenCount > 0 { parts.append("\(state.hiddenCount) hidden (a)") }
        if state.showAll { parts.append("showing all") }
        let sort = state.sortReversed ? state.sort.reversedLabel : state.sort.label
        parts.append(sort)
        // The title and how many parts after the first it holds.
        // `first` goes after the count (`Sensors (5) nearest limit first`), ` · ` between the rest.
        func join(_ parts: [String], first: String = " ") -> (String, Int) {
            var title = parts[0], n = 0
            for p in parts.dropFirst() {
                let next = title + (title == parts[0] ? first : " · ") + p
                guard next.count <= width else { break }
                title = next
                n += 1
            }
            return (title, n)
        }
        let (title, kept) = join(parts)
        // The order is said where there is room: when the whole title does not fit, a short
        // word for it right after the count (`Sensors (5) nearest`), as long as nothing the
        // title said (a filter, hidden sensors) is dropped for it.
        if kept < parts.count - 1 {
            let short = state.sortReversed ? state.sort.reversedShortLabel : state.sort.shortLabel
            let (compact, n) = join([parts[0] + " " + short] + parts.dropFirst().dropLast(), first: ", ")
            if compact.count <= width && n >= kept { return compact }
        }
        return TextWrap.ellipsize(title, width: width)
    }

    /// One temperature scale for every row's sparkline (in °C; only labels are converted), so
    /// a taller line is a hotter sensor: from a little under the coolest value seen to the
    /// highest critical threshold listed.
    static func historyScale(_ state: AppState, rows: [SensorAssessment]) -> (low: Double, high: Double) {
        var low = Double.infinity, high = -Double.infinity
        for a in rows {
            let values = state.history[a.sensor.id] ?? []
            low = min(low, values.min() ?? a.sensor.celsius ?? a.thresholds.fair.celsius)
            high = max(high, a.thresholds.critical.celsius)
        }
        guard low.isFinite, high.isFinite else { return (0, 100) }
        // Start the scale a step below the coolest value, so it is not drawn as empty.
        return (low: (low / 5).rounded(.down) * 5 - 5, high: high)
    }
}
