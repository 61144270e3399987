// thermtop-toml: reads a thermtop config file's text on stdin, parses it with TOMLKit
// (ConfigParser) and prints the result in ConfigTransfer's JSON. Run by thermtop, not by
// people: it keeps TOMLKit, and the Foundation it imports, out of the thermtop binary, which
// would otherwise carry megabytes of extra resident memory on every run.
// Usage: thermtop-toml FILE-NAME-FOR-MESSAGES < text
import ThermtopConfig
import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

var bytes: [UInt8] = []
var buf = [UInt8](repeating: 0, count: 65536)
while true {
    let n = buf.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if n < 0 { if errno == EINTR { continue }; exit(2) }
    if n == 0 { break }
    bytes += buf[0..<n]
}
let file = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "config.toml"
let out = ConfigTransfer.encode(ConfigParser.parse(String(decoding: bytes, as: UTF8.self), file: file))
let data = Array(out.utf8)
var off = 0
while off < data.count {
    let n = data[off...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    if n < 0 { if errno == EINTR { continue }; exit(2) }
    off += n
}
