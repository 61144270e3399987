// The floor for a one-shot `thermtop status` in Swift: Benchmarks/oneshot-floor.c's accesses,
// made by a Swift program linked as thermtop's release build is (Package.swift,
// `releaseLinking`), with ordinary Swift: each path a String, each value read into a buffer
// and kept as a String, folders listed with readdir (getdents64 is not in the Glibc module).
// Benchmarks/oneshot.sh times it beside the C program, `status --json` and `sensors`: what is
// left between this row and `status --json` is thermtop's own work (discovery, parsing,
// deciding, the report), not the language's start-up or the accesses themselves.
//
//   scripts/release-build.sh --product thermtop-oneshot-floor
//   thermtop-oneshot-floor OPS-FILE
//
// OPS-FILE as for the C program (Benchmarks/oneshot-ops.py writes it). Exit status 0, 64 for
// a bad invocation, 66 when OPS-FILE cannot be read.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

func readWhole(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return n == 0 ? bytes : nil }
        bytes += chunk[0..<n]
    }
}

guard CommandLine.arguments.count == 2 else {
    let usage = "usage: thermtop-oneshot-floor OPS-FILE\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
guard let ops = readWhole(CommandLine.arguments[1]) else {
    perror(CommandLine.arguments[1])
    exit(66)
}
var values: [String] = []
var names = 0
var buffer = [UInt8](repeating: 0, count: 16384)
for line in ops.split(separator: UInt8(ascii: "\n")) where line.count >= 3 {
    let path = String(decoding: line.dropFirst(2), as: UTF8.self)
    switch line.first {
    case UInt8(ascii: "R"):
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, 0) }
            if n > 0 { values.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
            close(fd)
        }
    case UInt8(ascii: "L"):
        // readdir: the listing a Swift program makes without a C shim (getdents64 is not in
        // the Glibc module); each name kept as a String.
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                names += name.utf8.count
            }
            closedir(dir)
        }
    case UInt8(ascii: "K"):
        _ = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!, $0.count) }
    case UInt8(ascii: "A"):
        _ = access(path, F_OK)
    case UInt8(ascii: "S"):
        var st = stat()
        _ = stat(path, &st)
    default:
        break
    }
}
// Used, so the reads are not optimised away.
exit(values.count + names >= 0 ? 0 : 1)
