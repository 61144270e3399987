#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The few threading primitives the sampler and the deadline-bounded reads need. Swift's
// Synchronization.Mutex has no condition variable and no timed wait, and a thread stuck in a
// hung read(2) must never hold up a Swift concurrency pool thread, so these wrap pthreads.
// `package`: shared by thermtop's modules, never visible to `import Thermtop` users.

/// A pthread mutex with condition variables that wait on CLOCK_MONOTONIC.
/// Sendable for real: every use of the state it protects goes through `withLock`.
package final class ConditionLock: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    /// Takes the lock only if it is free at once (for bounded spins that must never block).
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
    package func unlock() { pthread_mutex_unlock(mutex) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// A condition tied to this lock.
    package final class Condition: @unchecked Sendable {
        private let cond: UnsafeMutablePointer<pthread_cond_t>
        private let lock: ConditionLock

        fileprivate init(lock: ConditionLock) {
            self.lock = lock
            cond = .allocate(capacity: 1)
            var attr = pthread_condattr_t()
            pthread_condattr_init(&attr)
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
            pthread_cond_init(cond, &attr)
            pthread_condattr_destroy(&attr)
        }

        deinit {
            pthread_cond_destroy(cond)
            cond.deallocate()
        }

        /// Wait (the lock held) until signalled or until `deadline` on the monotonic clock
        /// (nil: no timeout). Spurious wake-ups happen: callers re-check their predicate.
        package func wait(until deadline: Double?) {
            guard let deadline else {
                pthread_cond_wait(cond, lock.mutex)
                return
            }
            var ts = timespec(seconds: deadline)
            pthread_cond_timedwait(cond, lock.mutex, &ts)
        }

        package func signal() { pthread_cond_signal(cond) }
        package func broadcast() { pthread_cond_broadcast(cond) }
    }

    package func makeCondition() -> Condition { Condition(lock: self) }
}

extension timespec {
    /// `seconds` (a time on CLOCK_MONOTONIC, or a span) as whole seconds and nanoseconds.
    package init(seconds: Double) {
        self.init()
        let whole = seconds.rounded(.down)
        tv_sec = Int(whole)
        tv_nsec = min(999_999_999, Int((seconds - whole) * 1e9))
    }
}

/// Seconds on CLOCK_MONOTONIC (the clock the conditions wait on).
package func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Start a detached OS thread running `body`: for the sampler and the file readers, threads
/// that may block in a syscall for as long as the kernel likes without starving anything else.
/// When no thread can be made (a resource limit) `body` runs here instead when `inlineOnFailure`,
/// else not at all; the answer says whether a thread was started.
@discardableResult
package func startThread(name: String, inlineOnFailure: Bool = true, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: @unchecked Sendable {   // immutable after init; handed to the new thread once
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
    var thread = pthread_t()
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
    // Small stacks: these threads run shallow code; some may sit in hung reads.
    pthread_attr_setstacksize(&attr, 512 * 1024)
    let rc = pthread_create(&thread, &attr, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        Syscalls.setThreadName(box.name)
        box.body()
        return nil
    }, box)
    pthread_attr_destroy(&attr)
    if rc != 0 {
        let body = Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body
        if inlineOnFailure { body() }
        return false
    }
    return true
}

/// A value behind a `ConditionLock`, with one condition to wait for it to change.
/// Sendable for real: the value is touched only inside `withLock` and `wait`.
package final class Guarded<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private let changed: ConditionLock.Condition
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        changed = lock.makeCondition()
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Wake every `wait`er to look again (after changing what they wait for, with the lock
    /// held or not: a waiter checks under the lock, so it sees the change or is woken).
    package func broadcast() { changed.broadcast() }

    /// Block until `done` holds, or until `deadline` on the monotonic clock passes (nil: no
    /// timeout); true when it held.
    package func wait(until deadline: Double? = nil, for done: (inout Value) -> Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while !done(&value) {
            if let deadline, monotonicSeconds() >= deadline { return false }
            changed.wait(until: deadline)
        }
        return true
    }
}
