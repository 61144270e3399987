import Testing
@testable import ThermtopCore

/// TestStore style over the sampler's schedule: each step says what the schedule must answer
/// and exactly how its whole value changes; the hub's part (reading, rediscovering) is done
/// here on a manual clock, so nothing sleeps.
struct ScheduleStore {
    var schedule: SamplerSchedule
    let clock = ManualMonitorClock(start: 100)

    init(delay: Double = 1, refreshInterval: Double = 30) {
        schedule = SamplerSchedule(delay: delay, now: 100, refreshInterval: refreshInterval)
    }

    /// Ask for the next step at the clock's time, expect `step`, and carry it out as the hub
    /// does (a rediscovery, then a sample that takes no time). `update` says how the schedule
    /// must differ afterwards; any other difference fails.
    mutating func expect(_ step: SamplerSchedule.Step, sourceLocation: SourceLocation = #_sourceLocation,
                         _ update: (inout SamplerSchedule) -> Void = { _ in }) {
        var wanted = schedule
        if step != .stop { wanted.pending = .init() }
        update(&wanted)
        let got = schedule.next(now: clock.now())
        #expect(got == step, sourceLocation: sourceLocation)
        if case .sample(_, let rediscover) = got {
            if rediscover { schedule.rediscovered(at: clock.now()) }
            schedule.sampled(start: clock.now(), end: clock.now())
        }
        #expect(schedule == wanted, "schedule after \(got)", sourceLocation: sourceLocation)
    }

    /// Take the step due now, which must be a sample, as a reading that lasts `seconds`.
    mutating func read(lasting seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let now = clock.now()
        guard case .sample = schedule.next(now: now) else {
            Issue.record("no sample due at \(now)", sourceLocation: sourceLocation)
            return
        }
        schedule.sampled(start: now, end: now + seconds)
    }

    mutating func send(_ command: SamplerSchedule.Command) { schedule.receive(command) }
    mutating func hint(_ hint: MonitorChangeHint) { schedule.receive(hint) }
    func advance(_ seconds: Double) { clock.advance(by: seconds) }
}

@Suite("The sampler's schedule")
struct SamplerScheduleTests {
    @Test("a started sampler takes the first reading, then samples once a delay, by its timer, and never early")
    func firstReadingThenTimer() {
        var store = ScheduleStore()
        store.schedule.begin(hasReading: false, eventSources: true)
        store.expect(.sample(.start, rediscover: false)) { $0.sampled(start: 100, end: 100) }
        store.expect(.sleep(until: 101))
        store.advance(0.75)
        store.expect(.sleep(until: 101))
        store.advance(0.25)
        store.expect(.sample(.timer, rediscover: false)) { $0.sampled(start: 101, end: 101) }
        store.expect(.sleep(until: 102))
    }

    @Test("a sampler that replaces one stuck in a hung read samples at once, before its timer, said so; without that it would sleep to the timer")
    func replacedSamplerReadsAtOnce() {
        var store = ScheduleStore()
        store.schedule.begin(hasReading: false, eventSources: false)
        store.expect(.sample(.start, rediscover: false)) { $0.sampled(start: 100, end: 100) }
        store.advance(0.4)
        var untouched = store
        untouched.schedule.begin(hasReading: true, eventSources: false)
        untouched.expect(.sleep(until: 101))
        // The timer's sample started at 100.4 and hung: the new sampler begins with a reading.
        store.schedule.samplerReplaced()
        store.schedule.begin(hasReading: true, eventSources: false)
        store.expect(.sample(.request(SamplerSchedule.replacedReason), rediscover: false)) { $0.sampled(start: 100.4, end: 100.4) }
        store.expect(.sleep(until: 101))
    }

    @Test("after a first reading made without it, a sampler with event sources samples to show them; without any it only sleeps")
    func startWithAReading() {
        var store = ScheduleStore()
        store.schedule.begin(hasReading: true, eventSources: true)
        store.expect(.sample(.eventSourcesUp, rediscover: false)) { $0.sampled(start: 100, end: 100) }
        var quiet = ScheduleStore()
        quiet.schedule.begin(hasReading: true, eventSources: false)
        quiet.expect(.sleep(until: 130))
    }

    @Test("stop wins over anything pending and stays until the next start")
    func stopWins() {
        var store = ScheduleStore()
        store.schedule.begin(hasReading: false, eventSources: false)
        store.send(.refresh)
        store.send(.stop)
        store.advance(60)
        store.expect(.stop)
        store.expect(.stop)
        store.schedule.cancelStop()
        store.expect(.sample(.start, rediscover: false)) { $0.sampled(start: 160, end: 160) }
    }

    @Test("a refresh command rediscovers and is named refresh, over a sample command and a resample hint")
    func refreshCommand() {
        var store = ScheduleStore()
        store.send(.sample(reason: "key"))
        store.send(.refresh)
        store.hint(.resample("uevent power_supply change BAT0"))
        store.advance(5)
        store.expect(.sample(.refresh, rediscover: true)) {
            $0.rediscovered(at: 105)
            $0.sampled(start: 105, end: 105)
        }
        store.expect(.sleep(until: 106))
    }

    @Test("a sample command is named by its reason; a resample hint names only a sample nothing else woke")
    func sampleCommandAndResample() {
        var store = ScheduleStore()
        store.send(.sample(reason: "load changed"))
        store.hint(.resample("charger"))
        store.expect(.sample(.request("load changed"), rediscover: false)) { $0.sampled(start: 100, end: 100) }
        store.hint(.resample("charger"))
        store.expect(.sample(.event("charger"), rediscover: false))
        #expect(MonitorWakeReason.event("charger").label == "charger")
    }

    @Test("a rediscover hint rediscovers and names the sample, over every command and hint before it; a resample after it does not")
    func rediscoverHint() {
        var store = ScheduleStore()
        store.send(.refresh)
        store.send(.sample(reason: "key"))
        store.hint(.resample("charger"))
        store.hint(.rediscover("dock"))
        store.hint(.resample("later"))
        store.advance(2)
        store.expect(.sample(.event("dock"), rediscover: true)) {
            $0.rediscovered(at: 102)
            $0.sampled(start: 102, end: 102)
        }
    }

    @Test("the tier's rediscovery comes due at last rediscovery + interval, named refresh even when the timer is due too")
    func tierRefresh() {
        var store = ScheduleStore(delay: 1, refreshInterval: 30)
        store.schedule.sampled(start: 100, end: 100)
        store.advance(29.5)
        store.expect(.sample(.timer, rediscover: false)) { $0.sampled(start: 129.5, end: 129.5) }
        store.expect(.sleep(until: 130))
        store.advance(0.5)
        store.expect(.sample(.refresh, rediscover: true)) {
            $0.rediscovered(at: 130)
            $0.sampled(start: 130, end: 130)
        }
        #expect(store.schedule.refreshDue == 160)
        // A status published at a cooler tier moves the next one.
        store.schedule.refreshInterval = 180
        store.expect(.sleep(until: 131))
        #expect(store.schedule.refreshDue == 310)
    }

    @Test("the sleep ends at the earlier of the next sample and the rediscovery")
    func sleepTarget() {
        var store = ScheduleStore(delay: 10, refreshInterval: 5)
        store.schedule.sampled(start: 100, end: 100)
        store.expect(.sleep(until: 105))
        store.schedule.refreshInterval = 60
        store.expect(.sleep(until: 110))
    }

    @Test("paused, nothing is timed (no timer at all); commands and hints still sample, and the timer resumes on unpause")
    func paused() {
        var store = ScheduleStore()
        store.schedule.sampled(start: 100, end: 100)
        store.schedule.paused = true
        store.advance(3600)
        store.expect(.sleep(until: nil))
        store.send(.sample(reason: "key"))
        store.expect(.sample(.request("key"), rediscover: false)) { $0.sampled(start: 3700, end: 3700) }
        store.hint(.rediscover("dock"))
        store.expect(.sample(.event("dock"), rediscover: true)) {
            $0.rediscovered(at: 3700)
            $0.sampled(start: 3700, end: 3700)
        }
        store.schedule.paused = false
        store.expect(.sleep(until: 3701))
    }

    @Test("an event source coming up or going down republishes without reading; a sample due at the same time carries it instead")
    func eventSourcesChanged() {
        var store = ScheduleStore()
        store.schedule.sampled(start: 100, end: 100)
        store.schedule.eventSourcesChanged()
        store.expect(.republish)
        store.expect(.sleep(until: 101))
        store.schedule.eventSourcesChanged()
        store.advance(1)
        store.expect(.sample(.timer, rediscover: false)) { $0.sampled(start: 101, end: 101) }
        store.expect(.sleep(until: 102))
    }

    @Test("timed samples keep to one grid from the first reading's start: a reading's length does not push the next one later")
    func timerKeepsItsGrid() {
        var store = ScheduleStore()
        store.schedule.begin(hasReading: false, eventSources: false)
        store.read(lasting: 0.3)
        store.expect(.sleep(until: 101))
        store.advance(1.002)
        store.read(lasting: 0.198)
        store.expect(.sleep(until: 102))
    }

    @Test("a sample a hint woke between two timed ones leaves the timer where it was")
    func untimedSampleKeepsTheTimer() {
        var store = ScheduleStore()
        store.schedule.sampled(start: 100, end: 100)
        store.advance(0.9)
        store.hint(.resample("charger"))
        store.expect(.sample(.event("charger"), rediscover: false))
        store.expect(.sleep(until: 101))
    }

    @Test("a reading longer than the delay moves the timer to the first grid time after it, not a delay after it")
    func longReadingSkipsToTheGrid() {
        var store = ScheduleStore()
        store.schedule.sampled(start: 100, end: 100)
        store.advance(1)
        store.read(lasting: 2.5)
        store.expect(.sleep(until: 104))
    }

    @Test("a new delay applies from the next sample, floored at 50 ms")
    func delay() {
        var store = ScheduleStore(delay: 1)
        store.schedule.sampled(start: 100, end: 100)
        store.schedule.setDelay(0.001)
        #expect(store.schedule.delay == SamplerSchedule.minimumDelay)
        store.expect(.sleep(until: 101))
        store.advance(1)
        store.expect(.sample(.timer, rediscover: false)) { $0.sampled(start: 101, end: 101) }
        store.expect(.sleep(until: 101 + SamplerSchedule.minimumDelay))
    }

    @Test("what woke a sample reads as before in the overlay and JSON")
    func labels() {
        #expect(MonitorWakeReason.start.label == "start")
        #expect(MonitorWakeReason.eventSourcesUp.label == "event sources up")
        #expect(MonitorWakeReason.timer.label == "timer")
        #expect(MonitorWakeReason.refresh.label == "refresh")
        #expect(MonitorWakeReason.request("key").label == "key")
        #expect(MonitorWakeReason.event("uevent power_supply change BAT0").label == "uevent power_supply change BAT0")
    }

    @Test("a status's refresh time is the schedule's formula")
    func refreshDueOnePlace() {
        var status = OnePlaceRulesTests.status(ThermalSnapshot(time: 0))
        status.sampler.lastRediscovery = 42
        #expect(status.refreshDueAt == SamplerSchedule.refreshDue(lastRediscovery: 42,
                                                                 interval: status.policy.refreshIntervalSeconds))
        #expect(status.refreshDueAt == 42 + status.policy.refreshIntervalSeconds)
    }
}
