import Synchronization
import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs file reads on reader threads and gives up on any read that does not answer within the
/// deadline, so a hung driver, a slow SMBus sensor or a FIFO in a fixture tree costs one
/// deadline, not the sample.
///
/// - One reader thread serves every batch; it sleeps between batches, and ends after
///   `idleExit` seconds without one (the next batch starts another), so a root that reads
///   through the gate only for a while (a sampler after a stall) keeps no extra thread.
/// - A read past its deadline is answered `timed-out`; its thread is abandoned (left to finish
///   on its own and exit when the kernel finally returns, never given another read) and the
///   path is *stuck*: later batches answer it `timed-out` at once, without touching it, until
///   that read returns.
/// - At most `abandonLimit` abandoned threads exist at once: a thread stuck in the kernel
///   cannot be ended, so that bound is what keeps a tree of hung files from growing the
///   process without end. At the bound no reader is started in place of the abandoned ones,
///   and the files that would need one are answered `timed-out` until a hung read returns.
/// - A hand-off between the caller and the reader spins (lock attempts and yields, at most
///   `handoffSpin`) before it sleeps: a sysfs read answers in microseconds, and discovery reads
///   files one by one, each result deciding the next path, so sleeping on every hand-off
///   would add two context switches and their wake-up latency to every file; the spin is
///   bounded, so an idle monitor still sleeps.
/// - After a first stall the rest of the pass shares one more deadline and is read on up to
///   `maxReaders` threads at once; reads started after that get a short grace, and whatever is
///   still queued a deadline later is not read this time. So a stalled pass costs at most about
///   three deadlines, however many files hang.
/// - One thread may claim the gate's reads (`readOnThisThread`, the hub's sampler): its batches
///   are read on that thread, with no hand-off and so no wakeup of another thread, while
///   `ReadWatchdog` watches the read in flight. A read past its deadline there gives the gate
///   up: the path is hung, the gate is *retired* (every later read answers at once, so the
///   stuck thread's sample ends as soon as the kernel lets it go) and the claimant's
///   `onStuck` is called, on the watchdog's thread, to go on with a fork of the root.
/// - Hung paths and the threads left in them are shared with the roots forked from this one
///   (`HungReads`), and `abandonLimit` bounds them all together.
final class ReadGate: @unchecked Sendable {   // every mutable field is guarded by `lock`
    let backend: any SysfsBackend
    let deadline: Double
    let grace: Double
    let maxReaders: Int
    /// Seconds a hand-off spins before sleeping (0: sleep at once).
    let handoffSpin: Double
    /// Seconds an idle reader waits for a batch before it ends.
    let idleExit: Double
    /// The most abandoned threads (still in a hung read) this gate lets exist at once.
    let abandonLimit: Int

    private let lock = ConditionLock()
    private let work: ConditionLock.Condition
    private let done: ConditionLock.Condition
    /// Serialises batches (one coordinator at a time).
    private let batchLock = ConditionLock()

    private struct Job { var index: Int; var path: String; var keepOpen: Bool }
    private struct Flight { var path: String; var started: Double; var reader: Int }

    private var queue: [Job] = []
    private var head = 0
    private var results: [Result<String, ReadingIssue>?] = []
    private var remaining = 0
    private var inFlight: [Int: Flight] = [:]
    /// Readers that take jobs (not abandoned).
    private var readers: Set<Int> = []
    private var nextReader = 0
    private var abandoned: Set<Int> = []
    /// Paths whose read is still hung, shared with forked roots.
    let hung: HungReads
    /// The thread that reads this gate's batches itself, and what to call when a read there
    /// hangs.
    private var claimant: (thread: pthread_t, onStuck: @Sendable () -> Void)?
    /// The claimant's read in flight.
    private var claimantFlight: Flight?
    /// Given up on after the claimant's read hung: nothing is read through this gate any more.
    private var retired = false
    /// When a pass that stalled must be done by.
    private var budgetEnd: Double?
    /// Batches handed to reader threads since creation (not those read on the claimant's).
    private var batches = 0
    /// Set when the owning root goes away: idle readers leave (they hold the gate strongly).
    private var closing = false

    init(backend: any SysfsBackend, deadline: Double, grace: Double, maxReaders: Int = 4,
         handoffSpin: Double = 0.000_1, idleExit: Double = ThermalConfig().idleReaderSeconds,
         abandonLimit: Int = ReadGate.defaultAbandonLimit, hung: HungReads = HungReads()) {
        self.backend = backend
        self.hung = hung
        self.abandonLimit = max(0, abandonLimit)
        self.idleExit = max(0.001, idleExit)
        self.handoffSpin = max(0, min(handoffSpin, 0.001))
        self.deadline = max(0.001, deadline)
        self.grace = max(0.001, min(grace, deadline))
        self.maxReaders = max(1, maxReaders)
        work = lock.makeCondition()
        done = lock.makeCondition()
    }

    /// Paths being read right now or still hung (their descriptors must not be closed).
    var busyPaths: Set<String> {
        lock.withLock { Set(hung.paths).union(inFlight.values.map(\.path)).union(claimantFlight.map { [$0.path] } ?? []) }
    }

    /// The default `abandonLimit`: enough for a few hung drivers at once, few enough that
    /// their stacks stay a few megabytes.
    static let defaultAbandonLimit = 8

    var stuckPaths: [String] { hung.paths }
    /// Reads given up on, with those of the roots it shares `hung` with.
    var stallCount: Int { hung.timeouts }
    var batchCount: Int { lock.withLock { batches } }
    var readerThreads: Int { lock.withLock { readers.count + abandoned.count } }
    /// Threads still in a hung read (this gate's readers and replaced samplers, with those of
    /// the roots it shares `hung` with).
    var abandonedThreads: Int { hung.threads }
    /// Whether a read on the claimant's thread hung and the gate was given up.
    var isRetired: Bool { lock.withLock { retired } }

    /// The root is gone: wake the idle reader so it leaves, releasing the gate and its backend
    /// (open value files included). Without this every root ever made kept a sleeping thread:
    /// one per rediscovery for the power-profiles state file's root, one per replay.
    func shutdown() {
        lock.withLock {
            closing = true
            work.broadcast()
        }
    }

    /// The answer for a read given up on as it hung: timed out, with how long it went
    /// unanswered.
    static func unanswered(_ path: String, after seconds: Double) -> ReadingIssue {
        ReadingIssue(file: path, reason: .timedOut, detail: "no answer after \(Self.seconds(seconds))")
    }

    /// A pass is over: the next stall starts a new budget.
    func closeStallWindow() { lock.withLock { budgetEnd = nil } }

    /// Let the calling thread read this gate's batches itself from now on, under the watchdog;
    /// `onStuck` is called once, on another thread, when one of its reads hangs. False (reads
    /// stay handed off) when the process has no watchdog.
    func readOnThisThread(onStuck: @escaping @Sendable () -> Void) -> Bool {
        guard ReadWatchdog.shared != nil else { return false }
        lock.withLock { claimant = (pthread_self(), onStuck) }
        return true
    }

    /// The claimant stops reading here; every caller's batches are handed off again.
    func endReadsOnThisThread() {
        lock.withLock { if claimant.map({ pthread_equal($0.thread, pthread_self()) != 0 }) == true { claimant = nil } }
    }

    /// Read every path; results in the same order.
    func readAll(_ requests: [(path: String, keepOpen: Bool)]) -> [Result<String, ReadingIssue>] {
        let (onClaimant, givenUp) = lock.withLock { () -> (Bool, Bool) in
            guard let claimant else { return (false, retired) }
            return (pthread_equal(claimant.thread, pthread_self()) != 0, retired)
        }
        if givenUp { return requests.map { .failure(Self.replaced($0.path)) } }
        if onClaimant, let watchdog = ReadWatchdog.shared { return readHere(requests, watchdog: watchdog) }
        batchLock.lock()
        defer { batchLock.unlock() }
        lock.lock()
        defer { lock.unlock() }
        batches += 1
        queue = []
        head = 0
        results = Array(repeating: nil, count: requests.count)
        remaining = 0
        let start = monotonicSeconds()
        if let end = budgetEnd, start - end > deadline { budgetEnd = nil }
        for (i, r) in requests.enumerated() {
            if let since = hung.since(r.path) {
                results[i] = .failure(ReadingIssue(
                    file: r.path, reason: .timedOut,
                    detail: "still hung after \(Self.seconds(start - since)); not retried"))
            } else {
                queue.append(Job(index: i, path: r.path, keepOpen: r.keepOpen))
                remaining += 1
            }
        }
        while remaining > 0 {
            let now = monotonicSeconds()
            // A job no reader has taken yet expires no earlier than if it started now.
            var wake = expiry(of: Flight(path: "", started: now, reader: 0))
            for (index, flight) in inFlight {
                let expiry = expiry(of: flight)
                if now >= expiry { expire(index, flight, now: now) } else { wake = min(wake, expiry) }
            }
            if let end = budgetEnd, now >= end + deadline, head < queue.count {
                for job in queue[head...] {
                    results[job.index] = .failure(ReadingIssue(
                        file: job.path, reason: .timedOut, detail: "not read: the sample ran out of time"))
                    remaining -= 1
                }
                head = queue.count
            }
            if remaining == 0 { break }
            if !staffReaders() {
                // No reader can take the rest: every one allowed is stuck in a hung read.
                for job in queue[head...] {
                    results[job.index] = .failure(ReadingIssue(
                        file: job.path, reason: .timedOut,
                        detail: "not read: \(hung.threads) reads still hung"))
                    remaining -= 1
                }
                head = queue.count
                break
            }
            if spin(until: min(wake, monotonicSeconds() + handoffSpin), while: { $0.remaining > 0 }) { continue }
            done.wait(until: wake)
        }
        let out = results.map { $0! }
        results = []
        queue = []
        return out
    }

    private func expiry(of flight: Flight) -> Double {
        let own = flight.started + deadline
        guard let end = budgetEnd else { return own }
        return min(own, max(end, flight.started + grace))
    }

    private func expire(_ index: Int, _ flight: Flight, now: Double) {
        inFlight[index] = nil
        results[index] = .failure(Self.unanswered(flight.path, after: now - flight.started))
        remaining -= 1
        hung.hang(flight.path, since: flight.started)
        readers.remove(flight.reader)
        abandoned.insert(flight.reader)
        if budgetEnd == nil { budgetEnd = now + deadline }
    }

    /// One reader normally; after a stall, up to `maxReaders` so the rest of the pass is not
    /// serialised behind further hung files. None is started while `abandonLimit` abandoned
    /// threads exist. False when queued work has no reader and none can be started.
    private func staffReaders() -> Bool {
        let queued = queue.count - head
        guard queued > 0 else { return true }
        let busy = inFlight.count
        let idle = readers.count - busy
        let wanted = budgetEnd == nil ? 1 : min(maxReaders, busy + queued)
        var toStart = max(0, wanted - readers.count)
        if readers.isEmpty { toStart = max(toStart, 1) }
        if hung.threads >= abandonLimit { toStart = 0 }
        for _ in 0..<toStart {
            nextReader += 1
            let id = nextReader
            readers.insert(id)
            if !startThread(name: "thermtop-read", inlineOnFailure: false, { [self] in readerLoop(id) }) {
                readers.remove(id)
                break
            }
        }
        if idle > 0 { work.broadcast() }
        return !readers.isEmpty
    }

    private func readerLoop(_ id: Int) {
        lock.lock()
        while true {
            if head < queue.count {
                let job = queue[head]
                head += 1
                inFlight[job.index] = Flight(path: job.path, started: monotonicSeconds(), reader: id)
                lock.unlock()
                let result = backend.read(job.path, keepOpen: job.keepOpen)
                lock.lock()
                if abandoned.contains(id) {
                    // Given up on: the batch has moved on. The file answers again, so it is
                    // no longer stuck; this thread leaves.
                    abandoned.remove(id)
                    hung.answered(job.path)
                    lock.unlock()
                    return
                }
                inFlight[job.index] = nil
                results[job.index] = result
                remaining -= 1
                if remaining == 0 { done.signal() }
                continue
            }
            // Extra readers started after a stall leave once the queue is empty; the first
            // stays, asleep until the next batch or for `idleExit`.
            if readers.count > 1 || closing {
                readers.remove(id)
                lock.unlock()
                return
            }
            if spin(until: monotonicSeconds() + handoffSpin, while: { $0.head >= $0.queue.count }) { continue }
            let idleUntil = monotonicSeconds() + idleExit
            work.wait(until: idleUntil)
            if head >= queue.count, monotonicSeconds() >= idleUntil {
                // `staffReaders` starts a reader for the next batch when none is left.
                readers.remove(id)
                lock.unlock()
                return
            }
        }
    }

    /// The claimant's reads, made here one by one. A path already hung is answered at once; at
    /// `abandonLimit` threads in hung reads nothing is read (as for handed-off batches). The
    /// watchdog is armed for the batch and each read records when it started, so a read
    /// that overruns is found however long the batch has been going.
    private func readHere(_ requests: [(path: String, keepOpen: Bool)], watchdog: ReadWatchdog) -> [Result<String, ReadingIssue>] {
        watchdog.arm(self, due: monotonicSeconds() + deadline)
        defer { watchdog.disarm(self) }
        var out: [Result<String, ReadingIssue>] = []
        out.reserveCapacity(requests.count)
        for r in requests {
            let started = monotonicSeconds()
            let answered = lock.withLock { () -> Result<String, ReadingIssue>? in
                if retired { return .failure(Self.replaced(r.path)) }
                if let since = hung.since(r.path) {
                    return .failure(ReadingIssue(file: r.path, reason: .timedOut,
                                                 detail: "still hung after \(Self.seconds(started - since)); not retried"))
                }
                let threads = hung.threads
                if threads >= abandonLimit {
                    return .failure(ReadingIssue(file: r.path, reason: .timedOut, detail: "not read: \(threads) reads still hung"))
                }
                claimantFlight = Flight(path: r.path, started: started, reader: 0)
                return nil
            }
            if let answered { out.append(answered); continue }
            let result = backend.read(r.path, keepOpen: r.keepOpen)
            let gaveUp = lock.withLock { () -> Bool in
                claimantFlight = nil
                return retired
            }
            if gaveUp {
                // This read was the one given up on: it answers again, and this thread leaves
                // once its sample (answered at once from here on) is over.
                hung.answered(r.path)
                out.append(.failure(Self.unanswered(r.path, after: monotonicSeconds() - started)))
            } else {
                out.append(result)
            }
        }
        return out
    }

    /// The watchdog woke for this gate at `now`: give up on the claimant's read if it is past
    /// its deadline, else say when to look again.
    func watchdogFired(now: Double) -> ReadWatchdog.Verdict {
        let stuck = lock.withLock { () -> (@Sendable () -> Void)? in
            guard !retired else { return nil }
            guard let flight = claimantFlight, now >= flight.started + deadline else { return nil }
            retired = true
            hung.hang(flight.path, since: flight.started)
            return claimant?.onStuck
        }
        if let stuck {
            stuck()
            return .done
        }
        return lock.withLock { () -> ReadWatchdog.Verdict in
            if retired { return .done }
            // Between two reads, or in one that started less than a deadline ago.
            return .lookAgain(at: (claimantFlight?.started ?? now) + deadline)
        }
    }

    /// The answer of a gate given up on: its claimant's reads go on through a fork.
    static func replaced(_ path: String) -> ReadingIssue {
        ReadingIssue(file: path, reason: .timedOut, detail: "not read: a read hung and its reader was replaced")
    }

    /// Called and returning with `lock` held. Lets go of the lock and spins until `waiting` turns
    /// false (checked under the lock, taken only with trylock so the other side never blocks
    /// on it) or `end` passes. True when the condition changed during the spin.
    private func spin(until end: Double, while waiting: (ReadGate) -> Bool) -> Bool {
        guard handoffSpin > 0 else { return false }
        lock.unlock()
        while monotonicSeconds() < end {
            sched_yield()
            if lock.tryLock() {
                if !waiting(self) { return true }
                lock.unlock()
            }
        }
        lock.lock()
        return !waiting(self)
    }

    static func seconds(_ s: Double) -> String {
        s < 1 ? "\(Int((s * 1000).rounded())) ms" : "\(Int(s.rounded())) s"
    }
}
