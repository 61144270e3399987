import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// Runs the `--on-change` command with posix_spawn: argv split from the command line without
/// a shell, values only in the environment. One run at a time: a change that comes while the
/// command runs waits, and only the latest of them runs when it ends (`coalesced` counts the
/// ones merged away). A run past `timeout` seconds gets SIGTERM, and SIGKILL `killGrace`
/// seconds later; the command runs in a process group of its own, so the signal reaches what
/// it started too (a `sh -c` and its `sleep`). Never waits: the child is reaped with WNOHANG
/// when the caller polls, and failures (cannot start, non-zero exit, killed, timed out) are
/// counted.
final class CommandRunner {
    enum Output {
        /// Dashboard: the command must not write over the screen.
        case discard
        /// watch: stdout goes to stderr, so `watch --json` lines on stdout stay clean.
        case stderr
    }

    let command: String
    let argv: [String]
    let output: Output
    /// Seconds a run may take before it is stopped.
    let timeout: Double
    /// Seconds between SIGTERM and SIGKILL for a run past its timeout.
    static let killGrace = 2.0
    /// How often the caller should poll while a run goes on and a change waits for it, so the
    /// change starts soon after the run ends (the child's end is not a wakeup of its own).
    static let busyPoll = 0.25

    private(set) var runs = 0
    private(set) var failures = 0
    private(set) var lastFailure: String?
    /// Changes merged into a later one because they came while the command ran.
    private(set) var coalesced = 0
    /// Runs stopped for taking longer than `timeout`.
    private(set) var timeouts = 0

    private struct Child {
        var pid: pid_t
        var startedAt: Double
        /// Set when SIGTERM was sent.
        var terminatedAt: Double?
    }
    private var child: Child?
    /// The change waiting for the running command to end.
    private var waiting: ChangeReport?
    /// Changes the waiting one replaced (said when it starts).
    private var merged = 0

    /// Ends a run still going when the caller leaves (its own process group, which the
    /// terminal's Ctrl-C does not reach), so no hook outlives the command that started it.
    func stop() {
        guard let c = child else { return }
        child = nil
        Self.end(group: c.pid)
    }

    /// The process groups of runs still alive. However thermtop ends (a return from `main`,
    /// `exit` from a failed write, a closed pipe or a signal's handling) the C library runs its
    /// exit handlers, and the one installed with the first run ends these groups: a hook's own
    /// process group is out of reach of the terminal's Ctrl-C and of whatever killed us.
    /// Touched on the main thread only (runs are started and reaped by the loop there).
    nonisolated(unsafe) private static var liveGroups: Set<pid_t> = []
    private static let endGroupsAtExit: Void = { atexit { CommandRunner.endLiveGroups() } }()

    private static func endLiveGroups() {
        for group in liveGroups { end(group: group) }
    }

    /// SIGTERM to the whole group, and SIGKILL `killGrace` seconds later to whatever is left
    /// of it (a command that ignores SIGTERM, a child that outlived its shell); the leader is
    /// reaped.
    private static func end(group: pid_t) {
        liveGroups.remove(group)
        kill(-group, SIGTERM)
        var status: Int32 = 0
        let deadline = monotonicSeconds() + killGrace
        while monotonicSeconds() < deadline {
            _ = waitpid(group, &status, WNOHANG)
            if kill(-group, 0) != 0 && errno == ESRCH { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        kill(-group, SIGKILL)
        while waitpid(group, &status, 0) < 0 && errno == EINTR {}
    }

    init(command: String, output: Output, timeout: Double = OnChangeOptions.defaultTimeout) {
        self.command = command
        argv = CommandLineWords.split(command)
        self.output = output
        self.timeout = timeout
    }

    /// Commands alive now: 0 or 1.
    var running: Int { child == nil ? 0 : 1 }

    /// Runs the command for `report` now, or, while one runs, keeps it to run when that one
    /// ends (replacing any change already waiting, whose previous state it inherits: the
    /// command was never told about the one replaced).
    func run(_ report: ChangeReport, now: Double) {
        reap(now: now)
        if child != nil {
            var r = report
            if let w = waiting {
                coalesced += 1
                merged += 1
                r.previousState = w.previousState
            }
            waiting = r
            return
        }
        start(report, now: now)
    }

    /// When the caller should next call `reap`: the running command's timeout or kill, or soon
    /// while a change waits for it. nil with nothing running.
    func nextDeadline(now: Double) -> Double? {
        guard let c = child else { return nil }
        var due = c.terminatedAt.map { $0 + Self.killGrace } ?? c.startedAt + timeout
        if waiting != nil { due = min(due, now + Self.busyPoll) }
        return due
    }

    /// Collects a finished command without blocking, stops one past its timeout, and starts
    /// the waiting change once nothing runs.
    func reap(now: Double) {
        if var c = child {
            var status: Int32 = 0
            let r = waitpid(c.pid, &status, WNOHANG)
            if r == c.pid || r < 0 {
                child = nil
                Self.liveGroups.remove(c.pid)
                if r == c.pid && c.terminatedAt == nil { judge(status) }
            } else if c.terminatedAt == nil, now - c.startedAt >= timeout {
                timeouts += 1
                fail("\(argv.first ?? "command") ran past its \(Format.fixed(timeout, places: timeout < 10 ? 1 : 0)) s timeout: stopped (SIGTERM)")
                kill(-c.pid, SIGTERM)
                c.terminatedAt = now
                child = c
            } else if let t = c.terminatedAt, now - t >= Self.killGrace {
                kill(-c.pid, SIGKILL)
                // Collected at once: nothing outlives SIGKILL but a zombie to reap.
                while waitpid(c.pid, &status, 0) < 0 && errno == EINTR {}
                child = nil
                Self.liveGroups.remove(c.pid)
            }
        }
        if child == nil, let w = waiting {
            waiting = nil
            if output == .stderr {
                printError("thermtop: on-change: running for the change that waited\(merged > 0 ? " (\(merged) earlier change\(merged == 1 ? "" : "s") merged into it)" : "") (\(countersText))")
            }
            merged = 0
            start(w, now: now)
        }
    }

    private func judge(_ status: Int32) {
        let sig = status & 0x7f
        if sig != 0 {
            fail("\(argv.first ?? "command") killed by signal \(sig)")
        } else {
            let code = (status >> 8) & 0xff
            if code != 0 { fail("\(argv.first ?? "command") exited with status \(code)") }
        }
    }

    private func start(_ report: ChangeReport, now: Double) {
        runs += 1
        guard let program = argv.first else {
            fail("empty command")
            return
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .stderr:
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // The child starts with default signal handling and an empty mask, whatever the
        // dashboard installed for itself; in a process group of its own (its pid), which a
        // timeout signals as a whole.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        var env: [String] = []
        var i = 0
        let names = Set(report.environment.map(\.0))
        while let p = environ[i] {
            let entry = String(cString: p)
            if let eq = entry.firstIndex(of: "="), names.contains(String(entry[..<eq])) { i += 1; continue }
            env.append(entry)
            i += 1
        }
        for (k, v) in report.environment {
            // A NUL would cut the value short in C; sysfs text never has one, but be exact.
            env.append("\(k)=\(v.replacingNUL)")
        }
        var pid = pid_t()
        let rc = withCStrings(argv) { cargv in
            withCStrings(env) { cenv in
                posix_spawnp(&pid, program, &actions, &attr, cargv, cenv)
            }
        }
        if rc != 0 {
            fail("cannot run \(program): \(String(cString: strerror(rc)))")
            return
        }
        child = Child(pid: pid, startedAt: now)
        Self.endGroupsAtExit
        Self.liveGroups.insert(pid)
    }

    /// `runs 3 · failures 1 · coalesced 5 · timeouts 1`: the counters, for `watch`'s stderr.
    var countersText: String {
        "runs \(runs) · failures \(failures) · coalesced \(coalesced) · timeouts \(timeouts)"
    }

    private func fail(_ why: String) {
        failures += 1
        lastFailure = why
        if output == .stderr { printError("thermtop: on-change: \(why) (\(countersText))") }
    }

}

extension String {
    var replacingNUL: String {
        unicodeScalars.contains("\0") ? String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\0" ? " " : $0 })) : self
    }
}

/// A NULL-terminated `char *[]` for the duration of `body`.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var ptrs: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    ptrs.append(nil)
    defer { for p in ptrs { free(p) } }
    return body(ptrs)
}
