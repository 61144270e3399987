import Foundation
import Glibc
import Testing

@Suite("Running out of descriptors")
struct DescriptorShortageTests {
    @Test("watch under a low RLIMIT_NOFILE with more value files than descriptors still reads the hottest sensor, listed last")
    func hotSensorReadPastTheDescriptorLimit() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-fds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let chips = 200
        for k in 0..<chips {
            let dir = root.appendingPathComponent("class/hwmon/hwmon\(k)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data("chip\(k)\n".utf8).write(to: dir.appendingPathComponent("name"))
            // The last chip in natural order is the hot one: read after the others took
            // every descriptor the limit allows.
            try Data((k == chips - 1 ? "99000\n" : "40000\n").utf8).write(to: dir.appendingPathComponent("temp1_input"))
        }
        let exe = try #require(Thermtop.binary, "thermtop executable not found")
        // Two samples: the second is the one whose value files were kept open by the first.
        let script = "ulimit -n 64 && exec timeout -s INT 3 \"$0\" watch --json --no-config --delay 0.2 --sysfs-root \"$1\""
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/sh"), ["-c", script, exe.path, root.path])
        let lines = r.text.split(separator: "\n").filter { $0.hasPrefix("{") }
        let last = try #require(lines.last, "no JSON line; stderr: \(r.stderr)")
        #expect(last.contains("99"), "the hot chip's reading is missing: \(last.prefix(600))")
        #expect(!last.contains("EMFILE"), "a file was reported unreadable for want of descriptors")
        #expect(!last.contains("\"nominal\""), "a chip at 99 °C read as nominal: \(last.prefix(600))")
    }
}
