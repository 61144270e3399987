import Testing
@testable import ThermtopCore

/// Issue 38 item 6: after a turn the forecast follows the reading, never the old direction.
@Suite struct ForecastTurnTests {
    /// Each moment's forecast for the package zone (`packageZone`: fair 80, serious 90, critical 100).
    static func forecasts(_ series: [(Double, Double)]) -> [(time: Double, celsius: Double, forecast: ThermalForecast, level: ThermalState)] {
        let config = ThermalConfig()
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        return series.map { t, c in
            let a = ThermalClassifier.assess(ThermalSnapshot(time: t, zones: [packageZone(c)]), config: config, memory: &memory)
            history.record(a, at: t, config: config.forecast)
            return (t, c, Forecaster.forecast(a, history: history, config: config), a.state)
        }
    }

    @Test("a zone that rose to 97.5 °C and then falls 3 °C/s is never forecast to get hotter while it falls",
          arguments: [0.5, 1.0, 2.0])
    func fallAfterRiseIsNeverHotter(rate: Double) {
        // A rise at `rate` °C/s to 97.5 °C, then 3 °C/s down for 4 s (85.5 °C).
        let peak = 20.0
        func temp(_ t: Double) -> Double { t <= peak ? 97.5 - rate * (peak - t) : 97.5 - 3 * (t - peak) }
        var bad: [String] = []
        for m in Self.forecasts((0...24).map { (Double($0), temp(Double($0))) }) where m.time > peak {
            let f = m.forecast
            if f.outlook.name == "rising" { bad.append("t=\(m.time) \(m.celsius) °C: \(f.summary)") }
            if let next = f.outlook.nextState, next > m.level { bad.append("t=\(m.time) \(m.celsius) °C (\(m.level)): \(f.summary)") }
            if let h = f.headroom, let h10 = f.headroom(inSeconds: 10), h10 > h + 1e-9 {
                bad.append("t=\(m.time) \(m.celsius) °C: headroom \(h) now, \(h10) in 10 s")
            }
        }
        #expect(bad.isEmpty, "\(bad)")
    }
}
