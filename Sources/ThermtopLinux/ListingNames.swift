/// Reading numbered attribute names from a listing (`temp3_input`, `trip_point_12_temp`), by
/// bytes. Every discovery does this for every name of every listed folder; Character by
/// Character (a grapheme break and a Unicode property lookup per character, and the generic
/// `Substring` comparisons) it cost a few hundred instructions a name. A name with a non-ASCII
/// byte, which no kernel makes but a fuzzed or hand-made tree may, gets `.notASCII`, and the
/// caller applies its Character rule, so the answer is the same.
enum ListingName {
    enum Split: Equatable {
        /// A byte of the name is not ASCII: use the Character rule.
        case notASCII
        /// The name does not start with the prefix.
        case noPrefix
        /// The number of the ASCII digit run right after the prefix (nil when there is none or
        /// it overflows an Int), and the byte offset where the rest starts.
        case split(number: Int?, rest: Int)
    }

    /// `name` as `<prefix><digits><rest>`, looked at as UTF-8 bytes.
    static func split(_ name: UnsafeBufferPointer<UInt8>, after prefix: StaticString) -> Split {
        for b in name where b >= 0x80 { return .notASCII }
        let p = prefix.utf8CodeUnitCount
        guard name.count >= p else { return .noPrefix }
        for k in 0..<p where name[k] != prefix.utf8Start[k] { return .noPrefix }
        var i = p, n = 0, overflow = false
        while i < name.count, name[i] >= UInt8(ascii: "0"), name[i] <= UInt8(ascii: "9") {
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int(name[i] &- UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            n = s
            i += 1
        }
        return .split(number: i == p || overflow ? nil : n, rest: i)
    }

    /// Whether `name` starts with `prefix`.
    static func starts(_ name: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        let p = prefix.utf8CodeUnitCount
        guard name.count >= p else { return false }
        for k in 0..<p where name[k] != prefix.utf8Start[k] { return false }
        return true
    }

    /// Whether `name` ends with `suffix`.
    static func ends(_ name: UnsafeBufferPointer<UInt8>, with suffix: StaticString) -> Bool {
        rest(name, from: 0, endsWith: suffix)
    }

    /// Whether the bytes of `name` from `start` on are exactly `text`.
    static func rest(_ name: UnsafeBufferPointer<UInt8>, from start: Int, is text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard name.count - start == n else { return false }
        for k in 0..<n where name[start + k] != text.utf8Start[k] { return false }
        return true
    }

    /// Whether the bytes of `name` from `start` on end with `text`.
    static func rest(_ name: UnsafeBufferPointer<UInt8>, from start: Int, endsWith text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard name.count - start >= n else { return false }
        let base = name.count - n
        for k in 0..<n where name[base + k] != text.utf8Start[k] { return false }
        return true
    }

    /// The letters before the first digit (`in` of `in0`) when `name` is ASCII, nil otherwise.
    static func stemKind(_ name: String) -> Substring? {
        var copy = name
        let end: Int? = copy.withUTF8 { b in
            for x in b where x >= 0x80 { return nil }
            return b.firstIndex { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? b.count
        }
        guard let end else { return nil }
        return name[..<name.utf8.index(name.utf8.startIndex, offsetBy: end)]
    }
}

/// A folder's entries, kept as their bytes in one buffer and asked by name or by bytes: a
/// discovery lists a few hundred names and reads a handful of them, so a name becomes a String
/// only when a caller wants one. (A String per name was ~100 instructions, and for the names of
/// 16 bytes or more, `trip_point_0_type`, a heap allocation each: ~8% of a one-shot `status`
/// went into making names.) In natural order (`naturalLess`); looked up by binary search in that
/// order, which finds a name exactly when the listing holds it (`naturalLess` orders any two
/// different names, ties broken by spelling).
struct Listing: Sendable {
    /// The names' bytes, one after another.
    private let bytes: [UInt8]
    /// Each name's start in `bytes` and its length (`start << 16 | length`; a name is at most
    /// 255 bytes), in natural order.
    private let spans: [Int]
    /// The names left out: those starting with a dot (`.`, `..`, a fixture's `.gitkeep`), which
    /// natural order keeps together (a dot first sorts by its byte against any other first byte).
    private let hidden: Range<Int>

    private init(bytes: [UInt8], spans: [Int], hidden: Range<Int> = 0..<0) {
        self.bytes = bytes
        self.spans = spans
        self.hidden = hidden
    }

    /// An empty listing (a folder that could not be listed, where the caller treats it so).
    static let none = Listing(bytes: [], spans: [])

    /// `names`, in any order, sorted.
    init(names: [String]) {
        var bytes: [UInt8] = [], spans: [Int] = []
        spans.reserveCapacity(names.count)
        for var name in names {
            name.withUTF8 { n in
                spans.append(bytes.count << 16 | n.count)
                bytes.append(contentsOf: n)
            }
        }
        self.init(bytes: bytes, spans: Self.sorted(spans, in: bytes))
    }

    /// Names from `getdents64` records, collected with `append` and then sorted.
    struct Builder {
        private var bytes: [UInt8] = []
        private var spans: [Int] = []

        init(capacity: Int, names: Int) {
            bytes.reserveCapacity(capacity)
            spans.reserveCapacity(names)
        }

        mutating func append(_ name: UnsafeBufferPointer<UInt8>) {
            spans.append(bytes.count << 16 | name.count)
            bytes.append(contentsOf: name)
        }

        func listing() -> Listing { Listing(bytes: bytes, spans: Listing.sorted(spans, in: bytes)) }
    }

    private static func sorted(_ spans: [Int], in bytes: [UInt8]) -> [Int] {
        var spans = spans
        bytes.withUnsafeBufferPointer { b in
            spans.sort { naturalLess(name($0, in: b), name($1, in: b)) }
        }
        return spans
    }

    private static func name(_ span: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(span >> 16)..<((span >> 16) + (span & 0xffff))])
    }

    /// The same names without the hidden ones (shares the buffers).
    func withoutHidden() -> Listing {
        let dot = UInt8(ascii: ".")
        let range: Range<Int>? = bytes.withUnsafeBufferPointer { b in
            guard let first = spans.firstIndex(where: { $0 & 0xffff > 0 && b[$0 >> 16] == dot }) else { return nil }
            var end = first + 1
            while end < spans.count, spans[end] & 0xffff > 0, b[spans[end] >> 16] == dot { end += 1 }
            return first..<end
        }
        guard let range else { return self }
        return Listing(bytes: bytes, spans: spans, hidden: range)
    }

    var count: Int { spans.count - hidden.count }
    var isEmpty: Bool { count == 0 }

    private func span(_ i: Int) -> Int { spans[i < hidden.lowerBound ? i : i + hidden.count] }

    /// `body` given the bytes of the `i`th name.
    func withName<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let s = span(i)
        return bytes.withUnsafeBufferPointer { body(Self.name(s, in: $0)) }
    }

    /// The `i`th name.
    func name(_ i: Int) -> String { withName(i) { String(decoding: $0, as: UTF8.self) } }

    /// Every name, in order.
    var names: [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(name(i)) }
        return out
    }

    /// Whether the `i`th name starts with `prefix`: by bytes, and a name with a non-ASCII byte
    /// by `String.hasPrefix` (Characters), as the callers' rule always was.
    func name(_ i: Int, hasPrefix prefix: StaticString) -> Bool {
        let starts: Bool? = withName(i) { b in
            for x in b where x >= 0x80 { return nil }
            return ListingName.starts(b, with: prefix)
        }
        return starts ?? name(i).hasPrefix(prefix.description)
    }

    /// The names starting with `prefix` (`thermal_zone`), in order.
    func names(withPrefix prefix: StaticString) -> [String] {
        var out: [String] = []
        for i in 0..<count where name(i, hasPrefix: prefix) { out.append(name(i)) }
        return out
    }

    /// Whether a name starts with `prefix`.
    func contains(prefix: StaticString) -> Bool {
        for i in 0..<count where name(i, hasPrefix: prefix) { return true }
        return false
    }

    func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { contains(bytes: $0) }
    }

    func contains(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { contains(bytes: $0) }
    }

    private func contains(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                if naturalLess(Self.name(span(mid), in: b), name) { low = mid + 1 } else { high = mid }
            }
            return low < count && Self.name(span(low), in: b).elementsEqual(name)
        }
    }
}
