import ThermtopCore

/// Glyphs and colours, with an ASCII set for non-UTF-8 locales and a monochrome fallback.
public struct Theme: Sendable, Equatable {
    public var unicode: Bool
    public var color: Bool

    public init(unicode: Bool, color: Bool) {
        self.unicode = unicode
        self.color = color
    }

    public var barFull: Character { unicode ? "█" : "#" }
    public var barEmpty: Character { unicode ? "·" : "." }
    public var marker: Character { unicode ? "│" : "|" }
    public var gaugeFull: Character { unicode ? "■" : "=" }
    public var gaugeEmpty: Character { unicode ? "□" : "-" }
    public var sparks: [Character] { unicode ? ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] : ["_", ".", "-", "~", "=", "+", "*", "#"] }
    public var pointer: Character { unicode ? "▶" : ">" }
    public var horizontal: Character { unicode ? "─" : "-" }
    public var vertical: Character { unicode ? "│" : "|" }
    public var corners: [Character] { unicode ? ["┌", "┐", "└", "┘"] : ["+", "+", "+", "+"] }
    public var degree: String { unicode ? "°C" : "C" }
    public var dot: String { unicode ? "·" : "|" }

    public func levelColor(_ s: ThermalState) -> TermColor {
        switch s {
        case .nominal: .green
        case .fair: .yellow
        case .serious: .red
        case .critical: .magenta
        }
    }

    /// Text in the level's colour (bold from serious up, so monochrome still stands out).
    public func level(_ s: ThermalState) -> CellStyle {
        CellStyle(fg: color ? levelColor(s) : .defaultColor, bold: s >= .serious)
    }

    /// The state badge: reverse video in the level's colour.
    public func badge(_ s: ThermalState) -> CellStyle {
        color ? CellStyle(fg: .black, bg: levelColor(s), bold: true) : CellStyle(bold: true, reverse: true)
    }

    public var title: CellStyle { CellStyle(bold: true) }
    public var dim: CellStyle { CellStyle(fg: color ? .gray : .defaultColor, dim: !color) }
    public var warning: CellStyle { color ? CellStyle(fg: .black, bg: .yellow, bold: true) : CellStyle(bold: true, reverse: true) }
    public var key: CellStyle { color ? CellStyle(fg: .black, bg: .cyan) : CellStyle(reverse: true) }
    public var selected: CellStyle { CellStyle(reverse: true) }
}
