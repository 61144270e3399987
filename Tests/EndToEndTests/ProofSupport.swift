import Foundation
import Testing
import ThermtopTestSupport

/// Helpers for the fault, abuse, soak and scale tests: fixture copies, a shell runner that
/// does not depend on SIGCHLD (posix_spawn + waitpid), and one private tmux server per pane.
enum Proof {
    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["THERMTOP_BINARY"], !env.isEmpty { return env }
        return Thermtop.binary?.path ?? Thermtop.repo.appendingPathComponent(".build/debug/thermtop").path
    }

    /// The binary copied where a throwaway user can run it (a checkout in a private home is
    /// out of that user's reach).
    static var binaryForAnyUser: String? { TestMachine.copyForAnyUser(binary) }

    static func quote(_ s: String) -> String { TmuxE2E.shellQuote(s) }

    /// A writable copy of a fixture tree (symlinks kept), removed by `discard`.
    static func copyFixture(_ name: String) throws -> String {
        let dir = "/tmp/thermtop-proof-\(UUID().uuidString.prefix(8))"
        let r = sh("cp -a \(quote(Thermtop.fixtures.appendingPathComponent(name).path)) \(quote(dir))")
        try #require(r.status == 0, "copying the fixture failed: \(r.output)")
        return dir
    }

    static func discard(_ dir: String) { _ = sh("chmod -R u+rwX \(quote(dir)) 2>/dev/null; rm -rf \(quote(dir))") }

    /// Runs `/bin/sh -c script` through the e2e runner (posix_spawn + waitpid, clean signals);
    /// returns the exit status (128+N for a signal) and stdout+stderr.
    @discardableResult
    static func sh(_ script: String, stdoutOnly: Bool = false) -> (status: Int32, output: String) {
        TmuxE2E.run("/bin/sh", ["-c", script], stdoutOnly: stdoutOnly)
    }

    /// Control characters other than newline (and, when `allowSGR`, ESC starting an SGR
    /// colour sequence `ESC [ … m`): anything that could move a cursor, retitle a window or
    /// change a terminal mode. Returns a description of the first one found.
    static func garbage(in text: String, allowSGR: Bool = false) -> String? {
        let u = Array(text.unicodeScalars)
        var i = 0
        while i < u.count {
            let v = u[i].value
            if v == 0x1b && allowSGR && i + 1 < u.count && u[i + 1] == "[" {
                var j = i + 2
                while j < u.count && (("0"..."9").contains(u[j]) || u[j] == ";" || u[j] == ":") { j += 1 }
                if j < u.count && u[j] == "m" { i = j + 1; continue }
                return "non-SGR CSI at \(i): \(String(String.UnicodeScalarView(u[i..<min(u.count, j + 1)])).debugDescription)"
            }
            if (v < 0x20 && v != 0x0a) || v == 0x7f || (0x80..<0xa0).contains(v) {
                return "U+\(String(v, radix: 16)) at \(i) near \(String(String.UnicodeScalarView(u[max(0, i - 20)..<min(u.count, i + 20)])).debugDescription)"
            }
            i += 1
        }
        return nil
    }
}

/// One private tmux server running one command in a pane of the given size.
final class ProofPane {
    let socket = "thermtop-proof-\(UUID().uuidString.prefix(8))"
    let dir: String
    var statusFile: String { dir + "/status" }
    var modesFile: String { dir + "/modes" }

    /// Runs `thermtop arguments` in the pane (under `sh`, so the tty modes after exit are the
    /// shell's to check). The exit status goes to `statusFile`, tmux's view of the terminal
    /// modes (alternate screen, cursor) to `modesFile`, `stty -a` to `dir/stty`.
    init(arguments: [String], width: Int = 100, height: Int = 30, environment: String = "env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color",
         redirect: String = "", binary: String = Proof.binary) throws {
        dir = "/tmp/\(socket)"
        mkdir(dir, 0o755)
        let q = Proof.quote
        let conf = dir + "/tmux.conf"
        try "set -g status off\nset -g remain-on-exit on\nset -g default-terminal tmux-256color\nset -g escape-time 0\n"
            .write(toFile: conf, atomically: true, encoding: .utf8)
        let cmd = ([binary] + arguments).map(q).joined(separator: " ")
        let modes = "#{alternate_on} #{cursor_flag}"
        let script = """
        stty sane; \(environment) \(cmd) \(redirect); s=$?; sleep 0.2; stty -a > \(q(dir + "/stty")) 2>&1; \
        tmux -L \(q(socket)) display-message -p \(q(modes)) > \(q(modesFile)); printf '%s' "$s" > \(q(statusFile)); exec sleep 600
        """
        let r = Proof.sh("tmux -L \(q(socket)) -f \(q(conf)) new-session -d -s p -x \(width) -y \(height) \(q(script))")
        try #require(r.status == 0, "tmux failed: \(r.output)")
    }

    deinit { stop() }

    func stop() {
        Proof.sh("tmux -L \(Proof.quote(socket)) kill-server 2>/dev/null; rm -rf \(Proof.quote(dir))")
    }

    @discardableResult
    func tmux(_ args: String) -> String { Proof.sh("tmux -L \(Proof.quote(socket)) \(args)").output }

    func capture(escapes: Bool = false) -> String { tmux("capture-pane -p \(escapes ? "-e " : "")-t p") }
    func send(_ keys: String) { tmux("send-keys -t p \(keys)") }
    func resize(_ w: Int, _ h: Int) { tmux("resize-window -t p -x \(w) -y \(h)") }

    /// thermtop's pid (the pane shell's child named thermtop).
    var pid: pid_t? {
        let shell = tmux("display-message -p -t p '#{pane_pid}'").trimmingCharacters(in: .whitespacesAndNewlines)
        let r = Proof.sh("pgrep -P \(shell) -x thermtop", stdoutOnly: true).output.split(separator: "\n").first
        return r.flatMap { pid_t($0) }
    }

    @discardableResult
    func wait(_ timeout: Double = 5, _ predicate: (String) -> Bool) -> (ok: Bool, screen: String) {
        let end = Date().addingTimeInterval(timeout)
        var s = capture()
        while !predicate(s) {
            if Date() > end { return (false, s) }
            usleep(50_000)
            s = capture()
        }
        return (true, s)
    }

    func waitForDashboard(_ timeout: Double = 8) -> Bool {
        wait(timeout) { $0.contains("thermtop") && $0.contains("q quit") }.ok
    }

    func exitStatus(_ timeout: Double = 5) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let s = try? String(contentsOfFile: statusFile, encoding: .utf8), let n = Int32(s) { return n }
            usleep(50_000)
        }
        return nil
    }

    /// After exit: (alternate screen on, cursor visible) as tmux saw them, and `stty -a`.
    func terminalAfterExit() -> (alternate: Bool, cursorVisible: Bool, stty: String)? {
        guard let m = try? String(contentsOfFile: modesFile, encoding: .utf8) else { return nil }
        let f = m.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard f.count >= 2 else { return nil }
        let stty = (try? String(contentsOfFile: dir + "/stty", encoding: .utf8)) ?? ""
        return (f[0] == "1", f[1] == "1", stty)
    }

    /// Whether the keyboard still reaches thermtop: `d` opens the debug overlay and closes it.
    func answersKeys() -> Bool {
        send("d")
        guard wait(3, { $0.contains("debug (d closes)") }).ok else { return false }
        send("d")
        return wait(3, { !$0.contains("debug (d closes)") }).ok
    }
}
