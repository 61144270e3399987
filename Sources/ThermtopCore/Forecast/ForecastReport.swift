extension ThermalStatusReport {
    /// `forecast` in `status --json`: `{next_state, seconds, headroom, headroom_in_10s, method}`
    /// plus `trend` (`rising`/`falling`/`steady`/`not_enough_history`), `summary` (the words the
    /// dashboard shows) and `sensor` (whose trend gives `seconds`). A one-shot `thermtop status`
    /// has one sample: `not_enough_history`, `headroom` from that sample, `headroom_in_10s` null.
    /// Written field by field into the open object of `w` (a `JSONValue` tree of it made an
    /// array of (key, value) pairs, a generic type of its own, for one object).
    package static func writeForecast(_ f: ThermalForecast, into w: inout JSONWriter) {
        w.field("next_state", .str(f.outlook.nextState?.name))
        w.field("seconds", .num(f.outlook.seconds, places: 0))
        w.field("headroom", .num(f.headroom))
        w.field("headroom_in_10s", .num(f.headroom(inSeconds: 10)))
        w.field("method", .string(f.method))
        w.field("trend", .string(f.outlook.name))
        w.field("summary", .string(f.summary))
        w.field("sensor", .str(f.decidingSensor))
    }

    /// The text report's forecast line as a person reads it: the summary, then how far the
    /// sensor nearest its limit is from it, now and in 10 s at its trend (`fair in ~20 s ·
    /// 9.0 °C to serious · 7.5 °C to serious in 10 s`), in `units`. `status --json` and
    /// `forecastLine(_:)` keep Android's headroom.
    package static func forecastLine(_ s: MonitorStatus, units: TemperatureUnit) -> String {
        let f = s.forecast
        var parts = [f.summary]
        if let id = f.headroomSensor, let a = s.assessment.sensors.first(where: { $0.sensor.id == id }),
           let c = a.sensor.celsius {
            parts.append(a.thresholds.distanceText(c, units: units))
            if let later = f.sensor(id)?.trend.projected(seconds: 10) {
                parts.append("\(a.thresholds.distanceText(later, units: units)) in 10 s")
            }
        }
        return parts.joined(separator: " · ")
    }

    /// The forecast with Android's headroom (0 at fair, 1 at critical): `fair in ~20 s ·
    /// headroom −0.50 (in 10 s: −0.25)`.
    public static func forecastLine(_ f: ThermalForecast) -> String {
        var parts = [f.summary]
        if let h = f.headroom { parts.append("headroom \(Format.fixed(h, places: 2))") }
        if let h10 = f.headroom(inSeconds: 10) { parts.append("in 10 s \(Format.fixed(h10, places: 2))") }
        return parts.joined(separator: " · ")
    }
}
