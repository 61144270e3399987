/// One terminal column: a single-width character and its style.
///
/// The character is one Unicode scalar that passed `CellBuffer.sanitize` when the cell was
/// made, so every cell is exactly one printable column and can never start an escape
/// sequence. A cell is plain data (a scalar and a style, no reference): a screen of them is
/// copied, compared and diffed as bytes.
public struct Cell: Sendable, Hashable {
    /// The character, always one that `CellBuffer.isSafe` accepts.
    public private(set) var scalar: Unicode.Scalar
    public var style: CellStyle

    /// `char` sanitised: an unsafe character (a control, a wide or combining one, more than
    /// one scalar) is stored as `CellBuffer.replacement`.
    public init(_ char: Character = " ", style: CellStyle = .plain) {
        scalar = CellBuffer.safeScalar(char) ?? CellBuffer.replacementScalar
        self.style = style
    }

    public init(char: Character, style: CellStyle = .plain) {
        self.init(char, style: style)
    }

    /// The character as a `Character`.
    public var char: Character { Character(scalar) }

    /// A space in the plain style.
    public static let blank = Cell(" ")
}
