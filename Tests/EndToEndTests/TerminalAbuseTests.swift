import Foundation
import Testing
import ThermtopTestSupport

/// The real dashboard in tmux, abused: resize storms, every quit signal, stop/continue,
/// hostile sensor names. After each, the terminal must be sane: echo and icanon back,
/// cursor visible, alternate screen left, and the exit status by the signal convention.
@Suite("Terminal abuse: resizes, signals, hostile names (tmux)", .needs(.tmux))
struct TerminalAbuseTests {
    static let fixture = Thermtop.fixtures.appendingPathComponent("intel-laptop").path

    static func expectSane(_ pane: ProofPane, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let t = pane.terminalAfterExit() else {
            Issue.record("\(what): no terminal modes recorded", sourceLocation: sourceLocation)
            return
        }
        #expect(!t.alternate, "\(what): alternate screen still on", sourceLocation: sourceLocation)
        #expect(t.cursorVisible, "\(what): cursor hidden", sourceLocation: sourceLocation)
        let flags = Set(t.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        #expect(flags.contains("echo") && !flags.contains("-echo"), "\(what): echo off\n\(t.stty)", sourceLocation: sourceLocation)
        #expect(flags.contains("icanon") && !flags.contains("-icanon"), "\(what): icanon off\n\(t.stty)", sourceLocation: sourceLocation)
    }

    @Test("200 random resizes between 1x1 and 300x100 in a few seconds: still running, answering, drawing")
    func resizeStorm() throws {
        let pane = try ProofPane(arguments: ["--sysfs-root", Self.fixture])
        defer { pane.stop() }
        try #require(pane.waitForDashboard())
        var rng = SystemRandomNumberGenerator()
        // One tmux invocation for the whole storm (a process per resize would take longer
        // than "a few seconds"); sizes chosen here so a failure can be replayed.
        let sizes = (0..<200).map { _ in (Int.random(in: 1...300, using: &rng), Int.random(in: 1...100, using: &rng)) }
        let script = sizes.map { "resize-window -t p -x \($0.0) -y \($0.1)" }.joined(separator: " \\; ")
        let start = Date()
        pane.tmux(script)
        #expect(Date().timeIntervalSince(start) < 10, "the storm took too long")
        #expect(pane.pid != nil, "thermtop died in the resize storm (sizes: \(sizes.prefix(20))…)")
        pane.resize(100, 30)
        #expect(pane.waitForDashboard(), "no full dashboard after the storm:\n\(pane.capture())")
        #expect(pane.answersKeys())
        let screen = pane.capture(escapes: true)
        #expect(Proof.garbage(in: screen, allowSGR: true) == nil)
        pane.send("q")
        #expect(pane.exitStatus() == 0)
        Self.expectSane(pane, "after the resize storm")
    }

    @Test("2000 SIGWINCH in a burst: still running and answering keys")
    func sigwinchStorm() throws {
        let pane = try ProofPane(arguments: ["--sysfs-root", Self.fixture])
        defer { pane.stop() }
        try #require(pane.waitForDashboard())
        let pid = try #require(pane.pid)
        for _ in 0..<2000 { kill(pid, SIGWINCH) }
        #expect(pane.pid == pid, "thermtop died under SIGWINCH")
        #expect(pane.answersKeys())
        #expect(pane.waitForDashboard())
        pane.send("q")
        #expect(pane.exitStatus() == 0)
        Self.expectSane(pane, "after the SIGWINCH storm")
    }

    struct SignalCase: Sendable, CustomTestStringConvertible {
        let signal: Int32
        let name: String
        /// Acceptable exit statuses (128 + signal; SIGINT is also the quit key, 0).
        let statuses: Set<Int32>
        var testDescription: String { name }
    }

    @Test("each quit signal leaves a sane terminal and exits by the convention", arguments: [
        SignalCase(signal: SIGTERM, name: "SIGTERM", statuses: [128 + SIGTERM]),
        SignalCase(signal: SIGHUP, name: "SIGHUP", statuses: [128 + SIGHUP]),
        SignalCase(signal: SIGINT, name: "SIGINT", statuses: [0, 128 + SIGINT]),
        SignalCase(signal: SIGQUIT, name: "SIGQUIT", statuses: [128 + SIGQUIT]),
    ])
    func quitSignal(_ c: SignalCase) throws {
        let pane = try ProofPane(arguments: ["--sysfs-root", Self.fixture])
        defer { pane.stop() }
        try #require(pane.waitForDashboard())
        let pid = try #require(pane.pid)
        kill(pid, c.signal)
        let status = pane.exitStatus()
        #expect(status.map { c.statuses.contains($0) } ?? false, "\(c.name): exit \(status.map(String.init) ?? "none")")
        Self.expectSane(pane, c.name)
    }

    // SIGTSTP + SIGCONT: covered by DashboardTmuxTests.suspendAndResume (Ctrl-Z and `fg` under
    // an interactive shell). Sent from outside to a pane whose shell has no job control, the
    // process group is orphaned and the kernel discards the stop, so it cannot be tested here.

    @Test("names and values with ESC, CSI, OSC, C1 and invalid UTF-8 come out inert: dashboard, status, JSON")
    func hostileNames() throws {
        let root = try Proof.copyFixture("intel-laptop")
        defer { Proof.discard(root) }
        let z = "devices/virtual/thermal/thermal_zone0"
        let setup = Proof.sh("""
            cd \(Proof.quote(root)) && printf 'evil\\033[2J\\033]0;pwned\\007\\302\\23331m\\377\\376zone\\n' > \(z)/type && \
            printf '\\033[5n42000\\n' > devices/virtual/thermal/thermal_zone2/temp
            """)
        try #require(setup.status == 0, "\(setup.output)")
        let text = Proof.sh("\(Proof.quote(Proof.binary)) status --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(Proof.garbage(in: text.output) == nil, "status text: \(Proof.garbage(in: text.output) ?? "")")
        #expect(text.output.contains("evil"))
        let json = Proof.sh("\(Proof.quote(Proof.binary)) status --json --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(Proof.garbage(in: json.output) == nil, "JSON: \(Proof.garbage(in: json.output) ?? "")")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.output.utf8))) != nil, "JSON does not parse")
        let pane = try ProofPane(arguments: ["--sysfs-root", root])
        defer { pane.stop() }
        try #require(pane.waitForDashboard())
        #expect(pane.wait(5) { $0.contains("evil") }.ok)
        let screen = pane.capture(escapes: true)
        #expect(Proof.garbage(in: screen, allowSGR: true) == nil, "dashboard: \(Proof.garbage(in: screen, allowSGR: true) ?? "")")
        #expect(!pane.tmux("display-message -p -t p '#{pane_title}'").contains("pwned"), "the pane was retitled")
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }

    /// A copy of intel-laptop with `count` more sensors on one board chip (an nct6775 with
    /// `SYSTIN n` channels), the size of list a paste has to be filtered against.
    static func manySensors(_ count: Int) throws -> String {
        let root = try Proof.copyFixture("intel-laptop")
        let setup = Proof.sh("""
            cd \(Proof.quote(root)) && d=devices/platform/nct6775.656/hwmon/hwmon9 && mkdir -p $d && \
            printf 'nct6775\\n' > $d/name && i=1 && while [ $i -le \(count) ]; do \
            printf '%d\\n' $((30000 + i)) > $d/temp${i}_input; printf 'SYSTIN %d\\n' $i > $d/temp${i}_label; i=$((i + 1)); done && \
            ln -s ../../$d class/hwmon/hwmon9
            """)
        try #require(setup.status == 0, "\(setup.output)")
        return root
    }

    /// The filter text the empty list shows (`No sensor matches "…"`), nil when none.
    static func shownFilter(_ screen: String) -> String? {
        guard let r = screen.range(of: "matches \"") else { return nil }
        return String(screen[r.upperBound...].prefix { $0 != "\"" && $0 != "\n" && $0 != "…" })
    }

    @Test("10,000 characters pasted into the filter over 2,500 sensors: the filter is capped, the screen answers within seconds")
    func filterPaste() throws {
        let root = try Self.manySensors(2500)
        defer { Proof.discard(root) }
        let pane = try ProofPane(arguments: ["--sysfs-root", root], width: 120, height: 40)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(20))
        try #require(pane.wait(10) { $0.contains("SYSTIN") }.ok, "the extra sensors never showed:\n\(pane.capture())")
        pane.send("/")
        let start = Date()
        pane.tmux("send-keys -t p -l \(Proof.quote(String(repeating: "zq", count: 5000)))")
        pane.send("Enter")
        let (matched, screen) = pane.wait(10) { $0.contains("No sensor matches") && !$0.contains("Filter: ") }
        let seconds = Date().timeIntervalSince(start)
        #expect(matched, "the paste was not applied within 10 s:\n\(screen)")
        #expect(seconds < 4, "the paste took \(seconds) s to apply")
        let filter = try #require(Self.shownFilter(screen), "the empty list does not name the filter:\n\(screen)")
        #expect(filter.hasPrefix("zqzq"), "not the pasted filter:\n\(screen)")
        // The heading and the "No sensor matches" line show the filter at most once each: a
        // capped filter (64 characters, 32 z) leaves a line of it, an uncapped one fills the list.
        let shown = screen.filter { $0 == "z" }.count
        #expect(shown <= 64, "the filter was not capped: \(shown) of its 5,000 z on screen\n\(screen)")
        pane.send("Escape")
        #expect(pane.wait(5) { !$0.contains("No sensor matches") && $0.contains("SYSTIN") }.ok, "Esc did not clear the applied filter")
        #expect(pane.answersKeys())
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }

    @Test("the terminal goes away in the middle of a paste: thermtop exits within 3 s instead of spinning on")
    func hangupWhileBusy() throws {
        let root = try Self.manySensors(2500)
        defer { Proof.discard(root) }
        let pane = try ProofPane(arguments: ["--sysfs-root", root], width: 120, height: 40)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(20))
        let pid = try #require(pane.pid)
        pane.send("/")
        pane.tmux("send-keys -t p -l \(Proof.quote(String(repeating: "zq", count: 5000)))")
        pane.stop()
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline, kill(pid, 0) == 0, !Self.isZombie(pid) { usleep(50_000) }
        let alive = kill(pid, 0) == 0 && !Self.isZombie(pid)
        #expect(!alive, "thermtop \(pid) still runs 3 s after its terminal went away")
        if alive { kill(pid, SIGKILL) }
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    @Test("stdin from /dev/null, TERM unset, dumb or unknown: a message, exit 2, terminal untouched", arguments: [
        "</dev/null", "TERM= ", "-u TERM", "TERM=dumb", "TERM=no-such-terminal-xyz",
    ])
    func noUsableTerminal(_ how: String) throws {
        let stdinNull = how == "</dev/null"
        let pane = try ProofPane(arguments: ["--sysfs-root", Self.fixture],
                                 environment: stdinNull ? "env LANG=C.UTF-8" : "env \(how)", redirect: stdinNull ? how : "")
        defer { pane.stop() }
        let status = pane.exitStatus()
        #expect(status == 2, "\(how): exit \(status.map(String.init) ?? "none")")
        let screen = pane.capture()
        #expect(screen.contains("thermtop status"), "\(how): no pointer to `thermtop status`:\n\(screen)")
        Self.expectSane(pane, how)
    }
}
