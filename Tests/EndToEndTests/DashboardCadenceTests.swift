import Foundation
import Testing
import ThermtopTestSupport

/// The dashboard wakes for samples, its pulse frames and keys, nothing else (issue 7 §5, issue
/// 29, issue 35): readings are taken at `--delay` at every tier and each is drawn on the
/// sampler's thread as it arrives, so a sample wakes the process once; the tier sheds the
/// pulse, so at minimal the loop (the main thread) does not wake at all between keys.
/// Counted, not timed: voluntary context switches while five samples a second arrive.
@Suite("Dashboard cadence: one wake per sample, the pulse only at full (tmux)", .serialized, .needs(.tmux))
struct DashboardCadenceTests {
    static let zone = "devices/virtual/thermal/thermal_zone0"   // acpitz: not the deciding sensor

    /// Voluntary context switches (sleeps) of one thread so far.
    static func wakes(_ pid: pid_t, task: String) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
        else { return nil }
        return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
    }

    /// The main thread's (the loop's) voluntary context switches so far.
    static func loopWakes(_ pid: pid_t) -> Int? { wakes(pid, task: "\(pid)") }

    /// Every live thread's voluntary context switches so far, by thread id.
    static func threadWakes(_ pid: pid_t) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var out: [String: Int] = [:]
        for t in tasks { out[t] = wakes(pid, task: t) }
        return out
    }

    /// The header's pulse: the glyphs after `tier <name> `.
    static func pulse(_ screen: String) -> String? {
        guard let header = screen.split(separator: "\n").first, let r = header.range(of: "tier ") else { return nil }
        let rest = header[r.upperBound...].drop { $0 != " " }.dropFirst()
        return String(rest.prefix(4))
    }

    @Test("with 5 samples a second (and with 1) the process wakes once per sample, plus the loop's pulse frames at full; at minimal the loop does not wake at all; the pulse moves at full and stands still at minimal; new readings show at --delay; keys at once",
          arguments: [(["--delay", "0.2"], 2 * 30 + 12 + 10, 12 + 4, true), (["--delay", "0.2", "--simulate-state", "serious"], 2 * 30 + 10, 3, false),
                      // At 1 s the loop's frames fall between samples, which draw the others.
                      (["--delay", "1"], 2 * 6 + 6 + 6, 6 + 3, true)])
    func processWakesOncePerSampleAndThePulseFollowsTheTier(args: [String], maxWakes: Int, maxLoopWakes: Int, pulseMoves: Bool) throws {
        let root = try Proof.copyFixture("intel-laptop")
        defer { Proof.discard(root) }
        let pane = try ProofPane(arguments: args + ["--sysfs-root", root], width: 120, height: 40)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(), "no dashboard:\n\(pane.capture())")
        let pid = try #require(pane.pid, "no thermtop process")
        // Past the start (first frames, the event sources' sample).
        usleep(1_500_000)
        let before = try #require(Self.loopWakes(pid))
        let threadsBefore = Self.threadWakes(pid)
        // The pulse over the same 6 s, captured every 0.25 s.
        var pulses = Set<String>()
        for _ in 0..<24 {
            if let p = Self.pulse(pane.capture()) { pulses.insert(p) }
            usleep(250_000)
        }
        let after = try #require(Self.loopWakes(pid))
        let threadsAfter = Self.threadWakes(pid)
        // Threads alive at both looks (a reader that came and went is not counted).
        let processWakes = threadsAfter.reduce(0) { sum, t in sum + (threadsBefore[t.key].map { t.value - $0 } ?? 0) }
        // 30 samples arrived (6 at --delay 1): one wake each, the sampler's, which draws them,
        // and on a busy machine two more where a sample reads new processes' identities (handed
        // to a reader thread); at full the loop's 12 pulse frames (6 at --delay 1, the samples
        // drawing the others). `maxWakes` is the most that allows: at --delay 1 every sample may
        // hand identities off on a machine starting processes all the time (a parallel test run).
        // The loop itself wakes for no sample: a loop woken by samples, or that redrew between
        // them, or spun, is past its bound at once.
        #expect(processWakes <= maxWakes, "the process woke \(processWakes) times in 6 s (\(args)): \(threadsAfter)")
        #expect(after - before < maxLoopWakes, "the loop woke \(after - before) times in 6 s (\(args))")
        if pulseMoves {
            #expect(pulses.count > 1, "the pulse never moved at full: \(pulses)")
        } else {
            #expect(pulses.count == 1, "the pulse moved at minimal: \(pulses)")
        }
        // A sample's new reading reaches the screen within a few samples at every tier.
        let shown = Proof.sh("cd \(Proof.quote(root)) && printf '46100\\n' > \(Self.zone)/temp")
        try #require(shown.status == 0, "\(shown.output)")
        let (ok, screen) = pane.wait(3) { s in
            s.split(separator: "\n").contains { $0.contains("acpitz") && $0.contains("46.1") }
        }
        #expect(ok, "acpitz never showed 46.1 within 3 s:\n\(screen)")
        // Keys are answered at once.
        pane.send("d")
        #expect(pane.wait(2) { $0.contains("debug (d closes)") }.ok, "d not answered:\n\(pane.capture())")
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }
}
