import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Reducer: °C/°F toggle and replay playback (pause, step, speed, timing), whole states")
struct ReplayAndUnitsReducerTests {
    static var base: AppState { Fixtures.Scenario.full.state }

    // MARK: - units

    @Test("f switches the display to °F and back, and changes nothing else (no effect: decisions stay in °C)")
    func fTogglesUnits() {
        var store = TestStore(Self.base)
        store.press(.char("f")) { $0.units = .fahrenheit }
        store.press(.char("f")) { $0.units = .celsius }
    }

    // MARK: - replay

    /// A replay of 5 samples at t = 0, 1, 2, 3, 4 s, standing at the first, anchored at monotonic 100.
    static func replaying(speed: Double = 1) -> AppState {
        var s = base
        s.now = 100
        s.replay = ReplayState(file: "rec.ndjson", host: "box", kernel: "Linux 6.8", startTime: "2026-11-23T12:00:00Z",
                               total: 4, sampleCount: 5,
                               position: ReplayPosition(index: 0, time: 0, nextTime: 1), speed: speed, now: 100)
        return s
    }

    @Test("a tick before the next sample is due asks for nothing; at its time the reducer asks the feed for the samples due")
    func ticksFeedSamplesWhenDue() {
        var store = TestStore(Self.replaying(speed: 2))
        // At ×2 the sample recorded at 1 s is due 0.5 s after the anchor.
        store.send(.tick(now: 100.4, wallSeconds: 5)) { $0.now = 100.4; $0.wallSeconds = 5; $0.tick = 200 }
        store.send(.tick(now: 100.5, wallSeconds: 5), effects: [.replayAdvance(through: 1)]) { $0.now = 100.5; $0.tick = 201 }
        // Late wakeups catch up: everything recorded up to the playback time is asked for at once.
        store.send(.tick(now: 101.5, wallSeconds: 6), effects: [.replayAdvance(through: 3)]) {
            $0.now = 101.5; $0.wallSeconds = 6; $0.tick = 203
        }
    }

    @Test("at the due time the sample due is always asked for, even when the playback clock rounds just short of it")
    func dueSampleDespiteRounding() throws {
        var store = TestStore(Self.replaying(speed: 3))
        let due = try #require(store.state.replay!.nextDue)
        let tick = Int((due * 2 + 1e-6).rounded(.down))
        store.send(.tick(now: due, wallSeconds: 1), effects: [.replayAdvance(through: 1)]) {
            $0.now = due; $0.wallSeconds = 1; $0.tick = tick
        }
    }

    @Test("a status from the feed moves the replay's position; its recorded time does not move the monotonic clock")
    func statusMovesPosition() {
        let start = Self.replaying()
        var store = TestStore(start)
        var status = start.status
        status.snapshot.time = 3
        let info = FeedInfo(samples: 4, refreshDueAt: 0, replay: ReplayPosition(index: 3, time: 3, nextTime: 4))
        var expected = start
        _ = Reducer.reduce(&expected, .statusArrived(status, FeedInfo(samples: 4, refreshDueAt: 0)))
        store.send(.statusArrived(status, info)) { s in
            s = expected
            s.replay!.position = ReplayPosition(index: 3, time: 3, nextTime: 4)
        }
        #expect(store.state.now == 100)
    }

    @Test("p pauses the replay without telling a sampler; ticks then ask for nothing; p resumes from where it stands",
          arguments: [Key.char("p"), .char(" ")])
    func pauseAndResume(key: Key) {
        var store = TestStore(Self.replaying())
        store.send(.tick(now: 100.5, wallSeconds: 1)) { $0.now = 100.5; $0.wallSeconds = 1; $0.tick = 201 }
        store.press(key) { $0.paused = true; $0.replay!.anchorNow = 100.5; $0.replay!.anchorTime = 0 }
        store.send(.tick(now: 150, wallSeconds: 2)) { $0.now = 150; $0.wallSeconds = 2; $0.tick = 300 }
        store.press(key) { $0.paused = false; $0.replay!.anchorNow = 150; $0.replay!.anchorTime = 0 }
        // Resumed at 150 from recorded 0 s: the 1 s sample is due at 151.
        store.send(.tick(now: 150.9, wallSeconds: 3)) { $0.now = 150.9; $0.wallSeconds = 3; $0.tick = 301 }
        store.send(.tick(now: 151, wallSeconds: 3), effects: [.replayAdvance(through: 1)]) { $0.now = 151; $0.tick = 302 }
    }

    @Test("n and . step exactly one recorded sample and pause; at the end they say the recording ended",
          arguments: [Key.char("n"), .char(".")])
    func step(key: Key) {
        var store = TestStore(Self.replaying())
        store.press(key, effects: [.replayAdvance(through: 1)]) { $0.paused = true }
        store.state.replay!.position = ReplayPosition(index: 4, time: 4, nextTime: nil)
        store.press(key) { $0.message = "The recording has ended (q quits)."; $0.replay!.anchorTime = 4 }
        #expect(store.state.replay!.ended)
    }

    @Test("> doubles and < halves the speed from the playback time now, within the range")
    func speedKeys() {
        var store = TestStore(Self.replaying())
        store.send(.tick(now: 100.5, wallSeconds: 1)) { $0.now = 100.5; $0.wallSeconds = 1; $0.tick = 201 }
        store.press(.char(">")) { $0.replay!.speed = 2; $0.replay!.anchorNow = 100.5; $0.replay!.anchorTime = 0.5 }
        #expect(store.state.replay!.nextDue == 100.75)
        store.press(.char("<")) { $0.replay!.speed = 1 }
        store.press(.char("<")) { $0.replay!.speed = 0.5 }
        var fast = TestStore(Self.replaying(speed: 1024))
        fast.press(.char(">"))
        #expect(fast.state.replay!.speed == 1024)
    }

    @Test("r and S explain themselves in a replay instead of asking a sampler for anything",
          arguments: [Character("r"), "S"])
    func liveOnlyKeysInAReplay(key: Character) {
        var store = TestStore(Self.replaying())
        store.press(.char(key)) { $0.message = key == "r"
            ? "r: a replay reads only what was recorded (p pause, n step, < > speed)."
            : "S: a replay shows the recording; run thermtop --simulate for the simulated laptop." }
    }

    @Test("0 in a replay with nothing forced says the screen is the recording, not that it is live")
    func zeroInAReplay() {
        var store = TestStore(Self.replaying())
        store.press(.char("0")) { $0.message = "Nothing is simulated: this is the recording as it was read." }
    }

    @Test("replay keys outside a replay say how to start one", arguments: [Character("n"), ">", "<"])
    func replayKeysWhenLive(key: Character) {
        var store = TestStore(Self.base)
        store.press(.char(key)) { $0.message = key == "n"
            ? "n steps through a recording: thermtop --replay FILE."
            : "< > change a replay's speed: thermtop --replay FILE --speed X." }
    }

    @Test("the replay's texts: elapsed of total, wall-clock time of the recorded moment, speed")
    func replayTexts() {
        var r = Self.replaying().replay!
        r.position = ReplayPosition(index: 3, time: 41.7, nextTime: 42)
        r.total = 3723
        #expect(r.elapsedText == "0:41.7 / 1:02:03")
        #expect(r.wallClock == "12:00:41")
        for (speed, text) in [(2.0, "×2"), (0.5, "×0.5"), (0.25, "×0.25"), (1.0 / 64, "×1/64"), (1.5, "×1.5")] {
            r.speed = speed
            #expect(r.speedText == text)
        }
    }
}
