import ThermtopCore

/// Which overlay covers the dashboard.
public enum Overlay: Sendable, Equatable {
    case none, help, debug, detail
}

/// Low power as the `l` key cycles it: live → forced on → forced off → live.
public enum LowPowerMode: Sendable, Equatable {
    case live, forcedOn, forcedOff

    public var next: LowPowerMode {
        switch self {
        case .live: .forcedOn
        case .forcedOn: .forcedOff
        case .forcedOff: .live
        }
    }

    public var override: Bool? {
        switch self {
        case .live: nil
        case .forcedOn: true
        case .forcedOff: false
        }
    }

    public init(override: Bool?) {
        switch override {
        case nil: self = .live
        case true?: self = .forcedOn
        case false?: self = .forcedOff
        }
    }
}

/// Figures the debug overlay shows about thermtop itself.
public struct RuntimeStats: Sendable, Equatable {
    public var sampleMilliseconds: Double = 0
    public var renderMilliseconds: Double = 0
    public var frames = 0
    public var cellsLastFrame = 0
    public var cellsTotal = 0
    public var samples = 0
    public var fileReads = 0
    public var colorCount = 0
    public var terminalWidth = 0
    public var terminalHeight = 0
    public init() {}
}

/// Everything the dashboard draws. Pure data: the reducer changes it, widgets read it.
public struct AppState: Sendable, Equatable {
    public var status: MonitorStatus
    /// Recent temperatures per sensor id, oldest first (for sparklines).
    public var history: [String: [Double]] = [:]
    public static let historyLength = 120
    /// Animation tick: the pulse is a function of it and the tier.
    public var tick = 0
    public var paused = false
    public var overlay: Overlay = .none
    /// Index into the sorted sensor rows.
    public var selected = 0
    public var lowPowerMode: LowPowerMode = .live
    /// The simulated laptop's load when running it; nil on real sensors.
    public var simulatedLoad: Double?
    /// Shown under the header, e.g. why the simulated laptop is on.
    public var note: String?
    public var hostname = "localhost"
    /// `HH:MM:SS` of the last sample.
    public var clock = ""
    public var secondsUntilRefresh: Double = 0
    public var sampleDelay: Double = 1
    public var unicode = true
    public var color = true
    public var stats = RuntimeStats()
    public var quit = false
    /// °C or °F for display (decisions stay in °C); the config's `units`, key `f` toggles.
    public var units: TemperatureUnit = .celsius
    /// The config file's settings and the on-change counters (debug overlay).
    public var configInfo = ConfigInfo()

    public init(status: MonitorStatus) {
        self.status = status
        lowPowerMode = LowPowerMode(override: status.overrides.lowPower)
    }

    /// Sensors in display order: closest to their serious threshold first; unknown last.
    public var sortedSensors: [SensorAssessment] {
        status.assessment.sensors.filter { !$0.hidden && (!$0.ignored || $0.sensor.celsius != nil) }.sorted { a, b in
            // Sensors the config pins come first, in the same order among themselves.
            if a.pinned != b.pinned { return a.pinned }
            switch (a.headroom, b.headroom) {
            case let (x?, y?): return x != y ? x > y : a.sensor.id < b.sensor.id
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.sensor.id < b.sensor.id
            }
        }
    }

    public var selectedSensor: SensorAssessment? {
        let s = sortedSensors
        return s.isEmpty ? nil : s[min(max(selected, 0), s.count - 1)]
    }

    /// Record a new sample.
    public mutating func apply(_ new: MonitorStatus) {
        status = new
        for a in new.assessment.sensors {
            guard let t = a.sensor.celsius else { continue }
            var h = history[a.sensor.id] ?? []
            h.append(t)
            if h.count > Self.historyLength { h.removeFirst(h.count - Self.historyLength) }
            history[a.sensor.id] = h
        }
        let ids = Set(new.assessment.sensors.map(\.sensor.id))
        history = history.filter { ids.contains($0.key) }
        let n = sortedSensors.count
        if selected >= n { selected = max(0, n - 1) }
    }
}
