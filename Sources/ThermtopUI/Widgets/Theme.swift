import ThermtopCore

/// Glyphs and colours, with an ASCII set for non-UTF-8 locales and a monochrome fallback.
///
/// The level scale reads the usual way: nominal green, fair yellow, serious orange, critical
/// red in reverse video. Without colour the levels still differ: fair is underlined, serious
/// bold, critical bold reverse. Secondary text uses the terminal's own colour (no grey, which
/// many themes make unreadable).
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
    public var moreAbove: String { unicode ? "▲" : "^" }
    public var moreBelow: String { unicode ? "▼" : "v" }
    public var horizontal: Character { unicode ? "─" : "-" }
    public var vertical: Character { unicode ? "│" : "|" }
    public var corners: [Character] { unicode ? ["┌", "┐", "└", "┘"] : ["+", "+", "+", "+"] }
    public var degree: String { unicode ? "°C" : "C" }
    public var dot: String { unicode ? "·" : "|" }

    public func levelColor(_ s: ThermalState) -> TermColor {
        switch s {
        case .nominal: .green
        case .fair: .yellow
        case .serious: .orange
        case .critical: .red
        }
    }

    /// A value at a level. Nominal values are plain: colour marks only what left nominal.
    public func level(_ s: ThermalState) -> CellStyle {
        switch s {
        case .nominal: .plain
        case .fair: color ? CellStyle(fg: .yellow) : CellStyle(underline: true)
        case .serious: CellStyle(fg: color ? .orange : .defaultColor, bold: true)
        case .critical: color ? CellStyle(fg: .red, bold: true, reverse: true) : CellStyle(bold: true, reverse: true)
        }
    }

    /// Fill colour for bars, gauges and graphs at a level (green included: it is a scale).
    public func fill(_ s: ThermalState) -> CellStyle {
        color ? CellStyle(fg: levelColor(s)) : .plain
    }

    /// The state badge: reverse video in the level's colour.
    public func badge(_ s: ThermalState) -> CellStyle {
        color ? CellStyle(fg: .black, bg: levelColor(s), bold: true) : CellStyle(bold: true, reverse: true)
    }

    /// The badge when nothing was measured: never a level's colour (green would say "fine").
    public var unknownBadge: CellStyle { color ? CellStyle(fg: .black, bg: .white, bold: true) : CellStyle(bold: true, reverse: true) }

    public var title: CellStyle { CellStyle(bold: true) }
    /// Secondary text: the terminal's own colour, never grey.
    public var dim: CellStyle { .plain }
    public var warning: CellStyle { color ? CellStyle(fg: .black, bg: .yellow, bold: true) : CellStyle(bold: true, reverse: true) }
    public var key: CellStyle { color ? CellStyle(fg: .black, bg: .cyan) : CellStyle(reverse: true) }
    public var selected: CellStyle { CellStyle(reverse: true) }
}
