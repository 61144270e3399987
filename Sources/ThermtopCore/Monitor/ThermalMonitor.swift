import Observation

/// A change the monitor announces.
public enum MonitorEvent: Sendable, Equatable {
    case thermalStateChanged(from: ThermalState, to: ThermalState)
    case lowPowerChanged(Bool)
    case tierChanged(from: QualityTier, to: QualityTier)
    /// A trigger in `forecastTriggers` started (`active`) or stopped holding.
    case forecastTriggered(ForecastTrigger, active: Bool)
}

/// `ProcessInfo.thermalState`, `isLowPowerModeEnabled` and their changes for Linux, from real
/// kernel data. Observable (Observation framework); changes also arrive as an `AsyncStream`
/// (`events()`) and through `addObserver`. The `Thermtop` module adds `NotificationCenter`
/// notifications named like Apple's (`postNotifications(to:)`, on by default in `live()`);
/// this core stays free of Foundation so the dashboard does not load it.
///
/// ```swift
/// let monitor = ThermalMonitor(source: SysfsSource(), clock: SystemClock())
/// monitor.sample()
/// if monitor.policy.prefetchEnabled { prefetch() }
/// for await event in monitor.events() { … }
/// ```
@MainActor
@Observable
public final class ThermalMonitor {
    /// Everything decided from the last sample.
    public private(set) var status: MonitorStatus
    /// Simulation overrides; setting them re-decides at once and notifies.
    public var overrides: Overrides {
        didSet {
            guard overrides != oldValue else { return }
            publish(status: MonitorStatus(
                snapshot: status.snapshot, assessment: status.assessment,
                lowPowerAssessment: status.lowPowerAssessment, overrides: overrides,
                sourceLabel: source.label, sourceIsSimulated: source.isSimulated, forecast: status.forecast))
        }
    }
    /// Thresholds on the forecast to announce (`.forecastTriggered`) when crossed, either way.
    public var forecastTriggers: [ForecastTrigger] = [] {
        didSet { if forecastTriggers != oldValue { publish(status: status) } }
    }
    /// Seconds the last `sample()` took on the monitor's clock.
    public private(set) var lastSampleDuration: Double = 0
    public private(set) var sampleCount = 0
    public private(set) var lastRediscovery: Double

    public var thermalState: ThermalState { status.thermalState }
    public var isLowPowerModeEnabled: Bool { status.isLowPowerModeEnabled }
    public var tier: QualityTier { status.tier }
    public var policy: QualityPolicy { status.policy }
    public var snapshot: Snapshot { status.snapshot }

    @ObservationIgnored public let source: any SensorSource
    @ObservationIgnored public let clock: any MonitorClock
    @ObservationIgnored public var config: ThermalConfig
    @ObservationIgnored private var memory = ClassifierMemory()
    @ObservationIgnored private var history = ForecastHistory()
    @ObservationIgnored private var activeTriggers: Set<ForecastTrigger> = []
    @ObservationIgnored private var continuations: [Int: AsyncStream<MonitorEvent>.Continuation] = [:]
    @ObservationIgnored private var observers: [Int: @MainActor (MonitorEvent) -> Void] = [:]
    @ObservationIgnored private var nextID = 0

    public init(source: any SensorSource, clock: any MonitorClock, config: ThermalConfig = ThermalConfig(),
                overrides: Overrides = .none) {
        self.source = source
        self.clock = clock
        self.config = config
        self.overrides = overrides
        let now = clock.now()
        lastRediscovery = now
        status = MonitorStatus(
            snapshot: Snapshot(time: now), assessment: .unknown,
            lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []), overrides: overrides,
            sourceLabel: source.label, sourceIsSimulated: source.isSimulated)
    }

    /// Read the source once and decide again. Posts notifications for what changed.
    @discardableResult
    public func sample() -> MonitorStatus {
        let start = clock.now()
        let snap = source.sample(at: start)
        let assessment = Classifier.assess(snap, config: config, memory: &memory,
                                           timeOfDay: clock.secondsSinceLocalMidnight())
        let lowPower = LowPowerAssessment.assess(snap, config: config)
        history.record(assessment, at: snap.time, config: config.forecast)
        let forecast = Forecaster.forecast(assessment, history: history, config: config)
        lastSampleDuration = clock.now() - start
        sampleCount += 1
        publish(status: MonitorStatus(snapshot: snap, assessment: assessment, lowPowerAssessment: lowPower,
                                      overrides: overrides, sourceLabel: source.label,
                                      sourceIsSimulated: source.isSimulated, forecast: forecast))
        return status
    }

    /// Rediscover devices and static attributes (the heavy, tier-paced refresh), then sample.
    @discardableResult
    public func refresh() -> MonitorStatus {
        source.rediscover()
        lastRediscovery = clock.now()
        return sample()
    }

    /// Seconds until the next tier-paced refresh is due.
    public func secondsUntilRefresh(now: Double? = nil) -> Double {
        max(0, lastRediscovery + policy.refreshIntervalSeconds - (now ?? clock.now()))
    }

    /// Android's `getThermalHeadroom(forecastSeconds)`: the highest sensor headroom (0 at fair,
    /// 1 at critical) `seconds` ahead at the current trends; nil until there is enough history.
    public func forecast(seconds: Double) -> Double? { status.forecast.headroom(inSeconds: seconds) }

    /// Changes as an async sequence; each call gets its own stream.
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

    /// Call `handler` on every change, on the main actor. Returns a token for `removeObserver`.
    @discardableResult
    public func addObserver(_ handler: @escaping @MainActor (MonitorEvent) -> Void) -> Int {
        nextID += 1
        observers[nextID] = handler
        return nextID
    }

    public func removeObserver(_ token: Int) { observers[token] = nil }

    /// Sample every `seconds` (and refresh at the policy's pace) until the task is cancelled.
    public func run(every seconds: Double = 1) async {
        refresh()
        while !Task.isCancelled {
            do { try await clock.sleep(seconds: seconds) } catch { return }
            if secondsUntilRefresh() <= 0 { refresh() } else { sample() }
        }
    }

    private func publish(status new: MonitorStatus) {
        let old = status
        status = new
        var events: [MonitorEvent] = []
        if old.thermalState != new.thermalState {
            events.append(.thermalStateChanged(from: old.thermalState, to: new.thermalState))
        }
        if old.isLowPowerModeEnabled != new.isLowPowerModeEnabled {
            events.append(.lowPowerChanged(new.isLowPowerModeEnabled))
        }
        if old.tier != new.tier { events.append(.tierChanged(from: old.tier, to: new.tier)) }
        for t in forecastTriggers {
            let holds = t.holds(for: new.forecast)
            if holds != activeTriggers.contains(t) {
                if holds { activeTriggers.insert(t) } else { activeTriggers.remove(t) }
                events.append(.forecastTriggered(t, active: holds))
            }
        }
        activeTriggers.formIntersection(forecastTriggers)
        for e in events {
            for c in continuations.values { c.yield(e) }
            for h in observers.values { h(e) }
        }
    }
}
