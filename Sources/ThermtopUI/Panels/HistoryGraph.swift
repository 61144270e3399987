import ThermtopCore

/// A btop-style history graph for windows with rows to spare, of the sensor that decides the
/// state unless the person selected one (`AppState.graphedSensor`; the title says which):
/// columns of blocks in eighths, coloured by the level each height stands for, the sensor's
/// fair and serious limits as dashed lines, each labelled on a temperature axis (°C or °F) on
/// the left, and a time axis underneath in one unit.
extension Panels {
    static func graph(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height >= Layout.graphMinimumHeight, let graphed = state.graphedSensor else { return }
        let (a, why) = graphed
        let step = state.renderPolicy.historyStep(sampleDelay: state.sampleDelay)
        let labelW = 6
        let plot = Rect(x: r.x + labelW + 1, y: r.y + 1, width: r.width - labelW - 2, height: r.height - 2)
        guard plot.width > 4, plot.height > 1 else { return }
        let title = "History of \(a.sensor.displayName)\(why.map { " (\($0))" } ?? ""), \(state.units.symbol(unicode: theme.unicode)), one column every \(Format.duration(step))"
        fit(title, into: &buf, x: r.x + 1, y: r.y, in: r, style: theme.title, theme: theme)

        let th = a.thresholds
        let columns = state.historyColumns(a.sensor.id, columns: plot.width, step: step)
        let shown = columns.compactMap { $0 }
        let low = (min(shown.min() ?? th.fair.celsius, th.fair.celsius - 10) / 5).rounded(.down) * 5
        let high = (max(shown.max() ?? th.serious.celsius, th.serious.celsius) / 5).rounded(.up) * 5 + 5
        let eighths = Double(plot.height * 8)
        func rowOf(_ celsius: Double) -> Int {
            let units = (celsius - low) / (high - low) * eighths
            return plot.maxY - 1 - Int((units / 8).rounded(.down))
        }
        // Limits first, so bars draw over them.
        for limit in [th.fair, th.serious] where limit.celsius > low && limit.celsius < high {
            let y = rowOf(limit.celsius)
            guard y >= plot.y, y < plot.maxY else { continue }
            for x in plot.x..<plot.maxX { buf[x, y] = Cell(theme.unicode ? "╌" : "-", style: theme.level(th.level(at: limit.celsius))) }
        }
        let sparks = theme.sparks
        for (i, value) in columns.enumerated() {
            guard let v = value else { continue }
            let x = plot.x + i
            let units = Int(((v - low) / (high - low) * eighths).rounded())
            for row in 0..<plot.height {
                let filled = units - row * 8
                guard filled > 0 else { break }
                let y = plot.maxY - 1 - row
                let cellTemp = low + (Double(row) + 0.5) / Double(plot.height) * (high - low)
                let ch = filled >= 8 ? theme.barFull : sparks[min(max(filled - 1, 0), sparks.count - 1)]
                buf[x, y] = Cell(ch, style: theme.fill(th.level(at: cellTemp)))
            }
        }
        // Temperature axis: top, bottom, and the serious limit (placed in °C, labelled in the unit shown).
        let labels: [(Double, Int)] = [(high, plot.y), (low, plot.maxY - 1)]
        for (v, y) in labels {
            buf.text(Format.padLeft(state.units.number(v), labelW - 1), x: r.x, y: y, theme: theme)
        }
        // Each limit line drawn is labelled on its row, also where that is the top or bottom
        // row: the number beside a dashed line is always that line's.
        for limit in [th.fair, th.serious] where limit.celsius > low && limit.celsius < high {
            let y = rowOf(limit.celsius)
            guard y >= plot.y, y < plot.maxY else { continue }
            buf.text(Format.padLeft(state.units.number(limit.celsius), labelW - 1), x: r.x, y: y,
                     style: theme.level(th.level(at: limit.celsius)), theme: theme)
        }
        for y in plot.y..<plot.maxY { buf[plot.x - 1, y] = Cell(theme.vertical) }
        // Time axis: "now" at the right, a label every nice interval to the left.
        let axisY = plot.maxY
        for x in (plot.x - 1)..<plot.maxX { buf[x, axisY] = Cell(theme.horizontal) }
        buf[plot.x - 1, axisY] = Cell(theme.unicode ? "└" : "+")
        buf.put("now", x: plot.maxX - 3, y: axisY)
        let nice: [Double] = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200]
        let every = nice.first { $0 / step >= 14 } ?? nice.last!
        var t = every
        while true {
            let col = Int((t / step).rounded())
            let x = plot.maxX - 1 - col
            let label = "-" + shortDuration(t, unit: every)
            guard x - label.count / 2 > plot.x else { break }
            buf[x, axisY] = Cell(theme.unicode ? "┴" : "+")
            buf.put(label, x: x - label.count / 2, y: axisY)
            t += every
        }
    }

    /// `30s`, `2m`, `1h`: axis labels, in the largest unit that the axis's label `interval`
    /// is a whole number of, so one axis never mixes `-3m` and `-165s`.
    static func shortDuration(_ s: Double, unit interval: Double) -> String {
        let v = Int(s), every = Int(interval)
        if every >= 3600 && every % 3600 == 0 { return "\(v / 3600)h" }
        if every >= 60 && every % 60 == 0 { return "\(v / 60)m" }
        return "\(v)s"
    }
}
