import Observation
import Synchronization
import ThermtopCore

/// `ProcessInfo.thermalState`, `isLowPowerModeEnabled` and their changes for Linux, from real
/// kernel data: the main-actor, `@Observable` face of a `ThermalStatusHub` for UI code.
///
/// Making one reads nothing: until the first reading (`start()`, `await firstReading()` or
/// `sample()`) `status` is a placeholder whose `sampler.samples` is 0, and the first reading
/// announces no change. `start()` runs the hub's sampler thread; each new status reaches the
/// main actor and updates only the properties whose values changed, so observing
/// `thermalState`, `tier` or `isLowPowerModeEnabled` fires only when they change (`status`
/// changes with every sample). Changes also arrive as an `AsyncStream` (`events()`) and
/// through `addObserver`. The `Thermtop` module adds `NotificationCenter` notifications named
/// like Apple's; this core stays free of Foundation so the dashboard does not load it.
///
/// ```swift
/// import Thermtop
///
/// let monitor = ThermalMonitor(hub: .live())   // or ThermalMonitor.live(), which also posts notifications
/// monitor.start()
/// await monitor.firstReading()
/// if monitor.policy.prefetchEnabled { print("prefetching") }
/// for await event in monitor.events() { print(event) }
/// ```
@MainActor
@Observable
public final class ThermalMonitor {
    /// Everything decided from the last sample (a new value every sample).
    public private(set) var status: MonitorStatus
    /// The thermal state in force; changes only when its value does.
    public private(set) var thermalState: ThermalState
    /// Whether low power is on; changes only when its value does.
    public private(set) var isLowPowerModeEnabled: Bool
    /// The quality tier in force; changes only when its value does.
    public private(set) var tier: QualityTier
    /// What the tier allows; changes only when its value does.
    public private(set) var policy: QualityPolicy

    /// Simulation overrides; setting them re-decides at once and notifies.
    public var overrides: ThermalOverrides {
        get { status.overrides }
        set { if let u = hub.setOverrides(newValue) { apply(u) } }
    }
    /// Thresholds and margins; setting them re-decides from the last reading at once.
    public var config: ThermalConfig {
        get { hub.config }
        set { if let u = hub.setConfig(newValue) { apply(u) } }
    }
    /// Thresholds on the forecast to announce (`.forecastTriggered`) when crossed, either way.
    public var forecastTriggers: [ForecastTrigger] {
        get { hub.forecastTriggers }
        set { if let u = hub.setForecastTriggers(newValue) { apply(u) } }
    }

    /// The readings of the last sample.
    public var snapshot: ThermalSnapshot { status.snapshot }
    /// Samples taken so far (0 before the first reading).
    public var sampleCount: Int { status.sampler.samples }
    /// Seconds the last sample took on the monitor's clock.
    public var lastSampleDuration: Double { status.sampler.lastSampleSeconds }
    /// When devices were last rediscovered, on the monitor's clock.
    public var lastRediscovery: Double { status.sampler.lastRediscovery }

    /// The engine underneath: `Sendable`, for code off the main actor.
    @ObservationIgnored public let hub: ThermalStatusHub
    /// The hub's clock.
    public var clock: any MonitorClock { hub.clock }
    @ObservationIgnored private var applied = 0
    @ObservationIgnored private var continuations: [Int: AsyncStream<MonitorEvent>.Continuation] = [:]
    /// Behind a lock so a token cancelled or released on any thread unregisters at once.
    @ObservationIgnored private let observers = ObserverTable()
    @ObservationIgnored private var nextID = 0
    @ObservationIgnored private var feed: MonitorObservation?
    /// Tokens the monitor keeps for as long as it lives (the notification bridge of `live()`).
    @ObservationIgnored private var retained: [MonitorObservation] = []

    /// Keep `token` registered for the monitor's lifetime.
    public func retain(_ token: MonitorObservation) { retained.append(token) }

    /// Reads nothing (see the type's notes for the first reading).
    public convenience init(source: any ThermalSensorSource, clock: any MonitorClock, config: ThermalConfig = ThermalConfig(),
                            overrides: ThermalOverrides = .none, delay: Duration = .seconds(1),
                            wakeSources: @escaping @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] = { _ in [] }) {
        self.init(hub: ThermalStatusHub(source: source, clock: clock, config: config, overrides: overrides,
                                        delay: delay, wakeSources: wakeSources))
    }

    /// The facade over an existing hub (its latest status, or its placeholder before the first
    /// reading, is taken as the starting state; nothing is read).
    public init(hub: ThermalStatusHub) {
        self.hub = hub
        let s = hub.latest
        status = s
        thermalState = s.thermalState
        isLowPowerModeEnabled = s.isLowPowerModeEnabled
        tier = s.tier
        policy = s.policy
        // Updates published on the sampler thread hop to the main actor; ones this monitor
        // caused synchronously are applied at once and skipped here by their sequence number.
        feed = hub.addListener { [weak self] update in
            Task { @MainActor in self?.apply(update) }
        }
        // A status published between the first look and the registration reached no listener.
        set(hub.latest)
    }

    /// The first reading, applied: at once if it was made, else taken (on the sampler when
    /// started, else on a thread of the hub's) and awaited.
    @discardableResult
    public func firstReading() async -> MonitorStatus {
        apply(await hub.firstUpdate())
        return status
    }

    /// Run the sampler thread (samples every `delay`, refreshes at the tier's pace, wakes on
    /// kernel and desktop events).
    public func start() { hub.start() }
    /// Stop the sampler thread; returns once it has left, or after `timeout`.
    public func stop(timeout: Duration = .seconds(2)) { hub.stop(timeout: timeout) }

    /// Read the source once, now, on the main actor (for scripts and tests; a started monitor
    /// samples by itself). Bounded by the read deadline when files hang.
    @discardableResult
    public func sample() -> MonitorStatus {
        apply(hub.sample())
        return status
    }

    /// Rediscover devices and static attributes (the heavy, tier-paced refresh), then sample.
    @discardableResult
    public func refresh() -> MonitorStatus {
        apply(hub.refresh())
        return status
    }

    /// Seconds until the next tier-paced refresh is due.
    public func secondsUntilRefresh(now: Double? = nil) -> Double { hub.secondsUntilRefresh(now: now) }

    /// Android's `getThermalHeadroom(forecastSeconds)`: the highest sensor headroom (0 at fair,
    /// 1 at critical) `ahead` at the current trends; nil until there is enough history.
    public func forecast(in ahead: Duration) -> Double? { status.forecast.headroom(inSeconds: ahead.inSeconds) }

    /// Changes as an async sequence, delivered on the main actor after the properties changed;
    /// each call gets its own stream.
    public func events() -> AsyncStream<MonitorEvent> {
        let (stream, continuation) = AsyncStream<MonitorEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        let id = nextID
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.continuations[id] = nil }
        }
        return stream
    }

    /// Call `handler` on every change, on the main actor, until the returned token is cancelled
    /// or released.
    public func addObserver(_ handler: @escaping @MainActor (MonitorEvent) -> Void) -> MonitorObservation {
        nextID += 1
        let id = nextID
        observers.withLock { $0[id] = handler }
        return MonitorObservation { [observers] in _ = observers.withLock { $0.removeValue(forKey: id) } }
    }

    private func apply(_ update: MonitorUpdate) {
        guard update.sequence > applied else { return }
        applied = update.sequence
        set(update.status)
        for e in update.events {
            for c in continuations.values { c.yield(e) }
            for h in observers.withLock({ Array($0.values) }) { h(e) }
        }
    }

    /// Assign only what changed, so observers of one property are not woken by another.
    private func set(_ s: MonitorStatus) {
        status = s
        if thermalState != s.thermalState { thermalState = s.thermalState }
        if isLowPowerModeEnabled != s.isLowPowerModeEnabled { isLowPowerModeEnabled = s.isLowPowerModeEnabled }
        if tier != s.tier { tier = s.tier }
        let p = s.policy
        if policy != p { policy = p }
    }
}

/// Main-actor observers behind a lock.
private final class ObserverTable: Sendable {
    private let table = Mutex<[Int: @MainActor (MonitorEvent) -> Void]>([:])
    func withLock<T>(_ body: (inout [Int: @MainActor (MonitorEvent) -> Void]) -> T) -> T { table.withLock { body(&$0) } }
}
