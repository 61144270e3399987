#if canImport(Glibc)
import Glibc
#endif

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
        guard starts(name, with: prefix) else { return .noPrefix }
        let p = prefix.utf8CodeUnitCount
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
    @inline(__always)
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
/// went into making names.) Hidden names (`.`, `..`, a fixture's `.gitkeep`) are left out:
/// sysfs has none, so they are never devices or attributes.
///
/// Names come out in natural order (`naturalLess`). A folder of up to `scannedUpTo` names is
/// kept in the kernel's order and scanned when asked (a few byte comparisons a name); only the
/// names a caller takes are put in order. A larger one is sorted once and searched (by
/// `naturalLess`, which orders any two different names, so a search finds a name exactly when
/// the listing holds it).
struct Listing: Sendable {
    /// The names' bytes, one after another.
    private let bytes: [UInt8]
    /// Each name's start in `bytes` and its length (`start << 16 | length`; a name is at most
    /// 255 bytes).
    private let spans: [Int]
    /// Whether `spans` is in natural order.
    private let sorted: Bool

    /// The most names a listing keeps unsorted.
    static let scannedUpTo = 48

    private init(bytes: [UInt8], spans: [Int], sortAlways: Bool) {
        self.bytes = bytes
        if sortAlways || spans.count > Self.scannedUpTo {
            var spans = spans
            bytes.withUnsafeBufferPointer { b in
                spans.sort { naturalLess(Self.name($0, in: b), Self.name($1, in: b)) }
            }
            self.spans = spans
            sorted = true
        } else {
            self.spans = spans
            sorted = spans.count < 2
        }
    }

    /// An empty listing (a folder that could not be listed, where the caller treats it so).
    static let none = Listing(bytes: [], spans: [], sortAlways: false)

    /// `names`, in any order, hidden ones left out.
    init(names: [String]) {
        var builder = Builder(capacity: 0, names: names.count, keepHidden: false)
        for var name in names { name.withUTF8 { builder.append($0) } }
        self = builder.listing()
    }

    /// Collects names (from `getdents64` records) one by one.
    struct Builder {
        private var bytes: [UInt8] = []
        private var spans: [Int] = []
        private let keepHidden: Bool

        init(capacity: Int, names: Int, keepHidden: Bool) {
            bytes.reserveCapacity(capacity)
            spans.reserveCapacity(names)
            self.keepHidden = keepHidden
        }

        mutating func append(_ name: UnsafeBufferPointer<UInt8>) {
            if !keepHidden && Listing.isHidden(name) { return }
            spans.append(bytes.count << 16 | name.count)
            bytes.append(contentsOf: name)
        }

        /// The listing; `sorted`: in natural order whatever its size.
        func listing(sorted: Bool = false) -> Listing { Listing(bytes: bytes, spans: spans, sortAlways: sorted) }
    }

    /// A name starting with a dot: by its first byte, and where a non-ASCII byte follows
    /// (which may combine with the dot) by `String.hasPrefix`, Characters.
    static func isHidden(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = name.first, first == UInt8(ascii: ".") else { return false }
        return name.count == 1 || name[1] < 0x80 || String(decoding: name, as: UTF8.self).hasPrefix(".")
    }

    @inline(__always)
    private static func name(_ span: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes.baseAddress.map { $0 + (span >> 16) }, count: span & 0xffff)
    }

    var count: Int { spans.count }

    /// `body` given the bytes of the `i`th name (in the listing's own order).
    func withName<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let s = spans[i]
        return bytes.withUnsafeBufferPointer { body(Self.name(s, in: $0)) }
    }

    /// The `i`th name (in the listing's own order).
    func name(_ i: Int) -> String { withName(i) { String(decoding: $0, as: UTF8.self) } }

    /// The names of the places `take` accepts, in natural order.
    func names(where take: (Int) -> Bool) -> [String] {
        var out: [String] = []
        for i in 0..<count where take(i) { out.append(name(i)) }
        if !sorted && out.count > 1 { out.sort(by: naturalLess) }
        return out
    }

    /// Every name, in natural order.
    var names: [String] { names { _ in true } }

    /// Whether the `i`th name starts with `prefix`, as `String.hasPrefix` says.
    func name(_ i: Int, hasPrefix prefix: StaticString) -> Bool {
        test(i, bytes: { ListingName.starts($0, with: prefix) }, characters: { $0.hasPrefix(prefix.description) })
    }

    /// Whether the `i`th name ends with `suffix`, as `String.hasSuffix` says.
    func name(_ i: Int, hasSuffix suffix: StaticString) -> Bool {
        test(i, bytes: { ListingName.ends($0, with: suffix) }, characters: { $0.hasSuffix(suffix.description) })
    }

    /// The callers' rule for the `i`th name, by its bytes when they are all ASCII (where bytes
    /// and Characters agree) and by `characters` on the String otherwise (a non-ASCII byte may
    /// combine with its neighbour into one Character).
    @inline(__always)
    private func test(_ i: Int, bytes: (UnsafeBufferPointer<UInt8>) -> Bool, characters: (String) -> Bool) -> Bool {
        let answer: Bool? = withName(i) { b in
            for x in b where x >= 0x80 { return nil }
            return bytes(b)
        }
        return answer ?? characters(name(i))
    }

    /// The names starting with `prefix` (`thermal_zone`), in natural order.
    func names(withPrefix prefix: StaticString) -> [String] { names { name($0, hasPrefix: prefix) } }

    /// Whether the place of some name is one `test` accepts.
    func contains(where test: (Int) -> Bool) -> Bool {
        for i in 0..<count where test(i) { return true }
        return false
    }

    func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { contains(bytes: $0) }
    }

    func contains(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { contains(bytes: $0) }
    }

    /// By bytes: a path is bytes to the kernel (`é` composed and decomposed are two files).
    private func contains(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        func same(_ a: UnsafeBufferPointer<UInt8>) -> Bool {
            a.count == name.count && (a.isEmpty || memcmp(a.baseAddress!, name.baseAddress!, a.count) == 0)
        }
        return bytes.withUnsafeBufferPointer { b in
            guard sorted else {
                for s in spans where same(Self.name(s, in: b)) { return true }
                return false
            }
            var low = 0, high = spans.count
            while low < high {
                let mid = (low + high) / 2
                if naturalLess(Self.name(spans[mid], in: b), name) { low = mid + 1 } else { high = mid }
            }
            return low < spans.count && same(Self.name(spans[low], in: b))
        }
    }
}
