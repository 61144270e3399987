/// Word wrapping for panels: text is wrapped at spaces (a number keeps its unit), and when it
/// needs more lines than it may take, the last one ends in `…`. Text is never cut silently.
public enum TextWrap {
    public static func lines(_ text: String, width: Int, maxLines: Int = .max) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var out: [String] = []
        var line = ""
        // A unit stays on the line of its number (`35.9 °C`, never `35.9` / `°C`).
        var words: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if word.hasPrefix("°"), let last = words.last, !last.isEmpty {
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
        return String(text.prefix(width - 1)) + "…"
    }

    /// A name in at most `width` columns that keeps its distinguishing tail: for
    /// `NVMe SAMSUNG MZVL2512HCJQ (Sensor 1)` the `(Sensor 1)` stays and the model is shortened
    /// (`NVMe SAMSUNG MZ… (Sensor 1)`), so rows of one device stay told apart.
    public static func ellipsizeName(_ name: String, width: Int) -> String {
        guard name.count > width else { return name }
        if let open = name.lastIndex(of: "("), name.hasSuffix(")") {
            let tail = String(name[open...])
            let head = name[..<open].trimmingCharacters(in: " ")
            let room = width - tail.count - 2
            if room >= 3 { return String(head.prefix(room)) + "… " + tail }
        }
        return ellipsize(name, width: width)
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
