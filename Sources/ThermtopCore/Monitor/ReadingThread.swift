#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The thread a hub samples on. Its blocking reads are not made on it: the reading layer hands
/// each to a reader thread and waits at most the read deadline (`SysfsRoot`), so this thread
/// is never stuck in the kernel, and nothing ever needs to end it from outside.
package final class ReadingThread: Sendable {
    package let name: String
    package let deadline: Double

    /// `uninterruptibleDeadline` and `onRetire` are accepted for the hub's call and unused: a
    /// sampler whose reads are bounded by the reading layer is never retired.
    package init(name: String, deadline: Double, uninterruptibleDeadline: Double = 0,
                 onRetire: @escaping @Sendable (ReadingThread) -> Void = { _ in }) {
        self.name = name
        self.deadline = max(0.001, deadline)
    }

    /// Run `body` on a new OS thread.
    package func start(_ body: @escaping @Sendable () -> Void) {
        startThread(name: name, body)
    }

    /// Run `work` for a caller that waits for its result (a one-shot `status`, a hub's first
    /// reading): `meanwhile` first, then `work`, both on the calling thread. The work's reads
    /// go through the reading layer's reader threads, each waited for at most the deadline,
    /// so the caller never waits on a hung file past it. The other parameters are accepted
    /// for the hub's call and unused.
    package static func run<T: Sendable>(name: String, deadline: Double, interruptible: Bool = false,
                                         grace: Double = 0, meanwhile: () -> Void = {},
                                         _ work: @escaping @Sendable () -> T) -> T {
        meanwhile()
        return work()
    }
}

/// A plain lock for work that spans a whole pass (a source's discovery or sample).
package final class HandoverLock: @unchecked Sendable {   // all state lives in `lock`
    private let lock = ConditionLock()

    package init() {}

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }
}
