/// Temperatures shown in the unit the user chose (`units` in the config; `f` toggles it on the
/// dashboard). Readings, thresholds and decisions stay in °C; the arithmetic is
/// `TemperatureUnit.value` (absolute) and `delta` (differences), and everything the dashboard
/// draws and `thermtop status` prints goes through these helpers, so nothing converts on its own.
/// (`status --json`, `watch --json` and `export` stay in °C: their fields say so.)
extension TemperatureUnit {
    /// `91.0` or `195.8`: the number alone, for columns under a unit heading; `?` without a reading.
    package func number(_ celsius: Double?) -> String {
        guard let c = celsius else { return "?" }
        return String(format(c).dropLast(symbol.count + 1))
    }

    /// `2.0 °C` or `3.6 °F`: a temperature difference (hysteresis, margins), converted from the
    /// °C difference as shown, like `format`.
    package func formatDelta(_ celsius: Double) -> String {
        String(formatDegrees(delta(Self.asShown(celsius))).dropLast(2)) + symbol
    }

    /// `°C` or `°F`, `C` or `F` on an ASCII terminal.
    package func symbol(unicode: Bool) -> String { unicode ? symbol : String(symbol.dropFirst()) }

}

extension SensorThresholds {
    /// How far `celsius` is from the next limit that matters, as a person reads it:
    /// `9.0 °C to serious` below serious, `2.5 °C to critical` from serious on, `1.0 °C past
    /// critical` beyond it. Never a negative number: the screen says this, while `status --json`
    /// and the library keep Android's headroom (0 at fair, 1 at critical).
    package func distanceText(_ celsius: Double, units: TemperatureUnit) -> String {
        if celsius < serious.celsius { return "\(units.formatDelta(serious.celsius - celsius)) to serious" }
        if celsius < critical.celsius { return "\(units.formatDelta(critical.celsius - celsius)) to critical" }
        return "\(units.formatDelta(celsius - critical.celsius)) past critical"
    }
}
