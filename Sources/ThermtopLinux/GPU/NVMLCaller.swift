#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// Runs NVML queries on a thread of their own, under a deadline per call: a driver that never
/// answers costs the sampler one deadline, and the GPU is shown `timed-out`.
///
/// One caller (one thread) per key, for the life of the process: a key is a GPU's bus id, or
/// `init`. A caller whose last query is still hung answers at once (nil) without starting
/// anything, so however long a driver hangs there is at most one thread per GPU.
final class NVMLCaller: @unchecked Sendable {   // every mutable field is guarded by `lock`
    private let lock = ConditionLock()
    private let changed: ConditionLock.Condition
    private var job: (() -> Void)?
    /// A query is under way (or hung): set by `run`, cleared by the thread when it returns.
    private var running = false
    /// When the query under way last finished a call (`tick`).
    private var progressAt = 0.0
    private var started = false
    private var failedToStart = false

    private init() { changed = lock.makeCondition() }

    private static let registry = ConditionLock()
    nonisolated(unsafe) private static var callers: [String: NVMLCaller] = [:]   // guarded by `registry`

    /// The caller for `key`, made on first use.
    static func named(_ key: String) -> NVMLCaller {
        registry.withLock {
            if let c = callers[key] { return c }
            let c = NVMLCaller()
            callers[key] = c
            return c
        }
    }

    /// A call of the query under way has returned: the next one gets a full deadline.
    func tick() { lock.withLock { progressAt = monotonicSeconds() } }

    /// Runs `body` on this caller's thread and waits for it while no single call in it (from
    /// one `tick` to the next) has run `deadline` seconds. nil when it overran, or when the
    /// previous query is still hung.
    func run<T>(deadline: Double, _ body: @escaping (NVMLCaller) -> T) -> T? {
        let box = ResultBox<T>()
        lock.lock()
        defer { lock.unlock() }
        if running || failedToStart { return nil }
        if !started {
            started = true
            failedToStart = !startLoop()
            if failedToStart { return nil }
        }
        running = true
        progressAt = monotonicSeconds()
        job = { box.value = body(self) }
        changed.broadcast()
        while running {
            let limit = progressAt + deadline
            if monotonicSeconds() >= limit { return nil }
            changed.wait(until: limit)
        }
        return box.value
    }

    private func loop() {
        lock.lock()
        while true {
            while job == nil { changed.wait(until: nil) }
            let j = job!
            job = nil
            lock.unlock()
            j()
            lock.lock()
            running = false
            changed.broadcast()
        }
    }

    /// A thread running `loop`; false when none could be made (the GPU then reads as timed
    /// out rather than blocking the sampler on a query it cannot bound).
    private func startLoop() -> Bool {
        startThread(name: "thermtop-nvml", inlineOnFailure: false) { [self] in loop() }
    }
}

/// A query's answer, written by the caller's thread before it clears `running` under the lock,
/// read by the waiter after it sees that: the lock orders the two.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
