extension CellBuffer {
    /// The cells that differ from `previous`, as maximal runs of consecutive changed
    /// cells within a row, top to bottom and left to right.
    ///
    /// With no previous buffer, or one of a different size, every row is one full run:
    /// the whole screen has to be drawn.
    public func diff(from previous: CellBuffer?) -> [CellRun] {
        diff(from: previous, rows: 0..<height)
    }

    /// The same, looking only at `rows` (the caller knows nothing else changed, e.g. an
    /// animation frame that moved one widget). Falls back to every row without a comparable
    /// previous buffer.
    public func diff(from previous: CellBuffer?, rows: Range<Int>) -> [CellRun] {
        guard let previous, previous.width == width, previous.height == height else {
            guard width > 0 else { return [] }
            return (0..<height).map { y in
                CellRun(x: 0, y: y, cells: Array(cells[(y * width)..<((y + 1) * width)]))
            }
        }
        var runs: [CellRun] = []
        for y in rows.clamped(to: 0..<height) {
            let rowStart = y * width
            var x = 0
            while x < width {
                guard cells[rowStart + x] != previous.cells[rowStart + x] else {
                    x += 1
                    continue
                }
                let start = x
                while x < width, cells[rowStart + x] != previous.cells[rowStart + x] { x += 1 }
                runs.append(CellRun(x: start, y: y, cells: Array(cells[(rowStart + start)..<(rowStart + x)])))
            }
        }
        return runs
    }
}
