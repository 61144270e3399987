import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Screen: the forecast in the header and detail, °F everywhere, the replay header")
struct ForecastUnitsReplayScreenTests {
    // MARK: - forecast

    @Test("a rising package puts the forecast next to the state in the header at every size that has room",
          arguments: [Size.huge, .large, .medium, .standard])
    func forecastInHeader(size: Size) throws {
        let state = Fixtures.Scenario.reduced.state
        let f = state.status.forecast
        // The package climbs 70 → 83 °C in 23 s towards serious at 90 °C (passive trip).
        guard case .rising(let to, let seconds) = f.outlook else {
            Issue.record("expected a rising forecast, got \(f.outlook)")
            return
        }
        #expect(to == .serious)
        #expect(seconds > 5 && seconds < 60, "\(seconds)")
        let header = state.render(size).rows[0]
        #expect(header.contains(" FAIR  tier reduced "), "\(header)")
        #expect(header.contains(f.summary), "\(header)")
        #expect(f.summary.hasPrefix("serious in ~"))
    }

    @Test("at 40×10, where the header keeps only the badge, tier and pulse, the forecast follows the low-power line")
    func forecastOnNarrowWindows() {
        let state = Fixtures.Scenario.reduced.state
        let rows = state.render(.compact).rows
        #expect(!rows[0].contains(state.status.forecast.summary), "\(rows[0])")
        #expect(rows[1].hasPrefix(" low power off · \(state.status.forecast.summary)"), "\(rows[1])")
        // With room in the header it is not repeated; the power profile follows low power instead.
        let wide = state.render(.standard).rows
        #expect(wide[0].contains(state.status.forecast.summary) && !wide[1].contains(state.status.forecast.summary), "\(wide[1])")
        #expect(wide[1].hasPrefix(" low power off · platform_profile "), "\(wide[1])")
        #expect(!rows[1].contains("platform_profile"), "\(rows[1])")
    }

    @Test("a flat series says steady; a single sample says not enough history")
    func forecastWordsWhenNothingMoves() {
        let flat = Fixtures.appState(Fixtures.intelSeries(package: (60, 60), skin: (40, 40)), sourceLabel: "/sys", simulated: false)
        #expect(flat.status.forecast.summary == "steady")
        #expect(flat.render(.standard).rows[0].contains(" steady "))
        let one = Fixtures.appState(Fixtures.intelSeries(count: 1, package: (60, 60), skin: (40, 40)), sourceLabel: "/sys", simulated: false)
        #expect(one.render(.standard).rows[0].contains(" not enough history"))
    }

    @Test("the detail view shows how far the sensor is from its next limit in degrees, now and in 10 s, its trend and the time to its next level")
    func forecastInDetail() throws {
        var state = Fixtures.Scenario.reduced.state
        let package = try #require(state.status.assessment.sensors.first { $0.sensor.name == "x86_pkg_temp" || $0.sensor.isHeadline })
        let f = try #require(state.status.forecast.sensor(package.sensor.id))
        state.selectedID = package.sensor.id
        _ = Reducer.reduce(&state, .toggleDetail)
        let text = state.render(.large).text()
        let c = try #require(package.sensor.celsius), c10 = try #require(f.trend.projected(seconds: 10))
        let h = package.thresholds.distanceText(c, units: .celsius), h10 = package.thresholds.distanceText(c10, units: .celsius)
        #expect(text.contains("\(h) now · \(h10) in 10 s"), "\(text)")
        #expect(!text.contains("headroom"), "the screen says degrees to a limit, not Android's headroom:\n\(text)")
        #expect(text.contains("trend rising "), "\(text)")
        let next = try #require(f.next)
        #expect(text.contains("next level: serious in \(ThermalForecast.approximate(next.seconds))"), "\(text)")
        GoldenSnapshot.check(state.render(.large).text(), named: "forecast-detail-120x40")
    }

    // MARK: - °F

    @Test("in °F every temperature on screen is in °F: rows, heading, reason, selection limits, graph axis",
          arguments: [Size.huge, .large, .medium, .standard, .compact])
    func fahrenheitEverywhere(size: Size) throws {
        var state = Fixtures.Scenario.reduced.state
        state.units = .fahrenheit
        let text = state.render(size).text()
        #expect(!text.contains("°C"), "\(text)")
        // 83.0 °C (the package) is 181.4 °F; the serious trip 90.0 °C is 194.0 °F.
        #expect(text.contains("181.4"), "\(text)")
        if size.height >= 24 {
            #expect(text.contains("°F"), "\(text)")
            #expect(text.contains("194.0 °F"), "\(text)")
        }
        GoldenSnapshot.check(text, named: "fahrenheit-\(size.width)x\(size.height)")
    }

    @Test("the detail view in °F converts thresholds, trips and limits, and differences as differences")
    func fahrenheitDetail() throws {
        var state = Fixtures.Scenario.reduced.state
        state.units = .fahrenheit
        _ = Reducer.reduce(&state, .toggleDetail)
        let text = state.render(.large).text()
        #expect(!text.contains("°C"), "\(text)")
        GoldenSnapshot.check(text, named: "fahrenheit-detail-120x40")
    }

    @Test("the debug overlay in °F converts the rule trail and thresholds; raw file values stay raw")
    func fahrenheitDebug() {
        var state = Fixtures.Scenario.reduced.state
        state.units = .fahrenheit
        _ = Reducer.reduce(&state, .toggleDebug)
        let text = state.render(.large).text()
        #expect(!text.contains(" °C"), "\(text)")
        #expect(text.contains("181.4 °F"), "\(text)")
        #expect(text.contains("raw 83000 m°C"), "\(text)")
        #expect(text.contains("temperatures in °F (f toggles)"), "\(text)")
    }

    @Test("the core's values render absolute temperatures and differences apart", arguments: [
        (ThermalReason(.reached(level: .serious, sensor: "x86_pkg_temp", celsius: 91,
                                threshold: ThermalThreshold(celsius: 90, hysteresis: 2, rule: "passive trip"),
                                held: false, uncorroborated: false)),
         "serious: x86_pkg_temp 91.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C)",
         "serious: x86_pkg_temp 195.8 °F ≥ passive trip 194.0 °F (clears below 190.4 °F)"),
        (ThermalReason(.reached(level: .serious, sensor: "outdoor", celsius: -5,
                                threshold: ThermalThreshold(celsius: -10, hysteresis: 2, rulePhrase: SensorThresholds.degreesRule("critical trip ", 5, " − ", 15), isDirect: false),
                                held: true, uncorroborated: false)),
         "serious: outdoor −5.0 °C held until below −12.0 °C (−10.0 °C (critical trip 5.0 °C − 15.0 °C))",
         "serious: outdoor 23.0 °F held until below 10.4 °F (14.0 °F (critical trip 41.0 °F − 27.0 °F))"),
    ])
    func reasonValues(_ reason: ThermalReason, celsius: String, fahrenheit: String) {
        #expect(reason.text(.fahrenheit) == fahrenheit)
        #expect(reason.text(.celsius) == celsius)
        #expect(reason.description == celsius)
    }

    @Test("in °F a reading and a reason quoting it agree: both convert the °C value as shown, to the tenth")
    func fahrenheitReadingMatchesItsReason() {
        // 71.84 °C is shown as 71.8 °C, 161.2 °F in the reason and in the reading.
        let reason = ThermalReason(.reached(level: .serious, sensor: "CPU", celsius: 71.84,
                                            threshold: ThermalThreshold(celsius: 70, hysteresis: 2, rule: "warning"),
                                            held: false, uncorroborated: false))
        #expect(reason.text(.fahrenheit) == "serious: CPU 161.2 °F ≥ warning 158.0 °F (clears below 154.4 °F)")
        #expect(TemperatureUnit.fahrenheit.format(71.84) == "161.2 °F")
        #expect(TemperatureUnit.fahrenheit.number(71.84) == "161.2")
        #expect(TemperatureUnit.fahrenheit.formatDelta(2.04) == "3.6 °F")
        #expect(TemperatureUnit.fahrenheit.format(-0.04) == "32.0 °F")
        #expect(TemperatureUnit.fahrenheit.format(.infinity) == "? °F")
    }

    // MARK: - replay

    static func replay(ended: Bool = false, paused: Bool = false) -> AppState {
        var s = Fixtures.Scenario.reduced.state
        s.replay = ReplayState(file: "/tmp/fan-storm.ndjson.gz", host: "lab-x1", kernel: "Linux 6.8.0 x86_64",
                               startTime: "2026-11-23T12:00:00Z", total: 120, sampleCount: 121,
                               position: ReplayPosition(index: ended ? 120 : 41, time: ended ? 120 : 41,
                                                        nextTime: ended ? nil : 42),
                               speed: 2, now: 0)
        s.paused = paused
        return s
    }

    @Test("a replay's header says REPLAY, the recorded time (elapsed / total, wall clock) and the speed, and keeps the state and tier",
          arguments: [Size.huge, .large, .medium, .standard])
    func replayHeader(size: Size) {
        let rows = Self.replay().render(size).rows
        #expect(rows[0].contains(" FAIR  tier reduced "), "\(rows[0])")
        #expect(rows[0].contains("REPLAY 0:41.0 / 2:00 12:00:41 ×2"), "\(rows[0])")
        #expect(!rows[0].contains("12:34:56"), "the live clock has no place in a replay: \(rows[0])")
        #expect(rows.contains { $0.contains("REPLAY of fan-storm.ndjson.gz from lab-x1 · p pause · n step · < > speed") })
        #expect(!rows.joined().contains("r = now"))
    }

    @Test("during a replay the key line starts with the replay's keys")
    func replayKeyLine() {
        let rows = Self.replay().render(.standard).rows
        #expect(rows[23].hasPrefix("? help q quit p pause n step < > speed ↑↓ select"), "\(rows[23])")
    }

    @Test("paused and ended replays say so in the header; an ended one says the recording ended")
    func replayPausedAndEnded() {
        #expect(Self.replay(paused: true).render(.standard).rows[0].contains("REPLAY PAUSED 0:41.0 / 2:00"))
        let ended = Self.replay(ended: true).render(.standard)
        #expect(ended.rows[0].contains("REPLAY ENDED 2:00.0 / 2:00"), "\(ended.rows[0])")
        #expect(ended.text().contains("REPLAY: the recording ended at 2:00 (12:02:00 UTC) · q quits"), "\(ended.text())")
    }

    @Test("the replay screens match their golden snapshots", arguments: [Size.standard, .compact, .large])
    func replayGolden(size: Size) {
        GoldenSnapshot.check(Self.replay(paused: true).render(size).text(), named: "replay-paused-\(size.width)x\(size.height)")
    }
}
