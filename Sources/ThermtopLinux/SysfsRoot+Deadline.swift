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
    /// Paths whose read is still hung, with when it started.
    private var stuck: [String: Double] = [:]
    /// When a pass that stalled must be done by.
    private var budgetEnd: Double?
    /// Stalls since creation.
    private var stalls = 0
    /// Batches handed to reader threads since creation.
    private var batches = 0
    /// Set when the owning root goes away: idle readers leave (they hold the gate strongly).
    private var closing = false

    init(backend: any SysfsBackend, deadline: Double, grace: Double, maxReaders: Int = 4,
         handoffSpin: Double = 0.000_1, idleExit: Double = ThermalConfig().idleReaderSeconds,
         abandonLimit: Int = ReadGate.defaultAbandonLimit) {
        self.backend = backend
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
        lock.withLock { Set(stuck.keys).union(inFlight.values.map(\.path)) }
    }

    /// The default `abandonLimit`: enough for a few hung drivers at once, few enough that
    /// their stacks stay a few megabytes.
    static let defaultAbandonLimit = 8

    var stuckPaths: [String] { lock.withLock { stuck.keys.sorted() } }
    var stallCount: Int { lock.withLock { stalls } }
    var batchCount: Int { lock.withLock { batches } }
    var readerThreads: Int { lock.withLock { readers.count + abandoned.count } }
    /// Abandoned threads still in their hung read.
    var abandonedThreads: Int { lock.withLock { abandoned.count } }

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
            if !staffReaders() {
                // No reader can take the rest: every one allowed is stuck in a hung read.
                for job in queue[head...] {
                    results[job.index] = .failure(ReadingIssue(
                        file: job.path, reason: .timedOut,
                        detail: "not read: \(abandoned.count) reads still hung"))
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
        stuck[flight.path] = flight.started
        readers.remove(flight.reader)
        abandoned.insert(flight.reader)
        stalls += 1
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
        if abandoned.count >= abandonLimit { toStart = 0 }
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
