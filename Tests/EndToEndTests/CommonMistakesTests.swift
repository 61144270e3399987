import Foundation
import Testing

/// Issue 38 item 11: common mistakes get a clear message and their own exit status.
@Suite struct CommonMistakesTests {
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a --sysfs-root without class/ is not a sysfs tree: said as such, exit 66, for status, status --json and record")
    func rootWithoutClass() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for args in [["status"], ["status", "--json"], ["record", dir.appendingPathComponent("r.jsonl").path, "--seconds", "1"]] {
            let r = try Thermtop.run(args + ["--sysfs-root", dir.path])
            #expect(r.status == 66, "\(args): exit \(r.status), stderr \(r.stderr)")
            #expect(r.stderr.contains("is not a sysfs tree: it has no class/ folder"), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("containers"), "\(r.stderr)")
            #expect(r.text.isEmpty, "nothing on stdout: \(r.text)")
        }
    }

    @Test("status --help documents exit 66")
    func helpSays66() throws {
        let r = try Thermtop.run(["status", "--help"])
        let words = r.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("66 --sysfs-root is not a sysfs tree"), "\(r.text)")
    }

    @Test("a --sysfs-root one level above the tree suggests its sys/ folder")
    func rootOneLevelUp() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sys/class"), withIntermediateDirectories: true)
        let r = try Thermtop.run(["status", "--sysfs-root", dir.path])
        #expect(r.status == 66)
        #expect(r.stderr.contains("did you mean \(dir.path)/sys?"), "\(r.stderr)")
    }

    @Test("a mistyped command gets a did-you-mean and exit 64", arguments: [("statuss", "status"), ("expor", "export"), ("wacth", "watch")])
    func mistypedCommand(_ typed: String, _ meant: String) throws {
        let r = try Thermtop.run([typed])
        #expect(r.status == 64, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("unknown command '\(typed)' (did you mean \(meant)?)"), "\(r.stderr)")
    }

    @Test("export --textfile - writes the metrics to standard output and no file named -")
    func exportToStdout() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let exe = try #require(Thermtop.binary)
        let q = { (s: String) in "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/sh"),
                                   ["-c", "cd \(q(dir.path)) && exec \(q(exe.path)) export --textfile - --sysfs-root \(q(Thermtop.fixtures.appendingPathComponent("intel-laptop").path))"])
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        #expect(r.text.contains("# TYPE thermtop_"), "\(r.text.prefix(300))")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path), "a file named - was written")
    }
}
