import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// A recording holds the energy counters as the reading layer read them, so a replay
/// reproduces the watts (and a capture the counters, like every other file it copies).
@MainActor
@Suite("Power through record and replay")
struct PowerReplayTests {
    @Test("a replay of a recording whose package counter advances and wraps gives the live run's watts, sample by sample")
    func replayReproducesWatts() throws {
        let copy = try FixtureCopy("rapl-laptop")
        defer { copy.remove() }
        let file = "devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj"
        let range: Int64 = 262_143_328_850
        let counters: [Int64] = [range - 30_000_000, range - 5_000_000, 20_000_000, 32_000_000]
        let root = SysfsRoot(path: copy.path)
        let recorder = AccessRecorder()
        root.setTap(recorder.tap)
        let clock = ManualMonitorClock(start: 1000)
        let monitor = ThermalMonitor(source: SysfsSource(root: root, ppdStatePath: nil), clock: clock)
        var session = RecordingSession()
        var lines = [RecordingFormat.headerLine(RecordingHeader(
            thermtopVersion: "test", host: "test", kernel: "test", startTime: "2026-11-23T12:00:00Z",
            delaySeconds: 1, root: "/sys"))]
        var live: [Double?] = []
        for c in counters {
            try copy.write(file, "\(c)\n")
            let status = monitor.sample()
            live.append(status.power.first { $0.id == "rapl:package-0" }?.watts)
            lines.append(session.line(time: status.snapshot.time, accesses: recorder.take()))
            clock.advance(by: 1)
        }
        #expect(live == [nil, 25, 25, 12], "live: \(live)")
        let recording = try Recording.parse(Array((lines.joined(separator: "\n") + "\n").utf8)).get()
        var driver = ReplayDriver(recording: recording, fileLabel: "test.jsonl")
        var replayed = [driver.monitor.status.power.first { $0.id == "rapl:package-0" }?.watts]
        while driver.step() { replayed.append(driver.monitor.status.power.first { $0.id == "rapl:package-0" }?.watts) }
        #expect(replayed == live)
    }
}
