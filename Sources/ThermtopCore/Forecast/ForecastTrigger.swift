/// A threshold on the forecast that a program sets on the monitor
/// (`monitor.forecastTriggers`); the monitor announces `.forecastTriggered` when the forecast
/// crosses it, either way.
public enum ForecastTrigger: Sendable, Hashable {
    /// Headroom `in` ahead (Android's `getThermalHeadroom(forecastSeconds)`) at or above
    /// `atLeast`. With `in: .zero` it is the headroom now.
    case headroom(atLeast: Double, in: Duration)
    /// The measured state is forecast to reach `state` (or is already at or above it) within
    /// `within`.
    case state(ThermalState, within: Duration)

    /// Whether the trigger holds for this forecast.
    public func holds(for f: ThermalForecast) -> Bool {
        switch self {
        case .headroom(let level, let ahead):
            let seconds = ahead.inSeconds
            let h = seconds > 0 ? f.headroom(inSeconds: seconds) : f.headroom
            return (h ?? -.infinity) >= level
        case .state(let s, let within):
            if f.state >= s { return true }
            if case .rising(let to, let secs) = f.outlook, to >= s, secs <= within.inSeconds { return true }
            return false
        }
    }
}

extension Duration {
    /// The duration in seconds, for the clocks and timeouts that count in seconds.
    package var inSeconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
