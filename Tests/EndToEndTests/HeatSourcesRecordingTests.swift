import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Heat sources in record, --replay and capture", .serialized)
struct HeatSourcesRecordingTests {
    static let hot = Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path
    static func table(_ n: Int) -> String { Thermtop.fixtures.appendingPathComponent("proc-table-\(n)").path }

    /// A scratch folder with `proc` pointing at the first fixture walk.
    static func scratch() throws -> (dir: URL, proc: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-heatrec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let proc = dir.appendingPathComponent("proc")
        try FileManager.default.createSymbolicLink(atPath: proc.path, withDestinationPath: table(1))
        return (dir, proc)
    }

    /// Points `proc` at the second walk, atomically.
    static func swap(_ proc: URL) throws {
        let next = proc.deletingLastPathComponent().appendingPathComponent("proc.next")
        try FileManager.default.createSymbolicLink(atPath: next.path, withDestinationPath: table(2))
        try #require(rename(next.path, proc.path) == 0)
    }

    /// `record` on the hot laptop over the fixture tables: the first sample walks table 1, the
    /// ones after the frame is written walk table 2. The sample that measured the window
    /// between them is the second on a quiet machine; on a loaded one the swap can come after
    /// it, and then the third measures it. `measured`: that sample's line number and time.
    static func record(_ extra: [String] = []) throws -> (file: URL, dir: URL, measured: (line: Int, time: Double)) {
        let (dir, proc) = try scratch()
        let file = dir.appendingPathComponent("rec.jsonl")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Thermtop.Result?
        DispatchQueue.global().async {
            result = try? Thermtop.run(["record", file.path, "--seconds", "3", "--delay", "1", "--sysfs-root", hot,
                                        "--proc-root", proc.path] + extra)
            done.signal()
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if text.split(separator: "\n").count >= 2 && text.hasSuffix("\n") { break }
            usleep(20_000)
        }
        try swap(proc)
        done.wait()
        let r = try #require(result)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        let n = try #require(lines.indices.dropFirst(2).first { lines[$0].contains(#""command":"cc1plus""#) },
                             "no sample measured the window: \(lines.map { $0.prefix(200) })")
        let t = try #require(try JSONSerialization.jsonObject(with: Data(lines[n].utf8)) as? [String: Any])["t"] as? Double
        return (file, dir, (n, try #require(t)))
    }

    @Test("a recording carries the heat sources it measured, so a replay names them in the reason and JSON; command lines stay out unless asked")
    func replayNamesTheSources() throws {
        let (file, dir, measured) = try Self.record()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines[0].contains(#""heat_sources":true"#))
        #expect(lines[measured.line].contains(#""count":2"#), "\(lines[measured.line])")
        #expect(!text.contains("command_line"), "command lines only with --command-lines")
        let at = String(measured.time + 0.5)
        let r = try Thermtop.run(["status", "--json", "--replay", file.path, "--at", at])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        #expect((json["reason"] as? String)?.contains("— mostly cc1plus ×2") == true, "\(json["reason"] ?? "")")
        let first = try #require((json["heat_sources"] as? [[String: Any]])?.first)
        #expect(first["command"] as? String == "cc1plus" && first["count"] as? Int == 2)
        #expect((first["processes"] as? [[String: Any]])?.first?["command_line"] is NSNull)
        let status = try #require(json["heat_sources_status"] as? [String: Any])
        #expect(status["unreadable"] as? Int == 1)
        let words = try Thermtop.run(["status", "--replay", file.path, "--at", at])
        #expect(words.text.contains("cc1plus ×2"), "\(words.text)")
    }

    @Test("--command-lines records the full command lines")
    func commandLinesWhenAsked() throws {
        let (file, dir, measured) = try Self.record(["--command-lines"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#""command_line":"#))
        let json = try Thermtop.run(["status", "--json", "--replay", file.path, "--at", String(measured.time + 0.5)]).json()
        let p = try #require(((json["heat_sources"] as? [[String: Any]])?.first?["processes"] as? [[String: Any]])?.first)
        #expect((p["command_line"] as? String)?.contains("cc1plus") == true, "\(p)")
    }

    @Test("a recording made without heat sources replays with them unknown, not as an empty list that reads as fine")
    func oldRecordingSaysUnknown() throws {
        let (dir, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("old.jsonl")
        let r = try Thermtop.run(["record", file.path, "--seconds", "0.2", "--delay", "0.2", "--sysfs-root", Self.hot, "--no-heat-sources"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("heat_sources"), "the format of a recording without sources is the old one")
        let json = try Thermtop.run(["status", "--json", "--replay", file.path, "--at", "0.2"]).json()
        let status = try #require(json["heat_sources_status"] as? [String: Any])
        #expect(status["measured"] as? Bool == false)
        #expect((status["reason"] as? String)?.contains("not in the recording") == true, "\(status)")
        let words = try Thermtop.run(["status", "--replay", file.path, "--at", "0.2"])
        #expect(words.text.contains("Heating it unknown (not in the recording"), "\(words.text)")
    }

    @Test("capture keeps the heat sources it measured beside the tree, and status on the capture reports them, naming them in the reason")
    func captureCarriesTheSources() throws {
        let (dir, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("cap")
        let r = try Thermtop.run(["capture", out.path, "--sysfs-root", Self.hot, "--proc-root", Self.table(1)])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("heat sources: ") && r.text.contains("1 processes unreadable"), "\(r.text)")
        let file = out.appendingPathComponent("thermtop-heat-sources.json")
        let stored = try String(contentsOf: file, encoding: .utf8)
        #expect(stored.contains("\"unreadable\": 1") && !stored.contains("command_line"), "\(stored)")
        // status on the capture reports the captured table (11 processes), not this machine's /proc.
        let json = try Thermtop.run(["status", "--json", "--sysfs-root", out.path]).json()
        let status = try #require(json["heat_sources_status"] as? [String: Any])
        #expect(status["processes"] as? Int == 11 && status["unreadable"] as? Int == 1, "\(status)")
        // What a capture of a busy machine holds is named in the reason, as live.
        try """
            {"package_watts": 40, "processes": 300, "unreadable": 0, "sources": [{"command": "cc1plus", "count": 8,
             "cpu_percent": 640, "estimated_watts": 38, "processes": [{"pid": 4101, "user": "alice", "cpu_percent": 80}]}]}
            """.write(to: file, atomically: true, encoding: .utf8)
        let busy = try Thermtop.run(["status", "--json", "--sysfs-root", out.path]).json()
        #expect((busy["reason"] as? String)?.hasSuffix("— mostly cc1plus ×8 (640 % CPU, ≈ 38 W)") == true, "\(busy["reason"] ?? "")")
        // --proc-root wins over the captured file.
        let flag = try Thermtop.run(["status", "--json", "--sysfs-root", out.path, "--proc-root", Self.table(2)]).json()
        #expect((flag["heat_sources_status"] as? [String: Any])?["processes"] as? Int == 12)
    }
}
