/// A rectangle of cells. `x`/`y` is the top-left cell; width and height are never negative.
public struct Rect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// Negative sizes are clamped to zero.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// One past the right-most column.
    public var maxX: Int { x + width }
    /// One past the bottom row.
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var area: Int { width * height }

    public var description: String { "Rect(x: \(x), y: \(y), width: \(width), height: \(height))" }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The overlap of two rectangles (empty, at `self`'s origin, when they do not overlap).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return Rect(x: x, y: y, width: 0, height: 0) }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Shrinks every side by `amount` (a border of 1 is `inset(by: 1)`). Never goes negative.
    public func inset(by amount: Int) -> Rect {
        inset(top: amount, left: amount, bottom: amount, right: amount)
    }

    public func inset(dx: Int, dy: Int) -> Rect {
        inset(top: dy, left: dx, bottom: dy, right: dx)
    }

    public func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        let w = max(0, width - left - right)
        let h = max(0, height - top - bottom)
        return Rect(x: x + min(left, width), y: y + min(top, height), width: w, height: h)
    }

    /// Splits off the top `rows` rows (clamped to the height).
    public func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
        let n = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: n),
                Rect(x: x, y: y + n, width: width, height: height - n))
    }

    /// Splits off the bottom `rows` rows (clamped to the height).
    public func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
        let n = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: height - n),
                Rect(x: x, y: maxY - n, width: width, height: n))
    }

    /// Splits off the left `columns` columns (clamped to the width).
    public func splitLeft(_ columns: Int) -> (left: Rect, rest: Rect) {
        let n = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: n, height: height),
                Rect(x: x + n, y: y, width: width - n, height: height))
    }

    /// Splits off the right `columns` columns (clamped to the width).
    public func splitRight(_ columns: Int) -> (rest: Rect, right: Rect) {
        let n = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: width - n, height: height),
                Rect(x: maxX - n, y: y, width: n, height: height))
    }

    /// `count` stacked rows of near-equal height covering the rectangle exactly;
    /// the first `height % count` parts are one row taller. Empty for `count <= 0`.
    public func rows(_ count: Int) -> [Rect] {
        Rect.partition(height, into: count).map {
            Rect(x: x, y: y + $0.offset, width: width, height: $0.length)
        }
    }

    /// `count` side-by-side columns of near-equal width covering the rectangle exactly;
    /// the first `width % count` parts are one column wider. Empty for `count <= 0`.
    public func columns(_ count: Int) -> [Rect] {
        Rect.partition(width, into: count).map {
            Rect(x: x + $0.offset, y: y, width: $0.length, height: height)
        }
    }

    private static func partition(_ total: Int, into count: Int) -> [(offset: Int, length: Int)] {
        guard count > 0 else { return [] }
        let base = total / count, extra = total % count
        var offset = 0
        return (0..<count).map { i in
            let length = base + (i < extra ? 1 : 0)
            defer { offset += length }
            return (offset, length)
        }
    }
}
