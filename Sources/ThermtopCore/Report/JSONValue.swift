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

    /// The text as UTF-8 bytes, for a caller that writes bytes (`status --json`): made as bytes
    /// (building it by String concatenation and walking it by unicode scalars was a measurable
    /// part of `status --json`'s cost), and not turned into a String and back, which validates
    /// and copies the whole document twice.
    package func serializedUTF8(indent: Int = 0, pretty: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32 * 1024)
        write(into: &out, level: indent, pretty: pretty)
        return out
    }

    private static func indent(_ out: inout [UInt8], _ level: Int) {
        // A loop, not `append(contentsOf: repeatElement(…))`: the generic path costs more than
        // the few spaces it appends.
        for _ in 0..<(2 * level) { out.append(0x20) }
    }

    private static func append(_ out: inout [UInt8], _ s: String) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    private func write(into out: inout [UInt8], level: Int, pretty: Bool) {
        switch self {
        case .null: Self.append(&out, "null")
        case .bool(let b): Self.append(&out, b ? "true" : "false")
        case .number(let d):
            if d == d.rounded(), abs(d) < 1e15 { Self.append(&out, String(Int64(d))) } else { Self.append(&out, "\(d)") }
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { Self.append(&out, "[]"); return }
            out.append(UInt8(ascii: "["))
            if pretty { out.append(0x0a) }
            for (i, v) in items.enumerated() {
                if pretty { Self.indent(&out, level + 1) }
                v.write(into: &out, level: level + 1, pretty: pretty)
                if i < items.count - 1 { out.append(UInt8(ascii: ",")) }
                if pretty { out.append(0x0a) }
            }
            if pretty { Self.indent(&out, level) }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            if fields.isEmpty { Self.append(&out, "{}"); return }
            out.append(UInt8(ascii: "{"))
            if pretty { out.append(0x0a) }
            for (i, (k, v)) in fields.enumerated() {
                if pretty { Self.indent(&out, level + 1) }
                Self.quote(k, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(0x20) }
                v.write(into: &out, level: level + 1, pretty: pretty)
                if i < fields.count - 1 { out.append(UInt8(ascii: ",")) }
                if pretty { out.append(0x0a) }
            }
            if pretty { Self.indent(&out, level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func quote(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        quote(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `s` as a JSON string: `"`, `\\`, `\n`, `\r`, `\t` escaped by name; the other C0
    /// controls, DEL and the C1 controls (U+0080–U+009F, UTF-8 `C2 80`–`C2 9F`) as `\u00xx`
    /// so no terminal control reaches a reader that prints the value; everything else as is.
    private static func quote(_ s: String, into out: inout [UInt8]) {
        func hex(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }
        func escaped(_ v: UInt8) {
            out.append(contentsOf: [0x5c, 0x75, 0x30, 0x30, hex(v >> 4), hex(v & 0xf)])  // \u00xx
        }
        var s = s
        s.withUTF8 { bytes in
            out.append(0x22)
            // Most strings (keys, names, reasons) need no escape: copied whole.
            if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5c || $0 == 0x7f || $0 == 0xc2 }) {
                out.append(contentsOf: bytes)
                out.append(0x22)
                return
            }
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                switch b {
                case 0x22: out.append(0x5c); out.append(0x22)
                case 0x5c: out.append(0x5c); out.append(0x5c)
                case 0x0a: out.append(0x5c); out.append(UInt8(ascii: "n"))
                case 0x0d: out.append(0x5c); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5c); out.append(UInt8(ascii: "t"))
                case 0..<0x20, 0x7f: escaped(b)
                case 0xc2 where i + 1 < n && bytes[i + 1] >= 0x80 && bytes[i + 1] < 0xa0:
                    escaped(bytes[i + 1])
                    i += 1
                default: out.append(b)
                }
                i += 1
            }
            out.append(0x22)
        }
    }
}
