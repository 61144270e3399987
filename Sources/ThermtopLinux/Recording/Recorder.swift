import Synchronization
import ThermtopCore

/// Collects what a `SysfsRoot`'s tap reports (set it with `root.setTap(recorder.tap)`), the
/// last value per path, until `take()`. Safe to call from the reader threads.
package final class AccessRecorder: Sendable {
    private let pending = Mutex(RecordedAccesses())

    public init() {}

    public var tap: @Sendable (SysfsAccess) -> Void {
        { [weak self] access in self?.note(access) }
    }

    public func note(_ access: SysfsAccess) {
        pending.withLock { a in
            switch access {
            case .read(let path, .success(let text)): a.reads[path] = .text(text)
            case .read(let path, .failure(let issue)): a.reads[path] = .failed(reason: issue.reason, detail: issue.detail)
            case .list(let path, let names): a.lists[path] = names
            case .exists(let path, let b): a.exists[path] = b
            case .isDirectory(let path, let b): a.isDirectory[path] = b
            case .resolved(let path, let r): a.resolved[path] = r
            }
        }
    }

    /// Everything noted since the last call.
    public func take() -> RecordedAccesses {
        pending.withLock { a in
            let out = a
            a = RecordedAccesses()
            return out
        }
    }
}

/// Turns samples into recording lines: the first is the full frame, later ones carry only what
/// changed (values that differ from the last recorded one, and paths seen for the first time).
package struct RecordingSession: Sendable {
    private var known = RecordedAccesses()
    private var started: Double?
    public private(set) var samples = 0

    public init() {}

    /// The line for a sample taken at `time` (monotonic seconds) whose accesses are `accesses`.
    /// `heatSources`: what was measured at it (`commandLines`: with full command lines).
    public mutating func line(time: Double, accesses: RecordedAccesses, heatSources: ThermalHeatSources? = nil,
                              commandLines: Bool = false) -> String {
        let start = started ?? time
        started = start
        let changes = known.changes(to: accesses)
        known.apply(accesses)
        defer { samples += 1 }
        return RecordingFormat.sampleLine(RecordedSample(time: Swift.max(0, time - start), changes: changes, heatSources: heatSources),
                                          frame: samples == 0, commandLines: commandLines)
    }
}
