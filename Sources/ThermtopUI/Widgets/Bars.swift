import ThermtopCore

extension CellBuffer {
    /// Where every temperature bar starts (°C): the list heading and the help both say it.
    public static let barBottomCelsius = 20.0

    /// The top of the bars' one scale for these rows: past the highest critical threshold
    /// (+10 %) and the hottest reading, so equal temperatures draw equal bars on every row.
    public static func barTop(_ rows: [SensorAssessment]) -> Double {
        rows.reduce(barBottomCelsius + 10) { top, a in
            max(top, a.thresholds.critical.celsius * 1.1, (a.sensor.celsius ?? 0) + 1)
        }
    }

    /// A temperature bar from `barBottomCelsius` to `top` (`barTop` of the rows shown), with
    /// markers at the sensor's own fair, serious and critical thresholds. Filled cells take the
    /// colour of the level the temperature at that cell would have; the markers are plain:
    /// a limit not reached is no alarm.
    public mutating func thermalBar(_ a: SensorAssessment, x: Int, y: Int, width: Int, top scaleTop: Double? = nil, theme: Theme) {
        guard width > 2 else { return }
        let th = a.thresholds
        let top = max(scaleTop ?? th.critical.celsius * 1.1, (a.sensor.celsius ?? 0) + 1)
        let bottom = CellBuffer.barBottomCelsius
        func col(_ c: Double) -> Int { Int(((c - bottom) / (top - bottom) * Double(width)).rounded(.down)) }
        let filled = a.sensor.celsius.map { min(max(col($0) + 1, 0), width) } ?? 0
        let markers = [col(th.fair.celsius), col(th.serious.celsius), col(th.critical.celsius)]
        for i in 0..<width {
            let cellTemp = bottom + (Double(i) + 0.5) / Double(width) * (top - bottom)
            let lvl = th.level(at: cellTemp)
            if markers.contains(i), i >= filled {
                self[x + i, y] = Cell(theme.marker, style: theme.dim)
            } else if i < filled {
                self[x + i, y] = Cell(theme.barFull, style: theme.fill(lvl))
            } else {
                self[x + i, y] = Cell(theme.barEmpty, style: theme.dim)
            }
        }
    }

    /// A percentage gauge `■■■■□□□□`.
    public mutating func gauge(percent: Double?, x: Int, y: Int, width: Int, theme: Theme, style: CellStyle) {
        guard width > 0 else { return }
        let n = percent.map { Int(($0 / 100 * Double(width)).rounded()) } ?? 0
        for i in 0..<width {
            self[x + i, y] = i < n ? Cell(theme.gaugeFull, style: style) : Cell(theme.gaugeEmpty, style: theme.dim)
        }
    }

    /// A sparkline of one value per column (nil: no point there), scaled between `low` and `high`.
    public mutating func sparkline(_ values: [Double?], x: Int, y: Int, low: Double, high: Double,
                                   theme: Theme, style: CellStyle) {
        let sparks = theme.sparks
        let span = max(high - low, 1)
        for (i, v) in values.enumerated() {
            guard let v else { continue }
            let idx = Int(((v - low) / span * Double(sparks.count - 1)).rounded())
            self[x + i, y] = Cell(sparks[min(max(idx, 0), sparks.count - 1)], style: style)
        }
    }

    /// A box outline with a title.
    public mutating func box(_ r: Rect, title: String, theme: Theme) {
        guard r.width >= 2, r.height >= 2 else { return }
        let c = theme.corners
        fill(Rect(x: r.x, y: r.y, width: r.width, height: r.height), with: .blank)
        for i in 1..<(r.width - 1) {
            self[r.x + i, r.y] = Cell(theme.horizontal)
            self[r.x + i, r.maxY - 1] = Cell(theme.horizontal)
        }
        for j in 1..<(r.height - 1) {
            self[r.x, r.y + j] = Cell(theme.vertical)
            self[r.maxX - 1, r.y + j] = Cell(theme.vertical)
        }
        self[r.x, r.y] = Cell(c[0]); self[r.maxX - 1, r.y] = Cell(c[1])
        self[r.x, r.maxY - 1] = Cell(c[2]); self[r.maxX - 1, r.maxY - 1] = Cell(c[3])
        put(" \(title) ", x: r.x + 2, y: r.y, style: theme.title, maxWidth: r.width - 4)
    }

    /// Write text in ASCII when the theme says so.
    @discardableResult
    public mutating func text(_ s: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil, theme: Theme) -> Int {
        let t = theme.unicode ? s : CellBuffer.asciiText(s)
        return put(t, x: x, y: y, style: style, maxWidth: maxWidth)
    }
}
