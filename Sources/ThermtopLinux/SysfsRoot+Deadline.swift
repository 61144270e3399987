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
/// - A read past its deadline is answered `timed-out`; its thread is abandoned (it exits
///   when the kernel finally returns) and the path is *stuck*: later batches answer it
///   `timed-out` at once, without touching it, until that read returns.
/// - A hand-off between the caller and the reader spins (lock attempts and yields, at most
///   `handoffSpin`) before it sleeps: a sysfs read answers in microseconds, and discovery reads
///   files one by one, each result deciding the next path. Sleeping on every hand-off cost two
///   context switches per file (~470 at the dashboard's start, ~1500 futex calls in one
///   `status`) and their wake-up latency; the spin is bounded, so an idle monitor still sleeps.
/// - After a first stall the rest of the pass shares one more deadline and is read on up to
///   `maxReaders` threads at once; reads started after that get a short grace, and whatever is
///   still queued a deadline later is not read this time. So a stalled pass costs at most about
///   three deadlines, however many files hang.
final class ReadGate: @unchecked Sendable {   // every mutable field is guarded by `lock`
    let backend: any SysfsBackend
    let deadline: Double
    let grace: Double
    let maxReaders: Int
    /// Seconds a hand-off spins before sleeping (0: sleep at once).
    let handoffSpin: Double
    /// Seconds an idle reader waits for a batch before it ends.
    let idleExit: Double

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
    /// Paths whose read is still hung, with when it started.
    private var stuck: [String: Double] = [:] {
        didSet { stuckCount.store(stuck.count, ordering: .releasing) }
    }
    /// How many paths `stuck` holds, read without the lock: every read asks `isStuck`, and the
    /// table is almost always empty (the lock was ~200 instructions a read for nothing).
    private let stuckCount = Atomic<Int>(0)
    /// When a pass that stalled must be done by.
    private var budgetEnd: Double?
    /// Stalls since creation.
    private var stalls = 0
    /// Batches handed to reader threads since creation.
    private var batches = 0
    /// Set when the owning root goes away: idle readers leave (they hold the gate strongly).
    private var closing = false

    init(backend: any SysfsBackend, deadline: Double, grace: Double, maxReaders: Int = 4,
         handoffSpin: Double = 0.000_1, idleExit: Double = ThermalConfig().idleReaderSeconds) {
        self.backend = backend
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
        lock.withLock { Set(stuck.keys).union(inFlight.values.map(\.path)) }
    }

    var stuckPaths: [String] { stuckTable.keys.sorted() }
    var stallCount: Int { lock.withLock { stalls } }
    var batchCount: Int { lock.withLock { batches } }
    var readerThreads: Int { lock.withLock { readers.count + abandoned.count } }

    /// The root is gone: wake the idle reader so it leaves, releasing the gate and its backend
    /// (open value files included). Without this every root ever made kept a sleeping thread:
    /// one per rediscovery for the power-profiles state file's root, one per replay.
    func shutdown() {
        lock.withLock {
            closing = true
            work.broadcast()
        }
    }

    /// The paths stuck right now, with when each stalled: a copy of the table (no set built
    /// from it, nothing hashed while it is empty).
    var stuckTable: [String: Double] { stuckCount.load(ordering: .acquiring) == 0 ? [:] : lock.withLock { stuck } }

    /// Whether `path`'s read is stuck right now (one lookup, no copy of the table).
    func isStuck(_ path: String) -> Bool {
        stuckCount.load(ordering: .acquiring) > 0 && lock.withLock { stuck[path] != nil }
    }

    /// Since when `path`'s read has been stuck; nil when it is not.
    func stuckSince(_ path: String) -> Double? {
        stuckCount.load(ordering: .acquiring) == 0 ? nil : lock.withLock { stuck[path] }
    }

    /// The answer for a read given up on as it hung (`expire`, or a step a ticked reading
    /// thread gave up on): timed out, with how long it went unanswered.
    static func unanswered(_ path: String, after seconds: Double) -> ReadingIssue {
        ReadingIssue(file: path, reason: .timedOut, detail: "no answer after \(Self.seconds(seconds))")
    }

    /// A read made outside the gate (on a reading thread) overran: answered like one of ours
    /// that hung, until `unstick`.
    func markStuck(_ path: String, since: Double) {
        lock.withLock {
            stuck[path] = since
            stalls += 1
        }
    }

    /// That read came back.
    func unstick(_ path: String) { lock.withLock { stuck[path] = nil } }

    /// A pass is over: the next stall starts a new budget.
    func closeStallWindow() { lock.withLock { budgetEnd = nil } }

    /// Read every path; results in the same order.
    func readAll(_ requests: [(path: String, keepOpen: Bool)]) -> [Result<String, ReadingIssue>] {
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
            if let since = stuck[r.path] {
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
            staffReaders()
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
        stuck[flight.path] = flight.started
        readers.remove(flight.reader)
        abandoned.insert(flight.reader)
        stalls += 1
        if budgetEnd == nil { budgetEnd = now + deadline }
    }

    /// One reader normally; after a stall, up to `maxReaders` so the rest of the pass is not
    /// serialised behind further hung files.
    private func staffReaders() {
        let queued = queue.count - head
        guard queued > 0 else { return }
        let busy = inFlight.count
        let idle = readers.count - busy
        let wanted = budgetEnd == nil ? 1 : min(maxReaders, busy + queued)
        var toStart = max(0, wanted - readers.count)
        if readers.isEmpty { toStart = max(toStart, 1) }
        for _ in 0..<toStart {
            nextReader += 1
            let id = nextReader
            readers.insert(id)
            startThread(name: "thermtop-read") { [self] in readerLoop(id) }
        }
        if idle > 0 { work.broadcast() }
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
                    stuck[job.path] = nil
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
