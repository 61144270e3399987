/// Consecutive changed cells in one row, starting at column `x`: what the terminal
/// layer has to draw. Produced by `CellBuffer.diff(from:)`.
public struct CellRun: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var cells: [Cell]

    public init(x: Int, y: Int, cells: [Cell]) {
        self.x = x
        self.y = y
        self.cells = cells
    }
}
