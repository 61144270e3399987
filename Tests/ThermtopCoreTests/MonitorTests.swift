import Foundation
import Testing
import Thermtop

/// A source whose next snapshot the test sets by hand.
final class StubSource: ThermalSensorSource {
    let label = "stub"
    let isSimulated = false
    var next: ThermalSnapshot
    private(set) var samples = 0
    private(set) var rediscoveries = 0

    init(_ snapshot: ThermalSnapshot = ThermalSnapshot(time: 0)) { next = snapshot }

    func sample(at time: Double) -> ThermalSnapshot {
        samples += 1
        var s = next
        s.time = time
        return s
    }

    func rediscover() { rediscoveries += 1 }

    static func package(_ celsius: Double) -> ThermalSnapshot { ThermalSnapshot(time: 0, zones: [packageZone(celsius)]) }
}

/// Counts notifications posted to a private center.
final class NotificationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Notification.Name: Int] = [:]
    private var tokens: [NSObjectProtocol] = []

    init(_ center: NotificationCenter, names: [Notification.Name]) {
        for name in names {
            tokens.append(center.addObserver(forName: name, object: nil, queue: nil) { [weak self] n in
                guard let self else { return }
                self.lock.lock()
                self.counts[n.name, default: 0] += 1
                self.lock.unlock()
            })
        }
    }

    func count(_ name: Notification.Name) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[name] ?? 0
    }
}

/// Drains an event stream into an array, so a missing event fails a test instead of hanging it.
@MainActor
final class EventCollector {
    private(set) var events: [MonitorEvent] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<MonitorEvent>) {
        task = Task { @MainActor [weak self] in
            for await e in stream { self?.events.append(e) }
        }
    }

    /// The events received once `count` have arrived (plus a few more turns to catch extras), or
    /// what arrived before giving up.
    func wait(for count: Int) async -> [MonitorEvent] {
        var turns = 0
        while events.count < count && turns < 10_000 { await Task.yield(); turns += 1 }
        for _ in 0..<20 { await Task.yield() }
        return events
    }

    func stop() { task?.cancel() }
}

@MainActor
@Suite("ThermalMonitor")
struct MonitorTests {
    @Test("overriding the thermal state marks it simulated and changes the tier; clearing it restores the measured state")
    func thermalOverride() {
        let monitor = ThermalMonitor(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        monitor.sample()
        #expect(monitor.thermalState == .nominal)
        #expect(monitor.tier == .full)
        #expect(!monitor.status.stateIsSimulated)

        monitor.overrides = ThermalOverrides(thermalState: .critical)
        #expect(monitor.thermalState == .critical)
        #expect(monitor.tier == .minimal)
        #expect(monitor.policy.inference == .suspended)
        #expect(monitor.status.stateIsSimulated)
        #expect(monitor.status.assessment.state == .nominal)
        #expect(monitor.status.reason.contains("SIMULATED"))
        #expect(ThermalStatusReport.text(monitor.status).contains("SIMULATED"))

        monitor.sample()   // a new sample keeps the override
        #expect(monitor.thermalState == .critical)

        monitor.overrides = .none
        #expect(monitor.thermalState == .nominal)
        #expect(monitor.tier == .full)
        #expect(!monitor.status.stateIsSimulated)
    }

    @Test("overriding low power marks it simulated and changes the tier")
    func lowPowerOverride() {
        let monitor = ThermalMonitor(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock(),
                                     overrides: ThermalOverrides(lowPower: true))
        monitor.sample()
        #expect(monitor.isLowPowerModeEnabled)
        #expect(monitor.status.lowPowerIsSimulated)
        #expect(!monitor.status.lowPowerAssessment.enabled)
        #expect(monitor.tier == .reduced)
        #expect(monitor.status.lowPowerReason.contains("SIMULATED"))
    }

    @Test("events() delivers thermal state, low power and tier changes in order")
    func events() async {
        let source = StubSource(StubSource.package(53))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        monitor.sample()
        let collector = EventCollector(monitor.events())

        source.next = StubSource.package(91)
        monitor.sample()
        monitor.sample()                              // no change, no event
        monitor.overrides = ThermalOverrides(lowPower: true)
        source.next = StubSource.package(50)
        monitor.sample()
        monitor.overrides = .none

        let expected: [MonitorEvent] = [
            .thermalStateChanged(from: .nominal, to: .serious),
            .tierChanged(from: .full, to: .minimal),
            .lowPowerChanged(true),
            .thermalStateChanged(from: .serious, to: .nominal),
            .tierChanged(from: .minimal, to: .reduced),
            .lowPowerChanged(false),
            .tierChanged(from: .reduced, to: .full),
        ]
        #expect(await collector.wait(for: expected.count) == expected)
        collector.stop()
    }

    @Test("every events() stream gets every change")
    func twoStreams() async {
        let monitor = ThermalMonitor(source: StubSource(StubSource.package(53)), clock: ManualMonitorClock())
        monitor.sample()
        let a = EventCollector(monitor.events())
        let b = EventCollector(monitor.events())
        monitor.overrides = ThermalOverrides(thermalState: .fair)
        #expect(await a.wait(for: 2) == [.thermalStateChanged(from: .nominal, to: .fair), .tierChanged(from: .full, to: .reduced)])
        #expect(await b.wait(for: 2) == [.thermalStateChanged(from: .nominal, to: .fair), .tierChanged(from: .full, to: .reduced)])
        a.stop()
        b.stop()
    }

    @Test("NotificationCenter gets Apple-named thermal and power notifications, only on change")
    func notifications() {
        #expect(ThermalMonitor.thermalStateDidChangeNotification.rawValue == "NSProcessInfoThermalStateDidChangeNotification")
        #expect(ThermalMonitor.powerStateDidChangeNotification.rawValue == "NSProcessInfoPowerStateDidChangeNotification")
        let center = NotificationCenter()
        let counter = NotificationCounter(center, names: [ThermalMonitor.thermalStateDidChangeNotification,
                                                          ThermalMonitor.powerStateDidChangeNotification])
        let source = StubSource(StubSource.package(53))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        let token = monitor.postNotifications(to: center)
        monitor.sample()
        monitor.sample()
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 0)

        source.next = StubSource.package(95)
        monitor.sample()
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 1)
        monitor.sample()
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 1)

        monitor.overrides = ThermalOverrides(lowPower: true)
        #expect(counter.count(ThermalMonitor.powerStateDidChangeNotification) == 1)
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 1)

        monitor.overrides = ThermalOverrides(thermalState: .critical, lowPower: true)
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 2)
        #expect(counter.count(ThermalMonitor.powerStateDidChangeNotification) == 1)

        // Cancelled: no more notifications.
        token.cancel()
        monitor.overrides = ThermalOverrides(thermalState: .nominal)
        #expect(counter.count(ThermalMonitor.thermalStateDidChangeNotification) == 2)
    }

    @Test("the monitor carries hysteresis from one sample to the next")
    func hysteresisAcrossSamples() {
        let source = StubSource(StubSource.package(91))
        let monitor = ThermalMonitor(source: source, clock: ManualMonitorClock())
        monitor.sample()
        #expect(monitor.thermalState == .serious)
        source.next = StubSource.package(89)
        monitor.sample()
        #expect(monitor.thermalState == .serious)
        #expect(monitor.status.assessment.sensors.first?.heldByHysteresis == true)
        source.next = StubSource.package(87)
        monitor.sample()
        #expect(monitor.thermalState == .fair)
    }

    @Test("refresh rediscovers the source, and is due at the tier's pace on the injected clock")
    func refreshPace() {
        let clock = ManualMonitorClock(start: 100)
        let source = StubSource(StubSource.package(53))
        let monitor = ThermalMonitor(source: source, clock: clock)
        monitor.refresh()
        #expect(source.rediscoveries == 1)
        #expect(monitor.secondsUntilRefresh() == 30)
        clock.advance(by: 10)
        #expect(monitor.secondsUntilRefresh() == 20)
        monitor.overrides = ThermalOverrides(thermalState: .serious)
        #expect(monitor.secondsUntilRefresh() == 170)
        clock.advance(by: 200)
        #expect(monitor.secondsUntilRefresh() == 0)
        monitor.sample()
        #expect(source.rediscoveries == 1)
        // None when made, one by refresh(), one by sample().
        #expect(monitor.sampleCount == 2)
    }
}
