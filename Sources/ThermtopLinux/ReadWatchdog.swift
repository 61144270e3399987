#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// Files whose read is hung, how many threads are left in such reads and how many reads
/// were given up on, shared by a root and
/// every root forked from it (`SysfsRoot.fork`): a file hung under one root is hung for the
/// next, which must not touch it until the read returns.
final class HungReads: Sendable {
    private struct State {
        /// Each hung path, with when its read started.
        var since: [String: Double] = [:]
        /// Threads left in a hung read (reader threads and replaced samplers).
        var threads = 0
        /// Reads given up on.
        var timeouts = 0
    }
    private let state = Mutex(State())

    func since(_ path: String) -> Double? { state.withLock { $0.since[path] } }
    var paths: [String] { state.withLock { $0.since.keys.sorted() } }
    var threads: Int { state.withLock { $0.threads } }
    var timeouts: Int { state.withLock { $0.timeouts } }

    /// A thread was left in a read of `path` that started at `started`.
    func hang(_ path: String, since started: Double) {
        state.withLock { s in
            s.since[path] = started
            s.threads += 1
            s.timeouts += 1
        }
    }

    /// That read returned: the file answers again and its thread leaves.
    func answered(_ path: String) {
        state.withLock { s in
            s.since[path] = nil
            s.threads = max(0, s.threads - 1)
        }
    }
}

/// Watches reads made on the thread that asked for them (`ReadGate`'s reads on this thread): a
/// gate arms it for a batch and disarms it at the end, and its one thread sleeps in a `read` of
/// a timerfd, so it wakes only when a read has run past its deadline, never for a batch that
/// answers in time. Then it asks the gate whether its read is overdue; the gate gives up on it
/// and calls its owner, which goes on without that thread.
final class ReadWatchdog: Sendable {
    /// One for the process, started by the first gate that reads on its caller's thread; nil
    /// when neither its timer nor its thread can be made (the gates then hand reads to
    /// reader threads, as they do for other callers).
    static let shared: ReadWatchdog? = ReadWatchdog()

    /// What the gate says when the watchdog wakes for it.
    enum Verdict {
        /// Nothing to do for now; look again at this time (CLOCK_MONOTONIC seconds).
        case lookAgain(at: Double)
        /// The gate gave up on its read (or has no batch in flight): forget it.
        case done
    }

    private let timer: Int32
    private struct State {
        var armed: [ObjectIdentifier: (gate: ReadGate, due: Double)] = [:]
        /// When the timer is set to fire; nil when disarmed.
        var fires: Double?
    }
    private let state = Mutex(State())

    private init?() {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        timer = fd
        guard startThread(name: "thermtop-watch", inlineOnFailure: false, { [self] in run() }) else {
            close(fd)
            return nil
        }
    }

    /// `gate` starts a batch; its first read is overdue at `due`.
    func arm(_ gate: ReadGate, due: Double) {
        state.withLock { s in
            s.armed[ObjectIdentifier(gate)] = (gate, due)
            if s.fires.map({ due < $0 }) ?? true { set(&s, due) }
        }
    }

    /// `gate`'s batch is over. The timer is stopped only when no other gate is armed: a later
    /// firing for a gate that has left finds nothing and sets the timer for the rest.
    func disarm(_ gate: ReadGate) {
        state.withLock { s in
            s.armed[ObjectIdentifier(gate)] = nil
            if s.armed.isEmpty, s.fires != nil { set(&s, nil) }
        }
    }

    /// Set the timer to fire at `at` (nil: never). Called with the lock held.
    private func set(_ s: inout State, _ at: Double?) {
        s.fires = at
        var spec = itimerspec()
        // A zero time disarms a timerfd: the earliest a time can be is one nanosecond.
        if let at { spec.it_value = timespec(seconds: max(at, 1e-9)) }
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func run() {
        while true {
            var expirations: UInt64 = 0
            let n = read(timer, &expirations, 8)
            if n < 0 && errno != EINTR && errno != EAGAIN { return }
            let now = monotonicSeconds()
            let due = state.withLock { s -> [ReadGate] in
                s.fires = nil
                return s.armed.values.filter { $0.due <= now }.map(\.gate)
            }
            // Asked with no lock of the watchdog's held: the gate takes its own.
            let verdicts = due.map { ($0, $0.watchdogFired(now: now)) }
            state.withLock { s in
                for (gate, verdict) in verdicts {
                    let id = ObjectIdentifier(gate)
                    guard s.armed[id]?.gate === gate else { continue }
                    switch verdict {
                    case .done: s.armed[id] = nil
                    case .lookAgain(let at): s.armed[id] = (gate, at)
                    }
                }
                if let next = s.armed.values.map(\.due).min() { set(&s, next) }
            }
        }
    }
}
