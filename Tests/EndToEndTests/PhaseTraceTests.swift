import Foundation
import Testing

/// `THERMTOP_TRACE_PHASES` (Sources/thermtop/PhaseTrace.swift), what
/// `Benchmarks/oneshot-phases.py` reads: one line of step end times, only when asked for.
@Suite("status phase trace")
struct PhaseTraceTests {
    let root = Thermtop.fixtures.appendingPathComponent("intel-laptop").path

    @Test("with THERMTOP_TRACE_PHASES, status prints each step's end time once, in the order the steps run")
    func tracedRunPrintsOrderedMarks() throws {
        let exe = try #require(Thermtop.binary)
        let before = monotonicNow()
        let r = try Thermtop.spawn(exe, ["status", "--json", "--no-config", "--sysfs-root", root],
                                   environment: ["THERMTOP_TRACE_PHASES": "1"])
        let after = monotonicNow()
        #expect(r.status == 0)
        // The report itself is untouched.
        #expect(try r.json()["schema"] as? String == "thermtop.status/1")
        let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("thermtop-phases ") }
        #expect(lines.count == 1, "stderr: \(r.stderr)")
        let line = try #require(lines.first)
        let pairs = line.split(separator: " ").dropFirst().map { $0.split(separator: "=", maxSplits: 1) }
        #expect(pairs.map { String($0[0]) } == ["main", "config", "sources", "reading", "written"])
        let marks = pairs.compactMap { Double($0[1]) }
        #expect(marks.count == 5)
        // CLOCK_MONOTONIC, like this process's clock: inside the run, never going back.
        #expect(marks.first.map { $0 >= before } == true)
        #expect(marks.last.map { $0 <= after } == true)
        #expect(zip(marks, marks.dropFirst()).allSatisfy { $0 <= $1 }, "marks out of order: \(marks)")
    }

    @Test("without THERMTOP_TRACE_PHASES, status prints nothing on stderr")
    func untracedRunIsSilent() throws {
        let exe = try #require(Thermtop.binary)
        let r = try Thermtop.spawn(exe, ["status", "--json", "--no-config", "--sysfs-root", root],
                                   environment: ["THERMTOP_TRACE_PHASES": nil])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "stderr: \(r.stderr)")
    }

    private func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
