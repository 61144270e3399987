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

/// A folder's entries as `SysfsRoot.list` gives them (in natural order), asked by name. Looked up
/// by binary search in that same order: no set is built per folder. A `Set` hashed every name of
/// every listed folder once (SipHash and an allocation) and each asked name again, for folders of
/// a few dozen names asked a few times each; a search is a handful of byte comparisons.
/// `naturalLess` orders any two different names (ties broken by spelling), so the search finds a
/// name exactly when the listing holds it.
struct ListedNames: Sendable {
    /// In natural order, as listed.
    let sorted: [String]

    init(_ listing: [String]) { sorted = listing }

    /// An empty listing (a folder that could not be listed, where the caller treats it so).
    static let none = ListedNames([])

    func contains(_ name: String) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if naturalLess(sorted[mid], name) { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == name
    }

    func contains(where predicate: (String) -> Bool) -> Bool { sorted.contains(where: predicate) }
}
