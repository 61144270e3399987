/// Word wrapping for panels: text is wrapped at spaces (a number keeps its unit), and when it
/// needs more lines than it may take, the last one ends in `…`. Text is never cut silently.
public enum TextWrap {
    public static func lines(_ text: String, width: Int, maxLines: Int = .max) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var out: [String] = []
        var line = ""
        // A unit stays on the line of its number (`35.9 °C`, `5.9 % CPU`: never `35.9` / `°C`).
        var words: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if word.hasPrefix("°") || word.hasPrefix("%"), let last = words.last, !last.isEmpty {
                words[words.count - 1] = last + " " + word
            } else {
                words.append(String(word))
            }
        }
        for word in words {
            var w = word
            // A word longer than a line is split hard.
            while w.count > width {
                if !line.isEmpty { out.append(line); line = "" }
                out.append(String(w.prefix(width)))
                w = String(w.dropFirst(width))
            }
            if line.isEmpty {
                line = w
            } else if line.count + 1 + w.count <= width {
                line += " " + w
            } else {
                out.append(line)
                line = w
            }
        }
        if !line.isEmpty || out.isEmpty { out.append(line) }
        guard out.count > maxLines else { return out }
        var kept = Array(out.prefix(maxLines))
        kept[maxLines - 1] = ellipsize(kept[maxLines - 1] + " " + out[maxLines], width: width)
        return kept
    }

    /// The text in at most `width` columns, ending in `…` when it had to be shortened.
    public static func ellipsize(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count <= width { return text }
        // `NVMe SAMSUNG…`, not `NVMe SAMSUNG …`: a cut that lands after a space drops it.
        var kept = text.prefix(width - 1)
        while kept.last == " " { kept.removeLast() }
        return String(kept) + "…"
    }

    /// A name in at most `width` columns that keeps what tells it apart from its neighbours:
    /// the fold marker (`+2`), the tag of identical devices (`[#1]`, `[slot 02:00]`) and the
    /// channel in parentheses stay; the model before them is shortened first
    /// (`NVMe… (Composite) [#1]`), then the inside of the parentheses (`CPU (coretemp P… 0) +2`).
    public static func ellipsizeName(_ name: String, width: Int) -> String {
        guard name.count > width else { return name }
        var rest = Substring(name)
        var kept = ""
        while true {
            if let space = rest.lastIndex(of: " "), rest[rest.index(after: space)...].first == "+",
               rest[rest.index(after: space)...].dropFirst().allSatisfy(\.isNumber), rest.count - rest.distance(from: rest.startIndex, to: space) > 2 {
                kept = String(rest[space...]) + kept
                rest = rest[..<space]
            } else if rest.hasSuffix("]"), let open = rest.lastIndex(of: "["), open > rest.startIndex,
                      rest[rest.index(before: open)] == " " {
                let space = rest.index(before: open)
                kept = String(rest[space...]) + kept
                rest = rest[..<space]
            } else {
                break
            }
        }
        let room = width - kept.count
        guard room >= 4 else { return ellipsize(name, width: width) }
        guard rest.hasSuffix(")"), let open = rest.lastIndex(of: "("), open > rest.startIndex else {
            return ellipsize(String(rest), width: room) + kept
        }
        let paren = String(rest[open...])
        let head = rest[..<open].trimmingCharacters(in: " ")
        if head.count + 1 + paren.count <= room { return head + " " + paren + kept }
        let headRoom = room - 1 - paren.count
        if headRoom >= min(head.count, 4) {
            return ellipsize(head, width: headRoom) + " " + paren + kept
        }
        let headShown = ellipsize(head, width: 4)
        let parenRoom = room - headShown.count - 1
        guard parenRoom >= 4 else { return ellipsize(String(rest), width: room) + kept }
        return headShown + " (" + shortened(String(paren.dropFirst().dropLast()), width: parenRoom - 2) + ")" + kept
    }

    /// The inside of a name's parentheses in `width` columns, keeping a short last word when
    /// that is what numbers the channel (`Sensor 1` → `Se… 1`), so `Sensor 1` and `Sensor 2`
    /// still read differently.
    static func shortened(_ inside: String, width: Int) -> String {
        if let space = inside.lastIndex(of: " ") {
            let tail = inside[space...]
            if tail.count <= 4, width - tail.count >= 2 {
                return String(inside[..<space].prefix(width - tail.count - 1)) + "…" + tail
            }
        }
        return String(inside.prefix(width - 1)) + "…"
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s.removeLast() }
        while s.first == set { s.removeFirst() }
        return String(s)
    }
}
