#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux
import Synchronization
import ThermtopCore

/// A registration (a listener, an observer, a notification bridge). Cancelled by `cancel()`
/// or when the token is released, so forgetting it cannot leak a callback.
public final class MonitorObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = Mutex(onCancel) }

    /// Unregister now; later calls do nothing. Releasing the token does the same.
    public func cancel() {
        let f = onCancel.withLock { f -> (@Sendable () -> Void)? in
            let g = f
            f = nil
            return g
        }
        f?()
    }

    /// Whether `cancel()` ran.
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    deinit { cancel() }
}

/// The monitor's engine, usable from any thread or isolation (a server, a service, a
/// dashboard's poll loop): the current status as a value, change streams, a descriptor that
/// becomes readable on each new status, and commands.
///
/// Making a hub reads nothing. The first reading is taken by `start()`, by `await
/// firstReading()`, or by the first synchronous call that needs it (`current`, `sample()`).
///
/// `start()` runs a sampler thread that owns the source: it samples every `delay`,
/// rediscovers devices at the tier's pace (30/60/180 s) or when an event source says devices
/// came or went, samples at once on a `.resample` hint (a charger plugged), and otherwise
/// sleeps in `poll()`: paused, it has no timer at all. Without `start()`, `sample()` and
/// `refresh()` read on the caller's thread. Either way no read waits past the read deadline:
/// the source bounds each of its blocking reads (`SysfsRoot`), so a hung file is reported
/// `timed-out` and the rest keeps updating.
///
/// Listeners, streams and the wake descriptor are fed after the hub's locks are released, one
/// update at a time in publishing order, so a listener may call any method of the hub (read
/// `current`, `setOverrides`, `sample()`, cancel its own observation, even `stop()`).
///
/// ```swift
/// import Thermtop
///
/// let hub = ThermalStatusHub.live()   // or init(source:clock:…) over any source and clock
/// hub.start()
/// let first = await hub.firstReading()
/// if first.tier == .minimal { print("skipping optional work") }
/// for await event in hub.changes() { print(event) }
/// ```
public final class ThermalStatusHub: Sendable {
    /// The clock samples are timed by (`SystemClock` live, `ManualMonitorClock` in tests).
    public let clock: any MonitorClock
    /// What the source is shown as (`live /sys`, `simulated laptop`).
    public let sourceLabel: String
    /// Whether the source is a simulation (the simulated laptop) rather than a machine.
    public let sourceIsSimulated: Bool

    /// The source, touched only with `sourceLock` held (by the sampler thread or a caller of
    /// `sample()`/`refresh()`), never by two threads at once.
    private final class SourceBox: @unchecked Sendable {
        let source: any SensorSource
        init(_ source: any SensorSource) { self.source = source }
    }
    private let box: SourceBox
    private let sourceLock = ConditionLock()
    /// Decisions; held briefly, never across a read, so overrides apply at once even while a
    /// read hangs.
    private let model: Mutex<MonitorModel>
    private let state: Mutex<HubState>
    private let wakeSourceFactory: @Sendable (any SensorSource) -> [any WakeSource]
    private let wakePipe: (read: Int32, write: Int32)
    private let controlPipe: (read: Int32, write: Int32)
    private let stopped = ConditionLock()
    private let stoppedCondition: ConditionLock.Condition
    /// Callers waiting for the first reading someone else is taking.
    private let firstLock = ConditionLock()
    private let firstReady: ConditionLock.Condition

    /// A registration, with the last sequence published when it was made: it gets only what
    /// was decided after it.
    private struct Subscriber<Handler> {
        var since: Int
        var handler: Handler
    }

    /// Something decided under the locks and handed out after them, in this order.
    private enum Delivery {
        /// A new status: to listeners and streams registered before it was decided, the
        /// callers of `firstReading()` waiting for it, and the wake pipe when `wake`.
        case update(MonitorUpdate, wake: Bool, firstWaiters: [CheckedContinuation<MonitorUpdate, Never>])
        /// A new `statuses()` stream's first element: the status current when it was made.
        case currentStatus(AsyncStream<MonitorStatus>.Continuation, MonitorStatus)
    }

    private struct HubState {
        var current: MonitorStatus
        /// The first status published: the first reading. Nil until it is made.
        var first: MonitorUpdate?
        /// A caller (not the sampler) is taking the first reading; others wait for it.
        var firstClaimed = false
        var firstWaiters: [CheckedContinuation<MonitorUpdate, Never>] = []
        var sequence = 0
        /// Seconds between samples.
        var delay: Double
        var paused = false
        var running = false
        var threadAlive = false
        /// The sampler's OS thread while it runs (`stop()` called from a listener there must
        /// not wait for itself).
        var samplerThread: pthread_t?
        var stopRequested = false
        var pendingRefresh = false
        var pendingSample: String?
        var wakePending = false
        var wakePolicy = WakePolicy.everyStatus
        /// Writes to the wake pipe since creation (tests count them: a descriptor can read
        /// ready for reasons of its own).
        var wakeSignals = 0
        var nextID = 0
        var listeners = [Int: Subscriber<@Sendable (MonitorUpdate) -> Void>]()
        var eventStreams = [Int: Subscriber<AsyncStream<MonitorEvent>.Continuation>]()
        var statusStreams = [Int: Subscriber<AsyncStream<MonitorStatus>.Continuation>]()
        /// Decided, not yet handed out.
        var outbox: [Delivery] = []
        /// A thread is handing out the outbox; others only add to it.
        var delivering = false
        var sampler = SamplerInfo()
    }

    /// Reads nothing: the first reading is made by `start()`, `firstReading()`, or the first
    /// call that needs it. Until then `latest` is a placeholder (`ThermalAssessment.unknown`,
    /// no samples).
    /// - Parameters:
    ///   - source: what is read: a `SysfsSource`, the `SimulatedLaptop`, a replay. The hub
    ///     owns it from now on: no other code may call it.
    ///   - clock: what samples are timed by (`ManualMonitorClock` for tests).
    ///   - config: thresholds, margins and the read deadline.
    ///   - overrides: a forced state or low power (marked simulated everywhere).
    ///   - delay: the time between samples once started (at least 50 ms).
    ///   - wakeSources: made on the sampler thread when it starts, given the source (with the
    ///     source lock held, so a source can be wired to them); their descriptors wake it.
    public init(source: any ThermalSensorSource, clock: any MonitorClock, config: ThermalConfig = ThermalConfig(),
                overrides: ThermalOverrides = .none, delay: Duration = .seconds(1),
                wakeSources: @escaping @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] = { _ in [] }) {
        box = SourceBox(source)
        self.clock = clock
        sourceLabel = source.label
        sourceIsSimulated = source.isSimulated
        wakeSourceFactory = wakeSources
        model = Mutex(MonitorModel(config: config, overrides: overrides))
        wakePipe = Self.makePipe()
        controlPipe = Self.makePipe()
        stoppedCondition = stopped.makeCondition()
        firstReady = firstLock.makeCondition()
        var info = SamplerInfo()
        info.lastRediscovery = clock.now()
        let placeholder = MonitorStatus(
            snapshot: Snapshot(time: info.lastRediscovery), assessment: .unknown,
            lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []), overrides: overrides,
            sourceLabel: source.label, sourceIsSimulated: source.isSimulated)
        state = Mutex(HubState(current: placeholder, delay: Self.clampedDelay(delay.inSeconds), sampler: info))
    }

    /// The same, with the delay in seconds (the command line's `--delay`).
    package convenience init(source: any ThermalSensorSource, clock: any MonitorClock, config: ThermalConfig = ThermalConfig(),
                             overrides: ThermalOverrides = .none, delay: Double,
                             wakeSources: @escaping @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] = { _ in [] }) {
        self.init(source: source, clock: clock, config: config, overrides: overrides,
                  delay: .seconds(Self.clampedDelay(delay)), wakeSources: wakeSources)
    }

    private static func clampedDelay(_ seconds: Double) -> Double { max(0.05, seconds) }

    deinit {
        for fd in [wakePipe.read, wakePipe.write, controlPipe.read, controlPipe.write] where fd >= 0 { close(fd) }
    }

    /// A non-blocking, close-on-exec pipe (`pipe2`, one call).
    private static func makePipe() -> (Int32, Int32) {
        var fds: (Int32, Int32) = (-1, -1)
        let rc = withUnsafeMutablePointer(to: &fds) {
            $0.withMemoryRebound(to: Int32.self, capacity: 2) { thermtop_pipe_nonblocking($0) }
        }
        return rc == 0 ? fds : (-1, -1)
    }

    // MARK: Reading the state (any thread)

    /// The last status published. Before the first reading, taking it here blocks this thread
    /// (each read bounded by the read deadline); in async code `await firstReading()` instead.
    public var current: MonitorStatus {
        if let s = state.withLock({ $0.first == nil ? nil : $0.current }) { return s }
        ensureFirstReading()
        return latest
    }

    /// The last status published, or the placeholder before the first reading (its
    /// `sampler.samples` is 0). Never reads.
    public var latest: MonitorStatus { state.withLock { $0.current } }

    /// Whether the first reading has been made.
    public var hasReading: Bool { state.withLock { $0.first != nil } }

    /// The first reading: at once if it was made, else taken now (on the sampler when started,
    /// else on a thread of its own, never on the caller's executor) and awaited.
    public func firstReading() async -> MonitorStatus { await firstUpdate().status }

    /// The first update published (sequence 1).
    package func firstUpdate() async -> MonitorUpdate {
        if let u = state.withLock({ $0.first }) { return u }
        return await withCheckedContinuation { (c: CheckedContinuation<MonitorUpdate, Never>) in
            let (ready, read) = state.withLock { s -> (MonitorUpdate?, Bool) in
                if let u = s.first { return (u, false) }
                s.firstWaiters.append(c)
                return (nil, !s.firstClaimed && !s.threadAlive)
            }
            if let ready { c.resume(returning: ready) }
            if read { startThread(name: "thermtop-first") { [self] in ensureFirstReading() } }
        }
    }

    /// The one-shot's first reading, with the caller's own work run on this thread while it is
    /// made on a reading thread (time it would otherwise only wait: `status` opens its event
    /// sources there). Reads only if no reading was made yet.
    package func current(whileReading meanwhile: () -> Void) -> MonitorStatus {
        ensureFirstReading(meanwhile: meanwhile)
        return latest
    }

    /// The thermal state in force (`current.thermalState`); waits for the first reading.
    public var thermalState: ThermalState { current.thermalState }
    /// Whether low power is on (`current.isLowPowerModeEnabled`); waits for the first reading.
    public var isLowPowerModeEnabled: Bool { current.isLowPowerModeEnabled }
    /// The quality tier in force (`current.tier`); waits for the first reading.
    public var tier: QualityTier { current.tier }
    /// What the tier allows (`current.policy`); waits for the first reading.
    public var policy: QualityPolicy { current.policy }
    /// The thresholds and margins decisions are made with (`setConfig(_:)` changes them).
    public var config: ThermalConfig { model.withLock { $0.config } }
    /// The simulation overrides in force (`setOverrides(_:)` changes them).
    public var overrides: ThermalOverrides { model.withLock { $0.overrides } }
    /// The time between samples.
    public var delay: Duration { .seconds(state.withLock { $0.delay }) }
    /// Whether timed samples are paused (`setPaused(_:)`).
    public var isPaused: Bool { state.withLock { $0.paused } }
    /// Whether the sampler thread runs (between `start()` and `stop()`).
    public var isRunning: Bool { state.withLock { $0.running } }

    /// Seconds until the tier-paced refresh (rediscovery) is due, on the monitor's clock.
    public func secondsUntilRefresh(now: Double? = nil) -> Double {
        let s = latest
        return max(0, s.sampler.lastRediscovery + s.policy.refreshIntervalSeconds - (now ?? clock.now()))
    }

    /// Readable (poll POLLIN) after each new status (or, with `WakePolicy.changes`, each
    /// material one); call `consumeWake()` once woken.
    public var wakeDescriptor: Int32 { wakePipe.read }

    /// Which new statuses make `wakeDescriptor` readable.
    public enum WakePolicy: Sendable, Equatable {
        /// Every new status (the default).
        case everyStatus
        /// Only what a reader must see at once: a status with change events (state, low
        /// power, tier, forecast triggers), a command's result (overrides, config, triggers),
        /// an event source coming up or going down, and a sample woken by anything but the
        /// sampler's timer (a uevent, a power-profile signal, a refresh, a key). A timed sample
        /// that announces nothing only replaces `current`: a reader that looks on its own
        /// beat (the dashboard, on its frames) takes it then, and no thread wakes for it.
        case changes
    }

    /// Which new statuses make `wakeDescriptor` readable.
    public var wakePolicy: WakePolicy { state.withLock { $0.wakePolicy } }

    /// Set which statuses wake `wakeDescriptor`'s reader (applies from the next status).
    public func setWakePolicy(_ policy: WakePolicy) { state.withLock { $0.wakePolicy = policy } }

    /// Times the wake descriptor was made readable since creation.
    package var wakeSignalCount: Int { state.withLock { $0.wakeSignals } }

    /// Empty the wake descriptor.
    public func consumeWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        state.withLock { $0.wakePending = false }
        while read(wakePipe.read, &buffer, buffer.count) > 0 {}
    }

    /// Every change (state, low power, tier, forecast triggers) decided from now on. Each call
    /// gets its own stream; it ends when the hub stops.
    public func changes() -> AsyncStream<MonitorEvent> {
        let (stream, continuation) = AsyncStream<MonitorEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.eventStreams[s.nextID] = Subscriber(since: s.sequence, handler: continuation)
            return s.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.eventStreams.removeValue(forKey: id) } }
        return stream
    }

    /// The current status, then every new one (a slow reader gets the newest). Before the
    /// first reading, asks for it (as `firstReading()` does) and starts with it.
    public func statuses() -> AsyncStream<MonitorStatus> {
        let (stream, continuation) = AsyncStream<MonitorStatus>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (id, needsReading) = state.withLock { s -> (Int, Bool) in
            s.nextID += 1
            s.statusStreams[s.nextID] = Subscriber(since: s.sequence, handler: continuation)
            if s.first != nil { s.outbox.append(.currentStatus(continuation, s.current)) }
            return (s.nextID, s.first == nil && !s.firstClaimed && !s.threadAlive)
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.statusStreams.removeValue(forKey: id) } }
        deliver()
        if needsReading { startThread(name: "thermtop-first") { [self] in ensureFirstReading() } }
        return stream
    }

    /// Call `handler` with every update decided from now on, on the thread that hands updates
    /// out (keep it short), one at a time and in sequence order. It may call any method of the
    /// hub; updates that causes reach it after the one it is handling. Kept until the token is
    /// cancelled or released; none starts after `cancel()` returns.
    public func addListener(_ handler: @escaping @Sendable (MonitorUpdate) -> Void) -> MonitorObservation {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.listeners[s.nextID] = Subscriber(since: s.sequence, handler: handler)
            return s.nextID
        }
        return MonitorObservation { [weak self] in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
    }

    // MARK: Commands (any thread)

    /// Simulation overrides; re-decides at once from the last reading (no file is read).
    @discardableResult
    public func setOverrides(_ overrides: ThermalOverrides) -> MonitorUpdate? {
        let update = model.withLock { m -> MonitorUpdate? in
            guard m.overrides != overrides else { return nil }
            m.overrides = overrides
            return m.withOverrides().map { publish($0, model: &m, cause: .command) }
        }
        deliver()
        return update
    }

    /// New thresholds and margins; re-decides at once from the last reading.
    @discardableResult
    public func setConfig(_ config: ThermalConfig) -> MonitorUpdate? {
        let timeOfDay = clock.secondsSinceLocalMidnight()
        let update = model.withLock { m -> MonitorUpdate? in
            guard m.config != config else { return nil }
            m.config = config
            return m.reassess(timeOfDay: timeOfDay).map { publish($0, model: &m, cause: .command) }
        }
        deliver()
        return update
    }

    /// Thresholds on the forecast announced (`.forecastTriggered`) when crossed either way.
    @discardableResult
    public func setForecastTriggers(_ triggers: [ForecastTrigger]) -> MonitorUpdate? {
        let update = model.withLock { m -> MonitorUpdate? in
            guard m.forecastTriggers != triggers else { return nil }
            m.forecastTriggers = triggers
            return m.last.map { publish($0, model: &m, cause: .command) }
        }
        deliver()
        return update
    }

    /// The thresholds on the forecast announced when crossed (`setForecastTriggers(_:)`).
    public var forecastTriggers: [ForecastTrigger] { model.withLock { $0.forecastTriggers } }

    /// The time between samples (the dashboard's `--delay`; at least 50 ms).
    public func setDelay(_ delay: Duration) {
        state.withLock { $0.delay = Self.clampedDelay(delay.inSeconds) }
        poke()
    }

    /// Paused: no timed samples or refreshes (and no timer wake-ups); events are still drained
    /// and commands still obeyed.
    public func setPaused(_ paused: Bool) {
        state.withLock { $0.paused = paused }
        poke()
    }

    /// Rediscover devices and sample now (on the sampler thread when running).
    public func refreshNow() {
        guard isRunning else { refresh(); return }
        state.withLock { $0.pendingRefresh = true }
        poke()
    }

    /// Sample now (on the sampler thread when running); `reason` shows in the overlay.
    public func sampleNow(reason: String = "request") {
        guard isRunning else { takeSample(wokenBy: reason); return }
        state.withLock { $0.pendingSample = reason }
        poke()
    }

    /// Change a simulated source's load and sample; nil (nothing done) for real sources.
    @discardableResult
    public func adjustLoad(by delta: Double) -> Double? {
        let load = sourceLock.withLock { box.source.adjustLoad(by: delta) }
        if load != nil { sampleNow(reason: "load") }
        return load
    }

    /// The simulated load, nil for real sources.
    public var simulatedLoad: Double? { sourceLock.withLock { box.source.simulatedLoad } }

    /// Read once, waiting for it on the caller's thread, and publish. While started, prefer
    /// `sampleNow()`.
    @discardableResult
    public func sample() -> MonitorUpdate { takeSample(wokenBy: "request") }

    /// Rediscover and read once, waiting for it on the caller's thread, and publish.
    @discardableResult
    public func refresh() -> MonitorUpdate {
        rediscover()
        return takeSample(wokenBy: "refresh")
    }

    // MARK: The sampler thread

    /// Start the sampler thread (no-op when running). It takes the first reading if none was
    /// made yet.
    public func start() {
        let go = state.withLock { s -> Bool in
            guard !s.threadAlive else { return false }
            s.threadAlive = true
            s.running = true
            s.stopRequested = false
            return true
        }
        guard go else { return }
        startThread(name: "thermtop-sample") { [self] in samplerLoop() }
    }

    /// Stop the sampler thread; returns once it has left (within a read deadline or so, or
    /// `timeout`), and ends the streams. Called on the sampler thread itself (from a listener),
    /// it asks it to stop and returns at once.
    public func stop(timeout: Duration = .seconds(2)) {
        let (alive, onSampler) = state.withLock { s -> (Bool, Bool) in
            s.stopRequested = true
            return (s.threadAlive, s.samplerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        if alive {
            poke()
            let end = monotonicSeconds() + timeout.inSeconds
            if !onSampler {
                stopped.withLock {
                    while state.withLock({ $0.threadAlive }) && monotonicSeconds() < end {
                        stoppedCondition.wait(until: min(end, monotonicSeconds() + 0.05))
                    }
                }
            }
        }
        let (events, statuses) = state.withLock { s in
            s.running = false
            defer { s.eventStreams = [:]; s.statusStreams = [:] }
            return (s.eventStreams.values.map(\.handler), s.statusStreams.values.map(\.handler))
        }
        for c in events { c.finish() }
        for c in statuses { c.finish() }
    }

    private func poke() {
        var one: UInt8 = 1
        _ = write(controlPipe.write, &one, 1)
    }

    private func samplerLoop() {
        let sources = sourceLock.withLock { wakeSourceFactory(box.source) }
        var lastEventStates = sources.map(\.state)
        let hadReading = state.withLock { s -> Bool in
            s.sampler.eventSources = lastEventStates
            s.sampler.running = true
            s.samplerThread = pthread_self()
            return s.first != nil
        }
        // The first reading, made with the event sources in place (a D-Bus profile joins it);
        // or, after one made without them, a reading that shows their states.
        if !hadReading {
            takeSample(wokenBy: "start")
        } else if !sources.isEmpty {
            takeSample(wokenBy: "event sources up")
        }
        var nextSample = clock.now() + state.withLock { $0.delay }
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let (paused, delay, refreshDue) = state.withLock { s in
                (s.paused, s.delay, s.sampler.lastRediscovery + s.current.policy.refreshIntervalSeconds)
            }
            let now = clock.now()
            var timeoutMs: Int32 = -1
            if !paused {
                let due = min(nextSample, refreshDue)
                // Round up: waking a little early would find nothing due and sleep again.
                timeoutMs = Int32(min(3_600_000, max(0, ((due - now) * 1000).rounded(.up))))
            }
            var fds = [pollfd(fd: controlPipe.read, events: Int16(POLLIN), revents: 0)]
            var owners: [Int] = []
            for (i, s) in sources.enumerated() {
                if let fd = s.descriptor {
                    fds.append(pollfd(fd: fd, events: s.pollEvents, revents: 0))
                    owners.append(i)
                }
            }
            let n = poll(&fds, nfds_t(fds.count), timeoutMs)
            if n < 0 && errno != EINTR { usleep(10_000) }

            var wantRefresh = false
            var wokenBy: String?
            if fds[0].revents != 0 {
                while read(controlPipe.read, &buffer, buffer.count) > 0 {}
            }
            let (stop, pendingRefresh, pendingSample) = state.withLock { s -> (Bool, Bool, String?) in
                defer { s.pendingRefresh = false; s.pendingSample = nil }
                return (s.stopRequested, s.pendingRefresh, s.pendingSample)
            }
            if stop { break }
            if pendingRefresh { wantRefresh = true; wokenBy = "refresh" }
            if let r = pendingSample { wokenBy = wokenBy ?? r }
            for (k, i) in owners.enumerated() where fds[k + 1].revents != 0 {
                for hint in sources[i].drain() {
                    switch hint {
                    case .rediscover(let why): wantRefresh = true; wokenBy = why
                    case .resample(let why): wokenBy = wokenBy ?? why
                    }
                }
            }
            let states = sources.map(\.state)
            let statesChanged = states != lastEventStates
            if statesChanged {
                lastEventStates = states
                state.withLock { $0.sampler.eventSources = states }
            }
            let after = clock.now()
            if !paused {
                if after >= refreshDue { wantRefresh = true; wokenBy = wokenBy ?? "refresh" }
                if after >= nextSample { wokenBy = wokenBy ?? "timer" }
            }
            if wantRefresh { rediscover() }
            if let wokenBy {
                takeSample(wokenBy: wokenBy)
                nextSample = clock.now() + delay
            } else if statesChanged {
                republish()
            }
        }
        state.withLock { s in
            s.threadAlive = false
            s.samplerThread = nil
            s.sampler.running = false
        }
        stopped.withLock { stoppedCondition.broadcast() }
        // A caller waiting for a first reading this sampler never made takes it itself.
        firstLock.withLock { firstReady.broadcast() }
    }

    // MARK: Sampling and publishing

    /// Make sure the first reading exists: take it on this thread, or wait for the one the
    /// sampler or another caller is taking. `meanwhile` runs once on this thread either way.
    private func ensureFirstReading(meanwhile: () -> Void = {}) {
        enum Next { case done, read, wait }
        var ranMeanwhile = false
        while true {
            let next = state.withLock { s -> Next in
                if s.first != nil { return .done }
                if s.firstClaimed || s.threadAlive { return .wait }
                s.firstClaimed = true
                return .read
            }
            switch next {
            case .done:
                if !ranMeanwhile { meanwhile() }
                return
            case .read:
                takeSample(wokenBy: "start", meanwhile: ranMeanwhile ? {} : meanwhile)
                state.withLock { $0.firstClaimed = false }
                return
            case .wait:
                if !ranMeanwhile { meanwhile(); ranMeanwhile = true }
                // Woken when the first reading is published or the sampler leaves; the timed
                // wait is a backstop against a missed wake-up.
                firstLock.withLock {
                    if state.withLock({ $0.first == nil }) { firstReady.wait(until: monotonicSeconds() + 0.05) }
                }
            }
        }
    }

    private func rediscover() {
        sourceLock.withLock { box.source.rediscover() }
        let now = clock.now()
        state.withLock { s in
            s.sampler.lastRediscovery = now
            s.sampler.rediscoveries += 1
        }
    }

    @discardableResult
    private func takeSample(wokenBy: String, meanwhile: () -> Void = {}) -> MonitorUpdate {
        let start = clock.now()
        meanwhile()
        // The local time labels a sensor that stops reading ("since 14:02").
        let timeOfDay = clock.secondsSinceLocalMidnight()
        let (snap, reads) = sourceLock.withLock { (box.source.sample(at: start), box.source.readStats) }
        let elapsed = clock.now() - start
        let info = state.withLock { s -> SamplerInfo in
            s.sampler.samples += 1
            s.sampler.lastSampleSeconds = elapsed
            s.sampler.wokenBy = wokenBy
            s.sampler.reads = reads
            s.sampler.running = s.running
            return s.sampler
        }
        let update = model.withLock { m in
            let status = m.decide(snap, label: sourceLabel, simulated: sourceIsSimulated, timeOfDay: timeOfDay,
                                  sampler: info)
            return publish(status, model: &m)
        }
        if update.sequence == 1 { firstLock.withLock { firstReady.broadcast() } }
        deliver()
        return update
    }

    /// Publish the last status again with the sampler's current info (an event source came
    /// up or went down): nothing was read, so nothing else changes.
    private func republish() {
        model.withLock { m in
            if let last = m.last { publish(last, model: &m, cause: .eventSources) }
        }
        deliver()
    }

    /// Why a status is published: a sample, a command's re-decision, or the event sources'
    /// states changing (nothing read).
    private enum PublishCause { case sample, command, eventSources }

    /// Called with the model locked, so updates are numbered and queued in the order they were
    /// decided; the caller hands them out with `deliver()` once it holds no lock.
    @discardableResult
    private func publish(_ status: MonitorStatus, model m: inout MonitorModel,
                         cause: PublishCause = .sample) -> MonitorUpdate {
        var status = status
        let events = m.commit(status)
        // A sample's own info says what woke it (`samplerLoop` names its timed samples
        // "timer"); commands and event-source changes always wake.
        let routine = cause == .sample && events.isEmpty && status.sampler.wokenBy == "timer"
        let update = state.withLock { s -> MonitorUpdate in
            status.sampler = s.sampler
            s.sequence += 1
            s.current = status
            let wake = !s.wakePending && (s.wakePolicy == .everyStatus || !routine)
            if wake {
                s.wakePending = true
                s.wakeSignals += 1
            }
            let update = MonitorUpdate(sequence: s.sequence, status: status, events: events)
            var waiters: [CheckedContinuation<MonitorUpdate, Never>] = []
            if s.first == nil {
                s.first = update
                swap(&waiters, &s.firstWaiters)
            }
            s.outbox.append(.update(update, wake: wake, firstWaiters: waiters))
            return update
        }
        m.last = status
        return update
    }

    /// Hand out what was decided, in order, with no lock held while anything is called. One
    /// thread at a time does it: a thread that finds another at it leaves its updates to that
    /// one, which takes them after the one it is handing out (a listener that publishes does
    /// not re-enter itself).
    private func deliver() {
        var claimed = false
        while true {
            let next = state.withLock { s -> (Delivery, [(Int, @Sendable (MonitorUpdate) -> Void)],
                                              [AsyncStream<MonitorEvent>.Continuation],
                                              [AsyncStream<MonitorStatus>.Continuation])? in
                if !claimed {
                    guard !s.delivering else { return nil }
                    s.delivering = true
                    claimed = true
                }
                guard !s.outbox.isEmpty else {
                    s.delivering = false
                    return nil
                }
                let d = s.outbox.removeFirst()
                guard case .update(let u, _, _) = d else { return (d, [], [], []) }
                let listeners = s.listeners.filter { $0.value.since < u.sequence }
                    .sorted { $0.key < $1.key }.map { ($0.key, $0.value.handler) }
                let events = s.eventStreams.values.filter { $0.since < u.sequence }.map(\.handler)
                let statuses = s.statusStreams.values.filter { $0.since < u.sequence }.map(\.handler)
                return (d, listeners, events, statuses)
            }
            guard let (delivery, listeners, eventStreams, statusStreams) = next else { return }
            switch delivery {
            case .currentStatus(let c, let status):
                c.yield(status)
            case .update(let update, let wake, let waiters):
                for c in eventStreams { for e in update.events { c.yield(e) } }
                for c in statusStreams { c.yield(update.status) }
                for (id, handler) in listeners where state.withLock({ $0.listeners[id] != nil }) { handler(update) }
                for w in waiters { w.resume(returning: update) }
                if wake {
                    var one: UInt8 = 1
                    _ = write(wakePipe.write, &one, 1)
                }
            }
        }
    }
}

