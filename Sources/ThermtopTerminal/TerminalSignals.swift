import Glibc
import Synchronization

/// Signals for the run loop, and emergency terminal restoration for fatal paths.
///
/// `install()` catches SIGINT, SIGTERM, SIGHUP, SIGQUIT (Ctrl-\), SIGTSTP (Ctrl-Z) and
/// SIGWINCH. The handler only writes the signal's number, as one byte, to a non-blocking
/// self-pipe (async-signal-safe); the run loop polls `descriptor` with the terminal and the
/// monitor, and `drain()` turns the bytes back into signal numbers, which become actions.
/// A second quit signal while the first is still unhandled restores the terminal and exits
/// at once, in case the loop is stuck.
///
/// Because thermtop owns SIGTSTP and SIGWINCH, ncurses installs no handlers of its own for
/// them: the run loop suspends with `Terminal.suspend()` and resizes with
/// `Terminal.resizeToWindow()`.
///
/// Call `install()` before creating the `Terminal`: ncurses only installs its own handlers
/// (which would exit the process or swallow the signal) when it finds the default action.
public enum TerminalSignals {
    /// The signals the run loop hears about.
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH]
    static let quitSignals: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private static let quitPending = Atomic<Bool>(false)
    private static let writeEnd = Atomic<Int32>(-1)
    private static let readEnd = Atomic<Int32>(-1)
    private static let installedQuit = Atomic<Bool>(false)
    private static let installedCrash = Atomic<Bool>(false)

    /// The self-pipe's read end, for `poll`; -1 before `install()`.
    public static var descriptor: Int32 { readEnd.load(ordering: .acquiring) }

    /// Installs the handlers once; later calls do nothing.
    public static func install() {
        // Touch every global the handler uses so their lazy initialisation (swift_once)
        // never runs inside the handler.
        _ = quitPending.load(ordering: .relaxed)
        _ = writeEnd.load(ordering: .relaxed)
        EmergencyRestore.prepare()
        guard !installedQuit.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd.store(fds[0], ordering: .releasing)
        writeEnd.store(fds[1], ordering: .releasing)
        for sig in handled {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(SA_RESTART)
            action.__sigaction_handler.sa_handler = { sig in
                let saved = errno
                if sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT {
                    if TerminalSignals.quitPending.exchange(true, ordering: .acquiringAndReleasing) {
                        // Asked twice: the loop did not react. Leave now, terminal first.
                        EmergencyRestore.run()
                        _exit(128 + sig)
                    }
                }
                var byte = UInt8(truncatingIfNeeded: sig)
                _ = write(TerminalSignals.writeEnd.load(ordering: .relaxed), &byte, 1)
                errno = saved
            }
            sigaction(sig, &action, nil)
        }
    }

    /// Whether a quit signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) arrived that the run loop has
    /// not handled yet: long work (a burst of keys) checks it to stop early.
    public static var quitRequested: Bool { quitPending.load(ordering: .acquiring) }

    /// The signals that arrived since the last call, oldest first (empty when none).
    public static func drain() -> [Int32] {
        let fd = descriptor
        guard fd >= 0 else { return [] }
        var out: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { out += buffer[0..<n].map { Int32($0) }; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        return out
    }

    /// Puts the handler for `SIGTSTP` back to the default, stops the process, and reinstalls
    /// it on `SIGCONT`. Call with the terminal already restored.
    static func stopProcess() {
        var dfl = sigaction()
        sigemptyset(&dfl.sa_mask)
        dfl.__sigaction_handler.sa_handler = SIG_DFL
        var ours = sigaction()
        sigaction(SIGTSTP, &dfl, &ours)
        // SIGTSTP is not blocked here (we are not in its handler), so this stops us now;
        // kill returns after SIGCONT.
        kill(getpid(), SIGTSTP)
        sigaction(SIGTSTP, &ours, nil)
    }

    /// Puts the terminal back into the state it was in before `Terminal` started:
    /// leaves the alternate screen, shows the cursor, resets attributes and restores
    /// the saved termios. Async-signal-safe (`write` and `tcsetattr` only), does nothing
    /// when no `Terminal` is active, and runs at most once per `Terminal`.
    ///
    /// `Terminal` already calls it from `atexit` and from crash signal handlers; call
    /// it yourself from any other fatal path before the process dies. A normal exit
    /// should use `Terminal.restore()`, which also lets curses clean up.
    public static func emergencyRestore() {
        EmergencyRestore.run()
    }

    /// Catches crash signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT) to
    /// restore the terminal, then hands the signal to whatever handler was there before
    /// (the Swift runtime's backtracer, or the default action), so crash reports and
    /// exit statuses are unchanged. Called by `Terminal.init`; safe to call again.
    public static func installCrashRestore() {
        EmergencyRestore.prepare()
        guard !installedCrash.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for sig in EmergencyRestore.crashSignals {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            // SA_ONSTACK: still runs on a stack overflow when an alternate stack exists.
            action.sa_flags = Int32(SA_ONSTACK)
            action.__sigaction_handler.sa_handler = { sig in
                EmergencyRestore.run()
                // Put the previous handler back and re-raise: the signal is blocked while
                // this handler runs, so it is delivered to that handler when we return.
                sigaction(sig, EmergencyRestore.previousActions + Int(sig), nil)
                raise(sig)
            }
            sigaction(sig, &action, EmergencyRestore.previousActions + Int(sig))
        }
        atexit { EmergencyRestore.run() }
    }
}

/// Preallocated state for the async-signal-safe restore path: the bytes that undo
/// curses' screen modes (from terminfo: sgr0, cnorm, rmkx, rmcup) and the termios
/// saved before curses changed it. Written only while no restore can run.
enum EmergencyRestore {
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]
    static let capacity = 512
    nonisolated(unsafe) static let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    nonisolated(unsafe) static let savedTermios = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static let previousActions: UnsafeMutablePointer<sigaction> = {
        let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        actions.initialize(repeating: sigaction(), count: 65)
        return actions
    }()
    static let length = Atomic<Int>(0)
    static let hasTermios = Atomic<Bool>(false)
    static let armed = Atomic<Bool>(false)

    /// Forces lazy initialisation of every global `run()` touches.
    static func prepare() {
        _ = bytes
        _ = savedTermios
        _ = previousActions
        _ = length.load(ordering: .relaxed)
        _ = hasTermios.load(ordering: .relaxed)
        _ = armed.load(ordering: .relaxed)
    }

    /// Saves the terminal modes to come back to. Call before curses changes them.
    static func saveTermios(fd: Int32) {
        prepare()
        hasTermios.store(tcgetattr(fd, savedTermios) == 0, ordering: .releasing)
    }

    /// Stores the byte sequence that undoes curses' screen modes and arms the restore.
    static func arm(sequence: [UInt8]) {
        prepare()
        let count = min(sequence.count, capacity)
        for i in 0..<count { bytes[i] = sequence[i] }
        length.store(count, ordering: .releasing)
        armed.store(true, ordering: .releasing)
    }

    /// Disarms without writing anything (the normal `endwin` path took over).
    static func disarm() {
        armed.store(false, ordering: .releasing)
    }

    /// Async-signal-safe: `write` and `tcsetattr` only.
    static func run() {
        guard armed.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var remaining = length.load(ordering: .acquiring)
        var cursor = UnsafeRawPointer(bytes)
        while remaining > 0 {
            let n = write(STDOUT_FILENO, cursor, remaining)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            remaining -= n
            cursor += n
        }
        if hasTermios.load(ordering: .acquiring) {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, savedTermios)
        }
    }
}
