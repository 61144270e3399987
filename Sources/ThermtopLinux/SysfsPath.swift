import ThermtopCore

/// A path made from a string interpolation (`"\(dir)/\(channel)_input"`) with one allocation.
///
/// A discovery builds a few hundred paths that way. `String`'s own interpolation reserves a
/// handful of bytes, takes the first piece's storage, then copies and grows it for the next
/// piece: ~1,000 instructions and one or two heap blocks a path (callgrind of `status --json`,
/// 2026-11-26). Here the pieces' bytes are gathered in a buffer on the stack and the string is
/// made once from it. `SysfsRoot`'s calls that take a path have an overload taking one, so an
/// interpolated path written at a call site is built this way; `path(_:)` makes one to keep.
struct SysfsPath: ExpressibleByStringInterpolation {
    let string: String

    init(stringLiteral value: String) { string = value }
    init(stringInterpolation builder: Builder) { string = builder.make() }

    struct Builder: StringInterpolationProtocol {
        /// Room for `capacity` bytes; a longer path goes on in `spill` (a plain string).
        private var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        private static let capacity = 24 * 8
        private var count = 0
        private var spill: String?

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: String) { append(literal) }
        mutating func appendInterpolation(_ value: String) { append(value) }
        mutating func appendInterpolation(_ value: Int) {
            // The digits (and a sign) on the stack: an Int has at most 20.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
                let p = digits.baseAddress!
                if value < 0 { p[0] = UInt8(ascii: "-") }
                let sign = value < 0 ? 1 : 0
                let n = sign + writeDecimalDigits(UInt64(value.magnitude), to: p + sign)
                append(UnsafeBufferPointer(start: p, count: n))
            }
        }

        private mutating func append(_ piece: String) {
            // Borrowed in place (a native or literal string's own bytes, a small one's copied to
            // the stack): no copy of the string to call the mutating `withUTF8` on.
            if piece.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
                var piece = piece
                piece.withUTF8 { append($0) }
            }
        }

        private mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
            let at = count
            guard spill == nil, at + piece.count <= Self.capacity else {
                if spill == nil { spill = make() }
                spill!.append(String(decoding: piece, as: UTF8.self))
                return
            }
            if let from = piece.baseAddress {
                withUnsafeMutableBytes(of: &bytes) { room in copyBytes(room.baseAddress! + at, from, count: piece.count) }
            }
            count = at + piece.count
        }

        fileprivate func make() -> String {
            if let spill { return spill }
            return withUnsafeBytes(of: bytes) { room in
                String(decoding: UnsafeRawBufferPointer(rebasing: room[0..<count]).assumingMemoryBound(to: UInt8.self),
                       as: UTF8.self)
            }
        }
    }
}

/// A path kept in a variable, built as `SysfsPath` builds one.
func path(_ p: SysfsPath) -> String { p.string }
