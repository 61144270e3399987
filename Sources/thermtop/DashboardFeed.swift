import ThermtopCore
import ThermtopLinux
import ThermtopUI

/// What the dashboard's run loop needs from the monitor: the engine (`ThermalStatusHub`) that
/// samples on its own thread, and the commands the reducer's effects turn into. Keys never
/// wait on a sensor read: every command returns at once and the result arrives as a new
/// status. Live, each new status reaches the screen through `observe`'s handler, called on
/// the thread that published it (the sampler's, for samples): the dashboard draws it there,
/// so a sample costs one thread's wakeup, not the sampler's and then the UI's. The hub's wake
/// descriptor is not used (`WakePolicy.never`).
///
/// A replay (`--replay FILE`) has no sampler thread: a `ReplayDriver` feeds the recorded
/// samples through the same readers (`SysfsSource` on the recording), classifier and policy
/// when the reducer says they are due (`Effect.replayAdvance`), on the run loop's thread
/// (reading a recording is memory only).
@MainActor
final class DashboardFeed {
    private(set) var hub: ThermalStatusHub
    private let options: SourceOptions
    private let config: ThermalConfig
    private let delay: Double
    private var replay: ReplayDriver?
    /// Called with the hub on each new live status (see `observe`), on the publishing thread.
    private var handler: (@Sendable (ThermalStatusHub) -> Void)?
    private var observation: MonitorObservation?

    /// Plays `recording` from its first sample.
    init(replay recording: Recording, file: String, options: SourceOptions, config: ThermalConfig) {
        self.options = options
        self.config = config
        delay = recording.header.delaySeconds
        let driver = ReplayDriver(recording: recording, fileLabel: file, config: config, overrides: options.overrides)
        replay = driver
        hub = driver.monitor.hub
    }

    init(options: SourceOptions, config: ThermalConfig, delay: Double) {
        self.options = options
        self.config = config
        self.delay = delay
        hub = Self.startHub(options: options, config: config, overrides: options.overrides, delay: delay,
                            simulated: options.simulate)
    }

    private static func startHub(options: SourceOptions, config: ThermalConfig, overrides: ThermalOverrides,
                                 delay: Double, simulated: Bool) -> ThermalStatusHub {
        let hub = options.makeHub(config: config, overrides: overrides, delay: delay, simulated: simulated,
                                  heatSources: true)
        hub.setWakePolicy(.never)
        hub.start()
        return hub
    }

    /// Hands every new live status to `handler`, with the hub it came from, on the thread that
    /// published it, from now on and across hubs (`S` swaps the live and simulated sources).
    /// A replay's statuses come through `drain()` only.
    func observe(_ handler: @escaping @Sendable (ThermalStatusHub) -> Void) {
        guard replay == nil else { return }
        self.handler = handler
        attach()
    }

    private func attach() {
        guard let handler else { return }
        let hub = self.hub
        observation = hub.addListener { [weak hub] _ in if let hub { handler(hub) } }
        // What the hub published before the listener was added is not missed.
        handler(hub)
    }

    /// Whether statuses come from the live hub (through `observe`), not a replay.
    var isLive: Bool { replay == nil }

    /// The newest status and what the sampler says about it.
    func drain() -> (MonitorStatus, FeedInfo) {
        if let replay {
            let s = replay.status
            let samples = replay.recording.samples
            let index = max(0, replay.fed - 1)
            let position = ReplayPosition(index: index, time: samples[index].time, nextTime: replay.nextTime)
            return (s, FeedInfo(samples: s.sampler.samples, sampleMilliseconds: s.sampler.lastSampleSeconds * 1000,
                                refreshDueAt: 0, simulatedLoad: nil, replay: position))
        }
        return Self.newest(of: hub)
    }

    /// `hub`'s newest status and what its sampler says about it: any thread may ask.
    nonisolated static func newest(of hub: ThermalStatusHub) -> (MonitorStatus, FeedInfo) {
        let s = hub.current
        let info = FeedInfo(samples: s.sampler.samples, sampleMilliseconds: s.sampler.lastSampleSeconds * 1000,
                            refreshDueAt: s.refreshDueAt,
                            // Asked only of the simulated laptop: the hub answers it under the
                            // source's lock, which a stalled sensor read can hold.
                            simulatedLoad: hub.sourceIsSimulated ? hub.simulatedLoad : nil,
                            nextSampleAt: s.sampler.nextTimedSample)
        return (s, info)
    }

    func perform(_ effect: Effect) {
        if replay != nil {
            switch effect {
            case .replayAdvance(let time): replay!.run(through: time)
            // Through the monitor, whose status the replay shows: it re-decides at once.
            case .setOverrides(let o): replay!.monitor.overrides = o
            // Nothing else reaches a replay: no sampler to pause, nothing to rediscover or load.
            case .refresh, .adjustLoad, .useSimulatedLaptop, .setPaused, .suspend: break
            }
            return
        }
        switch effect {
        case .setOverrides(let o):
            _ = hub.setOverrides(o)
        case .refresh:
            hub.refreshNow()
        case .adjustLoad(let d):
            _ = hub.adjustLoad(by: d, reason: "load changed")
        case .useSimulatedLaptop(let on):
            guard on != hub.sourceIsSimulated else { return }
            let overrides = hub.overrides
            stop()
            hub = Self.startHub(options: options, config: config, overrides: overrides, delay: delay, simulated: on)
            attach()
        case .setPaused(let p):
            hub.setPaused(p)
        case .suspend, .replayAdvance:
            break
        }
    }

    /// Stops the sampler; no status reaches the handler after this returns.
    func stop() {
        observation?.cancel()
        observation = nil
        hub.stop()
    }
}
