extension CellBuffer {
    /// What an unsafe character is drawn as.
    public static let replacementScalar: Unicode.Scalar = "?"
    public static let replacement = Character(replacementScalar)

    /// `s` with every unsafe character replaced by `?`, one character per column:
    /// after sanitising, `count` is the number of terminal columns the text takes.
    ///
    /// Use it on strings read from sysfs before measuring or truncating them.
    public static func sanitize(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for character in s { out.append(sanitize(character)) }
        return out
    }

    /// `c` itself when it is safe to put in one terminal column, otherwise `?`.
    ///
    /// Safe means a single Unicode scalar (so no combining sequences, emoji with
    /// variation selectors or "\r\n") from a whitelist of ranges that glibc's
    /// `wcwidth` reports as exactly one column: printable ASCII and Latin-1 (minus
    /// the soft hyphen), General Punctuation without the invisible and bidi controls,
    /// arrows, box drawing, block elements, geometric shapes (minus the two
    /// emoji-width squares U+25FD/U+25FE), Braille, and a few named symbols.
    /// Everything else, including C0, DEL, C1 and ESC, becomes `?`.
    public static func sanitize(_ c: Character) -> Character {
        isSafe(c) ? c : replacement
    }

    /// Whether `c` passes `sanitize` unchanged.
    public static func isSafe(_ c: Character) -> Bool { safeScalar(c) != nil }

    /// `c`'s one scalar when `c` is safe, else nil: what a `Cell` stores.
    static func safeScalar(_ c: Character) -> Unicode.Scalar? {
        let scalars = c.unicodeScalars
        guard let scalar = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex,
              isSafeScalar(scalar.value) else { return nil }
        return scalar
    }

    static func isSafeScalar(_ v: UInt32) -> Bool {
        switch v {
        case 0x20...0x7E: return true                    // printable ASCII
        case 0xAD: return false                          // soft hyphen: invisible in many terminals
        case 0xA0...0xFF: return true                    // printable Latin-1 (°, ±, µ, ×, é …)
        case 0x2010...0x2027: return true                // dashes, quotes, •, … (not 2028/2029 separators)
        case 0x2030...0x205E: return true                // ‰, ′, ‹ › … (not 202A–202E bidi, 2060+ invisibles)
        case 0x2190...0x21FF: return true                // arrows
        case 0x25FD, 0x25FE: return false                // emoji presentation: two columns
        case 0x2500...0x25FF: return true                // box drawing, block elements, geometric shapes
        case 0x2800...0x28FF: return true                // Braille patterns (sparklines, graphs)
        default: return namedSymbols.contains(v)
        }
    }

    /// Single-width symbols outside the ranges above that widgets may use.
    private static let namedSymbols: Set<UInt32> = [
        0x2103,                                          // ℃
        0x2116,                                          // №
        0x2122,                                          // ™
        0x2212, 0x221A, 0x221E, 0x2248, 0x2260, 0x2264, 0x2265,  // − √ ∞ ≈ ≠ ≤ ≥
        0x2600, 0x2601, 0x2605, 0x2606, 0x26A0,          // ☀ ☁ ★ ☆ ⚠
        0x2660, 0x2663, 0x2665, 0x2666,                  // ♠ ♣ ♥ ♦
        0x2713, 0x2714, 0x2717, 0x2718,                  // ✓ ✔ ✗ ✘
    ]

    /// Text in ASCII for a terminal without UTF-8: `≥` and `≤` become `>=` and `<=` (a lone `>`
    /// would say "greater than", not "at least"), the degree sign is dropped (`71.0 C`, as the
    /// column headings spell the unit), and every other character goes through `asciiFallback`.
    public static func asciiText(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "≥": out += ">="
            case "≤": out += "<="
            case "°": continue
            default: out.append(asciiFallback(c))
            }
        }
        return out
    }

    /// An ASCII stand-in for a safe character, for terminals whose locale is not
    /// UTF-8: lines become `-`, `|` and `+`, blocks become `#`, and anything without
    /// an obvious stand-in becomes `?`. ASCII characters are returned unchanged.
    public static func asciiFallback(_ c: Character) -> Character {
        guard let scalar = safeScalar(c) else { return replacement }
        return Character(asciiFallback(scalar))
    }

    /// The same for a cell's scalar (one that `isSafe` accepts).
    public static func asciiFallback(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let v = scalar.value
        if v < 0x80 { return scalar }
        guard isSafeScalar(v) else { return replacementScalar }
        switch v {
        case 0xA0: return " "
        case 0xB0: return "o"                            // °
        case 0xB7: return "."
        case 0xD7: return "x"
        case 0x2010...0x2015, 0x2212: return "-"
        case 0x2018, 0x2019, 0x2032: return "'"
        case 0x201C, 0x201D, 0x2033: return "\""
        case 0x2022, 0x2605, 0x2606: return "*"
        case 0x2026: return "."
        case 0x2190: return "<"
        case 0x2191: return "^"
        case 0x2192: return ">"
        case 0x2193: return "v"
        case 0x2264: return "<"
        case 0x2265: return ">"
        case 0x2248: return "~"
        case 0x2713, 0x2714: return "+"
        case 0x2717, 0x2718: return "x"
        case 0x2665, 0x2660, 0x2663, 0x2666: return "*"
        case 0x2500...0x257F: return boxFallback(v)
        case 0x2581...0x2583: return "_"
        case 0x2584...0x2587: return "="
        case 0x2591: return "."
        case 0x2592: return ":"
        case 0x2580...0x259F: return "#"
        case 0x25CB, 0x25CE, 0x25EF: return "o"
        case 0x25B2, 0x25B3, 0x25B4, 0x25B5: return "^"
        case 0x25BC, 0x25BD, 0x25BE, 0x25BF: return "v"
        case 0x25B6, 0x25B7, 0x25B8, 0x25B9, 0x25BA, 0x25BB: return ">"
        case 0x25C0, 0x25C1, 0x25C2, 0x25C3, 0x25C4, 0x25C5: return "<"
        case 0x25A0...0x25A9: return "#"
        case 0x25A0...0x25FF: return "*"
        case 0x2800: return " "
        case 0x2801...0x28FF: return "."
        default: return replacementScalar
        }
    }

    private static func boxFallback(_ v: UInt32) -> Unicode.Scalar {
        switch v {
        case 0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254C, 0x254D, 0x2550,
             0x2574, 0x2576, 0x2578, 0x257A, 0x257C, 0x257E:
            return "-"
        case 0x2502, 0x2503, 0x2506, 0x2507, 0x250A, 0x250B, 0x254E, 0x254F, 0x2551,
             0x2575, 0x2577, 0x2579, 0x257B, 0x257D, 0x257F:
            return "|"
        case 0x2571: return "/"
        case 0x2572: return "\\"
        case 0x2573: return "X"
        default: return "+"
        }
    }
}
