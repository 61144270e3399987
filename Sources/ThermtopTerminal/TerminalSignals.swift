import Glibc
import Synchronization

/// Quit signals for the run loop, and emergency terminal restoration for fatal paths.
///
/// `install()` catches SIGINT, SIGTERM and SIGHUP. Their handler only stores into
/// atomics (async-signal-safe); the run loop polls `quitRequested` after each
/// `Terminal.readKey` returns (a signal makes `wget_wch` return early with ERR).
/// A second quit signal while the first is still pending restores the terminal and
/// exits at once, in case the loop is stuck.
///
/// SIGTSTP (Ctrl-Z) and SIGWINCH are left alone on purpose: ncurses installs its own
/// handlers for them when the program has none, and those suspend, resume and resize
/// correctly.
///
/// Call `install()` before creating the `Terminal`; ncurses only installs its own
/// SIGINT/SIGTERM handlers (which exit the process) when it finds the default action.
public enum TerminalSignals {
    private static let quitFlag = Atomic<Bool>(false)
    private static let signalNumber = Atomic<Int32>(0)
    private static let installedQuit = Atomic<Bool>(false)
    private static let installedCrash = Atomic<Bool>(false)

    /// Whether SIGINT, SIGTERM or SIGHUP has arrived since `install()` (or `reset()`).
    public static var quitRequested: Bool { quitFlag.load(ordering: .acquiring) }

    /// The most recent quit signal's number, or 0 when none has arrived.
    public static var lastSignal: Int32 { signalNumber.load(ordering: .acquiring) }

    /// Installs the quit handlers once; later calls do nothing.
    public static func install() {
        // Touch every global the handler uses so their lazy initialisation (swift_once)
        // never runs inside the handler.
        _ = quitFlag.load(ordering: .relaxed)
        _ = signalNumber.load(ordering: .relaxed)
        EmergencyRestore.prepare()
        guard !installedQuit.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            // No SA_RESTART: a blocking read is interrupted, so the run loop wakes up.
            action.sa_flags = 0
            action.__sigaction_handler.sa_handler = { sig in
                if TerminalSignals.quitFlag.exchange(true, ordering: .acquiringAndReleasing) {
                    // Asked twice: the loop did not react. Leave now, terminal first.
                    EmergencyRestore.run()
                    _exit(128 + sig)
                }
                TerminalSignals.signalNumber.store(sig, ordering: .releasing)
            }
            sigaction(sig, &action, nil)
        }
    }

    /// Forgets a pending quit request (for tests or a "really quit?" prompt).
    public static func reset() {
        quitFlag.store(false, ordering: .releasing)
        signalNumber.store(0, ordering: .releasing)
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
