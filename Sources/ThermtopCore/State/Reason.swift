/// Words that quote temperatures, kept as values: each temperature is rendered in the unit the
/// reader chose when the text is made (`text(_:)`), never converted from text afterwards.
/// A threshold's rule is one (`critical trip 103.0 °C − 15.0 °C`).
public struct ThermalPhrase: Sendable, Equatable, ExpressibleByStringLiteral {
    /// One piece of the phrase.
    public enum Part: Sendable, Equatable {
        /// Words, shown as they are (a sensor's name among them, never read for numbers).
        case words(String)
        /// A temperature, °C.
        case degrees(Double)
        /// A temperature difference (a margin, a hysteresis), °C.
        case difference(Double)
    }

    /// The pieces, in order.
    public var parts: [Part]

    /// A phrase of these pieces.
    public init(_ parts: [Part]) { self.parts = parts }

    /// Words alone.
    public init(stringLiteral words: String) { parts = [.words(words)] }

    /// The phrase in `units`: `critical trip 103.0 °C − 15.0 °C` or `critical trip 217.4 °F − 27.0 °F`.
    package func text(_ units: TemperatureUnit) -> String {
        var out = ""
        for p in parts {
            switch p {
            case .words(let w): out += w
            case .degrees(let c): out += units.format(c)
            case .difference(let d): out += units.formatDelta(d)
            }
        }
        return out
    }
}

/// Why a sensor, a device or the whole machine is at its level, as values: the sensor, its
/// reading, the rule and threshold it reached and where that level clears. The classifier
/// decides it; `status`, `status --json`, `watch`, hooks, export and the dashboard render it
/// through `text(_:)`, the one formatter, in the unit the reader chose (docs/verdict.md).
public struct ThermalReason: Sendable, Equatable, CustomStringConvertible {
    /// What decided, with the figures the text quotes.
    public enum Cause: Sendable, Equatable {
        /// `nominal: <sensor> <celsius> < fair <fair>`: a sensor below its fair threshold.
        case belowFair(sensor: String, celsius: Double, fair: Double)
        /// `<level>: <sensor> <celsius> ≥ <threshold> (clears below <threshold − hysteresis>)`, or
        /// when `held` (falling, kept by hysteresis) `<level>: <sensor> <celsius> held until below
        /// <clears> (<threshold>)`. `uncorroborated`: judged on default limits alone, fair at most.
        case reached(level: ThermalState, sensor: String, celsius: Double, threshold: ThermalThreshold,
                     held: Bool, uncorroborated: Bool)
        /// `ignored by configuration (<reason>)`: the sensor's own reason, which counts for nothing.
        indirect case ignored(ThermalReason)
        /// `unknown: <sensor> <why>`: no reading now (`io-error`, `removed since 12:01:07`).
        case unread(sensor: String, why: String)
        /// `<level>: <sensor> <verb> <since>, holding <level> (<why>; last <celsius>, hold <seconds> s)`:
        /// a sensor that stopped reading (`verb`: unreadable, removed) keeps the level it last read.
        case holding(level: ThermalState, sensor: String, verb: String, since: String, why: String,
                     last: Double?, holdSeconds: Int)
        /// `unknown: <sensor> <verb> <since> (<why>); its <level> hold expired after <seconds> s`.
        case holdExpired(level: ThermalState, sensor: String, verb: String, since: String, why: String, holdSeconds: Int)
        /// A cooling device, a fan, the throttle counters or a GPU's clock-event reasons, as their
        /// rule words it (they quote no temperature).
        case device(String)
        /// `nominal: every sensor below its fair threshold (closest: <sensor> <celsius>, fair at
        /// <fair>)`, or `<n> sensor(s) unreadable, the rest below fair` while some cannot be read.
        case allBelowFair(unreadable: Int, closest: String, celsius: Double, fair: Double)
        /// `nominal: no sensor has a reading (cooling devices idle)`.
        case noSensorReading
        /// No sensor or cooling device at all: nothing is measured.
        case nothingFound
        /// Sensors or cooling devices exist, none readable; `example` is `<sensor>: <why>`.
        case nothingReadable(sensors: Int, cooling: Int, example: String?)
        /// `nominal: no sample yet`.
        case noSample
        /// `<state>: SIMULATED (measured <reason>)`: a forced state over the measured one.
        indirect case simulated(ThermalState, measured: ThermalReason)
    }

    /// What decided.
    public var cause: Cause
    /// The processes heating the machine when the state is fair or worse (` — mostly cc1plus ×8
    /// (640 % CPU, ≈ 38 W)`, `ThermalHeatSources.verdict`), appended to the text; empty when
    /// none is named.
    public var heatSources: String

    /// A reason from its cause.
    public init(_ cause: Cause, heatSources: String = "") {
        self.cause = cause
        self.heatSources = heatSources
    }

    /// The reason in °C, as `status --json` and the library say it.
    public var description: String { text(.celsius) }

    /// The reason as every output prints it, temperatures in `units`.
    package func text(_ units: TemperatureUnit) -> String {
        var out = ""
        write(into: &out, units)
        return out
    }

    private func write(into out: inout String, _ u: TemperatureUnit) {
        switch cause {
        case .belowFair(let name, let t, let fair):
            out += "nominal: \(name) \(u.format(t)) < fair \(u.format(fair))"
        case .reached(let level, let name, let t, let th, let held, let uncorroborated):
            out += "\(level.name): \(name) \(u.format(t))"
            out += held
                ? " held until below \(u.format(th.clearsBelow)) (\(th.label(u)))"
                : " ≥ \(th.label(u)) (clears below \(u.format(th.clearsBelow)))"
            if uncorroborated { out += "; uncorroborated: no limit of its own and no known role, fair at most" }
        case .ignored(let inner):
            out += "ignored by configuration ("
            inner.write(into: &out, u)
            out += ")"
        case .unread(let name, let why):
            out += "unknown: \(name) \(why)"
        case .holding(let level, let name, let verb, let since, let why, let last, let hold):
            out += "\(level): \(name) \(verb) \(since), holding \(level) (\(why); last \(last.map(u.format) ?? "?"), hold \(hold) s)"
        case .holdExpired(let level, let name, let verb, let since, let why, let hold):
            out += "unknown: \(name) \(verb) \(since) (\(why)); its \(level) hold expired after \(hold) s"
        case .device(let words):
            out += words
        case .allBelowFair(let unread, let name, let t, let fair):
            let every = unread == 0 ? "every sensor below its fair threshold"
                : "\(unread) sensor\(unread == 1 ? "" : "s") unreadable, the rest below fair"
            out += "nominal: \(every) (closest: \(name) \(u.format(t)), fair at \(u.format(fair)))"
        case .noSensorReading:
            out += "nominal: no sensor has a reading (cooling devices idle)"
        case .nothingFound:
            out += "unknown: no thermal sensor or cooling device found, nothing is measured; reported to apps as nominal (as on Apple platforms)"
        case .nothingReadable(let sensors, let cooling, let example):
            out += "unknown: nothing can be read: \(sensors) sensor\(sensors == 1 ? "" : "s") and \(cooling) cooling device\(cooling == 1 ? "" : "s"), none readable\(example.map { " (e.g. \($0))" } ?? ""); reported to apps as nominal"
        case .noSample:
            out += "nominal: no sample yet"
        case .simulated(let state, let measured):
            out += "\(state): SIMULATED (measured "
            measured.write(into: &out, u)
            out += ")"
        }
        out += heatSources
    }
}
