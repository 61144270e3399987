/// A grid of cells that widgets draw into; the terminal layer diffs two of them and
/// sends only the changed cells to the screen.
///
/// Every character stored here has passed `CellBuffer.sanitize`: one printable column,
/// never a control character, so text from sysfs cannot move the cursor or emit an
/// escape sequence. Out-of-range reads return `Cell.blank`; out-of-range writes are ignored.
public struct CellBuffer: Sendable, Equatable {
    public private(set) var width: Int
    public private(set) var height: Int
    /// Row-major: the cell at (x, y) is `cells[y * width + x]`.
    public private(set) var cells: [Cell]

    /// Negative sizes are clamped to zero. `fill`'s character is sanitised like any other.
    public init(width: Int, height: Int, fill: Cell = .blank) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: fill, count: self.width * self.height)
    }

    /// The whole buffer as a rectangle at the origin.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        get {
            guard x >= 0, x < width, y >= 0, y < height else { return .blank }
            return cells[y * width + x]
        }
        set {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Writes `text` left to right from (x, y), one column per character, in `style`.
    ///
    /// The text spans columns `x ..< x + maxWidth` at most; only the part inside the
    /// buffer is written (a negative `x` clips the start). Unsafe characters (control
    /// characters, escape, wide or combining characters, anything outside the drawing
    /// whitelist) are written as `?`.
    ///
    /// - Returns: the number of cells actually written.
    @discardableResult
    public mutating func put(
        _ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        var end = width
        if let maxWidth {
            guard maxWidth > 0 else { return 0 }
            let (limit, overflow) = x.addingReportingOverflow(maxWidth)
            if !overflow { end = min(end, limit) }
        }
        var column = x
        var written = 0
        let rowStart = y * width
        for character in text {
            if column >= end { break }
            if column >= 0 {
                cells[rowStart + column] = Cell(character, style: style)
                written += 1
            }
            column += 1
        }
        return written
    }

    /// Fills the part of `rect` that lies inside the buffer with `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.y..<area.maxY {
            let rowStart = y * width
            for x in area.x..<area.maxX {
                cells[rowStart + x] = cell
            }
        }
    }

    /// Sets every cell to `Cell.blank`.
    public mutating func clear() {
        for i in cells.indices { cells[i] = .blank }
    }

    /// Row `y` as text, exactly `width` characters (styles dropped); "" when out of range.
    public func row(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var line = ""
        line.reserveCapacity(width)
        for x in 0..<width { line.unicodeScalars.append(cells[y * width + x].scalar) }
        return line
    }

    /// The screen as text for snapshot tests: rows joined by "\n", each with its
    /// trailing spaces removed. Fill the buffer with a sentinel (such as "x") first
    /// to see which cells a widget left untouched.
    public func text() -> String {
        (0..<height).map { y -> String in
            var line = Substring(row(y))
            while line.last == " " { line.removeLast() }
            return String(line)
        }.joined(separator: "\n")
    }
}
