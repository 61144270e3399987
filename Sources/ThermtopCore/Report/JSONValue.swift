/// A JSON value with ordered object keys and explicit nulls, so `thermtop status --json`
/// prints every documented field in a stable order.
package indirect enum JSONValue: Sendable, Equatable {
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
        var out = ""
        write(into: &out, level: indent, pretty: pretty)
        return out
    }

    private func write(into out: inout String, level: Int, pretty: Bool) {
        let pad = pretty ? String(repeating: "  ", count: level + 1) : ""
        let close = pretty ? String(repeating: "  ", count: level) : ""
        let nl = pretty ? "\n" : ""
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d):
            if d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) } else { out += "\(d)" }
        case .string(let s): out += Self.quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, v) in items.enumerated() {
                out += pad
                v.write(into: &out, level: level + 1, pretty: pretty)
                out += (i < items.count - 1 ? "," : "") + nl
            }
            out += close + "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{" + nl
            for (i, (k, v)) in fields.enumerated() {
                out += pad + Self.quote(k) + (pretty ? ": " : ":")
                v.write(into: &out, level: level + 1, pretty: pretty)
                out += (i < fields.count - 1 ? "," : "") + nl
            }
            out += close + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7f || (0x80..<0xa0).contains(u.value) {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
