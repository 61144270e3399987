// End-to-end tests of the live dashboard: the real `thermtop` binary runs inside tmux on a
// private server (`tmux -L thermtop-e2e-<uuid>`), keys go in with `send-keys`, the screen comes
// back with `capture-pane`. Every wait polls the pane against a deadline; nothing sleeps longer
// than the behaviour under test needs (the pulse checks wait about one second on purpose).
//
// The pane does not run thermtop directly but a tiny `sh -c` wrapper that, once thermtop has
// exited, records its exit status and the pane's terminal modes (alternate screen, cursor,
// keypad, mouse) in files. Reading the status from tmux's `#{pane_dead_status}` alone is not
// reliable: tmux 3.3 sometimes marks a pane dead (its pty closed) without ever reaping the child,
// leaving `pane_dead_status` empty and the process a zombie. Recording the modes from inside
// the pane, before tmux prints its own "Pane is dead" line (which hides the cursor), tells us
// exactly what thermtop left the terminal in.

import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Locating things

enum TmuxE2E {
    /// The repository root: this file is `<root>/Tests/EndToEndTests/DashboardTmuxTests.swift`.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `thermtop`: `$THERMTOP_BINARY` when set, else `<root>/.build/debug/thermtop`
    /// (the test target depends on the executable, so `swift test` builds it first), else the
    /// one next to the running test bundle (a custom `--build-path` or `-c release`).
    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["THERMTOP_BINARY"], !env.isEmpty { return env }
        let debug = repoRoot.appendingPathComponent(".build/debug/thermtop").path
        if FileManager.default.isExecutableFile(atPath: debug) { return debug }
        if let arg0 = CommandLine.arguments.first {
            let sibling = URL(fileURLWithPath: arg0).deletingLastPathComponent().appendingPathComponent("thermtop").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return debug
    }

    static func fixture(_ name: String) -> String {
        repoRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name).path
    }

    /// `tmux` on PATH (or in the usual places), nil when it is not installed.
    static let tmux: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        for dir in dirs where !dir.isEmpty {
            let candidate = dir + "/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Single-quotes a word for `sh`.
    static func shellQuote(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs a program to completion and returns its status and output (standard output and
    /// standard error together, so failures explain themselves; `stdoutOnly` sends standard error
    /// to /dev/null instead). See `spawnToCompletion` for why not Foundation's `Process`.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], stdoutOnly: Bool = false) -> (status: Int32, output: String) {
        var env = ProcessInfo.processInfo.environment
        // A test run from inside someone's tmux must not talk to (or nest under) it.
        env["TMUX"] = nil
        env["TMUX_PANE"] = nil
        let r = spawnToCompletion(executable, arguments, environment: env, stderr: stdoutOnly ? .discarded : .merged)
        if let failure = r.failure { return (-1, failure) }
        return (r.status, String(decoding: r.stdout, as: UTF8.self))
    }
}

// MARK: - One private tmux server with thermtop in its only pane

/// What thermtop left the terminal in when it exited, as tmux saw it.
struct PaneModes: CustomStringConvertible {
    var alternateScreen: Bool
    var cursorVisible: Bool
    var keypadCursor: Bool
    var keypad: Bool
    var mouse: Bool

    init?(_ line: String) {
        let f = line.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        guard f.count == 5 else { return nil }
        alternateScreen = f[0] == "1"
        cursorVisible = f[1] == "1"
        keypadCursor = f[2] == "1"
        keypad = f[3] == "1"
        mouse = f[4] == "1"
    }

    var restored: Bool { !alternateScreen && cursorVisible && !keypadCursor && !keypad && !mouse }

    var description: String {
        "alternate screen \(alternateScreen), cursor visible \(cursorVisible), keypad cursor \(keypadCursor), keypad \(keypad), mouse \(mouse)"
    }
}

final class TmuxDashboard {
    let tmux: String
    let socket: String
    let session = "e2e"
    let dir: URL
    /// The server's socket file (tmux leaves it behind after kill-server).
    private var socketPath: String?
    private var stopped = false

    var statusFile: URL { dir.appendingPathComponent("status") }
    var modesFile: URL { dir.appendingPathComponent("modes") }
    var stdoutFile: URL { dir.appendingPathComponent("stdout") }
    var stderrFile: URL { dir.appendingPathComponent("stderr") }

    /// Starts a private tmux server whose only pane runs `command` (a shell command line
    /// built by the caller; see `start(arguments:)` for the usual thermtop wrapper).
    init(shellCommand: (TmuxDashboard) -> String, width: Int = 100, height: Int = 30) throws {
        guard let tmux = TmuxE2E.tmux else { throw TmuxTestError("tmux is not installed") }
        self.tmux = tmux
        let id = UUID().uuidString.lowercased()
        socket = "thermtop-e2e-\(id)"
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-e2e-\(id)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // Our own config: no status line (the pane is the whole window), a known TERM with
        // 256 colours, and dead panes kept so their last screen and modes can be read.
        let conf = dir.appendingPathComponent("tmux.conf")
        try """
        set -g status off
        set -g remain-on-exit on
        set -g default-terminal tmux-256color
        set -g escape-time 0
        """.write(to: conf, atomically: true, encoding: .utf8)
        let result = TmuxE2E.run(tmux, ["-L", socket, "-f", conf.path, "new-session", "-d", "-s", session,
                                    "-x", "\(width)", "-y", "\(height)", shellCommand(self)])
        if result.status != 0 {
            stop()
            throw TmuxTestError("tmux new-session failed (\(result.status)): \(result.output)")
        }
        socketPath = format("#{socket_path}")
    }

    /// thermtop with `arguments` under the recording wrapper, in a UTF-8 locale with colours.
    convenience init(arguments: [String], width: Int = 100, height: Int = 30, environment: String = "") throws {
        let binary = TmuxE2E.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TmuxTestError("thermtop binary not found at \(binary); run `swift build` first")
        }
        try self.init(shellCommand: { me in
            let q = TmuxE2E.shellQuote
            let thermtop = ([binary] + arguments).map(q).joined(separator: " ")
            let modes = "#{alternate_on} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag} #{mouse_any_flag}"
            return """
            env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \(environment) \(thermtop); s=$?; \
            sleep 0.1; \(q(me.tmux)) -L \(q(me.socket)) display-message -p -t \(q(me.session)) \(q(modes)) > \(q(me.modesFile.path)); \
            printf '%s' "$s" > \(q(me.statusFile.path)); exit "$s"
            """
        }, width: width, height: height)
    }

    deinit { stop() }

    /// Kills the private server (and with it anything still running in the pane) and removes
    /// the scratch folder. Safe to call more than once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        TmuxE2E.run(tmux, ["-L", socket, "kill-server"])
        if let socketPath, socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
        try? FileManager.default.removeItem(at: dir)
    }

    @discardableResult
    func tmuxCommand(_ args: [String]) -> (status: Int32, output: String) {
        TmuxE2E.run(tmux, ["-L", socket] + args)
    }

    /// The pane as text (`escapes`: with the SGR colour sequences tmux reproduces).
    func capture(escapes: Bool = false) -> String {
        tmuxCommand(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", session]).output
    }

    /// Sends tmux key names (`q`, `Escape`, `F10`, `C-c`, ...), one key per argument.
    func send(_ keys: String...) {
        tmuxCommand(["send-keys", "-t", session] + keys)
    }

    /// Types `text` literally (no key-name lookup).
    func type(_ text: String) {
        tmuxCommand(["send-keys", "-t", session, "-l", text])
    }

    func resize(width: Int, height: Int) {
        tmuxCommand(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    func format(_ f: String) -> String {
        tmuxCommand(["display-message", "-p", "-t", session, f]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the pane until `predicate` holds or `timeout` passes; returns the last capture
    /// and whether it matched.
    @discardableResult
    func waitForScreen(timeout: Double = 5, escapes: Bool = false, _ predicate: (String) -> Bool) -> (matched: Bool, screen: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture(escapes: escapes)
        while !predicate(screen) {
            if Date() >= deadline { return (false, screen) }
            usleep(50_000)
            screen = capture(escapes: escapes)
        }
        return (true, screen)
    }

    /// Waits until the binary has started and drawn a whole first frame: the header, and the
    /// bottom status line (curses writes top to bottom, so the last row means the frame is done).
    func waitForDashboard(timeout: Double = 5) -> (matched: Bool, screen: String) {
        waitForScreen(timeout: timeout) {
            PaneText.header($0).contains("thermtop") && PaneText.header($0).contains("tier ")
                && PaneText.lines($0).contains { $0.hasPrefix("? help q quit") }
        }
    }

    /// thermtop's pid: the child of the wrapper shell that tmux started in the pane.
    func thermtopPID() -> pid_t? {
        guard let shell = Int32(format("#{pane_pid}")) else { return nil }
        for pid in TmuxE2E.children(of: shell) where TmuxE2E.commandName(of: pid) == "thermtop" { return pid }
        return nil
    }

    /// Waits for the wrapper to record thermtop's exit status.
    func waitForExitStatus(timeout: Double = 5) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let s = try? String(contentsOf: statusFile, encoding: .utf8), let n = Int32(s) { return n }
            usleep(50_000)
        }
        return nil
    }

    /// The terminal modes recorded right after thermtop exited.
    func recordedModes() -> PaneModes? {
        (try? String(contentsOf: modesFile, encoding: .utf8)).flatMap(PaneModes.init)
    }

    /// Waits for tmux to report the pane dead (its pty closed: nothing runs in it any more).
    func waitForPaneDead(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if format("#{pane_dead}") == "1" { return true }
            usleep(50_000)
        }
        return false
    }
}

struct TmuxTestError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

extension TmuxE2E {
    /// Direct children of a process (Linux /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        if let list = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) {
            return list.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        // Kernels without CONFIG_PROC_CHILDREN: scan /proc/*/stat for the parent pid.
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { parent(of: $0) == pid }
    }

    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    static func commandName(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The one-letter state from /proc/<pid>/stat (R, S, T, Z, ...), nil when gone.
    static func processState(_ pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// Whether a process exists and is not a zombie.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }
}

// MARK: - Reading the screen

enum PaneText {
    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func header(_ screen: String) -> String { lines(screen).first ?? "" }

    /// The pulse area: the heart glyph and the five columns after it on the header row (the
    /// pulse frame is five columns wide and padded by a space; the clock starts further right).
    static func pulse(_ screen: String) -> String? {
        let h = header(screen)
        guard let i = h.firstIndex(of: "♥") else { return nil }
        return String(h[i...].prefix(6))
    }

    /// The badge word of the full layout's header: `NOMINAL`, `SERIOUS (SIMULATED)`, ...
    static func badge(_ screen: String) -> String? {
        let h = header(screen)
        for state in ["NOMINAL", "FAIR", "SERIOUS", "CRITICAL"] {
            if h.contains(" \(state) (SIMULATED) ") { return "\(state) (SIMULATED)" }
            if h.contains(" \(state) ") { return state }
        }
        return nil
    }

    /// The tier word after `tier ` on the header row.
    static func tier(_ screen: String) -> String? {
        let h = header(screen)
        guard let r = h.range(of: "tier ") else { return nil }
        return String(h[r.upperBound...].prefix { $0.isLetter })
    }

    /// Whether every character of `text` in an escaped line (`capture-pane -e`) is drawn on a
    /// highlighted background (a set background colour, or reverse video).
    static func isHighlighted(_ text: String, inEscapedLine line: String) -> Bool {
        var plain: [Character] = []
        var highlighted: [Bool] = []
        var background = false
        var reverse = false
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            if chars[i] == "\u{1B}", i + 1 < chars.count, chars[i + 1] == "[" {
                var j = i + 2
                var params = ""
                while j < chars.count, !(chars[j].isLetter) { params.append(chars[j]); j += 1 }
                if j < chars.count, chars[j] == "m" {
                    let codes = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    var k = 0
                    while k < codes.count {
                        switch codes[k] {
                        case 0: background = false; reverse = false
                        case 7: reverse = true
                        case 27: reverse = false
                        case 40...47, 100...107: background = true
                        case 49: background = false
                        case 48:
                            background = true
                            k += (k + 1 < codes.count && codes[k + 1] == 2) ? 4 : 2
                        case 38: k += (k + 1 < codes.count && codes[k + 1] == 2) ? 4 : 2
                        default: break
                        }
                        k += 1
                    }
                }
                i = j + 1
                continue
            }
            plain.append(chars[i])
            highlighted.append(background || reverse)
            i += 1
        }
        let target = Array(text)
        guard target.count <= plain.count else { return false }
        for start in 0...(plain.count - target.count) where Array(plain[start..<start + target.count]) == target {
            return highlighted[start..<start + target.count].allSatisfy { $0 }
        }
        return false
    }
}

// MARK: - The tests

@Suite(
    "Dashboard end to end in tmux",
    .serialized,
    .needs(.tmux)
)
struct DashboardTmuxTests {
    struct FixtureCase: CustomTestStringConvertible, Sendable {
        let fixture: String
        let badge: String
        let tier: String
        let pulseAnimates: Bool
        var testDescription: String { "\(fixture) → \(badge), tier \(tier)" }
    }

    @Test("The state badge, tier and pulse match the fixture", arguments: [
        FixtureCase(fixture: "intel-laptop", badge: "NOMINAL", tier: "full", pulseAnimates: true),
        FixtureCase(fixture: "intel-laptop-hot", badge: "SERIOUS", tier: "minimal", pulseAnimates: false),
    ])
    func badgeAndTierMatchFixture(_ c: FixtureCase) throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture(c.fixture)])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(PaneText.badge(screen) == c.badge, "header: \(PaneText.header(screen))")
        #expect(PaneText.tier(screen) == c.tier, "header: \(PaneText.header(screen))")
        #expect(!screen.contains("SIMULATED"), "a live fixture run must not say SIMULATED:\n\(screen)")
        #expect(screen.contains("Policy tier \(c.tier)"), "the policy panel shows another tier:\n\(screen)")
        let escaped = PaneText.header(tmux.capture(escapes: true))
        #expect(PaneText.isHighlighted(" \(c.badge) ", inEscapedLine: escaped),
                "the badge is not drawn as a coloured badge: \(escaped.debugDescription)")
        if c.pulseAnimates {
            try expectPulseMoves(tmux)
        } else {
            try expectPulseStill(tmux)
        }
    }

    @Test("3 simulates serious: minimal tier, pulse stops; 0 returns to live")
    func simulateSeriousThenLive() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, first) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(first)")
        try #require(PaneText.badge(first) == "NOMINAL" && PaneText.tier(first) == "full", "\(PaneText.header(first))")
        try expectPulseMoves(tmux)

        tmux.send("3")
        let (serious, s) = tmux.waitForScreen {
            PaneText.badge($0) == "SERIOUS (SIMULATED)" && PaneText.tier($0) == "minimal"
                && $0.contains("SIMULATED: thermal state forced to serious") && $0.contains("Policy tier minimal")
        }
        try #require(serious, "3 did not make it SERIOUS (SIMULATED), tier minimal:\n\(s)")
        #expect(s.contains("SIMULATED: thermal state forced to serious"), "no simulation banner:\n\(s)")
        #expect(s.contains("Policy tier minimal"), "policy panel not at minimal:\n\(s)")
        try expectPulseStill(tmux)

        tmux.send("0")
        let (live, l) = tmux.waitForScreen {
            PaneText.badge($0) == "NOMINAL" && PaneText.tier($0) == "full" && !$0.contains("SIMULATED")
        }
        #expect(live, "0 did not return to the live NOMINAL / full state:\n\(l)")
        try expectPulseMoves(tmux)
    }

    @Test("d opens and closes the debug overlay")
    func debugOverlay() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(!screen.contains("Rule trail"))
        tmux.send("d")
        // The rule trail wraps, so the runtime lines are on a later page: End scrolls to them.
        let (open, o) = tmux.waitForScreen { $0.contains("Rule trail") && $0.contains("state nominal") }
        #expect(open, "d did not open the debug overlay:\n\(o)")
        tmux.send("End")
        let (end, e) = tmux.waitForScreen { $0.contains("terminal 100x30") }
        #expect(end, "the debug overlay does not show the terminal size:\n\(e)")
        tmux.send("d")
        let (closed, c) = tmux.waitForScreen { !$0.contains("Rule trail") }
        #expect(closed, "d did not close the debug overlay:\n\(c)")
    }

    @Test("?, h and F1 open the help; Escape closes it", arguments: ["?", "h", "F1"])
    func helpOverlay(_ key: String) throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.send(key)
        let (open, o) = tmux.waitForScreen { $0.contains("│ Legend") && $0.contains("more lines (↓ PgDn)") }
        #expect(open, "\(key) did not open the help:\n\(o)")
        tmux.send("End")
        let (end, e) = tmux.waitForScreen { $0.contains("Esc or ? closes") && $0.contains("lines above") }
        #expect(end, "End did not scroll the help to its last line:\n\(e)")
        // The last page fills the box (30 rows: a box of 28), it does not shrink to one line.
        let boxRows = PaneText.lines(e).filter { $0.contains("│") }.count
        #expect(boxRows >= 20, "End shrank the help box to \(boxRows) rows:\n\(e)")
        tmux.send("Escape")
        let (closed, c) = tmux.waitForScreen { !$0.contains("lines above") && !$0.contains("│ Legend") }
        #expect(closed, "Escape did not close the help:\n\(c)")
    }

    @Test("Resizing rearranges the screen (full, compact, 40x10, too small, full) without crashing")
    func resize() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let pid = try #require(tmux.thermtopPID(), "cannot find thermtop's pid")

        tmux.resize(width: 50, height: 12)
        let (compact, c) = tmux.waitForScreen {
            let l = PaneText.lines($0)
            return l.count >= 12 && l[0].hasPrefix("thermtop  NOMINAL") && l[0].contains("tier full")
                && l[1].hasPrefix(" low power") && $0.contains(" Sensors (") && $0.contains(" Battery")
                && l[11].hasPrefix("? help q quit")
        }
        #expect(compact, "50x12 is not the narrow layout:\n\(c)")

        tmux.resize(width: 40, height: 10)
        let (tiny, t) = tmux.waitForScreen {
            let l = PaneText.lines($0)
            return l.count >= 10 && l[0].contains("NOMINAL") && l[0].contains("♥") && l[0].contains("tier full")
                && $0.contains(" Battery")
        }
        #expect(tiny, "40x10 does not show the state, tier, pulse and battery:\n\(t)")

        tmux.resize(width: 30, height: 8)
        let (small, s) = tmux.waitForScreen { $0.contains("terminal too small") }
        #expect(small, "30x8 does not say the terminal is too small:\n\(s)")
        #expect(!s.contains("NOMINAL"), "30x8 still draws the dashboard:\n\(s)")

        tmux.resize(width: 100, height: 30)
        let (full, f) = tmux.waitForScreen {
            PaneText.badge($0) == "NOMINAL" && $0.contains(" Policy tier full") && $0.contains("1-4 simulate")
                && !$0.contains("terminal too small")
        }
        #expect(full, "back at 100x30 the full layout did not return:\n\(f)")
        #expect(TmuxE2E.isRunning(pid), "thermtop died while resizing:\n\(f)")
        #expect(tmux.format("#{pane_dead}") == "0")

        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0, "q after resizing did not exit 0")
    }

    @Test("q, F10 and Ctrl-C quit with status 0 and the terminal restored", arguments: ["q", "F10", "C-c"])
    func quitKeys(_ key: String) throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let pid = try #require(tmux.thermtopPID(), "cannot find thermtop's pid")
        #expect(tmux.format("#{alternate_on}") == "1", "the dashboard is not on the alternate screen")

        tmux.send(key)
        let status = tmux.waitForExitStatus()
        #expect(status == 0, "\(key) should exit with status 0, got \(status.map(String.init) ?? "no exit"):\n\(tmux.capture())")
        #expect(!TmuxE2E.isRunning(pid), "thermtop (pid \(pid)) is still running after \(key)")
        #expect(tmux.waitForPaneDead(), "the pane's process did not go away")
        // tmux fills #{pane_dead_status} only when it reaped the child itself (see the top of
        // this file); when it did, it must agree.
        let deadStatus = tmux.format("#{pane_dead_status}")
        #expect(deadStatus.isEmpty || deadStatus == "0", "pane_dead_status \(deadStatus)")
        let modes = try #require(tmux.recordedModes(), "the wrapper did not record the terminal modes")
        #expect(modes.restored, "terminal not restored after \(key): \(modes)")
    }

    @Test("SIGTERM, SIGHUP and SIGQUIT (Ctrl-\\) exit cleanly (128 + signal) with the terminal restored",
          arguments: [SIGTERM, SIGHUP, SIGQUIT])
    func quitSignals(_ signal: Int32) throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let pid = try #require(tmux.thermtopPID(), "cannot find thermtop's pid")

        #expect(kill(pid, signal) == 0)
        let status = tmux.waitForExitStatus()
        // The shell reports 128 + n both for a handled exit(128 + n) and for death by the
        // signal; the restored modes below tell the two apart (an unhandled signal leaves the
        // alternate screen on and the cursor hidden).
        #expect(status == 128 + signal, "expected status \(128 + signal), got \(status.map(String.init) ?? "no exit")")
        #expect(!TmuxE2E.isRunning(pid), "thermtop (pid \(pid)) is still running after signal \(signal)")
        #expect(tmux.waitForPaneDead(), "the pane's process did not go away")
        let modes = try #require(tmux.recordedModes(), "the wrapper did not record the terminal modes")
        #expect(modes.restored, "terminal not restored after signal \(signal): \(modes)")
    }

    @Test("Ctrl-\\ (SIGQUIT from the keyboard) leaves with 131 and the terminal restored")
    func controlBackslash() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.send("C-\\")
        let status = tmux.waitForExitStatus()
        #expect(status == 131, "expected 131, got \(status.map(String.init) ?? "no exit")")
        let modes = try #require(tmux.recordedModes(), "the wrapper did not record the terminal modes")
        #expect(modes.restored, "terminal not restored after Ctrl-\\: \(modes)")
    }

    @Test("0 leaves the simulated laptop and forced low power: back to the live source in one key")
    func zeroLeavesEverySimulation() throws {
        let tmux = try TmuxDashboard(arguments: ["--simulate", "--low-power", "on", "--simulate-state", "fair"])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(screen.contains("SIMULATED: thermal state forced to fair · low power forced on · simulated laptop"),
                "no banner for the three simulations:\n\(screen)")
        tmux.send("0")
        let (live, l) = tmux.waitForScreen { !$0.contains("SIMULATED") && !$0.contains("simulated laptop") }
        #expect(live, "0 left something simulated:\n\(l)")
    }

    @Test("+ on real sensors says why it does nothing")
    func plusOnRealSensors() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.send("+")
        let (said, s) = tmux.waitForScreen { $0.contains("+/- set the simulated laptop's load") }
        #expect(said, "+ on a real machine gave no explanation:\n\(s)")
    }

    @Test("the cursor stays on the selected sensor: End, then Home, in a fixture with many sensors")
    func navigationKeys() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 100, height: 16)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.send("End")
        let (end, e) = tmux.waitForScreen { $0.contains("more above") && $0.contains("selected: Wi-Fi (iwlwifi_1)") }
        #expect(end, "End did not select the last sensor and scroll:\n\(e)")
        tmux.send("g")
        let (home, h) = tmux.waitForScreen { !$0.contains("more above") && $0.contains("more below") }
        #expect(home, "g did not go back to the top:\n\(h)")
    }

    /// The row of the pane whose text contains `needle`.
    static func row(of needle: String, in screen: String) -> Int? {
        PaneText.lines(screen).firstIndex { $0.contains(needle) }
    }

    /// Sends an X10 mouse report (`ESC [ M b x y`, what ncurses asks tmux for): `button` 0 is
    /// the left button, 3 a release, 64 and 65 the wheel up and down; x and y are 0-based cells.
    fileprivate static func mouse(_ tmux: TmuxDashboard, button: Int, x: Int, y: Int) {
        let bytes = [0x1B, 0x5B, 0x4D, 32 + button, 33 + x, 33 + y].map { String($0, radix: 16) }
        tmux.tmuxCommand(["send-keys", "-t", tmux.session, "-H"] + bytes)
    }

    @Test("the mouse: reporting on (mouse_any_flag 1), a click selects a row, a second click opens its detail, the wheel moves, a click on the heading sorts; off again after q")
    func mouse() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 120, height: 40)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(tmux.format("#{mouse_any_flag}") == "1", "the terminal was not asked for mouse reports")
        let y = try #require(Self.row(of: "ACPI (acpitz)", in: screen), "no ACPI row:\n\(screen)")
        Self.mouse(tmux, button: 0, x: 6, y: y)
        Self.mouse(tmux, button: 3, x: 6, y: y)
        let (selected, s) = tmux.waitForScreen { $0.contains("selected: ACPI (acpitz)") }
        #expect(selected, "a click did not select the row:\n\(s)")
        Self.mouse(tmux, button: 0, x: 6, y: y)
        Self.mouse(tmux, button: 3, x: 6, y: y)
        let (detail, d) = tmux.waitForScreen { $0.contains("sensor detail") && $0.contains("peak ") }
        #expect(detail, "a second click did not open the detail with the peak:\n\(d)")
        tmux.send("Escape")
        #expect(tmux.waitForScreen { !$0.contains("sensor detail") }.matched)
        tmux.send("Home")
        Self.mouse(tmux, button: 65, x: 6, y: y)
        let (wheel, w) = tmux.waitForScreen { !$0.contains("selected: CPU (coretemp Package id 0)") && $0.contains("selected: ") }
        #expect(wheel, "the wheel did not move the selection:\n\(w)")
        let heading = try #require(Self.row(of: "Sensors (", in: w))
        Self.mouse(tmux, button: 0, x: 3, y: heading)
        Self.mouse(tmux, button: 3, x: 3, y: heading)
        let (sorted, o) = tmux.waitForScreen { $0.contains("hottest first") }
        #expect(sorted, "a click on the heading did not change the sort:\n\(o)")
        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0)
        let modes = try #require(tmux.recordedModes())
        #expect(!modes.mouse && modes.restored, "\(modes)")
    }

    @Test("htop's keys: F6 sorts, I reverses, F4 filters and Esc clears the filter, F3 searches without hiding")
    func htopKeys() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 120, height: 40)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.send("F6")
        #expect(tmux.waitForScreen { $0.contains("hottest first") }.matched, "F6 did not sort by temperature")
        tmux.send("I")
        #expect(tmux.waitForScreen { $0.contains("coolest first") }.matched, "I did not reverse the sort")
        tmux.send("F4")
        #expect(tmux.waitForScreen { $0.contains("Filter: ") }.matched, "F4 did not start the filter")
        tmux.type("nvme")
        tmux.send("Enter")
        let (filtered, f) = tmux.waitForScreen { $0.contains("filter \"nvme\"") && !$0.contains("ACPI (acpitz)") }
        #expect(filtered, "the filter was not applied:\n\(f)")
        tmux.send("Escape")
        let (cleared, c) = tmux.waitForScreen { !$0.contains("filter \"nvme\"") && $0.contains("ACPI (acpitz)") }
        #expect(cleared, "Esc did not clear the applied filter:\n\(c)")
        tmux.send("F3")
        tmux.type("acpi")
        let (found, s) = tmux.waitForScreen { $0.contains("selected: ACPI (acpitz)") && $0.contains("Board (SEN1)") }
        #expect(found, "F3 did not select the first match, or hid rows:\n\(s)")
        tmux.send("Enter")
        tmux.send("F10")
        #expect(tmux.waitForExitStatus() == 0)
    }

    @Test("a bracketed paste is text, never keys: \"cpu\\nq\" pasted into the filter leaves thermtop running with filter \"cpu q\", \"3q\" pasted outside it does nothing; the mode is off again after q")
    func pasteIsNeverKeys() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 120, height: 40)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let pid = try #require(tmux.thermtopPID(), "cannot find thermtop's pid")
        // What thermtop writes from here on, to find bracketed paste switched off when it quits.
        let output = tmux.dir.appendingPathComponent("output")
        tmux.tmuxCommand(["pipe-pane", "-o", "-t", tmux.session, "cat >> \(TmuxE2E.shellQuote(output.path))"])
        // `paste-buffer -p` wraps the text in ESC[200~ … ESC[201~ only when the program asked
        // for bracketed paste; otherwise it arrives as keys (Enter ends the filter, q quits).
        func paste(_ text: String) {
            tmux.tmuxCommand(["set-buffer", text])
            tmux.tmuxCommand(["paste-buffer", "-p", "-t", tmux.session])
        }

        tmux.send("/")
        try #require(tmux.waitForScreen { $0.contains("Filter: _") }.matched, "/ did not start the filter:\n\(tmux.capture())")
        paste("cpu\nq")
        let (typed, t) = tmux.waitForScreen { $0.contains("Filter: cpu q_") }
        #expect(typed, "the paste is not the filter's text \"cpu q\":\n\(t)")
        try #require(TmuxE2E.isRunning(pid) && tmux.format("#{pane_dead}") == "0", "the paste quit thermtop:\n\(t)")

        tmux.send("Escape")
        try #require(tmux.waitForScreen { !$0.contains("Filter: ") && !$0.contains("filter \"") }.matched,
                     "Esc did not clear the filter:\n\(tmux.capture())")
        paste("3q")
        // Keys are read in order: once d has opened the debug overlay, the paste was read too.
        tmux.send("d")
        let (overlay, o) = tmux.waitForScreen { $0.contains("Rule trail") }
        #expect(overlay, "d after the paste did not open the debug overlay:\n\(o)")
        #expect(!o.contains("SIMULATED") && PaneText.badge(o) == "NOMINAL", "the paste outside the filter acted as keys:\n\(o)")
        #expect(TmuxE2E.isRunning(pid), "the paste outside the filter quit thermtop")

        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0, "q did not quit with 0 after the pastes")
        let modes = try #require(tmux.recordedModes(), "the wrapper did not record the terminal modes")
        #expect(modes.restored, "terminal not restored: \(modes)")
        // tmux has no format for the mode: thermtop's last word on it must be "off".
        let deadline = Date().addingTimeInterval(5)
        var written = ""
        repeat {
            written = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if written.contains("\u{1B}[?2004l") { break }
            usleep(50_000)
        } while Date() < deadline
        let last = written.ranges(of: "\u{1B}[?2004").last.map { String(written[$0.upperBound...].prefix(1)) }
        #expect(last == "l", "bracketed paste was not switched off on quit (last: \(last ?? "never set"))")
    }

    @Test("a sensor's peak and minimum since start stay in its row after the reading falls")
    func peaksSinceStart() throws {
        let tree = try Proof.copyFixture("intel-laptop")
        defer { Proof.discard(tree) }
        let package = tree + "/devices/platform/coretemp.0/hwmon/hwmon1/temp1_input"
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", tree], width: 200, height: 50)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(screen.contains(" peak   min"), "no peak and minimum columns at 200 columns:\n\(screen)")
        try "77000\n".write(toFile: package, atomically: false, encoding: .utf8)
        #expect(tmux.waitForScreen(timeout: 8) { $0.contains("77.0 ") }.matched, "the new reading never showed")
        try "41000\n".write(toFile: package, atomically: false, encoding: .utf8)
        let (fell, f) = tmux.waitForScreen(timeout: 8) { screen in
            PaneText.lines(screen).contains { $0.contains("CPU (coretemp Package id 0)") && $0.contains("41.0 ") && $0.contains("77.0  41.0") }
        }
        #expect(fell, "the row does not keep the peak (77.0) with the minimum (41.0):\n\(f)")
        tmux.send("q")
    }

    @Test("Escape codes in sysfs strings never reach the terminal (broken fixture)")
    func sanitisedSysfsStrings() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("broken")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        // Let a couple of samples and many pulse frames go by: thermtop redraws only changed
        // cells, so an ESC[2J that slipped through would leave most of the screen blank.
        usleep(1_500_000)
        let s = tmux.capture()
        let lines = PaneText.lines(s)
        #expect(lines.first?.hasPrefix(" thermtop ") == true, "header row wiped:\n\(s)")
        #expect(PaneText.badge(s) == "NOMINAL", "badge wiped or wrong:\n\(s)")
        #expect(s.contains("Sensors ("), "sensor heading wiped:\n\(s)")
        #expect(s.contains("junk-trips"), "junk-trips row missing:\n\(s)")
        #expect(s.contains(" Policy "), "policy panel wiped:\n\(s)")
        #expect(s.contains("1-4 simulate"), "status line wiped:\n\(s)")
        let evil = try #require(lines.first { $0.contains("evil") }, "the ESC zone is not listed:\n\(s)")
        #expect(evil.contains("zone"), "the ESC zone name is mangled beyond recognition: \(evil)")
        #expect(!evil.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character on screen: \(evil.debugDescription)")
        #expect(tmux.format("#{alternate_on}") == "1", "an escape sequence switched the alternate screen off")

        // The same name in the sensor detail overlay: select the row, Enter.
        let row = lines.firstIndex(of: evil)! - (lines.firstIndex { $0.hasPrefix(" Sensor") } ?? 0) - 1
        for _ in 0..<max(row, 0) { tmux.send("j") }
        tmux.send("Enter")
        let (detail, d) = tmux.waitForScreen {
            $0.contains("sensor detail") && $0.contains("thermal_zone7 · kind zone")
        }
        #expect(detail, "the detail overlay for the ESC zone did not open:\n\(d)")
        let title = PaneText.lines(d).first { $0.contains(" · group ") } ?? ""
        #expect(title.contains("evil") && !title.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                "the detail title is missing or not the sanitised name: \(title.debugDescription)\n\(d)")
        #expect(PaneText.header(d).hasPrefix(" thermtop "), "header wiped after opening the detail:\n\(d)")
        #expect(tmux.thermtopPID() != nil, "thermtop is gone")
    }

    @Test("Ctrl-Z suspends with the terminal restored; fg resumes and redraws",
          .needs(.bash))
    func suspendAndResume() throws {
        let binary = TmuxE2E.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "thermtop binary not found at \(binary)")
        // An interactive shell with job control, as a user would have.
        let tmux = try TmuxDashboard(shellCommand: { _ in
            "exec env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='e2e$ ' /bin/bash --norc --noprofile -i"
        })
        defer { tmux.stop() }
        try #require(tmux.waitForScreen { $0.contains("e2e$") }.matched, "the shell prompt never appeared")
        let q = TmuxE2E.shellQuote
        tmux.type([binary, "--sysfs-root", TmuxE2E.fixture("intel-laptop")].map(q).joined(separator: " "))
        tmux.send("Enter")
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let pid = try #require(tmux.thermtopPID(), "cannot find thermtop's pid")

        tmux.send("C-z")
        let (stopped, s) = tmux.waitForScreen { $0.contains("Stopped") && $0.contains("e2e$") }
        #expect(stopped, "Ctrl-Z did not suspend thermtop:\n\(s)")
        #expect(TmuxE2E.processState(pid) == "T", "thermtop is not stopped (state \(TmuxE2E.processState(pid) ?? "gone"))")
        #expect(tmux.format("#{alternate_on} #{cursor_flag} #{keypad_flag}") == "0 1 0",
                "terminal not restored while suspended: \(tmux.format("#{alternate_on} #{cursor_flag} #{keypad_flag}"))")

        tmux.type("fg")
        tmux.send("Enter")
        let (back, b) = tmux.waitForScreen {
            PaneText.header($0).hasPrefix(" thermtop ") && PaneText.badge($0) == "NOMINAL" && $0.contains(" Policy tier full")
                && $0.contains("1-4 simulate") && !$0.contains("Stopped")
        }
        #expect(back, "fg did not bring the dashboard back whole:\n\(b)")
        #expect(tmux.format("#{alternate_on}") == "1", "not back on the alternate screen after fg")
        try expectPulseMoves(tmux)

        tmux.send("q")
        // Type only once thermtop is gone: keys typed while it still runs are its keys (h, ?).
        let gone = Date().addingTimeInterval(5)
        while TmuxE2E.isRunning(pid) && Date() < gone { usleep(20_000) }
        tmux.type("echo \"rc=$?\"")
        tmux.send("Enter")
        let (done, d) = tmux.waitForScreen { $0.contains("rc=0") }
        #expect(done, "q after resuming did not exit 0:\n\(d)")
    }

    struct NotATerminalCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Builds the pane's command from the quoted thermtop command line and the scratch files.
        let command: @Sendable (_ thermtop: String, _ out: String, _ err: String, _ status: String) -> String
        let checkStdoutEmpty: Bool
        var testDescription: String { name }
    }

    @Test("Without a usable terminal: a message pointing to `thermtop status`, non-zero exit", arguments: [
        NotATerminalCase(name: "stdout redirected to a file", command: { t, o, e, s in
            "\(t) > \(o) 2> \(e); printf '%s' \"$?\" > \(s)"
        }, checkStdoutEmpty: true),
        NotATerminalCase(name: "stdout is a pipe", command: { t, o, e, s in
            "{ \(t) 2> \(e); printf '%s' \"$?\" > \(s); } | cat > \(o)"
        }, checkStdoutEmpty: true),
        NotATerminalCase(name: "TERM=dumb", command: { t, o, e, s in
            "TERM=dumb \(t) 2> \(e); printf '%s' \"$?\" > \(s)"
        }, checkStdoutEmpty: false),
    ])
    func notATerminal(_ c: NotATerminalCase) throws {
        let binary = TmuxE2E.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "thermtop binary not found at \(binary)")
        let q = TmuxE2E.shellQuote
        let thermtop = [binary, "--sysfs-root", TmuxE2E.fixture("intel-laptop")].map(q).joined(separator: " ")
        let tmux = try TmuxDashboard(shellCommand: { me in
            c.command(thermtop, q(me.stdoutFile.path), q(me.stderrFile.path), q(me.statusFile.path))
        })
        defer { tmux.stop() }
        let status = tmux.waitForExitStatus()
        let stderr = (try? String(contentsOf: tmux.stderrFile, encoding: .utf8)) ?? ""
        let stdout = (try? Data(contentsOf: tmux.stdoutFile)) ?? Data()
        let shown = tmux.capture()
        #expect(status != nil && status != 0, "expected a non-zero exit, got \(status.map(String.init) ?? "no exit"); screen:\n\(shown)")
        #expect(stderr.contains("thermtop status"), "the message does not point to `thermtop status`: \(stderr)")
        if c.checkStdoutEmpty {
            #expect(stdout.isEmpty, "thermtop wrote to a non-terminal stdout: \(String(decoding: stdout, as: UTF8.self).debugDescription)")
        }
    }

    // MARK: helpers

    /// Captures a second apart differ in the pulse area; when they do not, more captures a
    /// quarter second apart, for up to 2 s, guard against a tick count that lands on a
    /// look-alike frame and a frame late on a loaded machine. A stopped pulse never differs.
    private func expectPulseMoves(_ tmux: TmuxDashboard, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let a = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        usleep(1_000_000)
        var b = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        // Two frames a second at full; on a loaded machine (CI beside other builds) a frame can
        // come late, so look again for up to 2 s more before calling the pulse stopped.
        for _ in 0..<8 where a == b {
            usleep(250_000)
            b = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        }
        #expect(a != b, "the pulse did not move at tier \(PaneText.tier(tmux.capture()) ?? "?"): \(a.debugDescription)", sourceLocation: sourceLocation)
    }

    /// Captures about a second apart are identical in the pulse area.
    private func expectPulseStill(_ tmux: TmuxDashboard, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let a = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        usleep(500_000)
        let b = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        usleep(500_000)
        let c = try #require(PaneText.pulse(tmux.capture()), "no pulse on screen", sourceLocation: sourceLocation)
        #expect(a == b && b == c, "the pulse moved at tier \(PaneText.tier(tmux.capture()) ?? "?"): \([a, b, c])", sourceLocation: sourceLocation)
    }
}

// MARK: - Replay, forecast and °F in the real binary

@Suite(
    "Dashboard end to end: --replay of a real recording, the forecast before the state, °F",
    .serialized,
    .needs(.tmux)
)
struct DashboardReplayForecastUnitsTests {
    /// `0:01.4 / 0:03` from a replay header, nil when none is shown.
    static func elapsed(_ screen: String) -> String? {
        let h = PaneText.header(screen)
        guard let r = h.range(of: #"[0-9]+:[0-9]{2}\.[0-9] / [0-9:]+"#, options: .regularExpression) else { return nil }
        return String(h[r])
    }

    /// Records a copy of intel-laptop with `thermtop record` (0.2 s samples for 3 s) while the
    /// CPU package (coretemp and its x86_pkg_temp mirror) goes from 53 °C to 95 °C after about
    /// 1.2 s: a real recording with a state change. The heat starts once the recording holds
    /// four samples at 53 °C, not after a fixed sleep, so a slow start (a loaded machine) cannot
    /// record the first sample already hot.
    static func recordHeatUp(in dir: URL) throws -> String {
        let q = TmuxE2E.shellQuote
        let tree = dir.appendingPathComponent("tree").path
        let rec = dir.appendingPathComponent("heat.jsonl").path
        let zone = tree + "/devices/virtual/thermal/thermal_zone1/temp"
        let package = tree + "/devices/platform/coretemp.0/hwmon/hwmon1/temp1_input"
        let script = """
            cp -a \(q(TmuxE2E.fixture("intel-laptop"))) \(q(tree)) || exit 1
            \(q(TmuxE2E.binary)) record \(q(rec)) --seconds 3 --delay 0.2 --sysfs-root \(q(tree)) & pid=$!
            n=0; while [ "$(wc -l < \(q(rec)) 2>/dev/null || echo 0)" -lt 5 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
            sleep 0.4; printf '95000\\n' > \(q(zone)); printf '95000\\n' > \(q(package)); wait $pid
            """
        let r = TmuxE2E.run("/bin/sh", ["-c", script])
        try #require(r.status == 0, "thermtop record failed: \(r.output)")
        return rec
    }

    @Test("--replay plays a recording: REPLAY header with the recorded time and speed, the recorded state change, p pauses, n steps, > speeds up, the end stays on screen")
    func replayARecording() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = try Self.recordHeatUp(in: dir)
        let tmux = try TmuxDashboard(arguments: ["--replay", rec, "--speed", "0.5"], width: 100, height: 30)
        defer { tmux.stop() }
        let (up, first) = tmux.waitForScreen {
            PaneText.header($0).contains("REPLAY") && PaneText.lines($0).contains { $0.hasPrefix("? help q quit") }
        }
        try #require(up, "no replay on screen:\n\(first)")
        #expect(PaneText.header(first).contains("×0.5"), "speed not shown: \(PaneText.header(first))")
        #expect(Self.elapsed(first)?.hasSuffix("/ 0:03") == true, "no elapsed / total: \(PaneText.header(first))")
        #expect(first.contains("REPLAY of heat.jsonl from "), "\(first)")
        #expect(PaneText.badge(first) == "NOMINAL", "\(PaneText.header(first))")

        // The package went to 95 °C 1.2 s into the recording: at ×0.5 that shows after ~2.4 s.
        let (hot, h) = tmux.waitForScreen(timeout: 10) { ["SERIOUS", "CRITICAL"].contains(PaneText.badge($0) ?? "") }
        try #require(hot, "the recorded state change never appeared:\n\(h)")

        tmux.send("p")
        let (paused, p) = tmux.waitForScreen { PaneText.header($0).contains("REPLAY PAUSED") }
        try #require(paused, "p did not pause the replay:\n\(p)")
        let at = try #require(Self.elapsed(p))
        usleep(800_000)
        #expect(Self.elapsed(tmux.capture()) == at, "the replay moved while paused")
        tmux.send("n")
        let (stepped, s) = tmux.waitForScreen { Self.elapsed($0) != nil && Self.elapsed($0) != at }
        #expect(stepped, "n did not step one sample (still \(at)):\n\(s)")
        #expect(PaneText.header(s).contains("REPLAY PAUSED"), "n must leave the replay paused: \(PaneText.header(s))")

        tmux.send(">")
        let (faster, f) = tmux.waitForScreen { PaneText.header($0).contains("×1 ") || PaneText.header($0).hasSuffix("×1") }
        #expect(faster, "> did not double the speed: \(PaneText.header(f))")
        tmux.send("p")
        let (ended, e) = tmux.waitForScreen(timeout: 10) { $0.contains("REPLAY: the recording ended at") }
        try #require(ended, "the end of the recording was not shown:\n\(e)")
        #expect(PaneText.header(e).contains("REPLAY ENDED"), "\(PaneText.header(e))")
        usleep(500_000)
        #expect(tmux.format("#{pane_dead}") != "1", "the dashboard must stay at the end of a replay")
        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0)
    }

    @Test("the simulated laptop: after + raises the load, the forecast appears in the header before the state changes")
    func forecastBeforeTheStateChanges() throws {
        let tmux = try TmuxDashboard(arguments: ["--simulate", "--delay", "0.2"], width: 120, height: 40)
        defer { tmux.stop() }
        let (up, first) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(first)")
        try #require(PaneText.badge(first) == "NOMINAL", "\(PaneText.header(first))")
        for _ in 0..<4 { tmux.send("+") }
        var forecastSeen: (Date, String)?
        var stateChanged: Date?
        let deadline = Date().addingTimeInterval(60)
        var screen = first
        while Date() < deadline && stateChanged == nil {
            screen = tmux.capture()
            let h = PaneText.header(screen)
            if forecastSeen == nil, PaneText.badge(screen) == "NOMINAL",
               let r = h.range(of: #"(fair|serious|critical) in ~[0-9]+ (s|min)"#, options: .regularExpression) {
                forecastSeen = (Date(), String(h[r]))
            }
            if let b = PaneText.badge(screen), b != "NOMINAL" { stateChanged = Date() }
            usleep(50_000)
        }
        let seen = try #require(forecastSeen, "no forecast while nominal:\n\(screen)")
        let changed = try #require(stateChanged, "the state never changed after +:\n\(screen)")
        #expect(seen.0 < changed, "forecast \(seen.1) at \(seen.0), state changed at \(changed)")
    }

    @Test("units = \"fahrenheit\" in the config shows °F everywhere; f switches to °C and back")
    func fahrenheitFromConfigAndF() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("f.toml")
        try Run.write("units = \"fahrenheit\"\n", to: config)
        let tmux = try TmuxDashboard(arguments: ["--config", config.path, "--sysfs-root", TmuxE2E.fixture("intel-laptop")],
                                     width: 120, height: 40)
        defer { tmux.stop() }
        let (up, first) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(first)")
        #expect(first.contains("°F") && !first.contains("°C"), "\(first)")
        tmux.send("f")
        let (c, cs) = tmux.waitForScreen { $0.contains("°C") && !$0.contains("°F") }
        #expect(c, "f did not switch to °C:\n\(cs)")
        tmux.send("d")
        let (overlay, o) = tmux.waitForScreen { $0.contains("from config: units = fahrenheit") }
        #expect(overlay, "the debug overlay does not show the config's units:\n\(o)")
        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0)
    }

    @Test("bad --replay invocations exit 64 before any screen; a bad recording exits 65 naming the line", arguments: [
        (["--speed", "2"], Int32(64), "--speed needs --replay"),
        (["--replay", "REC", "--speed", "0"], 64, "--speed must be a positive number"),
        (["--replay", "REC", "--speed", "-1"], 64, "--speed must be a positive number"),
        (["--replay", "REC", "--speed", "inf"], 64, "--speed must be a positive number"),
        (["--replay", "REC", "--speed", "nan"], 64, "--speed must be a positive number"),
        (["--replay", "REC", "--simulate"], 64, "drop --sysfs-root/--simulate"),
        (["--replay", "REC", "--sysfs-root", "FIXTURE"], 64, "drop --sysfs-root/--simulate"),
        (["--replay", "REC", "--delay", "1"], 64, "drop --delay"),
        (["--replay", "BAD"], 65, "line 3: not JSON"),
    ])
    func badReplayInvocations(args: [String], status: Int32, message: String) throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.jsonl")
        try Run.write("""
            {"schema":"thermtop.recording/1","thermtop_version":"0.1.0","host":"h","kernel":"k","start_time":"2026-11-23T12:00:00Z","delay_seconds":1,"root":"/sys"}
            {"t":0,"frame":true,"read":{}}
            this is not JSON

            """, to: bad)
        let real = args.map { $0 == "REC" ? "/nonexistent.jsonl" : $0 == "BAD" ? bad.path : $0 == "FIXTURE" ? TmuxE2E.fixture("intel-laptop") : $0 }
        let r = try Run.thermtop(real)
        #expect(r.status == status, "\(real): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(real): \(r.stderr)")
        #expect(r.stdout.isEmpty, "nothing may reach the terminal: \(r.stdout.debugDescription)")
    }
}
