import Foundation
import Testing

private func tempPath(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-e2e-\(UUID().uuidString)").appendingPathComponent(name)
}

/// A process table that stands still: heat sources read from it are the same in every run
/// (the live /proc's are not, and a capture or recording does not carry them).
let stillProcessTable = Thermtop.fixtures.appendingPathComponent("proc-table-1").path

/// status --json without the source label (which names the folder).
private func statusJSON(_ root: String) throws -> String {
    let r = try Thermtop.run(["status", "--json", "--sysfs-root", root, "--proc-root", stillProcessTable])
    // The label names the root; the window is the time measured between the two samples.
    return r.text.split(separator: "\n").filter { !$0.contains("\"label\"") && !$0.contains("\"window_seconds\"") }.joined(separator: "\n")
}

private let fixtureNames: [String] = {
    let all = (try? FileManager.default.contentsOfDirectory(atPath: Thermtop.fixtures.path)) ?? []
    // proc-table-* are process tables (--proc-root), not sysfs trees.
    return all.filter { name in
        guard !name.hasPrefix("proc-") else { return false }
        var dir: ObjCBool = false
        let path = Thermtop.fixtures.appendingPathComponent(name).path
        // Sysfs trees only (nvml-standin holds the NVML stand-in's source).
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir.boolValue
            && ["class", "devices", "bus"].contains { FileManager.default.fileExists(atPath: path + "/" + $0) }
    }.sorted()
}()

@Suite("thermtop capture")
struct CaptureCommandTests {
    @Test func everyFixtureIsAFixture() { #expect(fixtureNames.count >= 14) }

    @Test(arguments: fixtureNames)
    func captureOfAFixtureGivesTheSameStatusJSON(_ fixture: String) throws {
        let dir = tempPath("capture")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let source = Thermtop.fixtures.appendingPathComponent(fixture).path
        let r = try Thermtop.run(["capture", dir.path, "--sysfs-root", source])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("thermtop capture:"))
        #expect(try statusJSON(dir.path) == statusJSON(source))
        // No serial numbers without --keep-serials.
        let files = FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []
        #expect(!files.contains { $0.hasSuffix("/serial_number") || $0.hasSuffix("/serial") })
        for f in files where f.hasSuffix("uevent") {
            let text = (try? String(contentsOfFile: dir.appendingPathComponent(f).path, encoding: .utf8)) ?? ""
            #expect(!text.contains("SERIAL"), "\(f)")
        }
    }

    @Test func keepSerialsKeepsThem() throws {
        let dir = tempPath("capture")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let source = Thermtop.fixtures.appendingPathComponent("intel-laptop").path
        let r = try Thermtop.run(["capture", dir.path, "--sysfs-root", source, "--keep-serials"])
        #expect(r.status == 0)
        let files = FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []
        #expect(files.contains { $0.hasSuffix("power_supply/BAT0/uevent") })
        let uevent = try #require(files.first { $0.hasSuffix("power_supply/BAT0/uevent") })
        let withSerial = try String(contentsOfFile: dir.appendingPathComponent(uevent).path, encoding: .utf8)
        let original = try String(contentsOfFile: "\(source)/class/power_supply/BAT0/uevent", encoding: .utf8)
        #expect(withSerial == original)
    }

    @Test func refusesANonEmptyFolder() throws {
        let dir = tempPath("full")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent("keep.txt"))
        let r = try Thermtop.run(["capture", dir.path, "--sysfs-root", Thermtop.fixtures.appendingPathComponent("arm-board").path])
        #expect(r.status == 73)
        #expect(r.stderr.contains("is not empty"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("keep.txt").path))
    }
}

@Suite("thermtop record and status --replay")
struct RecordCommandTests {
    @Test(arguments: ["rec.jsonl", "rec.jsonl.gz"])
    func recordThenReplayGivesTheFixturesDecision(_ name: String) throws {
        let file = tempPath(name)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let source = Thermtop.fixtures.appendingPathComponent("intel-laptop-hot").path
        let r = try Thermtop.run(["record", file.path, "--seconds", "0.4", "--delay", "0.2", "--sysfs-root", source, "--proc-root", stillProcessTable])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("3 samples"))
        let replay = try Thermtop.run(["status", "--json", "--replay", file.path, "--at", "0.2"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let json = try replay.json()
        let live = try Thermtop.status("intel-laptop-hot", ["--json", "--proc-root", stillProcessTable]).json()
        #expect(json["thermal_state"] as? String == live["thermal_state"] as? String)
        #expect(json["reason"] as? String == live["reason"] as? String)
        #expect(json["tier"] as? String == "minimal")
        let label = (json["source"] as? [String: Any])?["label"] as? String
        #expect(label?.hasPrefix("REPLAY ") == true, "\(String(describing: label))")
        let f = try #require(json["forecast"] as? [String: Any])
        #expect(f["trend"] as? String == "not_enough_history")   // 2 samples
        if name.hasSuffix(".gz") {
            #expect(Array(try Data(contentsOf: file).prefix(2)) == [0x1f, 0x8b])
        } else {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines[0].contains(#""schema":"thermtop.recording/1""#))
            #expect(lines[1].contains(#""frame":true"#))
            #expect(lines[2] == #"{"t":0.2}"# || lines[2].hasPrefix(#"{"t":0.2"#))
        }
    }

    @Test("record --seconds 1 covers a whole second even when a sample runs late (a FIFO stalls the first one a read deadline)")
    func secondsIsTheSpanRecorded() throws {
        let base = tempPath("tree").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let tree = base.appendingPathComponent("tree")
        try FileManager.default.copyItem(at: Thermtop.fixtures.appendingPathComponent("arm-board"), to: tree)
        let zone = tree.appendingPathComponent("class/thermal/thermal_zone0/temp").resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: zone)
        try #require(mkfifo(zone, 0o644) == 0)
        let file = base.appendingPathComponent("r.jsonl")
        let r = try Thermtop.run(["record", file.path, "--seconds", "1", "--delay", "0.2", "--sysfs-root", tree.path])
        #expect(r.status == 0, "\(r.stderr)")
        let times = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").dropFirst().compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"] as? Double
        }
        let last = try #require(times.last)
        // The late first sample moves the schedule on; the recording still spans --seconds, and
        // stops at the first sample past it.
        #expect(last >= 1 && last < 1.5, "sample times \(times)")
        #expect(times.dropLast().allSatisfy { $0 < 1 }, "sample times \(times)")
    }

    @Test func atPastTheEndAndAtWithoutReplayAreUsageErrors() throws {
        let file = tempPath("r.jsonl")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try Thermtop.run(["record", file.path, "--seconds", "0", "--sysfs-root", Thermtop.fixtures.appendingPathComponent("arm-board").path])
        let past = try Thermtop.run(["status", "--replay", file.path, "--at", "99"])
        #expect(past.status == 64)
        #expect(past.stderr.contains("past the end of the recording"))
        let noReplay = try Thermtop.run(["status", "--at", "3"])
        #expect(noReplay.status == 64)
        #expect(noReplay.stderr.contains("--at needs --replay"))
    }

    /// Each bad recording: exit 65 and a message naming the line; never a crash.
    @Test(arguments: [
        ("not-json", "hello\n", "line 1: not JSON"),
        ("wrong-schema", #"{"schema":"thermtop.status/1"}"# + "\n", "line 1: schema \"thermtop.status/1\""),
        ("no-frame", #"{"schema":"thermtop.recording/1"}"# + "\n" + #"{"t":0}"# + "\n", "line 2: expected the full frame"),
        ("garbage", #"{"schema":"thermtop.recording/1"}"# + "\n" + #"{"t":0,"frame":true}"# + "\n\u{1}\u{2}garbage\n" + #"{"t":1}"# + "\n", "line 3: not JSON"),
        ("backwards", #"{"schema":"thermtop.recording/1"}"# + "\n" + #"{"t":0,"frame":true}"# + "\n" + #"{"t":5}"# + "\n" + #"{"t":4}"# + "\n", "line 4: time 4.000 s goes backwards"),
        ("empty", "", "empty file"),
    ])
    func badRecordingsNameTheLine(_ name: String, _ content: String, _ expected: String) throws {
        let file = tempPath("\(name).jsonl")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(content.utf8).write(to: file)
        let r = try Thermtop.run(["status", "--replay", file.path])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains(expected), "\(r.stderr)")
        #expect(r.text.isEmpty)
    }

    @Test func truncatedRecordingReplaysUpToItsLastWholeLine() throws {
        let file = tempPath("cut.jsonl")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try Thermtop.run(["record", file.path, "--seconds", "0.4", "--delay", "0.2", "--sysfs-root", Thermtop.fixtures.appendingPathComponent("intel-laptop").path])
        var data = try Data(contentsOf: file)
        data.append(contentsOf: Array(#"{"t":0.6,"read":{"class/ther"#.utf8))
        try data.write(to: file)
        let r = try Thermtop.run(["status", "--json", "--replay", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("line 5 is cut off"))
        #expect(try r.json()["thermal_state"] as? String == "nominal")
    }
}
