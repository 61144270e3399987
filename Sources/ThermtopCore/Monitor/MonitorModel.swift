/// The decisions the monitor keeps between samples: configuration, overrides, the
/// classifier's hysteresis memory, the forecast history and which forecast triggers hold.
/// Pure: a value turned into statuses and events by what it is given.
package struct MonitorModel {
    package var config: ThermalConfig
    package var overrides: ThermalOverrides
    package var memory = ClassifierMemory()
    package var history = ForecastHistory()
    package var forecastTriggers: [ForecastTrigger] = []
    package var activeTriggers: Set<ForecastTrigger> = []
    /// The last status published, nil before the first sample.
    package var last: MonitorStatus?

    package init(config: ThermalConfig, overrides: ThermalOverrides) {
        self.config = config
        self.overrides = overrides
    }

    /// Decide from a new snapshot.
    package mutating func decide(_ snap: ThermalSnapshot, label: String, simulated: Bool, timeOfDay: Double?,
                         sampler: MonitorSamplerInfo) -> MonitorStatus {
        let assessment = ThermalClassifier.assess(snap, config: config, memory: &memory, timeOfDay: timeOfDay)
        let lowPower = LowPowerAssessment.assess(snap, config: config)
        history.record(assessment, at: snap.time, config: config.forecast)
        let forecast = Forecaster.forecast(assessment, history: history, config: config)
        var status = MonitorStatus(snapshot: snap, assessment: assessment, lowPowerAssessment: lowPower,
                                   overrides: overrides, sourceLabel: label, sourceIsSimulated: simulated,
                                   forecast: forecast)
        status.sampler = sampler
        let previous = last?.snapshot
        status.window = previous.map { snap.time - $0.time }
        status.power = ThermalPowerDomains.measure(snap, previous: previous, config: config)
        status.throttling = ThermalThrottling.assess(snap, previous: previous, power: status.power)
        status.heatSources = snap.recordedHeatSources
            ?? ThermalHeatSources.measure(snap.processes, previous: previous?.processes, seconds: status.window,
                                          power: status.power, gpus: snap.gpus)
        status.assessment.why = ThermalHeatSources.verdict(status.assessment, sources: status.heatSources,
                                                            gpus: status.snapshot.gpus)
        return status
    }

    /// Decide again from the last snapshot after the configuration changed (no new reading).
    package mutating func reassess(timeOfDay: Double?) -> MonitorStatus? {
        guard var status = last else { return nil }
        status.assessment = ThermalClassifier.assess(status.snapshot, config: config, memory: &memory, timeOfDay: timeOfDay)
        status.assessment.why = ThermalHeatSources.verdict(status.assessment, sources: status.heatSources,
                                                            gpus: status.snapshot.gpus)
        status.lowPowerAssessment = LowPowerAssessment.assess(status.snapshot, config: config)
        status.forecast = Forecaster.forecast(status.assessment, history: history, config: config)
        status.overrides = overrides
        return status
    }

    /// The last status with the current overrides.
    package func withOverrides() -> MonitorStatus? {
        guard var status = last else { return nil }
        status.overrides = overrides
        return status
    }

    /// Make `new` the last status and say what changed. The first status announces nothing:
    /// there is nothing it changed from.
    package mutating func commit(_ new: MonitorStatus) -> [MonitorEvent] {
        defer { last = new }
        var events: [MonitorEvent] = []
        if let old = last {
            if old.thermalState != new.thermalState {
                events.append(.thermalStateChanged(from: old.thermalState, to: new.thermalState))
            }
            if old.isLowPowerModeEnabled != new.isLowPowerModeEnabled {
                events.append(.lowPowerChanged(new.isLowPowerModeEnabled))
            }
            if old.tier != new.tier { events.append(.tierChanged(from: old.tier, to: new.tier)) }
        }
        for t in forecastTriggers {
            let holds = t.holds(for: new.forecast)
            if holds != activeTriggers.contains(t) {
                if holds { activeTriggers.insert(t) } else { activeTriggers.remove(t) }
                // A trigger that already holds on the first sample is its starting state.
                if last != nil { events.append(.forecastTriggered(t, active: holds)) }
            }
        }
        activeTriggers.formIntersection(forecastTriggers)
        return events
    }
}

/// How the sampler is doing, carried in every status for the debug overlay and JSON.
public struct MonitorSamplerInfo: Sendable, Equatable {
    /// Samples taken since start.
    public var samples = 0
    /// Seconds the last sample took (reading and deciding).
    public var lastSampleSeconds = 0.0
    /// When the devices were last rediscovered, on the monitor's clock.
    public var lastRediscovery = 0.0
    /// Rediscoveries since start.
    public var rediscoveries = 0
    /// What woke the last sample.
    public var wakeReason = MonitorWakeReason.start
    /// What woke the last sample, as shown: `timer`, `start`, `uevent power_supply change BAT0`, `key`…
    public var wokenBy: String { wakeReason.label }
    /// Each event source (uevent, thermal netlink, power profiles): active or why not.
    public var eventSources: [EventSourceState] = []
    /// File-reading counters, for sources that read files.
    public var reads: SensorSourceReadStats?
    /// Whether the sampler thread is running (`start()`), or samples are taken on request.
    public var running = false
    /// Sampler threads replaced since start because a read on theirs hung (each is left in
    /// the kernel until the read returns; the number left is `reads.abandonedReaders`).
    public var samplerReplacements = 0
    /// When the sampler's timer takes its next sample, on the monitor's clock: timed samples
    /// keep to one grid, `delay` apart. nil while no timer runs (paused, or not started).
    public var nextTimedSample: Double?

    /// Nothing counted yet.
    public init() {}
}
