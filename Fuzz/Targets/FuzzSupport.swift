// Shared by every fuzz target (compiled into each). Invariant failures call `fail`, which
// aborts: libFuzzer reports it as a crash and saves the input.
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = "fuzz invariant broken: \(message)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    abort()
}

/// Text meant for a terminal or a JSON file must carry no control byte other than newline
/// (ESC would start a CSI/OSC sequence; C1 controls do the same on some terminals).
func requireInert(_ text: String, _ what: String) {
    for u in text.unicodeScalars where (u.value < 0x20 && u != "\n") || u.value == 0x7f || (0x80..<0xa0).contains(u.value) {
        fail("\(what) carries control character U+\(String(u.value, radix: 16)) in \(text.debugDescription.prefix(200))")
    }
}

/// A byte reader over the fuzz input.
struct Bytes {
    let data: [UInt8]
    var at = 0
    init(_ p: UnsafePointer<UInt8>, _ n: Int) { data = Array(UnsafeBufferPointer(start: p, count: n)) }
    init(_ bytes: [UInt8]) { data = bytes }
    var isEmpty: Bool { at >= data.count }
    mutating func byte() -> UInt8 {
        guard at < data.count else { return 0 }
        defer { at += 1 }
        return data[at]
    }
    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        let end = min(data.count, at + n)
        defer { at = end }
        return data[at..<end]
    }
    mutating func rest() -> ArraySlice<UInt8> { take(data.count - at) }
}
