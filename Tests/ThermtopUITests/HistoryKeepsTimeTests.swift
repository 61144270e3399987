import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 items 2 and 3: history keeps real time.
@Suite struct HistoryKeepsTimeTests {
    /// The simulated laptop's state with its history replaced by samples at `times`.
    static func state(sampledAt times: [Double]) -> AppState {
        let base = Fixtures.simulatedState()
        var s = AppState(status: base.status)
        s.sampleDelay = 1
        for t in times {
            var next = base.status
            next.snapshot.time = t
            _ = Reducer.reduce(&s, .statusArrived(next, FeedInfo(refreshDueAt: t + 30)))
        }
        return s
    }

    static func filled(_ columns: [Double?]) -> String { columns.map { $0 == nil ? " " : "▂" }.joined() }

    @Test("points recorded every second, drawn at a 15 s step, are re-binned: a minute fills 4 or 5 columns, not 60")
    func rebinToCoarserStep() throws {
        let s = Self.state(sampledAt: (0..<60).map(Double.init))
        let id = try #require(s.history.keys.sorted().first)
        let cols = s.historyColumns(id, columns: 80, step: 15)
        let n = cols.compactMap { $0 }.count
        #expect((4...5).contains(n), "60 s of history at 15 s a column filled \(n) columns: |\(Self.filled(cols))|")
        #expect(cols.last! != nil)
    }

    @Test("points recorded every 15 s (measured minimal), drawn at 1 s, fill the time they cover with no holes")
    func rebinToFinerStep() {
        var s = Fixtures.Scenario.full.state
        s.history = ["x": (0..<6).map { 50 + Double($0) }]
        s.historyTimes = (0..<6).map { Double($0) * 15 }
        s.historySteps = Array(repeating: 15, count: 6)
        let cols = s.historyColumns("x", columns: 100, step: 1)
        #expect(cols.suffix(76).allSatisfy { $0 != nil }, "|\(Self.filled(cols))|")
        #expect(cols.prefix(24).allSatisfy { $0 == nil })
    }

    @Test("a rediscovery's sample between two timed ones leaves no hole: the columns stay consecutive")
    func rediscoveryLeavesNoHole() throws {
        // Timed samples at 0.4, 1.4, … 29.4; the rediscovery samples at 30.0 and the samples
        // after it fall on another phase (31.0, 32.0, …), as they do after a hint's sample
        // when a reading runs long.
        let times = (0..<30).map { Double($0) + 0.4 } + [30.0] + (31..<40).map(Double.init)
        let s = Self.state(sampledAt: times)
        let id = try #require(s.history.keys.sorted().first)
        let cols = s.historyColumns(id, columns: 60, step: 1)
        let shown = Self.filled(cols)
        let firstFilled = try #require(cols.firstIndex { $0 != nil })
        #expect(cols[firstFilled...].allSatisfy { $0 != nil }, "a hole after the rediscovery: |\(shown)|")
    }

    @Test("the sampler's own schedule fills every column: readings that take 7 ms and a 0.6 s rediscovery every 30 s leave no hole in 10 minutes")
    func samplerScheduleFillsEveryColumn() throws {
        // The hub's loop on a manual clock: wake 2 ms late, rediscover first when asked, read.
        var schedule = SamplerSchedule(delay: 1, now: 0, refreshInterval: 30)
        schedule.begin(hasReading: false, eventSources: false)
        var now = 0.0
        var starts: [Double] = []
        while now < 600 {
            switch schedule.next(now: now) {
            case .sleep(let until):
                now = try #require(until) + 0.002
            case .sample(_, let rediscover):
                if rediscover {
                    now += 0.6
                    schedule.rediscovered(at: now)
                }
                let start = now
                now += 0.007
                starts.append(start)
                schedule.sampled(start: start, end: now)
            case .stop, .republish:
                Issue.record("unexpected step")
                return
            }
        }
        let s = Self.state(sampledAt: starts)
        let id = try #require(s.history.keys.sorted().first)
        let cols = s.historyColumns(id, columns: 200, step: 1)
        #expect(cols.allSatisfy { $0 != nil }, "|\(Self.filled(cols))|")
    }
}
