/// A JSON value with ordered object keys and explicit nulls, so `thermtop status --json`
/// prints every documented field in a stable order. Not `indirect`: arrays and objects already
/// hold their members out of line, and an indirect enum boxes every value, a scalar too (an
/// allocation and a release per field of a report).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    package static func num(_ v: Double?, places: Int = 3) -> JSONValue {
        guard let v, v.isFinite else { return .null }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return .number((v * scale).rounded() / scale)
    }
    package static func int<I: BinaryInteger>(_ v: I?) -> JSONValue { v.map { .number(Double($0)) } ?? .null }
    package static func str(_ v: String?) -> JSONValue { v.map { .string($0) } ?? .null }

    package func serialized(indent: Int = 0, pretty: Bool = true) -> String {
        String(decoding: serializedUTF8(indent: indent, pretty: pretty), as: UTF8.self)
    }

    /// The text as UTF-8 bytes, for a caller that writes bytes: not turned into a String and
    /// back, which validates and copies the whole document twice.
    package func serializedUTF8(indent: Int = 0, pretty: Bool = true) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, indent: indent)
        w.value(self)
        return w.bytes
    }
}

/// Writes JSON text straight into UTF-8 bytes, member by member, in the order given: the one
/// place for how thermtop prints JSON (layout, numbers, string escapes). `JSONValue` prints
/// through it, and `status --json` writes its report with it without building a tree first
/// (the tree, its boxes and its release were half of the report's instructions).
///
/// Pretty layout: two spaces per level, each member on its own line, `"key": value`, an empty
/// object or array as `{}` / `[]`. Compact: no spaces or new lines at all.
package struct JSONWriter {
    /// The text so far.
    package var bytes: [UInt8] { out.array }

    /// The text so far, where it was written: for a caller that writes it out (no copy into an
    /// array, which for `status --json` was a second ~30 KB of fresh heap pages).
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try out.withBuffer(body)
    }

    /// The new line that ends a document written to a file or a terminal.
    package mutating func endLine() {
        out.append(0x0a)
    }
    private var out: ByteSink
    private let pretty: Bool
    /// Indentation level of the members of the container being written (the document's own
    /// level outside any container).
    private var level: Int
    /// How many containers are open: a value at depth 0 is the document itself.
    private var depth = 0
    /// The open container has no member yet.
    private var empty = true
    /// A key was just written: the next value is its value, not a new member.
    private var keyed = false

    package init(pretty: Bool = true, indent: Int = 0, capacity: Int = 0) {
        self.pretty = pretty
        level = indent
        out = ByteSink(capacity: capacity)
    }

    // MARK: Containers and keys

    /// An object whose members `body` writes (with `field`, or `key` then a value).
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// An array whose elements `body` writes.
    package mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    /// `key` with an object as its value.
    package mutating func object(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        self.key(key)
        object(body)
    }

    /// `key` with an array as its value.
    package mutating func array(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        self.key(key)
        array(body)
    }

    /// A member's key, a literal the program spells (so it is copied as is: thermtop's keys
    /// are plain ASCII words that need no escape); the next value written is its value.
    package mutating func key(_ k: StaticString) {
        member()
        guard k.hasPointerRepresentation else {
            out.append(0x22)
            k.withUTF8Buffer { out.append($0) }
            out.append(0x22)
            colon()
            return
        }
        // Quotes, key, colon and space with one capacity check: keys are most of a report's
        // writes (~900 in `status --json`).
        let count = k.utf8CodeUnitCount
        let p = out.reserve(count + 4)
        p[0] = 0x22
        copyBytes(p + 1, k.utf8Start, count: count)
        p[count + 1] = 0x22
        p[count + 2] = UInt8(ascii: ":")
        p[count + 3] = 0x20  // written either way, counted only when pretty
        out.commit(pretty ? count + 4 : count + 3)
        keyed = true
    }

    /// A member's key from data (a `JSONValue` object's), escaped like any string.
    package mutating func key(_ k: String) {
        member()
        quoted(k)
        colon()
    }

    private mutating func colon() {
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(0x20) }
        keyed = true
    }

    /// `key` and a value.
    package mutating func field(_ k: StaticString, _ v: JSONValue) {
        key(k)
        value(v)
    }

    // MARK: Values

    package mutating func value(_ v: JSONValue) {
        switch v {
        case .null: literal("null")
        case .bool(let b): literal(b ? "true" : "false")
        case .number(let d): number(d)
        case .string(let s): string(s)
        case .array(let items): array { w in for item in items { w.value(item) } }
        case .object(let fields):
            object { w in
                for (k, item) in fields {
                    w.key(k)
                    w.value(item)
                }
            }
        }
    }

    /// Integers (within ±1e15) without a fraction; anything else as Swift prints a Double.
    package mutating func number(_ d: Double) {
        member()
        if d == d.rounded(), abs(d) < 1e15 {
            // The digits `String(Int64(d))` prints, written in place.
            let v = Int64(d)
            let p = out.reserve(21)
            if v < 0 {
                p[0] = UInt8(ascii: "-")
                out.commit(1 + writeDecimalDigits(v.magnitude, to: p + 1))
            } else {
                out.commit(writeDecimalDigits(UInt64(v), to: p))
            }
        } else {
            append(d.description)
        }
    }

    package mutating func string(_ s: String) {
        member()
        quoted(s)
    }

    private mutating func literal(_ word: StaticString) {
        member()
        word.withUTF8Buffer { out.append($0) }
    }

    // MARK: Layout

    /// Starts a value: after a key, nothing; as a member of a container, a comma after the
    /// first one and, pretty, a new line and the indentation; the document itself, nothing.
    /// Inlined: every key and value starts with it (~1,900 a report).
    @inline(__always)
    private mutating func member() {
        if keyed {
            keyed = false
            return
        }
        guard depth > 0 else { return }
        let comma = !empty
        empty = false
        guard pretty else {
            if comma { out.append(UInt8(ascii: ",")) }
            return
        }
        // Comma, new line and indentation with one capacity check (and room for the spaces'
        // last word).
        let width = 2 * level
        let p = out.reserve(2 + width + 8)
        var n = 0
        if comma { p[0] = UInt8(ascii: ","); n = 1 }
        p[n] = 0x0a
        writeSpaces(p + n + 1, width)
        out.commit(n + 1 + width)
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        member()
        out.append(open)
        depth += 1
        level += 1
        empty = true
        body(&self)
        level -= 1
        depth -= 1
        if !empty && pretty {
            out.append(0x0a)
            indent(level)
        }
        out.append(close)
        // This container was a member of its parent, which is therefore not empty.
        empty = false
    }

    private mutating func indent(_ level: Int) {
        let width = 2 * level
        writeSpaces(out.reserve(width + 8), width)
        out.commit(width)
    }

    /// Writes `n` spaces at `p` eight at a time, and so up to seven more bytes past them: the
    /// caller has reserved `n + 8` and commits `n`. (`update(repeating:)` is a call to memset,
    /// ~30 instructions for the few bytes of an indentation, and every member has one.)
    private func writeSpaces(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) {
        var done = 0
        while done < n {
            UnsafeMutableRawPointer(p + done).storeBytes(of: 0x2020_2020_2020_2020 as UInt64, as: UInt64.self)
            done += 8
        }
    }

    private mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { out.append($0) }
    }

    /// Whether any of the eight bytes in `w` may need escaping: one below 0x20, `"`, `\\`, DEL
    /// or C2 (which may start a C1 control; other multi-byte characters, `≥` `−`, pass). A false
    /// yes only costs a look at each byte; there is no false no. (The usual word-at-a-time
    /// tests: a byte below `k` is one whose subtraction of `k` borrows into its high bit while
    /// that bit was clear; a byte equal to `c` is a zero byte of `w ^ c…c`.)
    private func mayNeedEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v }
        let control = (w &- 0x20 &* ones) & ~w
        let equal = hasZeroByte(w ^ (0x22 &* ones)) | hasZeroByte(w ^ (0x5c &* ones))
            | hasZeroByte(w ^ (0x7f &* ones)) | hasZeroByte(w ^ (0xc2 &* ones))
        return (control | equal) & highs != 0
    }

    /// `s` as a JSON string: `"`, `\\`, `\n`, `\r`, `\t` escaped by name; the other C0
    /// controls, DEL and the C1 controls (U+0080–U+009F, UTF-8 `C2 80`–`C2 9F`) as `\u00xx`
    /// so no terminal control reaches a reader that prints the value; everything else as is.
    private mutating func quoted(_ s: String) {
        func hex(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }
        var s = s
        s.withUTF8 { text in
            out.append(0x22)
            // Bytes that need no escape are copied in runs, whole: most strings are one run,
            // and a reason's `°` (C2 B0) or `≥` does not end one.
            var run = 0
            func flush(upTo end: Int) {
                if end > run { out.append(UnsafeBufferPointer(rebasing: text[run..<end])) }
            }
            func escaped(_ v: UInt8) {
                for b: UInt8 in [0x5c, 0x75, 0x30, 0x30, hex(v >> 4), hex(v & 0xf)] { out.append(b) }  // \u00xx
            }
            var i = 0
            let n = text.count
            // Eight bytes at a time while none of them may need escaping, the last few as the
            // last eight (overlapping bytes already passed); eight that may (and all of a text
            // shorter than eight) are looked at byte by byte, up to `lookUntil`.
            var lookUntil = 0
            while i < n {
                if i >= lookUntil {
                    if n - i >= 8, !mayNeedEscape(UnsafeRawPointer(text.baseAddress! + i).loadUnaligned(as: UInt64.self)) {
                        i += 8
                        continue
                    }
                    if n - i < 8, n >= 8, !mayNeedEscape(UnsafeRawPointer(text.baseAddress! + n - 8).loadUnaligned(as: UInt64.self)) {
                        i = n
                        continue
                    }
                    lookUntil = i + 8
                }
                let b = text[i]
                if b >= 0x20 && b != 0x22 && b != 0x5c && b != 0x7f && b != 0xc2 {
                    i += 1
                    continue
                }
                if b == 0xc2 && !(i + 1 < n && text[i + 1] >= 0x80 && text[i + 1] < 0xa0) {
                    i += 1  // C2 starting anything but a C1 control: part of the run
                    continue
                }
                flush(upTo: i)
                switch b {
                case 0x22: out.append(0x5c); out.append(0x22)
                case 0x5c: out.append(0x5c); out.append(0x5c)
                case 0x0a: out.append(0x5c); out.append(UInt8(ascii: "n"))
                case 0x0d: out.append(0x5c); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5c); out.append(UInt8(ascii: "t"))
                case 0xc2:
                    escaped(text[i + 1])
                    i += 1
                default: escaped(b)  // the other C0 controls and DEL
                }
                i += 1
                run = i
            }
            flush(upTo: n)
            out.append(0x22)
        }
    }
}

/// The writer's text: bytes stored by pointer into memory it grows by doubling. `Array.append`
/// checks uniqueness and capacity and updates the count through the array's buffer on every
/// byte, which was most of the writer's instructions. The memory is freed by `owner` when the
/// last copy goes; a writer is written through one `inout` path at a time (two copies written
/// separately would share one buffer).
private struct ByteSink {
    private final class Owner {
        var memory: UnsafeMutablePointer<UInt8>
        init(_ memory: UnsafeMutablePointer<UInt8>) { self.memory = memory }
        deinit { memory.deallocate() }
    }

    private let owner: Owner
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 256)
        base = .allocate(capacity: self.capacity)
        owner = Owner(base)
    }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(owner) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        copyBytes(base + count, start, count: bytes.count)
        count += bytes.count
    }

    /// Where to write up to `n` more bytes (room is made for them); `commit` then counts the
    /// bytes written there. One capacity check for a run of bytes written one by one.
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > capacity { grow(to: count + n) }
        return base + count
    }

    /// Counts `n` bytes written at `reserve`'s pointer (no more than were reserved).
    mutating func commit(_ n: Int) {
        count += n
    }

    private mutating func grow(to needed: Int) {
        var size = capacity * 2
        while size < needed { size *= 2 }
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        memory.update(from: base, count: count)
        owner.memory.deallocate()
        owner.memory = memory
        base = memory
        capacity = size
    }
}
