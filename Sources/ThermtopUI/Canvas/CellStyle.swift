/// How one cell is drawn: colours plus the attributes every terminal understands.
///
/// When the terminal has no colour the terminal layer keeps only `bold`, `dim`,
/// `reverse` and `underline` (and shows a coloured background as reverse video),
/// so a style must still read well without its colours.
public struct CellStyle: Sendable, Hashable {
    public var fg: TermColor
    public var bg: TermColor
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(
        fg: TermColor = .defaultColor,
        bg: TermColor = .defaultColor,
        bold: Bool = false,
        dim: Bool = false,
        reverse: Bool = false,
        underline: Bool = false
    ) {
        self.fg = fg
        self.bg = bg
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// Default colours, no attributes.
    public static let plain = CellStyle()
}
