import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// What a test compares between a live run and its replay, per sample.
private struct Decision: Equatable, CustomStringConvertible {
    var time: Double
    var state: ThermalState
    var tier: QualityTier
    var reason: String
    var decidedBy: String?
    var forecast: String
    var lowPower: Bool
    var description: String { "t=\(time) \(state) \(tier) \(forecast) [\(reason)]" }

    /// `start`: the time of the run's first sample (a replay counts from 0, the live clock not).
    init(_ s: MonitorStatus, start: Double) {
        time = s.snapshot.time - start
        state = s.thermalState
        tier = s.tier
        reason = s.reason
        decidedBy = s.assessment.decidedBy
        forecast = s.forecast.summary
        lowPower = s.isLowPowerModeEnabled
    }
}

private let header = RecordingHeader(thermtopVersion: "test", host: "test", kernel: "test",
                                     startTime: "2026-11-23T12:00:00Z", delaySeconds: 1, root: "/sys")

/// Records a live monitor on `root` through the tap: `step(k)` changes the files before
/// sample k. Returns the recording's bytes and the live decisions.
@MainActor
private func recordLive(root path: String, samples: Int, step: (Int) throws -> Void) throws -> ([UInt8], [MonitorStatus]) {
    let root = SysfsRoot(path: path)
    let recorder = AccessRecorder()
    root.setTap(recorder.tap)
    let clock = ManualMonitorClock(start: 1000)
    try step(0)
    let monitor = ThermalMonitor(source: SysfsSource(root: root, ppdStatePath: nil), clock: clock)
    var session = RecordingSession()
    var lines = [RecordingFormat.headerLine(header)]
    var live: [MonitorStatus] = []
    for k in 0..<samples {
        if k > 0 { try step(k) }
        let status = monitor.sample()
        live.append(status)
        lines.append(session.line(time: status.snapshot.time, accesses: recorder.take()))
        clock.advance(by: 1)
    }
    return (Array((lines.joined(separator: "\n") + "\n").utf8), live)
}

@MainActor
private func replay(_ bytes: [UInt8]) throws -> [MonitorStatus] {
    let recording = try Recording.parse(bytes).get()
    var driver = ReplayDriver(recording: recording, fileLabel: "test.jsonl")
    var out: [MonitorStatus] = [driver.monitor.status]
    while driver.step() { out.append(driver.monitor.status) }
    return out
}

@MainActor
@Suite("Record and replay through the reading layer")
struct RecordReplayTests {
    @Test func simulatedLaptopOnARealTreeReplaysToTheSameDecisionsAtTheSameTimes() throws {
        // The simulated laptop's heat curve written into a copy of the intel-laptop tree (package
        // zone + coretemp, skin zone, processor cooling device), load raised to 1.0 at 20 s and
        // dropped to 0.1 at 70 s: nominal → fair → serious → critical (throttling) → back.
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let laptop = SimulatedLaptop(load: 0.3)
        let (bytes, live) = try recordLive(root: copy.path, samples: 140) { k in
            if k == 20 { laptop.setLoad(1.0) }
            if k == 70 { laptop.setLoad(0.1) }
            _ = laptop.sample(at: Double(k))
            let milli = { (c: Double) in "\(Int((c * 1000).rounded()))\n" }
            try copy.write("class/thermal/thermal_zone1/temp", milli(laptop.packageC))
            try copy.write("class/hwmon/hwmon1/temp1_input", milli(laptop.packageC))
            try copy.write("class/thermal/thermal_zone0/temp", milli(laptop.skinC))
            try copy.write("class/thermal/cooling_device0/cur_state", "\(laptop.processorCoolingState)\n")
        }
        let replayed = try replay(bytes)
        let a = live.map { Decision($0, start: live[0].snapshot.time) }
        let b = replayed.map { Decision($0, start: replayed[0].snapshot.time) }
        #expect(a.count == 140 && b.count == 140)
        let firstDifference = zip(a, b).first { $0 != $1 }
        #expect(firstDifference == nil, "first difference: \(firstDifference.map { "\($0.0) vs \($0.1)" } ?? "")")
        // The run is worth comparing: the state climbed and fell, and forecasts were made.
        #expect(a.contains { $0.state >= .serious })
        #expect(a.last?.state == .nominal)
        #expect(a.contains { $0.forecast.contains(" in ~") })
        // Only changes after the frame: most lines are small.
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines[1].utf8.count > 5 * lines.dropFirst(2).map(\.utf8.count).max()!)
    }

    @Test(arguments: ["intel-laptop", "intel-laptop-hot", "amd-desktop", "arm-board", "two-battery-laptop",
                      "broken", "amdgpu-rx5500xt-lact", "legion-go-s-couchside", "thinkpad-lgc-45n1-2018-procfs"])
    func fixtureTreeReplaysToTheSameStatusJSON(_ fixture: String) throws {
        let (bytes, live) = try recordLive(root: Fixture.path(fixture), samples: 3) { _ in }
        let replayed = try replay(bytes)
        #expect(replayed.count == 3)
        // Heat sources were not walked live nor recorded: the replay says so (unknown, not
        // empty); the rest is the same.
        #expect(replayed.allSatisfy { $0.heatSources?.reason == RecordedHeatSources.notRecorded && $0.heatSources?.sources == [] })
        func json(_ s: MonitorStatus) -> String {
            var s = s
            s.sourceLabel = "x"
            s.heatSources = nil
            return ThermalStatusReport.json(s, version: "test").serialized()
        }
        for (l, r) in zip(live, replayed) { #expect(json(l) == json(r)) }
    }

    @Test func replaySourceSaysReplayAndTheRecordedTime() throws {
        let (bytes, _) = try recordLive(root: Fixture.path("intel-laptop"), samples: 5) { _ in }
        var driver = ReplayDriver(recording: try Recording.parse(bytes).get(), fileLabel: "x.jsonl")
        driver.run(through: 3)
        #expect(driver.fed == 4)
        #expect(driver.source.label == "REPLAY test 12:00:03 +3.0 s")
        #expect(driver.status.sourceLabel == "REPLAY test 12:00:03 +3.0 s")
    }

    @Test func pathsTheRecordingNeverSawReadAsMissing() throws {
        let (bytes, _) = try recordLive(root: Fixture.path("arm-board"), samples: 1) { _ in }
        let backend = ReplayBackend(recording: try Recording.parse(bytes).get())
        backend.move(to: 0)
        guard case .failure(let issue) = backend.read("class/thermal/thermal_zone99/temp", keepOpen: false) else {
            Issue.record("read succeeded")
            return
        }
        #expect(issue.reason == .missing)
        #expect(backend.list("class/nothing") == nil)
    }
}

@Suite("Recording files")
struct RecordingFileTests {
    private func temp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-rec-\(UUID().uuidString)-\(name)").path
    }

    @Test(arguments: ["r.jsonl", "r.jsonl.gz"])
    func writtenLinesReadBack(_ name: String) throws {
        let path = temp(name)
        defer { unlink(path) }
        let w = try RecordingWriter(path: path)
        try w.write(line: RecordingFormat.headerLine(header))
        var session = RecordingSession()
        for k in 0..<50 {
            var a = RecordedAccesses()
            a.reads["class/thermal/thermal_zone0/temp"] = .text("\(40000 + k * 100)\n")
            try w.write(line: session.line(time: Double(k), accesses: a))
        }
        w.close()
        let r = try RecordingFile.read(path: path).get()
        #expect(r.samples.count == 50)
        #expect(r.samples[49].changes.reads["class/thermal/thermal_zone0/temp"] == .text("44900\n"))
        if name.hasSuffix(".gz") {
            let head = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(2)
            #expect(Array(head) == [0x1f, 0x8b])
        }
    }

    @Test func gzipCutMidStreamReadsUpToTheLastWholeLine() throws {
        let path = temp("cut.jsonl.gz")
        defer { unlink(path) }
        let w = try RecordingWriter(path: path)
        try w.write(line: RecordingFormat.headerLine(header))
        var session = RecordingSession()
        for k in 0..<20 {
            var a = RecordedAccesses()
            a.reads["x"] = .text("\(k)\n")
            try w.write(line: session.line(time: Double(k), accesses: a))
        }
        // No close: as if the recorder was killed. Then cut the last bytes off as well.
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count - 3).write(to: URL(fileURLWithPath: path))
        let r = try RecordingFile.read(path: path).get()
        #expect(r.samples.count >= 18 && r.samples.count <= 20)
        w.close()
    }

    @Test func aGigabyteLineIsRefusedNamingItWithoutReadingItWhole() throws {
        let path = temp("huge.jsonl")
        defer { unlink(path) }
        let text = RecordingFormat.headerLine(header) + "\n" + #"{"t":0,"frame":true}"# + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        // A sparse 1 GiB third line with no newline.
        let fd = open(path, O_WRONLY)
        #expect(ftruncate(fd, off_t(1 << 30)) == 0)
        close(fd)
        let start = Date()
        let result = RecordingFile.read(path: path)
        guard case .failure(let e) = result else {
            Issue.record("accepted a 1 GiB line")
            return
        }
        #expect(e.line == 3)
        #expect(e.message.contains("longer than 64 MiB"))
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func missingFileAndDirectoryAreClearErrors() {
        guard case .failure(let e) = RecordingFile.read(path: "/nonexistent/rec.jsonl") else {
            Issue.record("reading /nonexistent/rec.jsonl succeeded")
            return
        }
        // The caller names the file once: the error does not repeat it.
        #expect(e.description == "cannot open: no such file or directory")
        guard case .failure(let d) = RecordingFile.read(path: "/tmp") else {
            Issue.record("reading the directory /tmp as a recording succeeded")
            return
        }
        #expect(d.description == "is a directory, not a recording")
    }
}
