import Foundation
import Testing

/// The dashboard's loop wakes on its own beat, not once per sample (issue 7 §5): the monitor
/// wakes it only for material statuses, and it takes routine samples on its pulse frames (full)
/// or its tier's step (`RenderPolicy.valueStepSeconds`: 5 s at minimal). Counted, not timed:
/// the main thread's voluntary context switches while five samples a second arrive.
@Suite("Dashboard cadence: the loop wakes for its frames and steps, not per sample (tmux)", .serialized)
struct DashboardCadenceTests {
    static let zone = "devices/virtual/thermal/thermal_zone0"   // acpitz: not the deciding sensor

    /// The main thread's voluntary context switches (its sleeps in poll) so far.
    static func loopWakes(_ pid: pid_t) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
        else { return nil }
        return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
    }

    @Test("with 5 samples a second the loop wakes about twice a second at full and once per 5 s at minimal; new readings still show, keys at once",
          arguments: [(["--delay", "0.2"], 20, 3.0), (["--delay", "0.2", "--simulate-state", "serious"], 8, 8.0)])
    func loopWakesOnItsOwnBeat(args: [String], maxWakes: Int, showWithin: Double) throws {
        let root = try Proof.copyFixture("intel-laptop")
        defer { Proof.discard(root) }
        let pane = try ProofPane(arguments: args + ["--sysfs-root", root], width: 120, height: 40)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(), "no dashboard:\n\(pane.capture())")
        let pid = try #require(pane.pid, "no thermtop process")
        // Past the start (first frames, the event sources' sample).
        usleep(1_500_000)
        let before = try #require(Self.loopWakes(pid))
        usleep(6_000_000)
        let after = try #require(Self.loopWakes(pid))
        // 30 samples arrived; per-sample wakes would be ≥ 30. Full: 12 pulse frames. Minimal:
        // 1-2 steps (and maybe the clock's minute).
        #expect(after - before < maxWakes, "the loop woke \(after - before) times in 6 s (\(args))")
        // A routine sample's new reading still reaches the screen at the tier's step.
        let shown = Proof.sh("cd \(Proof.quote(root)) && printf '46100\\n' > \(Self.zone)/temp")
        try #require(shown.status == 0, "\(shown.output)")
        let (ok, screen) = pane.wait(showWithin) { s in
            s.split(separator: "\n").contains { $0.contains("acpitz") && $0.contains("46.1") }
        }
        #expect(ok, "acpitz never showed 46.1 within \(showWithin) s:\n\(screen)")
        // Keys are answered at once, whatever the step.
        pane.send("d")
        #expect(pane.wait(2) { $0.contains("debug (d closes)") }.ok, "d not answered:\n\(pane.capture())")
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }
}
