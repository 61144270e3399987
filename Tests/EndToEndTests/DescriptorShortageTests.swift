import Foundation
import Glibc
import Testing

@Suite("Running out of descriptors")
struct DescriptorShortageTests {
    /// A tree of 200 hwmon chips, more value files than the limits below allow open. The last
    /// chip in natural order is the hot one: read after the others took every descriptor.
    static func manyChips() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-fds-\(UUID().uuidString)")
        let chips = 200
        for k in 0..<chips {
            let dir = root.appendingPathComponent("class/hwmon/hwmon\(k)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data("chip\(k)\n".utf8).write(to: dir.appendingPathComponent("name"))
            try Data((k == chips - 1 ? "99000\n" : "40000\n").utf8).write(to: dir.appendingPathComponent("temp1_input"))
        }
        return root
    }

    @Test("watch under a low RLIMIT_NOFILE with more value files than descriptors still reads the hottest sensor, listed last")
    func hotSensorReadPastTheDescriptorLimit() throws {
        let root = try Self.manyChips()
        defer { try? FileManager.default.removeItem(at: root) }
        let exe = try #require(Thermtop.binary, "thermtop executable not found")
        // Samples every 0.2 s for 8 s: the first opens (and keeps) what the limit allows, the
        // later ones read with the descriptors kept. 8 s, not less: on a loaded machine a debug
        // build's first reading of 200 chips past the limit has taken over 3 s.
        let script = "ulimit -n 64 && exec timeout -s INT 8 \"$0\" watch --json --no-config --delay 0.2 --sysfs-root \"$1\""
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/sh"), ["-c", script, exe.path, root.path])
        let lines = r.text.split(separator: "\n").filter { $0.hasPrefix("{") }
        let last = try #require(lines.last, "no JSON line; stderr: \(r.stderr)")
        #expect(last.contains("99"), "the hot chip's reading is missing: \(last.prefix(600))")
        #expect(!last.contains("EMFILE"), "a file was reported unreadable for want of descriptors")
        #expect(!last.contains("\"nominal\""), "a chip at 99 °C read as nominal: \(last.prefix(600))")
    }

    @Test("with every descriptor but one taken, watch still ends on Ctrl-C (130), though no self-pipe could be made for the signal")
    func watchEndsOnSignalWithoutItsSelfPipe() throws {
        let exe = try #require(Thermtop.binary, "thermtop executable not found")
        let root = try Self.manyChips()
        defer { try? FileManager.default.removeItem(at: root) }
        // Descriptors 3…62 taken and a limit of 64: one left. SIGINT after 2 s, while the
        // sampler is busy reading (the kernel may hand the signal to it); a watch that missed
        // it is killed 5 s later (137).
        let script = "for fd in $(seq 3 62); do eval \"exec $fd</dev/null\"; done; ulimit -n 64; "
            + "exec timeout --preserve-status -k 5 -s INT 2 \"$0\" watch --json --no-config --delay 0.2 --sysfs-root \"$1\""
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/bash"), ["-c", script, exe.path, root.path])
        #expect(r.status == 130, "watch did not end on SIGINT (status \(r.status)); stderr: \(r.stderr)")
    }
}
