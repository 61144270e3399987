extension String {
    /// Whether `needle` occurs in the string, as the standard library's `contains(_:)` answers it
    /// (by Characters), without its generic searcher: the names matched here (chips, zone and
    /// supply types) are ASCII, and in an ASCII string every byte is its own Character except
    /// CR LF, so for a non-empty ASCII needle without CR or LF a byte search gives the same
    /// answer. Anything else (non-ASCII text, CR or LF in the needle, an empty needle) goes to
    /// `contains(_:)`.
    /// (The generic searcher's first use costs a runtime type lookup per process, a measurable
    /// part of a one-shot `thermtop status`.)
    package func hasSubstring(_ needle: String) -> Bool {
        var haystack = self, needle = needle
        let fast = needle.withUTF8 { n in
            haystack.withUTF8 { h -> Bool? in
                guard !n.isEmpty, n.allSatisfy({ $0 < 0x80 && $0 != 0x0A && $0 != 0x0D }), h.allSatisfy({ $0 < 0x80 }) else { return nil }
                guard h.count >= n.count else { return false }
                outer: for start in 0...(h.count - n.count) {
                    for k in 0..<n.count where h[start + k] != n[k] { continue outer }
                    return true
                }
                return false
            }
        }
        return fast ?? contains(needle)
    }
}
