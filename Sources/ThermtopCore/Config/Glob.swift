/// A shell-style pattern over sensor ids: `*` any run of characters (including `/`, so
/// `pci-*/nvme/*` and `*` both work whatever an id's depth), `?` one character, `[abc]`,
/// `[a-z]`, `[!0-9]` one character of (or not of) a set, `\x` a literal `x`. A pattern
/// without any of these is an exact id.
public struct SensorGlob: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The pattern as written (`*` any run of characters, `?` one).
    public let pattern: String
    private let scalars: [Unicode.Scalar]

    /// A glob over sensor ids.
    public init(_ pattern: String) {
        self.pattern = pattern
        scalars = Array(pattern.unicodeScalars)
    }

    public var description: String { pattern }

    /// True when the pattern has no wildcard: it names one id exactly.
    public var isLiteral: Bool {
        !scalars.contains { $0 == "*" || $0 == "?" || $0 == "[" || $0 == "\\" }
    }

    /// Why the pattern is malformed (an unclosed `[`, a trailing `\`), nil when it is fine.
    public var problem: String? {
        var i = 0
        while i < scalars.count {
            switch scalars[i] {
            case "\\":
                if i + 1 >= scalars.count { return "a trailing \\ escapes nothing" }
                i += 2
            case "[":
                guard let end = Self.classEnd(scalars, from: i) else { return "a [ at character \(i + 1) is never closed by ]" }
                i = end + 1
            default:
                i += 1
            }
        }
        return nil
    }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        let t = Array(text.unicodeScalars)
        // Iterative matcher with one backtrack point for the last `*`: linear in practice,
        // never exponential on hostile patterns (`*a*a*a*…b`).
        var p = 0, s = 0
        var starP = -1, starS = 0
        while s < t.count {
            if p < scalars.count {
                let c = scalars[p]
                if c == "*" {
                    starP = p; starS = s; p += 1
                    continue
                }
                if let (ok, next) = matchOne(at: p, t[s]), ok {
                    p = next; s += 1
                    continue
                }
            }
            if starP >= 0 {
                p = starP + 1; starS += 1; s = starS
                continue
            }
            return false
        }
        while p < scalars.count, scalars[p] == "*" { p += 1 }
        return p == scalars.count
    }

    /// Whether the pattern element at `p` matches `c`, and where the next element starts.
    /// nil when the element is malformed (treated as no match).
    private func matchOne(at p: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
        switch scalars[p] {
        case "?": return (true, p + 1)
        case "\\":
            guard p + 1 < scalars.count else { return nil }
            return (scalars[p + 1] == c, p + 2)
        case "[":
            guard let end = Self.classEnd(scalars, from: p) else { return (c == "[", p + 1) }
            var i = p + 1
            var negate = false
            if scalars[i] == "!" || scalars[i] == "^" { negate = true; i += 1 }
            var hit = false
            while i < end {
                var lo = scalars[i]
                if lo == "\\", i + 1 < end { i += 1; lo = scalars[i] }
                if i + 2 < end, scalars[i + 1] == "-" {
                    var hi = scalars[i + 2]
                    var skip = 3
                    if hi == "\\", i + 3 < end { hi = scalars[i + 3]; skip = 4 }
                    if lo.value <= c.value && c.value <= hi.value { hit = true }
                    i += skip
                } else {
                    if lo == c { hit = true }
                    i += 1
                }
            }
            return (hit != negate, end + 1)
        default:
            return (scalars[p] == c, p + 1)
        }
    }

    /// Index of the `]` closing the class that opens at `start`; a `]` right after `[` or
    /// `[!` is a member, not the end.
    private static func classEnd(_ s: [Unicode.Scalar], from start: Int) -> Int? {
        var i = start + 1
        if i < s.count, s[i] == "!" || s[i] == "^" { i += 1 }
        if i < s.count, s[i] == "]" { i += 1 }
        while i < s.count {
            if s[i] == "\\" { i += 2; continue }
            if s[i] == "]" { return i }
            i += 1
        }
        return nil
    }
}
