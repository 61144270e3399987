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
/// When to sample, rediscover or sleep is decided by a `SamplerSchedule` (pure, in
/// ThermtopCore); the thread only carries its steps out. The hub's state (the model, the
/// schedule, the published status, the registrations) sits behind one lock; the source
/// behind another, held across reads, so no command waits for a read.
///
/// Listeners, streams and the wake descriptor are fed after the hub's lock is released, one
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

    /// The source, touched only with its `lock` held (by the sampler thread or a caller of
    /// `sample()`/`refresh()`), never by two threads at once. The hub's current box is in its
    /// state: a sampler whose read hung is replaced, with a box of its own (see `samplerLoop`).
    private final class SourceBox: @unchecked Sendable {
        let source: any ThermalSensorSource
        let lock = ConditionLock()
        init(_ source: any ThermalSensorSource) { self.source = source }
    }
    /// Everything else; held briefly, never across a read, so overrides apply at once even
    /// while a read hangs. Its condition wakes callers waiting for the first reading and for
    /// the sampler to leave.
    private let state: Guarded<HubState>
    private let wakeSourceFactory: @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource]
    private let wakePipe: (read: Int32, write: Int32)
    private let controlPipe: (read: Int32, write: Int32)

    /// A registration, with the last sequence published when it was made: it gets only what
    /// was decided after it.
    private struct Subscriber<Handler> {
        var since: Int
        var handler: Handler
    }

    /// Something decided under the lock and handed out after it, in this order.
    private enum Delivery {
        /// A new status: to listeners and streams registered before it was decided, and the
        /// wake pipe when `wake`.
        case update(MonitorUpdate, wake: Bool)
        /// A new `statuses()` stream's first element: the status current when it was made.
        case currentStatus(AsyncStream<MonitorStatus>.Continuation, MonitorStatus)
    }

    /// The first reading: not made, being made by the sampler or a caller (the others wait
    /// on the lock's condition; a sampler that replaces one stuck in a hung read takes the
    /// sampler's over), or made.
    private enum FirstReading {
        case none, taking(bySampler: Bool), made(MonitorUpdate)
        var update: MonitorUpdate? { if case .made(let u) = self { u } else { nil } }
    }

    private struct HubState {
        var box: SourceBox
        /// Counts sampler threads started; a thread whose number is not this one was replaced
        /// while a read of its hung, and leaves without publishing once the kernel lets it go.
        var generation = 0
        var model: MonitorModel
        var schedule: SamplerSchedule
        var current: MonitorStatus
        var first = FirstReading.none
        var sequence = 0
        var running = false
        var threadAlive = false
        /// The sampler's OS thread while it runs (`stop()` called from a listener there must
        /// not wait for itself).
        var samplerThread: pthread_t?
        /// Whether `start()` asked the clock to wake the sampler when it is moved by hand.
        var clockHooked = false
        /// The clock moves only by hand: the sampler sleeps until it moves, never on a timer.
        var clockMovesByHand = false
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
        var sampler = MonitorSamplerInfo()
        /// When the sampler last found nothing to do and went to sleep (nil while it works):
        /// a test's proof that nothing was due at that time.
        var idleSince: Double?
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
        self.clock = clock
        sourceLabel = source.label
        sourceIsSimulated = source.isSimulated
        wakeSourceFactory = wakeSources
        wakePipe = Self.makePipe()
        controlPipe = Self.makePipe()
        let now = clock.now()
        var info = MonitorSamplerInfo()
        info.lastRediscovery = now
        let placeholder = MonitorStatus(
            snapshot: ThermalSnapshot(time: now), assessment: .unknown,
            lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []), overrides: overrides,
            sourceLabel: source.label, sourceIsSimulated: source.isSimulated)
        let schedule = SamplerSchedule(delay: delay.inSeconds, now: now,
                                       refreshInterval: placeholder.policy.refreshIntervalSeconds)
        state = Guarded(HubState(box: SourceBox(source), model: MonitorModel(config: config, overrides: overrides), schedule: schedule,
                                 current: placeholder, sampler: info))
    }

    /// The same, with the delay in seconds (the command line's `--delay`).
    package convenience init(source: any ThermalSensorSource, clock: any MonitorClock, config: ThermalConfig = ThermalConfig(),
                             overrides: ThermalOverrides = .none, delay: Double,
                             wakeSources: @escaping @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] = { _ in [] }) {
        self.init(source: source, clock: clock, config: config, overrides: overrides,
                  delay: .seconds(max(SamplerSchedule.minimumDelay, delay)), wakeSources: wakeSources)
    }

    deinit {
        for fd in [wakePipe.read, wakePipe.write, controlPipe.read, controlPipe.write] where fd >= 0 { close(fd) }
    }

    /// A non-blocking, close-on-exec pipe; (-1, -1) when none can be made (no descriptors left).
    private static func makePipe() -> (Int32, Int32) {
        (try? Syscalls.pipe(nonBlocking: true)) ?? (-1, -1)
    }

    // MARK: Reading the state (any thread)

    /// The last status published. Before the first reading, this thread blocks for it: it waits
    /// for the sampler's once the hub is started, else takes it here (each read bounded by the
    /// read deadline); in async code `await firstReading()` instead.
    public var current: MonitorStatus {
        if let s = state.withLock({ $0.first.update == nil ? nil : $0.current }) { return s }
        ensureFirstReading()
        return latest
    }

    /// The last status published, or the placeholder before the first reading (its
    /// `sampler.samples` is 0). Never reads.
    public var latest: MonitorStatus { state.withLock { $0.current } }

    /// Whether the first reading has been made.
    public var hasReading: Bool { state.withLock { $0.first.update != nil } }

    /// The first reading: at once if it was made, else taken now (on the sampler when started,
    /// else on a thread of its own, never on the caller's executor) and awaited.
    public func firstReading() async -> MonitorStatus { await firstUpdate().status }

    /// The first update published (sequence 1). Waited for on a thread of its own, never on
    /// the caller's executor: the same wait as `current`'s.
    package func firstUpdate() async -> MonitorUpdate {
        if let u = state.withLock({ $0.first.update }) { return u }
        return await withCheckedContinuation { (c: CheckedContinuation<MonitorUpdate, Never>) in
            startThread(name: "thermtop-first") { [self] in
                ensureFirstReading()
                c.resume(returning: state.withLock { $0.first.update }!)
            }
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
    public var config: ThermalConfig { state.withLock { $0.model.config } }
    /// The simulation overrides in force (`setOverrides(_:)` changes them).
    public var overrides: ThermalOverrides { state.withLock { $0.model.overrides } }
    /// The time between samples.
    public var delay: Duration { .seconds(state.withLock { $0.schedule.delay }) }
    /// Whether timed samples are paused (`setPaused(_:)`).
    public var isPaused: Bool { state.withLock { $0.schedule.paused } }
    /// Whether the sampler thread runs (between `start()` and `stop()`).
    public var isRunning: Bool { state.withLock { $0.running } }

    /// Seconds until the tier-paced refresh (rediscovery) is due, on the monitor's clock.
    public func secondsUntilRefresh(now: Double? = nil) -> Double {
        max(0, latest.refreshDueAt - (now ?? clock.now()))
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
        /// beat takes it then, and no thread wakes for it.
        case changes
        /// Never: the reader follows the hub through a listener instead (the dashboard draws
        /// each status on the thread that published it), so nothing is written to wake it.
        case never
    }

    /// Which new statuses make `wakeDescriptor` readable.
    public var wakePolicy: WakePolicy { state.withLock { $0.wakePolicy } }

    /// Set which statuses wake `wakeDescriptor`'s reader (applies from the next status).
    public func setWakePolicy(_ policy: WakePolicy) { state.withLock { $0.wakePolicy = policy } }

    /// Times the wake descriptor was made readable since creation.
    package var wakeSignalCount: Int { state.withLock { $0.wakeSignals } }

    /// Empty the wake descriptor.
    public func consumeWake() {
        state.withLock { $0.wakePending = false }
        Syscalls.drain(wakePipe.read)
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
            let made = s.first.update != nil
            if made { s.outbox.append(.currentStatus(continuation, s.current)) }
            return (s.nextID, !made)
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
        let update = state.withLock { s -> MonitorUpdate? in
            guard s.model.overrides != overrides else { return nil }
            s.model.overrides = overrides
            return s.model.withOverrides().map { publish($0, in: &s, cause: .command) }
        }
        deliver()
        return update
    }

    /// New thresholds and margins; re-decides at once from the last reading.
    @discardableResult
    public func setConfig(_ config: ThermalConfig) -> MonitorUpdate? {
        let timeOfDay = clock.secondsSinceLocalMidnight()
        let update = state.withLock { s -> MonitorUpdate? in
            guard s.model.config != config else { return nil }
            s.model.config = config
            return s.model.reassess(timeOfDay: timeOfDay).map { publish($0, in: &s, cause: .command) }
        }
        deliver()
        return update
    }

    /// Thresholds on the forecast announced (`.forecastTriggered`) when crossed either way.
    @discardableResult
    public func setForecastTriggers(_ triggers: [ForecastTrigger]) -> MonitorUpdate? {
        let update = state.withLock { s -> MonitorUpdate? in
            guard s.model.forecastTriggers != triggers else { return nil }
            s.model.forecastTriggers = triggers
            return s.model.last.map { publish($0, in: &s, cause: .command) }
        }
        deliver()
        return update
    }

    /// The thresholds on the forecast announced when crossed (`setForecastTriggers(_:)`).
    public var forecastTriggers: [ForecastTrigger] { state.withLock { $0.model.forecastTriggers } }

    /// The time between samples (the dashboard's `--delay`; at least 50 ms).
    public func setDelay(_ delay: Duration) {
        state.withLock { $0.schedule.setDelay(delay.inSeconds) }
        poke()
    }

    /// Paused: no timed samples or refreshes (and no timer wake-ups); events are still drained
    /// and commands still obeyed.
    public func setPaused(_ paused: Bool) {
        state.withLock { $0.schedule.paused = paused }
        poke()
    }

    /// Rediscover devices and sample now (on the sampler thread when running).
    public func refreshNow() {
        guard command(.refresh) else { refresh(); return }
    }

    /// Sample now (on the sampler thread when running); `reason` shows in the overlay.
    public func sampleNow(reason: String = "request") {
        guard command(.sample(reason: reason)) else { takeSample(.request(reason)); return }
    }

    /// Hand `command` to the running sampler; false when it does not run.
    private func command(_ command: SamplerSchedule.Command) -> Bool {
        let running = state.withLock { s -> Bool in
            guard s.running else { return false }
            s.schedule.receive(command)
            return true
        }
        if running { poke() }
        return running
    }

    /// Change a simulated source's load and sample once (`reason` shows in the overlay); nil
    /// (nothing done) for real sources.
    @discardableResult
    public func adjustLoad(by delta: Double, reason: String = "load") -> Double? {
        let box = currentBox
        let load = box.lock.withLock { box.source.adjustLoad(by: delta) }
        if load != nil { sampleNow(reason: reason) }
        return load
    }

    /// The simulated load, nil for real sources.
    public var simulatedLoad: Double? {
        let box = currentBox
        return box.lock.withLock { box.source.simulatedLoad }
    }

    private var currentBox: SourceBox { state.withLock { $0.box } }

    /// Read once, waiting for it on the caller's thread, and publish. While started, prefer
    /// `sampleNow()`.
    @discardableResult
    public func sample() -> MonitorUpdate { takeSample(.request("request")) }

    /// Rediscover and read once, waiting for it on the caller's thread, and publish.
    @discardableResult
    public func refresh() -> MonitorUpdate {
        rediscover()
        return takeSample(.refresh)
    }

    // MARK: The sampler thread

    /// Start the sampler thread (no-op when running). It takes the first reading if none was
    /// made yet.
    public func start() {
        let (go, hook) = state.withLock { s -> (Bool, Bool) in
            guard !s.threadAlive else { return (false, false) }
            s.threadAlive = true
            s.running = true
            // The first reading is the sampler's from here: a caller of `current` waits for it
            // rather than taking it with a hand-off per file, however soon it asks.
            if case .none = s.first { s.first = .taking(bySampler: true) }
            s.schedule.cancelStop()
            defer { s.clockHooked = true }
            return (true, !s.clockHooked)
        }
        guard go else { return }
        if hook {
            // A clock moved by hand wakes the sampler (and `stop()`'s wait) when it moves.
            let byHand = clock.onAdvance { [weak self] in
                self?.poke()
                self?.state.broadcast()
            }
            state.withLock { $0.clockMovesByHand = byHand }
        }
        let generation = state.withLock { s -> Int in
            s.generation += 1
            return s.generation
        }
        startThread(name: "thermtop-sample") { [self] in samplerLoop(generation) }
    }

    /// Stop the sampler thread; returns once it has left (within a read deadline or so, or
    /// `timeout` on the hub's clock: on a clock moved by hand, only once it is moved past it),
    /// and ends the streams. Called on the sampler thread itself (from a listener), it asks it
    /// to stop and returns at once.
    public func stop(timeout: Duration = .seconds(2)) {
        let (alive, onSampler) = state.withLock { s -> (Bool, Bool) in
            s.schedule.receive(.stop)
            return (s.threadAlive, s.samplerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false)
        }
        if alive {
            poke()
            if !onSampler {
                let end = clock.now() + timeout.inSeconds
                while true {
                    let left = end - clock.now()
                    if left <= 0 || state.wait(until: monotonicSeconds() + left, for: { !$0.threadAlive }) { break }
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
        Syscalls.wake(controlPipe.write)
    }

    /// Carries out the schedule's steps until it says stop. The first step is the first
    /// reading (claimed here, so callers of `current` wait for this one), or one that shows
    /// the event sources' states.
    ///
    /// The source's files are read on this thread (`readOnThisThread`): a sample is no
    /// hand-off and no wakeup of another thread. When a read here hangs past the deadline,
    /// the source hands over a fork of itself; `replaceSampler` starts a new sampler thread on
    /// it, which reads at once (the hung file answered timed-out) while this one, stuck in the
    /// kernel, leaves without publishing when the read returns.
    private func samplerLoop(_ generation: Int) {
        let box = currentBox
        let sources = box.lock.withLock { () -> [any MonitorWakeSource] in
            _ = box.source.readOnThisThread { [weak self] next in self?.replaceSampler(generation, with: next) }
            return wakeSourceFactory(box.source)
        }
        var eventStates = sources.map(\.state)
        let claimed = state.withLock { s -> Bool in
            guard s.generation == generation else { return false }
            s.sampler.eventSources = eventStates
            s.sampler.running = true
            s.samplerThread = pthread_self()
            // A first reading a caller is taking is not taken twice; one a replaced sampler
            // was taking is taken over.
            var claimed = false
            switch s.first {
            case .none:
                s.first = .taking(bySampler: true)
                claimed = true
            case .taking(let bySampler): claimed = bySampler
            case .made: break
            }
            s.schedule.begin(hasReading: !claimed, eventSources: !sources.isEmpty)
            return claimed
        }
        while true {
            let step = state.withLock { s -> SamplerSchedule.Step? in
                // Replaced while a read hung: the new sampler does the work.
                guard s.generation == generation else { return nil }
                let now = clock.now()
                let step = s.schedule.next(now: now)
                if case .sleep = step { s.idleSince = now } else { s.idleSince = nil }
                return step
            }
            guard let step else { return }
            if case .sleep = step { state.broadcast() }
            switch step {
            case .stop:
                // Another thread may later get this thread's id: it must not read as the sampler.
                box.lock.withLock { box.source.endReadsOnThisThread() }
                state.withLock { s in
                    s.threadAlive = false
                    s.samplerThread = nil
                    s.sampler.running = false
                    // A first reading claimed here and never made (stopped at once) is free
                    // for a caller again.
                    if claimed, s.first.update == nil { s.first = .none }
                }
                state.broadcast()
                return
            case .sample(let reason, let rediscoverFirst):
                if rediscoverFirst { rediscover() }
                takeSample(reason)
            case .republish:
                republish()
            case .sleep(let until):
                sleep(until: until, sources: sources, states: &eventStates)
            }
        }
    }

    /// A read on sampler `generation`'s thread hung and its source gave `next` to go on with:
    /// a new sampler thread on it, the stuck one left to leave when the kernel lets it go.
    /// Called on the read watchdog's thread.
    private func replaceSampler(_ generation: Int, with next: any ThermalSensorSource) {
        let box = SourceBox(next)
        let go = state.withLock { s -> Int? in
            guard s.generation == generation, s.threadAlive else { return nil }
            s.generation += 1
            s.box = box
            s.sampler.samplerReplacements += 1
            s.schedule.samplerReplaced()
            return s.generation
        }
        guard let go else { return }
        if !startThread(name: "thermtop-sample", inlineOnFailure: false, { [self] in samplerLoop(go) }) {
            // No thread can be made: the sampler has stopped; callers get the last status, and
            // a first reading the stuck one was taking is free for a caller again.
            state.withLock { s in
                s.threadAlive = false
                s.samplerThread = nil
                s.sampler.running = false
                if case .taking(bySampler: true) = s.first { s.first = .none }
            }
            state.broadcast()
        }
    }

    /// Wait in `poll` for a command, an event source's descriptor, or `until` on the clock
    /// (nil: no timer), and hand what came to the schedule.
    private func sleep(until: Double?, sources: [any MonitorWakeSource], states: inout [EventSourceState]) {
        var timeoutMs: Int32 = -1
        if let until, !state.withLock({ $0.clockMovesByHand }) {
            // Round up: waking a little early would find nothing due and sleep again.
            timeoutMs = Int32(min(3_600_000, max(0, ((until - clock.now()) * 1000).rounded(.up))))
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
        if fds[0].revents != 0 { Syscalls.drain(controlPipe.read) }
        var hints: [MonitorChangeHint] = []
        for (k, i) in owners.enumerated() where fds[k + 1].revents != 0 { hints += sources[i].drain() }
        let now = sources.map(\.state)
        let changed = now != states
        states = now
        state.withLock { s in
            for h in hints { s.schedule.receive(h) }
            if changed {
                s.sampler.eventSources = now
                s.schedule.eventSourcesChanged()
            }
        }
    }

    /// Where the hub stands, for tests to await (`until`).
    package struct Progress: Sendable {
        /// The last status published.
        package var status: MonitorStatus
        /// When the sampler last found nothing due and went to sleep; nil while it works.
        /// After moving a manual clock to T, `idleSince >= T` proves nothing was due at T.
        package var idleSince: Double?
        /// Whether the sampler thread is alive.
        package var samplerAlive: Bool
    }

    /// Wait (on a thread of its own, woken by each publication and each time the sampler goes
    /// idle or leaves) until `condition` holds, or `timeout` seconds pass; true when it held.
    package func until(timeout: Double = 5, _ condition: @escaping @Sendable (Progress) -> Bool) async -> Bool {
        await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            startThread(name: "thermtop-until") { [self] in
                c.resume(returning: state.wait(until: monotonicSeconds() + timeout) {
                    condition(Progress(status: $0.current, idleSince: $0.idleSince, samplerAlive: $0.threadAlive))
                })
            }
        }
    }

    // MARK: Sampling and publishing

    /// Make sure the first reading exists: take it on this thread, or wait for the one the
    /// sampler or another caller is taking. `meanwhile` runs once on this thread either way.
    private func ensureFirstReading(meanwhile: () -> Void = {}) {
        var ranMeanwhile = false
        while true {
            let claimed = state.withLock { s -> Bool? in
                switch s.first {
                case .made: return nil
                case .taking: return false
                case .none:
                    s.first = .taking(bySampler: false)
                    return true
                }
            }
            switch claimed {
            case nil:
                if !ranMeanwhile { meanwhile() }
                return
            case true?:
                takeSample(.start, meanwhile: ranMeanwhile ? {} : meanwhile)
                // A sampler thread that started while this reading was being taken found no
                // sample time in the schedule and went to sleep until the next rediscovery:
                // wake it to plan from this reading.
                poke()
                return
            case false?:
                if !ranMeanwhile { meanwhile(); ranMeanwhile = true }
                // Woken when the first reading is published, or when a sampler that claimed
                // it leaves without it.
                _ = state.wait { s in if case .taking = s.first { false } else { true } }
            }
        }
    }

    private func rediscover() {
        let box = currentBox
        box.lock.withLock { box.source.rediscover() }
        let now = clock.now()
        state.withLock { s in
            s.schedule.rediscovered(at: now)
            s.sampler.lastRediscovery = now
            s.sampler.rediscoveries += 1
        }
    }

    @discardableResult
    private func takeSample(_ reason: MonitorWakeReason, meanwhile: () -> Void = {}) -> MonitorUpdate {
        let start = clock.now()
        meanwhile()
        // The local time labels a sensor that stops reading ("since 14:02").
        let timeOfDay = clock.secondsSinceLocalMidnight()
        let box = currentBox
        let (snap, reads) = box.lock.withLock { (box.source.sample(at: start), box.source.readStats) }
        let end = clock.now()
        let update = state.withLock { s -> MonitorUpdate in
            // Read by a sampler replaced while this sample's read hung: its source was given up.
            guard s.box === box else { return MonitorUpdate(sequence: s.sequence, status: s.current, events: []) }
            s.sampler.samples += 1
            s.sampler.lastSampleSeconds = end - start
            s.sampler.wakeReason = reason
            s.sampler.reads = reads
            s.sampler.running = s.running
            s.schedule.sampled(start: start, end: end)
            let status = s.model.decide(snap, label: sourceLabel, simulated: sourceIsSimulated, timeOfDay: timeOfDay,
                                        sampler: s.sampler)
            return publish(status, in: &s)
        }
        deliver()
        return update
    }

    /// Publish the last status again with the sampler's current info (an event source came
    /// up or went down): nothing was read, so nothing else changes.
    private func republish() {
        state.withLock { s in
            if let last = s.model.last { publish(last, in: &s, cause: .eventSources) }
        }
        deliver()
    }

    /// Why a status is published: a sample, a command's re-decision, or the event sources'
    /// states changing (nothing read).
    private enum PublishCause { case sample, command, eventSources }

    /// Called with the lock held, so updates are numbered and queued in the order they were
    /// decided; the caller hands them out with `deliver()` once it holds no lock.
    @discardableResult
    private func publish(_ status: MonitorStatus, in s: inout HubState, cause: PublishCause = .sample) -> MonitorUpdate {
        var status = status
        let events = s.model.commit(status)
        // Commands and event-source changes always wake; a sample only when it announces
        // something or was woken by anything but the timer.
        let routine = cause == .sample && events.isEmpty && status.sampler.wakeReason == .timer
        s.sampler.nextTimedSample = s.running && !s.schedule.paused ? s.schedule.nextSample : nil
        status.sampler = s.sampler
        s.sequence += 1
        s.current = status
        s.model.last = status
        s.schedule.refreshInterval = status.policy.refreshIntervalSeconds
        let wake = !s.wakePending && s.wakePolicy != .never && (s.wakePolicy == .everyStatus || !routine)
        if wake {
            s.wakePending = true
            s.wakeSignals += 1
        }
        let update = MonitorUpdate(sequence: s.sequence, status: status, events: events)
        if s.first.update == nil { s.first = .made(update) }
        s.outbox.append(.update(update, wake: wake))
        state.broadcast()
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
                guard case .update(let u, _) = d else { return (d, [], [], []) }
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
            case .update(let update, let wake):
                for c in eventStreams { for e in update.events { c.yield(e) } }
                for c in statusStreams { c.yield(update.status) }
                for (id, handler) in listeners where state.withLock({ $0.listeners[id] != nil }) { handler(update) }
                if wake {
                    Syscalls.wake(wakePipe.write)
                }
            }
        }
    }
}
