import Foundation
import Testing
import Thermtop
@testable import ThermtopCore

/// x86_pkg_temp with a passive trip at 90 °C (hysteresis 2): fair 80, serious 90 (clears below
/// 88), critical 100 (serious + 10), fair clears below 78. Headroom = (t − 80) / 20.
private func forecastAfter(_ series: [(Double, Double)], config: ThermalConfig = ThermalConfig(),
                           each: ((Double, ThermalForecast, ThermalAssessment) -> Void)? = nil) -> ThermalForecast {
    var memory = ClassifierMemory()
    var history = ForecastHistory()
    var f = ThermalForecast.none
    for (t, c) in series {
        let a = ThermalClassifier.assess(ThermalSnapshot(time: t, zones: [packageZone(c)]), config: config, memory: &memory)
        history.record(a, at: t, config: config.forecast)
        f = Forecaster.forecast(a, history: history, config: config)
        each?(t, f, a)
    }
    return f
}

/// Deterministic noise in −amplitude…+amplitude (a linear congruential generator).
private struct Noise {
    var state: UInt64 = 0x9E3779B97F4A7C15
    let amplitude: Double
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * amplitude
    }
}

@Suite("Headroom forecast")
struct ForecastTests {
    @Test func headroomIsZeroAtFairOneAtCriticalAndAboveOnePastIt() {
        let th = SensorThresholds.derive(for: ThermalSensor(zone: packageZone(0)), config: ThermalConfig())
        #expect(thermalHeadroom(celsius: 80, thresholds: th) == 0)
        #expect(thermalHeadroom(celsius: 100, thresholds: th) == 1)
        #expect(thermalHeadroom(celsius: 90, thresholds: th) == 0.5)
        #expect(thermalHeadroom(celsius: 105, thresholds: th) == 1.25)
        #expect(thermalHeadroom(celsius: 60, thresholds: th) == -1)
        #expect(thermalHeadroom(celsius: nil, thresholds: th) == nil)
    }

    @Test func oneSampleIsNotEnoughHistoryButHasHeadroom() {
        let f = forecastAfter([(0, 85)])
        #expect(f.outlook == .notEnoughHistory)
        #expect(f.summary == "not enough history")
        #expect(f.headroom == 0.25)
        #expect(f.headroom(inSeconds: 10) == nil)
    }

    @Test("the headroom sensor: the highest headroom among readable, judged sensors, the first id on a tie")
    func headroomSensorAmongSeveral() {
        func zone(_ id: String, _ celsius: Double?) -> ThermalZone {
            ThermalZone(id: id, type: "acpitz", celsius: celsius, mode: "enabled",
                        trips: [TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: 2)])
        }
        var config = ThermalConfig()
        config.overrides["thermal_zone4"] = SensorOverride(ignore: true)
        func forecast(_ zones: [ThermalZone]) -> ThermalForecast {
            var memory = ClassifierMemory()
            var history = ForecastHistory()
            let a = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: zones), config: config, memory: &memory)
            history.record(a, at: 0, config: config.forecast)
            return Forecaster.forecast(a, history: history, config: config)
        }
        let f = forecast([zone("thermal_zone3", 85), zone("thermal_zone2", 85), zone("thermal_zone1", 70),
                          zone("thermal_zone5", nil), zone("thermal_zone4", 99)])
        #expect(f.outlook == .notEnoughHistory)
        #expect(f.headroomSensor == "thermal_zone2")
        #expect(f.headroom == 0.25)
        #expect(f.sensors.map(\.id) == ["thermal_zone3", "thermal_zone2", "thermal_zone1", "thermal_zone5"])
        let unreadable = forecast([zone("thermal_zone1", nil), zone("thermal_zone4", 99)])
        #expect(unreadable.outlook == .notEnoughHistory)
        #expect(unreadable.headroomSensor == nil && unreadable.headroom == nil)
    }

    @Test func fourSecondsOfHistoryIsStillNotEnough() {
        // 5 samples but a span of 3 s (< minSpanSeconds 4).
        let f = forecastAfter((0...6).map { (Double($0) * 0.5, 60 + Double($0)) })
        #expect(f.outlook == .notEnoughHistory)
    }

    @Test func steadyRampReachesFairAtTheHandComputedTime() {
        // 60 °C rising 0.5 °C/s: at t = 20 it reads 70; fair (80) is 10 °C away = 20 s.
        let f = forecastAfter((0...20).map { (Double($0), 60 + 0.5 * Double($0)) })
        #expect(f.outlook == .rising(to: .fair, seconds: 20))
        #expect(f.summary == "fair in ~20 s")
        #expect(f.headroom == -0.5)                      // (70 − 80) / 20
        #expect(approx(f.headroom(inSeconds: 10), -0.25)) // 75 °C in 10 s
        #expect(f.decidingSensor == "thermal_zone1")
    }

    @Test func rampInFairForecastsSeriousAndItsHeadroom() {
        // 82 + 0.25 t: 87 at t = 20, state fair; serious (90) in 3 / 0.25 = 12 s.
        let f = forecastAfter((0...20).map { (Double($0), 82 + 0.25 * Double($0)) })
        #expect(f.state == .fair)
        #expect(f.outlook == .rising(to: .serious, seconds: 12))
        #expect(f.summary == "serious in ~10 s")
        #expect(approx(f.headroom, 0.35))                // (87 − 80) / 20
        #expect(approx(f.headroom(inSeconds: 10), 0.475)) // 89.5 °C
    }

    @Test func coolingForecastsTheWayBackWithHysteresis() {
        // 95 − 0.2 t: 91 at t = 20, still serious; serious clears below 90 − 2 = 88:
        // (91 − 88) / 0.2 = 15 s.
        let f = forecastAfter((0...20).map { (Double($0), 95 - 0.2 * Double($0)) })
        #expect(f.state == .serious)
        #expect(f.outlook == .falling(to: .fair, seconds: 15))
        #expect(f.summary == "back to fair in ~15 s")
    }

    @Test func coolingWhileHeldByHysteresisCountsToTheClearingPoint() {
        // 92 − 0.1 t for 30 s: 89 at the end, below 90 but held (clears below 88): 10 s.
        var held = false
        let f = forecastAfter((0...30).map { (Double($0), 92 - 0.1 * Double($0)) }) { t, _, a in
            if t == 30 { held = a.sensors[0].heldByHysteresis }
        }
        #expect(held)
        #expect(f.outlook.name == "falling" && f.outlook.nextState == .fair)
        #expect(approx(f.outlook.seconds, 10, 1e-9))
    }

    @Test func slowCoolingFarFromTheThresholdIsMinutes() {
        // 96 − 0.02 t: 95.6 at t = 20; clears below 88 in 7.6 / 0.02 = 380 s ≈ 6 min.
        let f = forecastAfter((0...20).map { (Double($0), 96 - 0.02 * Double($0)) })
        #expect(f.outlook.nextState == .fair && f.outlook.name == "falling")
        #expect(approx(f.outlook.seconds, 380, 1e-6))
        #expect(f.summary == "back to fair in ~6 min")
    }

    @Test func crossingBeyondTheHorizonIsSteadyNotAFarFetchedNumber() {
        // 0.015 °C/s from 60 → fair in 20 / 0.015 ≈ 1333 s, beyond the 600 s horizon.
        let f = forecastAfter((0...20).map { (Double($0), 60 + 0.015 * Double($0)) })
        #expect(f.outlook == .steady)
    }

    @Test func flatSeriesIsSteady() {
        let f = forecastAfter((0...30).map { (Double($0), 75.0) })
        #expect(f.outlook == .steady)
        #expect(f.summary == "steady")
        #expect(approx(f.headroom(inSeconds: 10), -0.25))
    }

    @Test func stepThenPlateauNeverForecastsACrossing() {
        // 60 °C, then a 10 °C jump at t = 30 that stays: a two-sample slope would say 10 °C/s and
        // "fair in 1 s"; the pairwise median sees a step, not a trend, at every moment.
        var outlooks: [ForecastOutlook] = []
        _ = forecastAfter((0...80).map { (Double($0), $0 < 30 ? 60.0 : 70.0) }) { t, f, _ in
            if t >= 30 { outlooks.append(f.outlook) }
        }
        #expect(outlooks.count == 51)
        #expect(outlooks.allSatisfy { $0 == .steady }, "\(outlooks)")
    }

    @Test func noiseAroundAFlatLevelIsSteadyAtEveryMoment() {
        var noise = Noise(amplitude: 1.5)
        var bad: [(Double, ForecastOutlook)] = []
        _ = forecastAfter((0...300).map { (Double($0), 75 + noise.next()) }) { t, f, _ in
            if f.outlook != .steady && f.outlook != .notEnoughHistory { bad.append((t, f.outlook)) }
        }
        #expect(bad.isEmpty, "\(bad)")
    }

    @Test func noisyRampStillForecastsCloseToTheHandComputedTime() {
        // 60 + 0.5 t ± 0.3: at t = 20 the line is at 70, fair 20 s away.
        var noise = Noise(amplitude: 0.3)
        let f = forecastAfter((0...20).map { (Double($0), 60 + 0.5 * Double($0) + noise.next()) })
        guard case .rising(.fair, let s) = f.outlook else {
            Issue.record("expected rising to fair, got \(f.outlook)")
            return
        }
        #expect(abs(s - 20) <= 3)
    }

    @Test func exponentialApproachLevellingBelowFairEndsSteadyAndIsNeverWild() {
        // A load step at t = 20: 60 → 75 with a 6 s time constant. It never reaches fair (80).
        // - The first 3 s after the step: steady (the fast first seconds are not extrapolated).
        // - From two time constants on the curve is visibly levelling: steady (asymptote ~75).
        // - In between, any forecast is no sooner than the steepest possible rise allows:
        //   (80 − t) / 2.5 °C/s (the initial slope 15 / 6).
        func temp(_ t: Double) -> Double { t < 20 ? 60 : 75 - 15 * exp(-(t - 20) / 6) }
        var violations: [String] = []
        _ = forecastAfter((0...80).map { (Double($0), temp(Double($0))) }) { t, f, _ in
            let since = t - 20
            if (0...3).contains(since) || since >= 12 {
                if f.outlook != .steady { violations.append("t=\(t): \(f.outlook)") }
            } else if let s = f.outlook.seconds, s < (80 - temp(t)) / 2.5 {
                violations.append("t=\(t): wild \(s)")
            }
        }
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test func exponentialApproachPastFairIsForecastBeforeItCrosses() {
        // 60 → 90 with a 6 s time constant from t = 20: crosses fair (80) at
        // 20 + 6·ln(30/10) = 26.6 s. The forecast must say fair before then.
        func temp(_ t: Double) -> Double { t < 20 ? 60 : 90 - 30 * exp(-(t - 20) / 6) }
        var firstForecast: Double?
        var firstFair: Double?
        _ = forecastAfter(stride(from: 0.0, through: 60, by: 1).map { ($0, temp($0)) }) { t, f, a in
            if firstForecast == nil, f.outlook.nextState == .fair { firstForecast = t }
            if firstFair == nil, a.state >= .fair { firstFair = t }
        }
        #expect(firstFair == 27)
        #expect((firstForecast ?? 99) < 27, "first forecast of fair at \(String(describing: firstForecast))")
    }

    @Test func sensorThatStopsReadingAgesOutToNotEnoughHistory() {
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        let config = ThermalConfig()
        var f = ThermalForecast.none
        for t in 0...20 {
            let c: Double? = t < 10 ? 60 + Double(t) : nil
            let a = ThermalClassifier.assess(ThermalSnapshot(time: Double(t), zones: [packageZone(c)]), config: config, memory: &memory)
            history.record(a, at: Double(t), config: config.forecast)
            f = Forecaster.forecast(a, history: history, config: config)
        }
        #expect(f.outlook == .notEnoughHistory)
        #expect(f.headroom == nil)
    }

    @Test func clockGoingBackwardsStartsTheHistoryOver() {
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        let config = ThermalConfig()
        for t in 0...20 {
            let a = ThermalClassifier.assess(ThermalSnapshot(time: Double(t), zones: [packageZone(60 + Double(t))]), config: config, memory: &memory)
            history.record(a, at: Double(t), config: config.forecast)
        }
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 5, zones: [packageZone(70)]), config: config, memory: &memory)
        history.record(a, at: 5, config: config.forecast)
        #expect(history.points["thermal_zone1"]?.count == 1)
        #expect(Forecaster.forecast(a, history: history, config: config).outlook == .notEnoughHistory)
    }

    @Test func theSoonestSensorDecidesARise() {
        // Two sensors rising: the package reaches fair (80) in 20 s, the skin zone (passive 80,
        // so fair 70, critical 90) from 62 at 1 °C/s in 8 s.
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        let config = ThermalConfig()
        var f = ThermalForecast.none
        for t in 0...20 {
            let ts = Double(t)
            let skin = zone("thermal_zone0", type: "acpitz", celsius: 42 + ts, trips: [(.passive, 80, 3)])
            let a = ThermalClassifier.assess(ThermalSnapshot(time: ts, zones: [skin, packageZone(60 + 0.5 * ts)]), config: config, memory: &memory)
            history.record(a, at: ts, config: config.forecast)
            f = Forecaster.forecast(a, history: history, config: config)
        }
        #expect(f.outlook == .rising(to: .fair, seconds: 8))
        #expect(f.decidingSensor == "thermal_zone0")
        // Per sensor: each its own next level and time.
        #expect(f.sensor("thermal_zone1")?.next?.state == .fair)
        #expect(f.sensor("thermal_zone1")?.next?.seconds == 20)
        // Headroom is the higher of the two: skin (62 − 70) / 20 = −0.4 over package −0.5.
        #expect(f.headroomSensor == "thermal_zone0")
        #expect(approx(f.headroom, -0.4))
        #expect(approx(f.sensor("thermal_zone1")?.headroom, -0.5))
    }

    @Test func coolingDeviceHoldingTheStateMeansNoWayBackForecast() {
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        let config = ThermalConfig()
        var f = ThermalForecast.none
        for t in 0...20 {
            let snap = ThermalSnapshot(time: Double(t), zones: [packageZone(95 - 0.2 * Double(t))],
                                coolingDevices: [CoolingDevice(id: "cooling_device0", type: "Processor", currentState: 9, maxState: 10)])
            let a = ThermalClassifier.assess(snap, config: config, memory: &memory)
            history.record(a, at: Double(t), config: config.forecast)
            f = Forecaster.forecast(a, history: history, config: config)
        }
        #expect(f.state == .critical)
        #expect(f.outlook == .steady)
    }

    @Test func approximateTimesAreRoundedSoTheyDoNotFlicker() {
        #expect(ThermalForecast.approximate(0.2) == "<1 s")
        #expect(ThermalForecast.approximate(7.4) == "~7 s")
        #expect(ThermalForecast.approximate(41) == "~40 s")
        #expect(ThermalForecast.approximate(43) == "~45 s")
        #expect(ThermalForecast.approximate(170) == "~3 min")
    }
}

@MainActor
@Suite("Forecast on the monitor")
struct MonitorForecastTests {
    @Test func raisingTheSimulatedLoadForecastsFairBeforeTheStateChanges() async throws {
        // Load 0.3 → 0.6 (three `+` presses): the package heads for 42 + 66 × 0.6 = 81.6 °C with
        // a 6 s time constant and crosses fair (80 °C) about 15 s later.
        let laptop = SimulatedLaptop(load: 0.3)
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: laptop, clock: clock)
        for _ in 0..<30 { monitor.sample(); clock.advance(by: 1) }
        #expect(monitor.thermalState == .nominal)
        #expect(monitor.status.forecast.outlook == .steady)
        laptop.raiseLoad(); laptop.raiseLoad(); laptop.raiseLoad()
        #expect(laptop.load == 0.6)
        var forecastAt: Int?, stateAt: Int?
        var summary = ""
        for second in 1...60 {
            clock.advance(by: 1)
            monitor.sample()
            if forecastAt == nil, monitor.status.forecast.outlook.nextState == .fair {
                forecastAt = second
                summary = monitor.status.forecast.summary
            }
            if stateAt == nil, monitor.thermalState == .fair { stateAt = second }
        }
        let f = try #require(forecastAt, "no forecast of fair")
        let s = try #require(stateAt, "state never reached fair")
        #expect(f < s, "forecast at \(f) s (\(summary)), state changed at \(s) s")
        #expect(summary.hasPrefix("fair in ~"))
    }

    @Test func forecastTriggerFiresWhenHeadroomAheadCrossesTheCallersThreshold() async throws {
        // Package rising 0.5 °C/s from 70: headroom in 10 s ≥ 0.5 means ≥ 90 °C ten seconds
        // ahead, i.e. a reading of ≥ 85 °C (t ≥ 30).
        let source = StubSource(StubSource.package(70))
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: source, clock: clock)
        let trigger = ForecastTrigger.headroom(atLeast: 0.5, in: .seconds(10))
        monitor.forecastTriggers = [trigger]
        var fired: [(Int, Bool)] = []
        let token = monitor.addObserver { e in
            if case .forecastTriggered(let t, let active) = e, t == trigger { fired.append((Int(clock.now()), active)) }
        }
        for t in 0...40 {
            source.next = StubSource.package(t <= 36 ? 70 + 0.5 * Double(t) : 88)
            monitor.sample()
            clock.advance(by: 1)
        }
        #expect(fired.first?.0 == 30 && fired.first?.1 == true, "\(fired)")
        // Flat at 88 from t = 37: 88 ahead is headroom 0.4 < 0.5 once the trend flattens.
        #expect(fired.count == 2 && fired.last?.1 == false, "\(fired)")
        #expect(monitor.forecast(in: .seconds(10)) != nil)
        token.cancel()
    }

    @Test func stateTriggerFiresWhenTheForecastSaysSeriousWithinTheWindow() {
        let source = StubSource(StubSource.package(82))
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: source, clock: clock)
        let trigger = ForecastTrigger.state(.serious, within: .seconds(15))
        monitor.forecastTriggers = [trigger]
        var firedAt: Int?
        let token = monitor.addObserver { e in
            if case .forecastTriggered(_, true) = e, firedAt == nil { firedAt = Int(clock.now()) }
        }
        // 82 + 0.25 t: serious (90) at t = 32; "within 15 s" once the reading is ≥ 86.25 (t ≥ 17).
        for t in 0...25 {
            source.next = StubSource.package(82 + 0.25 * Double(t))
            monitor.sample()
            clock.advance(by: 1)
        }
        #expect(firedAt == 17)
        #expect(monitor.thermalState == .fair)
        token.cancel()
    }
}

@Suite("Theil–Sen's median")
struct TrendMedianTests {
    /// Reference: the middle of a sort.
    private func sortedMedian(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    @Test("selection gives exactly the sorted median, for odd and even counts, duplicates, sorted and reversed input")
    func selectionMatchesSort() {
        var rng = SystemRandomNumberGenerator()
        var cases: [[Double]] = [[1], [2, 1], [3, 3, 3], [5, 1, 5, 1], Array(stride(from: 0.0, to: 100, by: 1)),
                                 Array(stride(from: 100.0, to: 0, by: -1)), [-0.0, 0.0, -1, 1]]
        for n in 1...200 {
            cases.append((0..<n).map { _ in Double(Int.random(in: -5...5, using: &rng)) * 0.5 })
            cases.append((0..<n).map { _ in Double.random(in: -1e3...1e3, using: &rng) })
        }
        for c in cases {
            #expect(SensorTrend.median(c) == sortedMedian(c), "\(c)")
        }
        #expect(SensorTrend.median([]) == nil)
    }
}

/// Issue 29: the forecast follows the recent slope (`ForecastConfig.recentSeconds`), so a rise
/// is forecast while it is young and a fall is never read as a hotter state.
@Suite("Forecast follows the recent slope")
struct ForecastSlopeTests {
    @Test("a fast rise from a plateau is forecast from 5 s in at every sample, and from 7 s in at the rate it climbs")
    func fastRiseIsNeverSteady() {
        // 60 °C for 30 s, then 1 °C/s: fair (80) at t = 50, serious (90) at t = 60.
        func temp(_ t: Double) -> Double { t < 30 ? 60 : 60 + (t - 30) }
        var bad: [String] = []
        _ = forecastAfter((0...65).map { (Double($0), temp(Double($0))) }) { t, f, _ in
            guard t >= 35 else { return }
            let c = temp(t)
            // From 7 s in the recent window holds more ramp than plateau: the time follows it.
            let next: Double = c < 80 ? 80 : c < 90 ? 90 : 100
            guard case .rising(_, let s) = f.outlook else { bad.append("t=\(t): \(f.outlook)"); return }
            // The recent rate (1 °C/s), not the whole window's flatter mix of plateau and ramp.
            if t >= 37, abs(s - (next - c)) > 1 { bad.append("t=\(t): \(s) s, true \(next - c) s") }
        }
        #expect(bad.isEmpty, "\(bad)")
    }

    @Test("a fall from 91 to 84 °C through fair never forecasts a hotter state and reads falling within 7 s")
    func fallThroughFairIsNeverAHotterState() {
        // 81 + 0.4 t up to 91 at t = 25 (serious), then −0.5 °C/s: 88 (fair) at t = 31, 84 at t = 39.
        func temp(_ t: Double) -> Double { t <= 25 ? 81 + 0.4 * t : 91 - 0.5 * (t - 25) }
        var hotter: [String] = [], notFalling: [String] = []
        _ = forecastAfter((0...39).map { (Double($0), temp(Double($0))) }) { t, f, _ in
            guard t > 25 else { return }
            if f.outlook.name == "rising" { hotter.append("t=\(t) \(temp(t)) °C: \(f.summary)") }
            if t >= 32, f.outlook.name != "falling" { notFalling.append("t=\(t) \(temp(t)) °C: \(f.summary)") }
        }
        #expect(hotter.isEmpty, "\(hotter)")
        #expect(notFalling.isEmpty, "\(notFalling)")
    }

    @Test("a fast exponential cool-down from 91 °C is never forecast to get hotter")
    func exponentialCoolDownIsNeverAHotterState() {
        // A slow climb to 91 at t = 30, then cooling toward 60 with an 8 s time constant
        // (through fair at 87, 84, 81 in the first three seconds).
        func temp(_ t: Double) -> Double { t < 30 ? 85 + 0.2 * t : 60 + 31 * exp(-(t - 30) / 8) }
        var hotter: [String] = []
        _ = forecastAfter((0...60).map { (Double($0), temp(Double($0))) }) { t, f, _ in
            if t > 30, f.outlook.name == "rising" { hotter.append("t=\(t) \(temp(t)) °C: \(f.summary)") }
        }
        #expect(hotter.isEmpty, "\(hotter)")
    }

    @Test("whole-degree noise on a plateau is steady at every moment")
    func quantisedNoiseIsSteady() {
        var noise = Noise(amplitude: 0.5)
        var bad: [(Double, ForecastOutlook)] = []
        _ = forecastAfter((0...300).map { (Double($0), (75 + noise.next()).rounded()) }) { t, f, _ in
            if f.outlook != .steady && f.outlook != .notEnoughHistory { bad.append((t, f.outlook)) }
        }
        #expect(bad.isEmpty, "\(bad)")
    }

    @Test("a slow drift under noise is steady or minutes away, never a near crossing or a fall")
    func slowDriftIsNeverANearCrossing() {
        // 70 + 0.02 °C/s ± 0.3: fair (80) is 8 min away at the end.
        var noise = Noise(amplitude: 0.3)
        var bad: [String] = []
        _ = forecastAfter((0...200).map { (Double($0), 70 + 0.02 * Double($0) + noise.next()) }) { t, f, _ in
            switch f.outlook {
            case .falling: bad.append("t=\(t): \(f.summary)")
            case .rising(_, let s) where s < 120: bad.append("t=\(t): \(f.summary)")
            default: break
            }
        }
        #expect(bad.isEmpty, "\(bad)")
    }
}

@MainActor
@Suite("Forecast on the simulated laptop")
struct SimulatedLaptopForecastTests {
    @Test("seven + then seven −: while every sensor cools no hotter state is forecast, and the way back shows within 8 s whenever sensors alone hold the state")
    func coolingAfterLoadDropIsNeverAHotterState() {
        let laptop = SimulatedLaptop(load: 0.25)
        let clock = ManualMonitorClock()
        let monitor = ThermalMonitor(source: laptop, clock: clock)
        func temps() -> [Double] { [laptop.packageC, laptop.skinC] }
        for _ in 0..<30 { monitor.sample(); clock.advance(by: 1) }
        for _ in 0..<7 { laptop.raiseLoad() }
        for _ in 0..<60 { monitor.sample(); clock.advance(by: 1) }
        for _ in 0..<7 { laptop.lowerLoad() }
        var before = temps()
        var hotter: [String] = [], noWayBack: [String] = []
        for second in 1...60 {
            monitor.sample()
            let now = temps()
            let f = monitor.status.forecast
            if zip(now, before).allSatisfy({ $0 < $1 }), f.outlook.name == "rising" {
                hotter.append("\(second) s \(now): \(f.summary)")
            }
            // The fan's stage follows the skin (stage 2 from 70 °C) and holds fair on its own
            // until then: no way back is forecast while a cooling device holds the state.
            let coolingHolds = monitor.status.assessment.cooling.contains { $0.level >= monitor.thermalState }
            if second >= 8, monitor.thermalState > .nominal, !coolingHolds, f.outlook.name != "falling" {
                noWayBack.append("\(second) s \(now) \(monitor.thermalState): \(f.summary)")
            }
            before = now
            clock.advance(by: 1)
        }
        #expect(hotter.isEmpty, "\(hotter)")
        #expect(noWayBack.isEmpty, "\(noWayBack)")
    }
}
