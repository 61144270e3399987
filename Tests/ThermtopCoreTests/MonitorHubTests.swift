import Foundation
import Glibc
import Observation
import Synchronization
import Testing
import Thermtop

/// A source whose next snapshot a test sets from any thread (the sampler thread reads it).
final class LockedSource: ThermalSensorSource, Sendable {
    let label = "locked stub"
    let isSimulated = false
    private let next: Mutex<ThermalSnapshot>
    private let counts = Mutex((samples: 0, rediscoveries: 0))

    init(_ snapshot: ThermalSnapshot) { next = Mutex(snapshot) }
    func set(_ s: ThermalSnapshot) { next.withLock { $0 = s } }
    var samples: Int { counts.withLock { $0.samples } }
    var rediscoveries: Int { counts.withLock { $0.rediscoveries } }

    func sample(at time: Double) -> ThermalSnapshot {
        counts.withLock { $0.samples += 1 }
        var s = next.withLock { $0 }
        s.time = time
        return s
    }

    func rediscover() { counts.withLock { $0.rediscoveries += 1 } }
}

/// A wake source driven through a pipe: a byte written makes `drain()` return `hint`.
final class PipeWakeSource: MonitorWakeSource {
    let name = "test pipe"
    let hint: MonitorChangeHint
    let fds: (read: Int32, write: Int32)
    private(set) var count = 0

    init(hint: MonitorChangeHint, fds: (Int32, Int32)) {
        self.hint = hint
        self.fds = fds
    }

    var descriptor: Int32? { fds.read }
    var state: EventSourceState { EventSourceState(name: name, active: true, detail: "pipe", events: count) }

    func drain() -> [MonitorChangeHint] {
        var b = [UInt8](repeating: 0, count: 16)
        var got = false
        while read(fds.read, &b, 16) > 0 { got = true; count += 1 }
        return got ? [hint] : []
    }
}

func makeNonBlockingPipe() -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    return (fds[0], fds[1])
}

/// What listeners collect, awaited without sleeping: each append wakes the waiters.
final class Collected<Element: Sendable>: Sendable {
    private let items = Guarded<[Element]>([])
    func append(_ x: Element) {
        items.withLock { $0.append(x) }
        items.broadcast()
    }
    var all: [Element] { items.withLock { $0 } }
    /// True once `condition` holds of what was collected, false after `timeout` seconds.
    func until(timeout: Double = 5, _ condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            startThread(name: "test-until") { [items] in
                c.resume(returning: items.wait(until: monotonicSeconds() + timeout) { condition($0) })
            }
        }
    }
}

@Suite("Monitor hub and facade")
@MainActor
struct MonitorHubTests {
    @Test("the hub's status is readable from a task off the main actor, and its stream works there")
    func hubFromAnyIsolation() async {
        let source = LockedSource(StubSource.package(53))
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: source, clock: clock, delay: .milliseconds(50))
        let state = await Task.detached { hub.current.thermalState }.value
        #expect(state == .nominal)
        let changes = hub.changes()
        hub.start()
        defer { hub.stop() }
        let waiter = Task.detached { () -> MonitorEvent? in
            for await e in changes { return e }
            return nil
        }
        source.set(StubSource.package(95))
        clock.advance(by: 0.05)
        let event = await waiter.value
        #expect(event == .thermalStateChanged(from: .nominal, to: .serious))
        let ok6 = await Task.detached { hub.tier }.value == .minimal
        #expect(ok6)
    }

    @Test("made on a hot machine it reads nothing; its first reading is serious at once, and the first readings announce nothing")
    func noFalseFirstEvent() {
        let source = StubSource(StubSource.package(95))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        #expect(source.samples == 0)
        #expect(monitor.sampleCount == 0)
        var events: [MonitorEvent] = []
        let token = monitor.addObserver { events.append($0) }
        monitor.sample()
        #expect(monitor.thermalState == .serious)
        #expect(monitor.tier == .minimal)
        #expect(source.samples == 1)
        monitor.sample()
        #expect(events.isEmpty)
        token.cancel()
    }

    @Test("observing thermalState, tier or low power does not fire when a sample changes nothing of them")
    func observationOnlyOnChange() {
        let source = StubSource(StubSource.package(53))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        monitor.sample()
        let fired = Mutex((state: 0, tier: 0, lowPower: 0, status: 0))
        // Each registration fires at most once: on the first change of what it read.
        withObservationTracking { _ = monitor.thermalState } onChange: { fired.withLock { $0.state += 1 } }
        withObservationTracking { _ = monitor.tier } onChange: { fired.withLock { $0.tier += 1 } }
        withObservationTracking { _ = monitor.isLowPowerModeEnabled } onChange: { fired.withLock { $0.lowPower += 1 } }
        withObservationTracking { _ = monitor.status } onChange: { fired.withLock { $0.status += 1 } }
        source.next = StubSource.package(54)   // a different reading, the same state
        monitor.sample()
        #expect(fired.withLock { $0.status } == 1)
        #expect(fired.withLock { $0.state } == 0)
        #expect(fired.withLock { $0.tier } == 0)
        #expect(fired.withLock { $0.lowPower } == 0)
        source.next = StubSource.package(95)
        monitor.sample()
        #expect(fired.withLock { $0.state } == 1)
        #expect(fired.withLock { $0.tier } == 1)
        #expect(fired.withLock { $0.lowPower } == 0)
    }

    @Test("an observer token unregisters on cancel() and when released")
    func tokens() {
        let source = StubSource(StubSource.package(53))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        monitor.sample()
        var a = 0, b = 0
        let tokenA = monitor.addObserver { _ in a += 1 }
        do {
            let tokenB = monitor.addObserver { _ in b += 1 }
            monitor.overrides = ThermalOverrides(thermalState: .fair)
            #expect(b == 2)   // state and tier
            _ = tokenB
        }
        tokenA.cancel()
        #expect(tokenA.isCancelled)
        monitor.overrides = ThermalOverrides(thermalState: .critical)
        #expect(a == 2)
        #expect(b == 2)
    }

    @Test("setting config re-decides from the last reading at once")
    func configRedecides() {
        let source = StubSource(StubSource.package(70))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
        var config = monitor.config
        config.overrides["x86_pkg_temp"] = SensorOverride(serious: 65)
        config.overrides["thermal_zone1"] = SensorOverride(serious: 65)
        let samples = source.samples
        monitor.config = config
        #expect(source.samples == samples)
        #expect(monitor.thermalState == .serious, "\(monitor.status.reason)")
    }

    @Test("started, the sampler samples every delay, stops when asked, and takes no timed samples while paused")
    func samplerThread() async {
        let source = LockedSource(StubSource.package(53))
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: source, clock: clock, delay: .milliseconds(50))
        hub.start()
        #expect(await hub.until { $0.status.sampler.samples == 1 && $0.idleSince != nil })
        for n in 2...5 {
            clock.advance(by: 0.05)
            #expect(await hub.until { $0.status.sampler.samples == n && $0.status.sampler.wokenBy == "timer" })
        }
        #expect(source.samples == 5)
        hub.setPaused(true)
        clock.advance(by: 3600)
        let later = clock.now()
        #expect(await hub.until { ($0.idleSince ?? -1) >= later }, "the sampler never looked at the clock again")
        #expect(source.samples == 5, "sampled while paused")
        hub.sampleNow(reason: "key")
        #expect(await hub.until { $0.status.sampler.samples == 6 && $0.status.sampler.wokenBy == "key" },
                "woken by \(hub.current.sampler.wokenBy) after \(source.samples - 5) samples")
        #expect(source.samples == 6, "sampled while paused")
        hub.stop()
        #expect(!hub.isRunning)
        #expect(await hub.until { !$0.samplerAlive })
        clock.advance(by: 3600)
        #expect(source.samples == 6)
    }

    @Test("adjusting the simulated load while started takes one sample, named by the caller's reason")
    func adjustLoadSamplesOnce() async {
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: SimulatedLaptop(load: 0.5), clock: clock, delay: .seconds(1))
        hub.start()
        defer { hub.stop() }
        #expect(await hub.until { $0.status.sampler.samples == 1 && $0.idleSince != nil })
        #expect(hub.adjustLoad(by: 0.1, reason: "load changed") == 0.6)
        #expect(await hub.until { $0.status.sampler.samples == 2 && $0.idleSince != nil })
        #expect(hub.current.sampler.wokenBy == "load changed")
        clock.advance(by: 0.5)
        let later = clock.now()
        #expect(await hub.until { ($0.idleSince ?? -1) >= later })
        #expect(hub.current.sampler.samples == 2, "a second sample for one change")
    }

    @Test("a resample hint samples within 100 ms; a rediscover hint rediscovers; both show in the status")
    func wakeSourceHints() async {
        let source = LockedSource(StubSource.package(53))
        let resample = makeNonBlockingPipe(), rediscover = makeNonBlockingPipe()
        defer { for fd in [resample.0, resample.1, rediscover.0, rediscover.1] { close(fd) } }
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: .seconds(60), wakeSources: { _ in
            [PipeWakeSource(hint: .resample("charger"), fds: resample),
             PipeWakeSource(hint: .rediscover("dock"), fds: rediscover)]
        })
        hub.start()
        defer { hub.stop() }
        let sourcesUp = await hub.until { $0.status.sampler.eventSources.count == 2 }
        #expect(sourcesUp)
        source.set(StubSource.package(95))
        // When the sampler published, timed on its own thread (the test's polling adds latency),
        // and what woke each sample: a slow test run can meet the sampler's timer or the
        // tier's rediscovery too, which are not the hint's doing.
        let publishedAt = Mutex<Double?>(nil)
        let wokenBy = Mutex<[String]>([])
        let clock = SystemClock()
        let listener = hub.addListener { u in
            if u.status.thermalState == .serious { publishedAt.withLock { $0 = $0 ?? clock.now() } }
            wokenBy.withLock { $0.append(u.status.sampler.wokenBy) }
        }
        var one: UInt8 = 1
        let t0 = clock.now()
        _ = write(resample.1, &one, 1)
        let ok3 = await hub.until(timeout: 1) { $0.status.thermalState == .serious }
        #expect(ok3)
        let latency = (publishedAt.withLock { $0 } ?? .infinity) - t0
        #expect(latency < eventDrivenBound, "published \(latency) s after the event")
        listener.cancel()
        let woken = wokenBy.withLock { $0 }
        #expect(woken.filter { $0 == "charger" }.count == 1, "one sample for one hint: \(woken)")
        #expect(woken.first == "charger", "the first sample after the hint was not the hint's: \(woken)")
        _ = write(rediscover.1, &one, 1)
        let ok4 = await hub.until { $0.status.sampler.wokenBy == "dock" }
        #expect(source.rediscoveries >= 1)
        #expect(ok4, "rediscoveries \(source.rediscoveries), sampler \(hub.current.sampler)")
        let ok5 = await hub.until { $0.status.sampler.eventSources.first?.events == 1 }
        #expect(ok5)
    }

    @Test("the wake descriptor becomes readable on a new status and is emptied by consumeWake()")
    func wakeDescriptor() {
        let hub = ThermalStatusHub(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        hub.sample()
        hub.consumeWake()
        var p = pollfd(fd: hub.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 0) == 0)
        hub.setOverrides(ThermalOverrides(lowPower: true))
        #expect(poll(&p, 1, 0) == 1)
        hub.consumeWake()
        p.revents = 0
        #expect(poll(&p, 1, 0) == 0)
    }

    @Test("every status says when the timer takes its next sample, a delay apart on one grid; a status published while paused says none")
    func statusesCarryTheTimersNextSample() async {
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: LockedSource(StubSource.package(53)), clock: clock, delay: .seconds(1))
        hub.start()
        defer { hub.stop() }
        #expect(await hub.until { $0.status.sampler.samples == 1 })
        let first = hub.latest.sampler.nextTimedSample
        #expect(first == clock.now() + 1, "the first reading at \(clock.now()) plans the next at +1 s, not \(String(describing: first))")
        clock.advance(by: 1)
        #expect(await hub.until { $0.status.sampler.samples == 2 })
        #expect(hub.latest.sampler.nextTimedSample == first.map { $0 + 1 })
        hub.setPaused(true)
        // A command's status (a key forcing a state) while paused: no timer to keep to.
        hub.setOverrides(ThermalOverrides(thermalState: .serious))
        #expect(hub.latest.sampler.nextTimedSample == nil)
    }

    @Test("with WakePolicy.changes timed samples that change nothing leave the wake descriptor quiet; a state change, a command and an event hint wake it")
    func changesOnlyWakePolicy() async {
        let source = LockedSource(StubSource.package(53))
        let hint = makeNonBlockingPipe()
        defer { close(hint.0); close(hint.1) }
        let clock = ManualMonitorClock()
        let hub = ThermalStatusHub(source: source, clock: clock, delay: .milliseconds(50), wakeSources: { _ in
            [PipeWakeSource(hint: .resample("charger"), fds: hint)]
        })
        #expect(hub.wakePolicy == .everyStatus, "library users and watch/export get every status by default")
        hub.setWakePolicy(.changes)
        hub.start()
        defer { hub.stop() }
        /// Readable within two seconds: the write follows the publication, after the lock.
        @Sendable func readable() -> Bool {
            var p = pollfd(fd: hub.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 2000) == 1 && p.revents & Int16(POLLIN) != 0
        }
        // The start's sample wakes (it is not timed).
        #expect(await hub.until { $0.status.sampler.samples == 1 })
        #expect(readable())
        #expect(hub.wakeSignalCount == 1)
        hub.consumeWake()
        // Timed samples that announce nothing wake no one.
        for n in 2...4 {
            clock.advance(by: 0.05)
            #expect(await hub.until { $0.status.sampler.samples == n && $0.status.sampler.wokenBy == "timer" })
        }
        #expect(hub.wakeSignalCount == 1, "timed samples that changed nothing woke the reader")
        // A timed sample that changes the state.
        source.set(StubSource.package(95))
        clock.advance(by: 0.05)
        #expect(await hub.until { $0.status.thermalState == .serious })
        #expect(readable())
        #expect(hub.wakeSignalCount == 2)
        hub.consumeWake()
        // A command whose result announces no change (serious forced while serious) still wakes.
        hub.setOverrides(ThermalOverrides(thermalState: .serious))
        #expect(readable(), "a command's result did not wake the reader")
        #expect(hub.wakeSignalCount == 3)
        hub.consumeWake()
        // A sample woken by an event source (a charger uevent) wakes even when nothing changed.
        var one: UInt8 = 1
        _ = write(hint.1, &one, 1)
        #expect(await hub.until { $0.status.sampler.wokenBy == "charger" })
        #expect(readable())
        #expect(hub.wakeSignalCount == 4, "the wake was not the hinted sample's")
        hub.consumeWake()
        // Back to every status: the next timed sample wakes again.
        hub.setWakePolicy(.everyStatus)
        let samples = hub.latest.sampler.samples
        clock.advance(by: 0.05)
        #expect(await hub.until { $0.status.sampler.samples == samples + 1 })
        #expect(readable())
        #expect(hub.wakeSignalCount == 5)
        hub.consumeWake()
        // Never: a reader that follows listeners (the dashboard) is woken by nothing, not even
        // a state change or a command's result; its listener still gets each status.
        hub.setWakePolicy(.never)
        final class Heard: Sendable { let count = Atomic<Int>(0) }
        let heard = Heard()
        let observation = hub.addListener { _ in heard.count.add(1, ordering: .relaxed) }
        defer { observation.cancel() }
        source.set(StubSource.package(40))
        clock.advance(by: 0.05)
        #expect(await hub.until { $0.status.assessment.state == .nominal })
        hub.setOverrides(ThermalOverrides(thermalState: .critical))
        #expect(await hub.until { $0.status.thermalState == .critical })
        #expect(hub.wakeSignalCount == 5, "a status woke the descriptor under .never")
        var p = pollfd(fd: hub.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 0) == 0, "the descriptor is readable under .never")
        #expect(heard.count.load(ordering: .relaxed) >= 2, "the listener missed the statuses")
    }

    @Test("the simulated laptop's load is adjusted through the hub; a real source says nil")
    func adjustLoad() {
        let sim = ThermalStatusHub(source: SimulatedLaptop(load: 0.5), clock: ManualMonitorClock())
        #expect(sim.adjustLoad(by: 0.1) == 0.6)
        #expect(sim.simulatedLoad == 0.6)
        let real = ThermalStatusHub(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        #expect(real.adjustLoad(by: 0.1) == nil)
    }

    @Test("the simulated laptop's refresh pairs and unpairs a peripheral")
    func simulatedRefreshIsVisible() {
        let monitor = ThermalMonitor(source: SimulatedLaptop(), clock: ManualMonitorClock())
        monitor.sample()
        let before = monitor.snapshot.peripherals.count
        monitor.refresh()
        let after = monitor.snapshot.peripherals.count
        #expect(before != after)
        monitor.refresh()
        #expect(monitor.snapshot.peripherals.count == before)
    }
}
