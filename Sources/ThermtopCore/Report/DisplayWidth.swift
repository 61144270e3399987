/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji
/// take two, combining marks and joiners none (they ride on the character before), the rest
/// one. The text report pads its columns by this, so a CJK or emoji sensor name does not push
/// the readings after it out of line. (The dashboard draws one cell per character and shows
/// wide characters as a replacement, so it keeps counting characters.)
package enum DisplayWidth {
    package static func columns(_ s: String) -> Int {
        var n = 0
        for c in s { n += columns(c) }
        return n
    }

    package static func columns(_ c: Character) -> Int {
        var visible = false
        for u in c.unicodeScalars {
            if u.properties.isEmojiPresentation || u.value == 0xFE0F || isWide(u.value) { return 2 }
            switch u.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: visible = true
            }
        }
        return visible ? 1 : 0
    }

    /// East Asian Wide and Fullwidth blocks (Hangul Jamo, CJK, Kana, Hangul syllables,
    /// compatibility ideographs, fullwidth forms, the supplementary ideograph planes).
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Left-justified to `width` columns, cut with `…` when wider.
    package static func pad(_ s: String, _ width: Int) -> String {
        let w = columns(s)
        if w <= width { return s + String(repeating: " ", count: width - w) }
        var out = ""
        var used = 0
        for c in s {
            let cw = columns(c)
            if used + cw > width - 1 { break }
            out.append(c)
            used += cw
        }
        return out + "…" + String(repeating: " ", count: max(0, width - 1 - used))
    }
}
