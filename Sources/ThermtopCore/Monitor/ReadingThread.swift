#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux
import Synchronization

// Reads on the sampling thread itself, guarded by a watchdog that costs nothing until a read
// overruns its deadline.
//
// Handing every read (or every batch) to a reader thread made each sample cost three thread
// wake-ups (sampler, reader, sampler again) and each file of a discovery two context switches.
// A `ReadingThread` does its own reads instead. While it works, one process-wide watchdog
// thread sleeps on a timerfd set to the deadline of the oldest work in progress; arming and
// disarming it are two syscalls per pass and wake nobody. If a read (a hung driver, a slow
// SMBus sensor, a FIFO in a fixture tree) is still blocked at its deadline, the watchdog
// *retires* the thread: the step's owner marks the file stuck, and the thread's owner starts a
// successor that carries on without that file. The retired thread is never resumed into the
// code it was running (that code's state now belongs to the successor): when its read finally
// returns it reports that, then ends. A read the kernel has asleep uninterruptibly (a lock, a
// page, the disk) is not hung but slow, and gets a longer deadline first (see `verdict`).
// Owners bound how often a retirement can happen (a file that overran is read through reader
// threads for a while, and a root stops reading inline after a few retirements in a window).
//
// A one-shot (`status`, a hub's first reading without `start()`) has its caller waiting and
// nothing else to do meanwhile, so it does not start a thread at all when its reads are
// syscalls a signal can interrupt (`run(interruptible:)`): the caller becomes the reading
// thread, and a timer signals it every quarter deadline while the work runs (CLinux's read
// ticker). A read asleep interruptibly (a FIFO with no writer) returns EINTR at each tick; the
// backend makes it again until the step is past its deadline, then gives up on it
// (`givesUpInterruptedStep`), and the work goes on without that file. A new thread, its malloc
// arena and the hand-over of everything it read to the caller's CPU had cost a one-shot about
// a sixth of its run time (README "Performance"). A read asleep uninterruptibly cannot be
// interrupted and is waited for: a one-shot could not end before it anyway, since a process
// ends only once every thread has left the kernel.

/// Told about the blocking steps it started on a reading thread.
package protocol BlockingStepOwner: AnyObject, Sendable {
    /// `label` has been blocked since `started`, past the deadline; its thread is retired.
    /// Called on the watchdog's thread.
    func stepOverran(_ label: String, started: Double, on thread: ReadingThread)
    /// A step that overran has come back; its (retired) thread ends next. Also called, on the
    /// caller, for each step a ticked caller gave up on, once its work is over.
    func stepReturnedLate(_ label: String)
    /// `label`, started at `started`, was interrupted past its deadline and given up on, on a
    /// thread that reads on the caller (`run(interruptible:)`); the thread goes on. Called on
    /// that thread, after the step. Nothing stays blocked in it: when the work is over the
    /// owner hears `stepReturnedLate` (a later sample tries the file again).
    func stepAbandoned(_ label: String, started: Double)
}

extension BlockingStepOwner {
    package func stepAbandoned(_ label: String, started: Double) {}
}

/// A thread that makes its own blocking reads and may be retired when one overruns.
package final class ReadingThread: Sendable {
    package let deadline: Double
    /// How long a step asleep uninterruptibly (state `D`) may run before it counts as hung.
    package let uninterruptibleDeadline: Double
    package let name: String
    private let onRetire: @Sendable (ReadingThread) -> Void
    /// Whether it is a caller reading with the read ticker (`run(interruptible:)`): its steps
    /// are given up on by the backend at an interruption past their deadline, never retired.
    private let ticked: Bool
    /// For a ticked thread: once a step was given up on, how long each later step still gets
    /// (`ThermalConfig.stalledReadGraceSeconds`), as the reader threads' budget gives it.
    private let grace: Double

    private struct Step {
        var label: String
        var started: Double
        var owner: any BlockingStepOwner
    }
    private struct State {
        var step: Step?
        var retired = false
        var thread: UInt = 0
        /// The kernel's id of the thread, for its state in /proc.
        var tid: Int32 = 0
        /// Handover locks taken on this thread and not yet released: released for it when it
        /// is retired.
        var held: [ObjectIdentifier: HandoverLock] = [:]
    }
    /// A ticked caller's step in progress (`started` nil: none), whether it was given up on,
    /// and the extra deadline after its first abandoned step: later steps are given up on by
    /// then, or after `grace`, whichever is later (nil: none abandoned yet).
    private struct CallerStep {
        var started: Double?
        var abandoned = false
        var budgetEnd: Double?
    }
    /// Only the ticked caller itself touches it (its steps, and `givesUpInterruptedStep` from
    /// inside them: no watchdog looks), so no lock: two lock round trips a read fewer. Plain
    /// values only: a field that needs releasing made every access to it an exclusivity check.
    private nonisolated(unsafe) var callerStep = CallerStep()
    /// A ticked caller's steps given up on so far, for `stepReturnedLate` when its work is over
    /// (only that thread touches it).
    private nonisolated(unsafe) var givenUp: [(label: String, owner: any BlockingStepOwner)] = []
    private let state = Mutex(State())
    /// How deep in `guarded` this thread is. Only the thread itself counts it (nothing else
    /// reads it), so no lock: every read of a pass is guarded inside the pass's own guard, and
    /// a lock taken twice per read for a counter no other thread looks at cost ~80
    /// instructions a read.
    private let guardDepth = Atomic<Int>(0)

    /// - Parameters:
    ///   - deadline: `ThermalConfig.readDeadlineSeconds`.
    ///   - uninterruptibleDeadline: `ThermalConfig.uninterruptibleReadDeadlineSeconds` (never
    ///     shorter than `deadline`).
    ///   - onRetire: called on the watchdog's thread once this thread is retired (after the
    ///     step's owner was told): start a successor there.
    package init(name: String, deadline: Double,
                 uninterruptibleDeadline: Double = ThermalConfig().uninterruptibleReadDeadlineSeconds,
                 onRetire: @escaping @Sendable (ReadingThread) -> Void) {
        self.name = name
        self.deadline = max(0.001, deadline)
        self.uninterruptibleDeadline = max(self.deadline, uninterruptibleDeadline)
        self.onRetire = onRetire
        ticked = false
        grace = 0
    }

    /// The calling thread as a ticked reading thread (`run(interruptible:)`).
    private init(tickedCaller name: String, deadline: Double, grace: Double) {
        self.name = name
        self.deadline = max(0.001, deadline)
        uninterruptibleDeadline = self.deadline
        onRetire = { _ in }
        ticked = true
        self.grace = max(0, grace)
    }

    /// The reading thread the caller runs on; nil on any other thread.
    package static var current: ReadingThread? {
        guard let raw = pthread_getspecific(readingThreadKey) else { return nil }
        return Unmanaged<ReadingThread>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Run `body` on a new OS thread that is this reading thread.
    package func start(_ body: @escaping @Sendable () -> Void) {
        startThread(name: name) { [self] in
            let tid = thermtop_gettid()
            state.withLock { s in
                s.thread = UInt(pthread_self())
                s.tid = tid
            }
            pthread_setspecific(readingThreadKey, Unmanaged.passUnretained(self).toOpaque())
            body()
            pthread_setspecific(readingThreadKey, nil)
        }
    }

    /// Whether its reads can be guarded: by the read ticker (a ticked caller), or by the
    /// watchdog, whose timerfd exists. Without either, its reads must still go through reader
    /// threads.
    package var canGuard: Bool { ticked || ReadWatchdog.shared.isAvailable }

    package var isRetired: Bool { state.withLock { $0.retired } }
    /// The OS thread (`pthread_self()`) it runs on; 0 before it started.
    package var osThread: UInt { state.withLock { $0.thread } }

    /// Work that makes blocking steps: the watchdog is armed while the outermost one runs (a
    /// ticked caller's steps are guarded by its ticker instead).
    package func guarded<T>(_ body: () throws -> T) rethrows -> T {
        if ticked { return try body() }
        let outer = guardDepth.wrappingAdd(1, ordering: .relaxed).newValue == 1
        if outer { ReadWatchdog.shared.arm(self, due: monotonicSeconds() + deadline) }
        defer {
            if guardDepth.wrappingSubtract(1, ordering: .relaxed).newValue == 0 { ReadWatchdog.shared.disarm(self) }
        }
        return try body()
    }

    /// One blocking step (a read, a listing) on this thread. If it overran and the thread was
    /// retired meanwhile, this does not return: the owner hears that it came back, and the
    /// thread ends.
    package func step<T>(_ label: String, owner: any BlockingStepOwner, _ body: () -> T) -> T {
        if ticked {
            // The coarse clock, as `givesUpInterruptedStep` reads it: a started time up to a
            // tick early makes a given-up read's "no answer after" that much longer.
            let started = coarseMonotonicSeconds()
            callerStep.started = started
            let result = body()
            callerStep.started = nil
            if callerStep.abandoned {
                callerStep.abandoned = false
                givenUp.append((label, owner))
                owner.stepAbandoned(label, started: started)
            }
            return result
        }
        state.withLock { $0.step = Step(label: label, started: monotonicSeconds(), owner: owner) }
        let result = body()
        let retired = state.withLock { s -> Bool in
            s.step = nil
            return s.retired
        }
        if retired {
            owner.stepReturnedLate(label)
            Self.end()
        }
        return result
    }

    /// Called by a reader whose syscall failed with EINTR: whether to give it up rather than
    /// make it again. Only on a ticked thread (elsewhere an interruption is another thread's
    /// signal, and the watchdog judges hung reads), and only once the step in progress is past
    /// its deadline (or, after a step was given up on, past the pass's budget and its grace).
    /// Keeps `errno`.
    package static func givesUpInterruptedStep() -> Bool {
        guard let thread = current, thread.ticked else { return false }
        let saved = errno
        defer { errno = saved }
        guard let started = thread.callerStep.started else { return false }
        let now = coarseMonotonicSeconds()
        var due = started + thread.deadline
        if let end = thread.callerStep.budgetEnd { due = min(due, max(end, started + thread.grace)) }
        guard now >= due else { return false }
        thread.callerStep.abandoned = true
        if thread.callerStep.budgetEnd == nil { thread.callerStep.budgetEnd = now + thread.deadline }
        return true
    }

    enum Check { case overran(label: String, started: Double, owner: any BlockingStepOwner), recheck(at: Double) }

    /// What the kernel says a thread is doing (the state letter in /proc/self/task/TID/stat).
    package enum KernelState: Sendable, Equatable {
        /// `R`: running, or runnable and waiting for a CPU.
        case runnable
        /// `D`: asleep uninterruptibly, on a lock, a page, the disk or a driver's transfer.
        case uninterruptible
        /// Anything else (`S`: asleep until an event that may never come, such as a FIFO's
        /// writer), or unknown (no /proc).
        case asleep
    }

    package enum Verdict: Sendable, Equatable { case retire, recheck(at: Double) }

    /// The rule for a step that started at `started` and is past `deadline` at `now`:
    /// - runnable: not hung, only not given a CPU (a loaded machine, exactly when a thermal
    ///   monitor runs): looked at again a deadline later;
    /// - asleep uninterruptibly: a wait the kernel ends by itself, slow under load, or a driver
    ///   stuck in its transfer: waited for until `uninterruptibleDeadline` after its start,
    ///   looked at every deadline meanwhile (it may turn into an interruptible wait);
    /// - asleep otherwise: hung, retired.
    package static func verdict(started: Double, now: Double, state: KernelState,
                                deadline: Double, uninterruptibleDeadline: Double) -> Verdict {
        switch state {
        case .runnable:
            return .recheck(at: now + deadline)
        case .uninterruptible where now < started + uninterruptibleDeadline:
            return .recheck(at: min(started + uninterruptibleDeadline, now + deadline))
        case .uninterruptible, .asleep:
            return .retire
        }
    }

    /// The watchdog's question at `now`: is the step in progress past its deadline, and is
    /// the thread hung in it (`verdict`)? If so the thread is retired (atomically with the
    /// step's end, so a read returning right now either finishes normally or sees the
    /// retirement).
    func check(now: Double) -> Check {
        let (overdue, tid) = state.withLock { s -> (Step?, Int32) in
            guard let step = s.step, now >= step.started + deadline else { return (nil, s.tid) }
            return (step, s.tid)
        }
        guard let overdue else {
            return state.withLock { s in .recheck(at: (s.step?.started ?? now) + deadline) }
        }
        let verdict = Self.verdict(started: overdue.started, now: now, state: Self.kernelState(tid),
                                   deadline: deadline, uninterruptibleDeadline: uninterruptibleDeadline)
        if case .recheck(let at) = verdict { return .recheck(at: at) }
        return state.withLock { s in
            // Only the step that was found blocked, if it is still the one in progress.
            guard let step = s.step, step.started == overdue.started, step.label == overdue.label else {
                return .recheck(at: (s.step?.started ?? now) + deadline)
            }
            s.retired = true
            return .overran(label: step.label, started: step.started, owner: step.owner)
        }
    }

    /// The thread's state in /proc/self/task/TID/stat. Unknown (no /proc): `.asleep`, so a
    /// step past its deadline is treated as hung.
    package static func kernelState(_ tid: Int32) -> KernelState {
        guard tid > 0 else { return .asleep }
        let fd = open("/proc/self/task/\(tid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .asleep }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { buffer in
            let n = read(fd, buffer.baseAddress, buffer.count)
            guard n > 0 else { return .asleep }
            // `tid (comm) S …`: the state follows the last ')' (comm may hold anything).
            guard let paren = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")), paren + 2 < n else { return .asleep }
            switch buffer[paren + 2] {
            case UInt8(ascii: "R"): return .runnable
            case UInt8(ascii: "D"): return .uninterruptible
            default: return .asleep
            }
        }
    }

    func retire(label: String, started: Double, owner: any BlockingStepOwner) {
        owner.stepOverran(label, started: started, on: self)
        let (held, thread) = state.withLock { s in (Array(s.held.values), s.thread) }
        for lock in held { lock.release(holder: thread) }
        onRetire(self)
    }

    // Kept for a retirement to release; a ticked caller is never retired, so it keeps none (a
    // lock round trip and, at the first, a dictionary of a type of its own, per one-shot).
    fileprivate func took(_ lock: HandoverLock) {
        guard !ticked else { return }
        state.withLock { $0.held[ObjectIdentifier(lock)] = lock }
    }
    fileprivate func gaveBack(_ lock: HandoverLock) {
        guard !ticked else { return }
        state.withLock { $0.held[ObjectIdentifier(lock)] = nil }
    }

    /// Never returns: a retired thread must not run on into work that now belongs to its
    /// successor. The thread ends here (`pthread_exit`: its stack is freed, the Swift frames
    /// above are not unwound, so what they retained stays retained; it holds no lock at this
    /// point, and the handover locks it took were released for it at retirement).
    ///
    /// Its malloc arena (glibc gives a thread started while the others live an arena of its
    /// own) goes to the next thread started, but keeps the pages it had touched: they are
    /// handed back first (`malloc_trim`, which walks every arena's free chunks once), so a
    /// retirement costs the frames' few retained objects, not the arena's whole footprint.
    static func end() -> Never {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
        pthread_exit(nil)
    }
}

private let readingThreadKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// The one watchdog thread: sleeps on a timerfd set to the earliest deadline of the reading
/// threads at work, and is started the first time one arms it, unless a `ReadingThread.run`
/// caller is waiting (it starts the thread itself if its wait reaches half a deadline, or when
/// its wait ends with reads still armed).
final class ReadWatchdog: Sendable {
    static let shared = ReadWatchdog()

    private struct Entry {
        var thread: ReadingThread
        var due: Double
    }
    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// What the timer is set to (nil: disarmed).
        var setTo: Double?
        var started = false
        /// Callers of `ReadingThread.run` waiting for their work: while there are any, the
        /// watchdog's thread is started by them (`endDeferral`), not at the first `arm`.
        var deferrals = 0
    }
    private let state = Mutex(State())
    private let timer: Int32

    private init() {
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC))
    }

    /// Whether the watchdog can work (a timerfd could be made); without it reads cannot be
    /// guarded, and callers must not read on their own thread.
    var isAvailable: Bool { timer >= 0 }

    func arm(_ thread: ReadingThread, due: Double) {
        guard timer >= 0 else { return }
        state.withLock { s in
            s.entries[ObjectIdentifier(thread)] = Entry(thread: thread, due: due)
            if s.deferrals == 0 { startIfNeeded(&s) }
            reset(&s)
        }
    }

    private func startIfNeeded(_ s: inout State) {
        guard !s.started else { return }
        s.started = true
        startThread(name: "thermtop-watch") { [self] in run() }
    }

    /// A caller is about to wait for work on a new reading thread (`ReadingThread.run`): the
    /// watchdog's thread need not exist before a read can be due, a whole deadline after the
    /// work begins. The timer is armed as usual; a timerfd keeps its expiry until read, so a
    /// thread started later still sees it at once.
    func deferStart() { state.withLock { $0.deferrals += 1 } }

    /// The waiting caller is done (`start` false: its work came back) or has waited long
    /// enough that a read could soon be due (`start` true). The thread starts then, or when
    /// the last waiter leaves with reads still armed.
    func endDeferral(start: Bool) {
        state.withLock { s in
            s.deferrals -= 1
            if start || (s.deferrals == 0 && !s.entries.isEmpty) { startIfNeeded(&s) }
        }
    }

    func disarm(_ thread: ReadingThread) {
        guard timer >= 0 else { return }
        state.withLock { s in
            s.entries[ObjectIdentifier(thread)] = nil
            reset(&s)
        }
    }

    /// Set the timer to the earliest due entry, or disarm it; only when that changes.
    private func reset(_ s: inout State) {
        let next = s.entries.values.map(\.due).min()
        guard next != s.setTo else { return }
        s.setTo = next
        var spec = itimerspec()
        if let next {
            let whole = max(0, next.rounded(.down))
            spec.it_value.tv_sec = Int(whole)
            // Never all zero: that would disarm.
            spec.it_value.tv_nsec = max(1, min(999_999_999, Int((next - whole) * 1e9)))
        }
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func run() {
        var expirations: UInt64 = 0
        while true {
            let n = read(timer, &expirations, 8)
            if n < 0 {
                if errno != EINTR && errno != EAGAIN { usleep(10_000) }
                continue
            }
            let now = monotonicSeconds()
            var retiring: [(ReadingThread, String, Double, any BlockingStepOwner)] = []
            state.withLock { s in
                s.setTo = nil   // it fired: a one-shot timer is disarmed now
                for (key, entry) in s.entries where entry.due <= now {
                    switch entry.thread.check(now: now) {
                    case .overran(let label, let started, let owner):
                        s.entries[key] = nil
                        retiring.append((entry.thread, label, started, owner))
                    case .recheck(let at):
                        s.entries[key]?.due = at
                    }
                }
                reset(&s)
            }
            for (thread, label, started, owner) in retiring {
                thread.retire(label: label, started: started, owner: owner)
            }
        }
    }
}

/// A lock that can be released for a holder that will never come back (a retired reading
/// thread parked while holding it).
package final class HandoverLock: @unchecked Sendable {   // `holder` is guarded by `lock`
    private let lock = ConditionLock()
    private let freed: ConditionLock.Condition
    private var holder: UInt?

    package init() { freed = lock.makeCondition() }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let me = UInt(pthread_self())
        lock.withLock {
            while holder != nil { freed.wait(until: nil) }
            holder = me
        }
        let reading = ReadingThread.current
        reading?.took(self)
        defer {
            reading?.gaveBack(self)
            release(holder: me)
        }
        return try body()
    }

    /// Release it if `holder` (a `pthread_self()` value) holds it.
    package func release(holder thread: UInt) {
        lock.withLock {
            guard holder == thread else { return }
            holder = nil
            freed.signal()
        }
    }
}

extension ReadingThread {
    /// Run `work` on a reading thread and return its result: on this thread if it is one (the
    /// sampler), else on a new one the caller waits for. If a read retires that thread, a
    /// successor runs `work` again (the file that hung is then answered `timed-out` at once).
    ///
    /// A step asleep uninterruptibly gets no longer deadline here: the caller is waiting (a
    /// one-shot `status` must answer within its deadline), and the thread is new for this one
    /// call anyway, so retiring it costs nothing a long-lived sampler would keep paying for.
    ///
    /// `meanwhile` runs on the calling thread while the work is under way (on a new thread;
    /// before it, when this thread is a reading thread): the caller's own preparations, made
    /// in time it would otherwise spend waiting.
    ///
    /// `interruptible`: the work's reads are syscalls a signal interrupts (files, not a test's
    /// in-process waits). Then no thread is started: `meanwhile` runs first, and the work on
    /// this thread with the read ticker (see the top of this file), unless the ticker cannot
    /// be made or this thread blocks its signal. `grace`: `ThermalConfig.stalledReadGraceSeconds`.
    package static func run<T: Sendable>(name: String, deadline: Double, interruptible: Bool = false,
                                         grace: Double = ThermalConfig().stalledReadGraceSeconds,
                                         meanwhile: () -> Void = {},
                                         _ work: @escaping @Sendable () -> T) -> T {
        if current != nil {
            meanwhile()
            return work()
        }
        if interruptible, ReadTicker.canTick {
            meanwhile()
            if let ticker = ReadTicker(period: max(0.001, deadline) / 4) {
                // Its OS thread and kernel id stay unset: they are for the watchdog (the state
                // in /proc) and for a retirement, neither of which a ticked caller meets.
                let thread = ReadingThread(tickedCaller: name, deadline: deadline, grace: grace)
                pthread_setspecific(readingThreadKey, Unmanaged.passUnretained(thread).toOpaque())
                defer {
                    pthread_setspecific(readingThreadKey, nil)
                    ticker.stop()
                    for step in thread.givenUp { step.owner.stepReturnedLate(step.label) }
                }
                return withExtendedLifetime(thread) { work() }
            }
            return runOnNewThread(name: name, deadline: deadline, meanwhile: {}, work)
        }
        return runOnNewThread(name: name, deadline: deadline, meanwhile: meanwhile, work)
    }

    private static func runOnNewThread<T: Sendable>(name: String, deadline: Double, meanwhile: () -> Void,
                                                    _ work: @escaping @Sendable () -> T) -> T {
        let result = Handoff<T>()
        @Sendable func launch() {
            ReadingThread(name: name, deadline: deadline, uninterruptibleDeadline: deadline) { _ in
                launch()
            }.start { result.put(work()) }
        }
        // Work that comes back within half the deadline (a `status`: a few milliseconds) never
        // needed the watchdog's thread: it is only started if the wait goes on that long, still
        // half a deadline before any read can be due. One thread fewer to make per one-shot.
        // (The wait begins once `meanwhile` returns: a `meanwhile` longer than that delays the
        // start, and a hung read is then retired that much late, never missed: the timerfd
        // keeps its expiry until read.)
        ReadWatchdog.shared.deferStart()
        launch()
        let watchdogBy = monotonicSeconds() + max(0.001, deadline) / 2
        meanwhile()
        if let value = result.take(until: watchdogBy) {
            ReadWatchdog.shared.endDeferral(start: false)
            return value
        }
        ReadWatchdog.shared.endDeferral(start: true)
        return result.take()
    }
}

/// The timer that interrupts a ticked reading thread's sleeping reads (see the top of this
/// file): made per one-shot, on the thread that reads, and stopped (deleted) after its work.
private struct ReadTicker {
    /// The kernel's timer id as glibc gives it (0 is a valid id, a nil pointer here).
    private let timer: timer_t?

    /// Whether ticks can interrupt this thread's reads (`thermtop_read_tick_ready`: the
    /// signal's handler is ours, and the thread does not block it).
    static var canTick: Bool { thermtop_read_tick_ready() == 1 }

    /// Ticking at the calling thread every `period` seconds; nil when no timer could be made.
    init?(period: Double) {
        var timer: timer_t?
        guard thermtop_read_ticker_start(&timer, Int64(period * 1e9)) == 0 else { return nil }
        self.timer = timer
    }

    func stop() { thermtop_read_ticker_stop(timer) }
}

/// One value passed from one thread to another that waits for it.
private final class Handoff<T: Sendable>: @unchecked Sendable {   // `value` is guarded by `lock`
    private let lock = ConditionLock()
    private let ready: ConditionLock.Condition
    private var value: T?

    init() { ready = lock.makeCondition() }

    func put(_ v: T) {
        lock.withLock {
            value = v
            ready.signal()
        }
    }

    func take() -> T {
        lock.withLock {
            while value == nil { ready.wait(until: nil) }
            return value!
        }
    }

    /// The value, or nil if none came by `deadline` (CLOCK_MONOTONIC seconds).
    func take(until deadline: Double) -> T? {
        lock.withLock {
            while value == nil && monotonicSeconds() < deadline { ready.wait(until: deadline) }
            return value
        }
    }
}
