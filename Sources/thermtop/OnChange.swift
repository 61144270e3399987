import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs the `--on-change` command with posix_spawn: argv split from the command line without
/// a shell, values only in the environment. Never waits for it: children are reaped with
/// WNOHANG on later samples, and failures (cannot start, non-zero exit, killed) are counted.
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
    private(set) var runs = 0
    private(set) var failures = 0
    private(set) var lastFailure: String?
    private var children: [pid_t] = []

    init(command: String, output: Output) {
        self.command = command
        argv = CommandLineWords.split(command)
        self.output = output
    }

    var running: Int { children.count }

    func run(_ report: ChangeReport) {
        reap()
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
        // dashboard installed for itself.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

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
        children.append(pid)
    }

    /// Collect finished children without blocking.
    func reap() {
        children.removeAll { pid in
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == 0 { return false }
            if r < 0 { return true }
            let sig = status & 0x7f
            if sig != 0 {
                fail("\(argv.first ?? "command") killed by signal \(sig)")
            } else {
                let code = (status >> 8) & 0xff
                if code != 0 { fail("\(argv.first ?? "command") exited with status \(code)") }
            }
            return true
        }
    }

    private func fail(_ why: String) {
        failures += 1
        lastFailure = why
        if output == .stderr { printError("thermtop: on-change: \(why)") }
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
