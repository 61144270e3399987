/// One terminal column: a single-width character and its style.
///
/// A `CellBuffer` only ever stores characters that pass `CellBuffer.sanitize`, so
/// every cell is exactly one printable column and can never start an escape sequence.
public struct Cell: Sendable, Hashable {
    public var char: Character
    public var style: CellStyle

    public init(_ char: Character = " ", style: CellStyle = .plain) {
        self.char = char
        self.style = style
    }

    public init(char: Character, style: CellStyle = .plain) {
        self.init(char, style: style)
    }

    /// A space in the plain style.
    public static let blank = Cell(" ")
}
