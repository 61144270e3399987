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

/// Writes JSON text as UTF-8 bytes, member by member, in the order given: the one place for
/// how thermtop prints JSON (layout, numbers, string escapes). `JSONValue` prints through it,
/// and `status --json` writes its report with it field by field.
///
/// Pretty layout: two spaces per level, each member on its own line, `"key": value`, an empty
/// object or array as `{}` / `[]`. Compact: no spaces or new lines at all.
package struct JSONWriter {
    /// The text so far.
    package private(set) var bytes: [UInt8] = []
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
        bytes.reserveCapacity(capacity)
    }

    /// The new line that ends a document written to a file or a terminal.
    package mutating func endLine() {
        bytes.append(0x0a)
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
    package mutating func object(_ key: String, _ body: (inout JSONWriter) -> Void) {
        self.key(key)
        object(body)
    }

    /// `key` with an array as its value.
    package mutating func array(_ key: String, _ body: (inout JSONWriter) -> Void) {
        self.key(key)
        array(body)
    }

    /// A member's key, escaped like any string; the next value written is its value.
    package mutating func key(_ k: String) {
        member()
        quoted(k)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        keyed = true
    }

    /// `key` and a value.
    package mutating func field(_ k: String, _ v: JSONValue) {
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
        if d == d.rounded(), abs(d) < 1e15 {
            literal(String(Int64(d)))
        } else {
            literal(d.description)
        }
    }

    package mutating func string(_ s: String) {
        member()
        quoted(s)
    }

    private mutating func literal(_ word: String) {
        member()
        bytes.append(contentsOf: word.utf8)
    }

    // MARK: Layout

    /// Starts a value: after a key, nothing; as a member of a container, a comma after the
    /// first one and, pretty, a new line and the indentation; the document itself, nothing.
    private mutating func member() {
        if keyed {
            keyed = false
            return
        }
        guard depth > 0 else { return }
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        if pretty {
            bytes.append(0x0a)
            indent(level)
        }
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        member()
        bytes.append(open)
        depth += 1
        level += 1
        empty = true
        body(&self)
        level -= 1
        depth -= 1
        if !empty && pretty {
            bytes.append(0x0a)
            indent(level)
        }
        bytes.append(close)
        // This container was a member of its parent, which is therefore not empty.
        empty = false
    }

    private mutating func indent(_ level: Int) {
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * level))
    }

    /// `s` as a JSON string: `"`, `\\`, `\n`, `\r`, `\t` escaped by name; the other C0
    /// controls, DEL and the C1 controls (U+0080–U+009F) as `\u00xx`, so no terminal control
    /// reaches a reader that prints the value; everything else as is.
    private mutating func quoted(_ s: String) {
        bytes.append(0x22)
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: [0x5c, 0x22])
            case 0x5c: bytes.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: bytes.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: bytes.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20, 0x7f...0x9f:
                let hex = String(scalar.value, radix: 16)
                bytes.append(contentsOf: "\\u00".utf8)
                if hex.count < 2 { bytes.append(0x30) }
                bytes.append(contentsOf: hex.utf8)
            default:
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(0x22)
    }
}
