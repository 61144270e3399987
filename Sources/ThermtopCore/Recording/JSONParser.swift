/// A small strict JSON parser (RFC 8259) over UTF-8 bytes, for reading recordings without
/// Foundation. Pure; bounded: nesting deeper than `maxDepth` is an error, never a stack overflow.
package struct JSONParser {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// Byte offset (0-based) in the parsed text.
        package var offset: Int
        package var message: String
        package var description: String { "\(message) at byte \(offset + 1)" }
    }

    package static let maxDepth = 64

    private let bytes: [UInt8]
    private var i = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parse one JSON value that spans all of `bytes` (surrounding whitespace allowed).
    package static func parse<C: Collection>(_ bytes: C) -> Result<JSONValue, Failure> where C.Element == UInt8 {
        var p = JSONParser(Array(bytes))
        do {
            p.skipSpace()
            let v = try p.value(depth: 0)
            p.skipSpace()
            if p.i != p.bytes.count { throw p.fail("unexpected text after the value") }
            return .success(v)
        } catch let f as Failure {
            return .failure(f)
        } catch {
            return .failure(Failure(offset: p.i, message: "\(error)"))
        }
    }

    private func fail(_ message: String) -> Failure { Failure(offset: i, message: message) }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth) levels") }
        guard i < bytes.count else { throw fail("unexpected end of text") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws {
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { throw fail("expected \(word)") }
            i += 1
        }
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        i += 1
        var fields: [(String, JSONValue)] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipSpace()
            fields.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of text in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of text in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func number() throws -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int {
            let s = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            return i - s
        }
        let intStart = i
        guard digits() > 0 else { throw fail("expected a digit") }
        if bytes[intStart] == UInt8(ascii: "0"), i - intStart > 1 { throw Failure(offset: intStart, message: "leading zero") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw fail("expected a digit after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent") }
        }
        guard i - start <= 64, let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)), d.isFinite else {
            throw Failure(offset: start, message: "number out of range")
        }
        return d
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("bad \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    private mutating func string() throws -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in a string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), i + 6 <= bytes.count,
                   bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        out.append(contentsOf: Array("\u{FFFD}".utf8))
                        scalar = low
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw fail("unknown escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension JSONValue {
    /// The field `key` of an object (the last one when repeated); nil otherwise.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.last { $0.0 == key }?.1
    }

    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var numberValue: Double? { if case .number(let d) = self { d } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
}
