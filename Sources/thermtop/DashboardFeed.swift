import ThermtopCore
import ThermtopLinux
import ThermtopUI

/// What the dashboard's run loop needs from the monitor: the engine (`ThermalStatusHub`) that
/// samples on its own thread, and the commands the reducer's effects turn into. Keys never
/// wait on a sensor read: every command returns at once and the result arrives as a new
/// status. The hub signals `wakeDescriptor` only for material statuses (`WakePolicy.changes`:
/// change events, commands' results, event sources, samples not woken by its timer); the
/// loop takes routine samples on its own beat (`hasSample(newerThan:)`), so a sample that
/// changes nothing that matters costs the UI thread no wakeup of its own.
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
        hub.setWakePolicy(.changes)
        hub.start()
        return hub
    }

    /// Whether the monitor holds a sample newer than the one counted `samples` (what the run
    /// loop shows). Never for a replay: its samples arrive through `replayAdvance`.
    func hasSample(newerThan samples: Int) -> Bool {
        replay == nil && hub.current.sampler.samples != samples
    }

    /// Readable when a new status is waiting.
    var wakeDescriptor: Int32 { hub.wakeDescriptor }

    /// The newest status and what the sampler says about it; empties the wake descriptor.
    func drain() -> (MonitorStatus, FeedInfo) {
        hub.consumeWake()
        if let replay {
            let s = replay.status
            let samples = replay.recording.samples
            let index = max(0, replay.fed - 1)
            let position = ReplayPosition(index: index, time: samples[index].time, nextTime: replay.nextTime)
            return (s, FeedInfo(samples: s.sampler.samples, sampleMilliseconds: s.sampler.lastSampleSeconds * 1000,
                                refreshDueAt: 0, simulatedLoad: nil, replay: position))
        }
        let s = hub.current
        let info = FeedInfo(samples: s.sampler.samples, sampleMilliseconds: s.sampler.lastSampleSeconds * 1000,
                            refreshDueAt: s.refreshDueAt,
                            // Asked only of the simulated laptop: the hub answers it under the
                            // source's lock, which a stalled sensor read can hold.
                            simulatedLoad: hub.sourceIsSimulated ? hub.simulatedLoad : nil)
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
            hub.stop()
            hub = Self.startHub(options: options, config: config, overrides: overrides, delay: delay, simulated: on)
        case .setPaused(let p):
            hub.setPaused(p)
        case .suspend, .replayAdvance:
            break
        }
    }

    func stop() { hub.stop() }
}
