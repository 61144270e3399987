/// A threshold on the forecast that a program sets on the monitor
/// (`monitor.forecastTriggers`); the monitor announces `.forecastTriggered` when the forecast
/// crosses it, either way.
public enum ForecastTrigger: Sendable, Hashable {
    /// Headroom `inSeconds` ahead (Android's `getThermalHeadroom(forecastSeconds)`) at or
    /// above `atLeast`. With `inSeconds: 0` it is the headroom now.
    case headroom(atLeast: Double, inSeconds: Double)
    /// The measured state is forecast to reach `state` (or is already at or above it) within
    /// `withinSeconds`.
    case state(ThermalState, withinSeconds: Double)

    /// Whether the trigger holds for this forecast.
    public func holds(for f: ThermalForecast) -> Bool {
        switch self {
        case .headroom(let level, let seconds):
            let h = seconds > 0 ? f.headroom(inSeconds: seconds) : f.headroom
            return (h ?? -.infinity) >= level
        case .state(let s, let within):
            if f.state >= s { return true }
            if case .rising(let to, let secs) = f.outlook, to >= s, secs <= within { return true }
            return false
        }
    }
}
