import CNcursesw
import ThermtopUI

/// Maps `CellStyle` to curses attributes and colour pairs, allocating one pair per
/// (foreground, background) combination the first time it is used.
final class Palette {
    private let colors: Int
    private let maxPairs: Int
    private let defaultForeground: Int16
    private let defaultBackground: Int16
    private var pairs: [Int32: Int16] = [:]
    private var nextPair: Int16 = 1

    /// `colors == 0` means monochrome. `defaultColors` is whether `use_default_colors`
    /// succeeded, making -1 the terminal's own foreground/background.
    init(colors: Int, pairs: Int, defaultColors: Bool) {
        self.colors = colors
        // setcchar takes a short pair number.
        self.maxPairs = min(pairs, Int(Int16.max))
        defaultForeground = defaultColors ? -1 : Int16(COLOR_WHITE)
        defaultBackground = defaultColors ? -1 : Int16(COLOR_BLACK)
    }

    func attributes(for style: CellStyle) -> (attr_t, Int16) {
        var attributes = thermtop_attr_normal()
        if style.bold { attributes |= thermtop_attr_bold() }
        if style.dim { attributes |= thermtop_attr_dim() }
        if style.reverse { attributes |= thermtop_attr_reverse() }
        if style.underline { attributes |= thermtop_attr_underline() }

        guard colors > 0 else {
            // Monochrome: keep what colour meant. Gray text is dim; a coloured
            // background (a bar, a highlight) becomes reverse video so it stays visible.
            if style.fg == .gray { attributes |= thermtop_attr_dim() }
            if style.bg != .defaultColor && style.bg != .black { attributes |= thermtop_attr_reverse() }
            return (attributes, 0)
        }

        var foreground = index(of: style.fg, isForeground: true)
        if style.fg == .gray && colors < 16 {
            // No bright black on an 8-colour terminal: dim default text instead.
            foreground = defaultForeground
            attributes |= thermtop_attr_dim()
        }
        let background = index(of: style.bg, isForeground: false)
        return (attributes, pair(foreground, background))
    }

    private func index(of color: TermColor, isForeground: Bool) -> Int16 {
        switch color {
        case .defaultColor: return isForeground ? defaultForeground : defaultBackground
        case .black: return Int16(COLOR_BLACK)
        case .red: return Int16(COLOR_RED)
        case .green: return Int16(COLOR_GREEN)
        case .yellow: return Int16(COLOR_YELLOW)
        case .blue: return Int16(COLOR_BLUE)
        case .magenta: return Int16(COLOR_MAGENTA)
        case .cyan: return Int16(COLOR_CYAN)
        case .white: return Int16(COLOR_WHITE)
        case .gray: return colors >= 16 ? 8 : Int16(COLOR_BLACK)
        case .orange: return colors >= 256 ? 208 : colors >= 16 ? 9 : Int16(COLOR_RED)
        }
    }

    private func pair(_ foreground: Int16, _ background: Int16) -> Int16 {
        if foreground == defaultForeground && background == defaultBackground { return 0 }
        let key = Int32(foreground) << 16 | Int32(UInt16(bitPattern: background))
        if let existing = pairs[key] { return existing }
        guard Int(nextPair) < maxPairs, init_pair(nextPair, foreground, background) == OK else {
            return 0  // out of pairs: default colours rather than failing
        }
        let allocated = nextPair
        pairs[key] = allocated
        nextPair += 1
        return allocated
    }
}
