import Foundation
import Glibc
import Synchronization
import Testing
import Thermtop

/// What a listener saw: each update's sequence, with markers for entering and leaving it (a
/// listener re-entered by an update its own call caused would nest them).
private final class DeliveryLog: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ e: String) { entries.withLock { $0.append(e) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite("Hub delivery: listeners and streams fed outside the hub's locks")
struct HubDeliveryTests {
    @Test("a listener may read the hub and call setOverrides, setConfig, setForecastTriggers and sample(); the updates it causes reach it after the one it handles, in sequence order")
    func listenerCallsHubMethods() {
        let hub = ThermalStatusHub(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        let log = DeliveryLog()
        let token = hub.addListener { u in
            log.add("enter \(u.sequence)")
            _ = hub.current
            _ = hub.forecastTriggers
            _ = hub.config
            _ = hub.overrides
            switch u.sequence {
            case 1: hub.setOverrides(ThermalOverrides(thermalState: .fair))
            case 2:
                var config = hub.config
                config.overrides["x86_pkg_temp"] = SensorOverride(serious: 50)
                hub.setConfig(config)
            case 3: hub.setForecastTriggers([.state(.serious, within: .seconds(60))])
            case 4: hub.sample()
            default: break
            }
            log.add("leave \(u.sequence)")
        }
        defer { token.cancel() }
        let first = hub.sample()
        #expect(first.sequence == 1)
        #expect(log.all == (1...5).flatMap { ["enter \($0)", "leave \($0)"] })
        #expect(hub.current.overrides == ThermalOverrides(thermalState: .fair))
        #expect(hub.forecastTriggers.count == 1)
        #expect(hub.current.assessment.state == .serious, "the listener's config was not applied")
    }

    @Test("on a started hub, a listener on the sampler thread calls setOverrides and sample() without trapping or deadlocking")
    func listenerOnSamplerThread() async {
        let source = LockedSource(StubSource.package(53))
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: .milliseconds(20))
        let seen = Collected<Int>()
        let token = hub.addListener { u in
            seen.append(u.sequence)
            if u.sequence == 2 { hub.setOverrides(ThermalOverrides(lowPower: true)) }
            if u.sequence == 4 { hub.sample() }
            _ = hub.current.tier
            _ = hub.forecastTriggers
        }
        defer { token.cancel() }
        hub.start()
        defer { hub.stop() }
        #expect(await seen.until { $0.count >= 8 })
        let sequences = seen.all
        #expect(sequences == Array(1...sequences.count), "\(sequences)")
        #expect(hub.current.isLowPowerModeEnabled)
    }

    @Test("a listener that cancels its own observation is not called again, and the cancel does not deadlock")
    func listenerCancelsItself() {
        let hub = ThermalStatusHub(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        let calls = Mutex(0)
        let token = Mutex<MonitorObservation?>(nil)
        let observation = hub.addListener { _ in
            calls.withLock { $0 += 1 }
            token.withLock { $0 }?.cancel()
        }
        token.withLock { $0 = observation }
        hub.sample()
        hub.sample()
        hub.setOverrides(ThermalOverrides(thermalState: .critical))
        #expect(calls.withLock { $0 } == 1)
        #expect(observation.isCancelled)
    }

    @Test("updates published from many threads at once reach a listener and a changes() stream in sequence order, each once")
    func sequenceOrderUnderContention() async {
        let source = LockedSource(StubSource.package(53))
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: .milliseconds(10))
        let seen = Collected<Int>()
        let token = hub.addListener { u in seen.append(u.sequence) }
        defer { token.cancel() }
        let events = hub.changes()
        hub.start()
        defer { hub.stop() }
        let states: [ThermalState] = [.nominal, .fair, .serious, .critical]
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<50 { hub.setOverrides(ThermalOverrides(thermalState: states[(t + i) % 4])) }
                }
            }
        }
        hub.setOverrides(.none)
        let last = hub.setOverrides(ThermalOverrides(thermalState: .critical))?.sequence ?? 0
        #expect(await seen.until { ($0.last ?? 0) >= last })
        let sequences = seen.all
        #expect(sequences == Array(1...sequences.count), "out of order or repeated")
        // Stopping ends the stream after what it holds (the newest 64 events, in a row). It got
        // them in the order decided: each state change starts where the one before it ended,
        // and the last is the last command's.
        hub.stop()
        var previous: ThermalState?
        var ordered = true
        for await e in events {
            if case .thermalStateChanged(let from, let to) = e {
                if let previous, previous != from { ordered = false }
                previous = to
            }
        }
        #expect(ordered)
        #expect(previous == .critical)
    }

    @Test("a listener on the sampler thread may stop the hub: stop() returns at once there, and the sampler leaves")
    func listenerStopsHub() async {
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: LockedSource(StubSource.package(53)), clock: clock, delay: .milliseconds(50))
        let stopTook = Mutex<Double?>(nil)
        let token = hub.addListener { u in
            guard u.sequence == 3 else { return }
            let t0 = monotonicSeconds()
            hub.stop()
            stopTook.withLock { $0 = monotonicSeconds() - t0 }
        }
        defer { token.cancel() }
        hub.start()
        for n in 1...2 {
            #expect(await hub.until { $0.status.sampler.samples == n && $0.idleSince != nil })
            clock.advance(by: 0.05)
        }
        #expect(await hub.until { !$0.samplerAlive })
        #expect(!hub.isRunning)
        #expect((stopTook.withLock { $0 } ?? .infinity) < 0.5)
        let samples = hub.latest.sampler.samples
        #expect(samples == 3)
        clock.advance(by: 1)
        #expect(hub.latest.sampler.samples == samples, "the sampler kept sampling after stop()")
    }

    @Test("making a hub reads nothing; firstReading() takes the first reading off the caller, once, and statuses() starts with it")
    func firstReadingIsAsync() async {
        let source = LockedSource(StubSource.package(95))
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        #expect(source.samples == 0)
        #expect(!hub.hasReading)
        #expect(hub.latest.sampler.samples == 0)
        let first = await hub.firstReading()
        #expect(first.thermalState == .serious)
        #expect(source.samples == 1)
        #expect(await hub.firstReading() == first)
        #expect(source.samples == 1)
        var statuses = hub.statuses().makeAsyncIterator()
        #expect(await statuses.next() == first)
    }

    @Test("statuses() on a hub with no reading yet asks for it and starts with it")
    func statusesAskForTheFirstReading() async {
        let source = LockedSource(StubSource.package(53))
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        var statuses = hub.statuses().makeAsyncIterator()
        let s = await statuses.next()
        #expect(s?.sampler.samples == 1)
        #expect(source.samples == 1)
    }

    @Test("started, the sampler takes the first reading: firstReading() waits for it, and current blocks for it without reading twice")
    func firstReadingOnStart() async {
        let source = LockedSource(StubSource.package(53))
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: .seconds(3600))
        hub.start()
        defer { hub.stop() }
        let first = await hub.firstReading()
        #expect(first.sampler.wokenBy == "start")
        #expect(first.sampler.samples == 1)
        // Every sample the hub counts is one read of the source: nothing is read twice. (A
        // loaded run may resume this task after the tier's rediscovery has sampled again.)
        let now = hub.current
        #expect(source.samples == now.sampler.samples)
    }

    @MainActor
    @Test("ThermalMonitor reads nothing when made; firstReading() applies the first reading")
    func monitorFirstReading() async {
        let source = LockedSource(StubSource.package(95))
        let monitor = ThermalMonitor(source: source, clock: SystemClock())
        #expect(source.samples == 0)
        #expect(monitor.sampleCount == 0)
        await monitor.firstReading()
        #expect(monitor.thermalState == .serious)
        #expect(monitor.sampleCount == 1)
    }

    @Test("durations: delay and stop(timeout:) take Duration")
    func durations() {
        let hub = ThermalStatusHub(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock(), delay: .milliseconds(250))
        #expect(hub.delay == .milliseconds(250))
        hub.setDelay(.milliseconds(1))
        #expect(abs((hub.delay - .milliseconds(50)).inSeconds) < 1e-9, "the floor")
        hub.stop(timeout: .milliseconds(10))
    }
}
