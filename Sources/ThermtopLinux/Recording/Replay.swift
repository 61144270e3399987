import Synchronization
import ThermtopCore

/// Serves a recording's file contents to a `SysfsRoot`, as they were at a moment of the
/// recording, so the same readers, classifier and policy run on it as on a live `/sys`.
/// Paths the recording never saw read as missing.
package final class ReplayBackend: SysfsBackend {
    /// Recorded answers, in memory: nothing to wait for.
    package var readsCanBlock: Bool { false }
    public let recording: Recording
    private struct State {
        var next = 0
        var files = RecordedAccesses()
    }
    private let state = Mutex(State())

    public init(recording: Recording) {
        self.recording = recording
    }

    /// Index of the last sample applied, nil before the first.
    public var position: Int? { state.withLock { $0.next == 0 ? nil : $0.next - 1 } }

    /// Apply every sample up to and including index `i` (going back replays from the start).
    public func move(to i: Int) {
        let target = Swift.min(i, recording.samples.count - 1)
        state.withLock { s in
            if target < s.next - 1 { s = State() }
            while s.next <= target {
                s.files.apply(recording.samples[s.next].changes)
                s.next += 1
            }
        }
    }

    public func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue> {
        switch state.withLock({ $0.files.reads[relative] }) {
        case .text(let t)?: .success(t)
        case .failed(let reason, let detail)?: .failure(ReadingIssue(file: relative, reason: reason, detail: detail))
        case nil: .failure(ReadingIssue(file: relative, reason: .missing, detail: "not in the recording"))
        }
    }

    public func list(_ relative: String) -> [String]? {
        state.withLock { $0.files.lists[relative] ?? nil }
    }

    public func exists(_ relative: String) -> Bool {
        state.withLock { s in
            if let e = s.files.exists[relative] { return e }
            if case .text? = s.files.reads[relative] { return true }
            return s.files.lists[relative] != nil && s.files.lists[relative]! != nil
        }
    }

    public func isDirectory(_ relative: String) -> Bool {
        state.withLock { s in
            if let d = s.files.isDirectory[relative] { return d }
            return s.files.lists[relative] != nil && s.files.lists[relative]! != nil
        }
    }

    public func resolved(_ relative: String) -> String? {
        state.withLock { $0.files.resolved[relative] ?? nil }
    }
}

/// A sensor source that replays a recording through `SysfsSource` (the live readers) on a
/// `ReplayBackend`. `advance()` moves to the next recorded sample; the monitor then samples it
/// at the recorded time (use a `ReplayClock`).
package final class ReplaySource: ThermalSensorSource {
    public let recording: Recording
    public let backend: ReplayBackend
    public let sysfs: SysfsSource
    public let fileLabel: String
    public let isSimulated = false

    public init(recording: Recording, fileLabel: String) {
        self.recording = recording
        self.fileLabel = fileLabel
        backend = ReplayBackend(recording: recording)
        backend.move(to: 0)
        // The first sample's frame holds the discovery the recorder saw.
        sysfs = SysfsSource(root: SysfsRoot(backend: backend, path: "replay \(fileLabel)"), ppdStatePath: nil)
    }

    /// `REPLAY box 12:00:41 +41.0 s`: what the header shows as the source.
    public var label: String {
        let t = time
        return "REPLAY \(recording.header.host) \(ReplayTime.wallClock(recording.header.startTime, plus: t)) +\(Format.fixed(t, places: 1)) s"
    }

    /// Sample the state of the recording at the current position, with the heat sources it
    /// recorded there (unknown, with why, in a recording made without them).
    public func sample(at time: Double) -> ThermalSnapshot {
        var snap = sysfs.sample(at: time)
        snap.recordedHeatSources = recordedHeatSources
        return snap
    }

    /// The heat sources recorded at the current position.
    public var recordedHeatSources: ThermalHeatSources {
        guard recording.header.heatSources else { return ThermalHeatSources(sources: [], reason: RecordedHeatSources.notRecorded) }
        return backend.position.flatMap { recording.samples[$0].heatSources }
            ?? ThermalHeatSources(sources: [], reason: "not in this sample of the recording")
    }
    public func rediscover() { sysfs.rediscover() }

    /// Recorded time of the current position.
    public var time: Double { backend.position.map { recording.samples[$0].time } ?? 0 }

    /// Move to sample `i`.
    public func move(to i: Int) { backend.move(to: i) }
}

/// The monitor's clock during a replay: the recorded time of the sample being replayed.
package final class ReplayClock: MonitorClock, Sendable {
    private let current = Mutex(0.0)
    public init() {}
    public func set(_ t: Double) { current.withLock { $0 = t } }
    public func now() -> Double { current.withLock { $0 } }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(Swift.max(0, seconds) * 1e9))
    }
}

/// Replays a recording into a monitor, sample by sample, at the recorded times.
@MainActor
package struct ReplayDriver {
    public let source: ReplaySource
    public let clock: ReplayClock
    public let monitor: ThermalMonitor
    /// Samples fed so far.
    public private(set) var fed = 0

    public init(recording: Recording, fileLabel: String, config: ThermalConfig = ThermalConfig(),
                overrides: ThermalOverrides = .none) {
        source = ReplaySource(recording: recording, fileLabel: fileLabel)
        clock = ReplayClock()
        clock.set(recording.samples[0].time)
        monitor = ThermalMonitor(source: source, clock: clock, config: config, overrides: overrides)
        // The first reading is the first recorded sample.
        monitor.sample()
        fed = 1
    }

    public var recording: Recording { source.recording }
    public var isAtEnd: Bool { fed >= recording.samples.count }
    /// Recorded time of the next sample to feed.
    public var nextTime: Double? { isAtEnd ? nil : recording.samples[fed].time }

    /// Feed the next recorded sample through the monitor. Returns false at the end.
    @discardableResult
    public mutating func step() -> Bool {
        guard !isAtEnd else { return false }
        source.move(to: fed)
        clock.set(recording.samples[fed].time)
        monitor.sample()
        fed += 1
        return true
    }

    /// The status with the source shown as the replay's position (`REPLAY host 12:00:41 +41.0 s`).
    public var status: MonitorStatus {
        var s = monitor.status
        s.sourceLabel = source.label
        return s
    }

    /// Feed every sample recorded at or before `time` (seconds since the start).
    public mutating func run(through time: Double) {
        while let t = nextTime, t <= time + 1e-9 { step() }
    }
}
