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

/// The whole file, nil when it cannot be read.
func readWhole(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return n == 0 ? bytes : nil }
        bytes += chunk[0..<n]
    }
}

/// Makes each access of `ops`; returns how many values and names it got. In a function, not at
/// top level: top-level variables are main-actor state, and each use would check the executor.
func replay(_ ops: [UInt8]) -> Int {
    var values: [String] = []
    var names = 0
    var buffer = [UInt8](repeating: 0, count: 4096)
    var start = 0
    while start < ops.count {
        let end = ops[start...].firstIndex(of: UInt8(ascii: "\n")) ?? ops.count
        defer { start = end + 1 }
        guard end - start >= 3 else { continue }
        let path = String(decoding: ops[(start + 2)..<end], as: UTF8.self)
        switch ops[start] {
        case UInt8(ascii: "R"):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
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
                    names += name.isEmpty ? 0 : 1
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
    return values.count + names
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
// Used, so the accesses are not optimised away.
exit(replay(ops) >= 0 ? 0 : 1)
