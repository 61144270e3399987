import ThermtopCore

/// Which overlay covers the dashboard. The detail overlay is keyed by the sensor's identity,
/// so it keeps showing that sensor however the list re-sorts.
public enum Overlay: Sendable, Equatable {
    case none, help, debug
    case detail(String)
    /// A heat-source group's processes, keyed by its command name (`Enter` on a group).
    case heatGroup(String)

    /// Whether ↑↓ PgUp PgDn Home End and the wheel scroll it (from `AppState.helpTop`).
    var scrolls: Bool { self != .none }
}

/// How the sensor list is ordered (`s` and F6 cycle, `I` reverses).
public enum SortOrder: String, Sendable, Equatable, CaseIterable {
    /// Closest to its serious threshold first (the default: what matters is on top).
    case headroom
    /// Hottest reading first, whatever its limits.
    case temperature
    case name
    /// By what the sensor measures (CPU, GPU, disk, Wi-Fi, battery, board), by name within:
    /// unlike the default, the headline CPU does not jump its group's queue.
    case group

    public var next: SortOrder {
        let all = SortOrder.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    public var label: String {
        switch self {
        case .headroom: "nearest limit first"
        case .temperature: "hottest first"
        case .name: "by name"
        case .group: "by group"
        }
    }

    /// One word for the order, for list titles too narrow for `label`.
    public var shortLabel: String {
        switch self {
        case .headroom: "nearest"
        case .temperature: "hottest"
        case .name: "A-Z"
        case .group: "grouped"
        }
    }

    /// `shortLabel` reversed (`I`).
    public var reversedShortLabel: String {
        switch self {
        case .headroom: "farthest"
        case .temperature: "coolest"
        case .name: "Z-A"
        case .group: "grouped, rev."
        }
    }

    /// The label when the order is reversed (`I`).
    public var reversedLabel: String {
        switch self {
        case .headroom: "nearest limit last"
        case .temperature: "coolest first"
        case .name: "by name, Z to A"
        case .group: "by group, reversed"
        }
    }
}

/// Which list ↑↓ Home End and `Enter` act on (`Tab` switches).
public enum Focus: Sendable, Equatable {
    case sensors
    /// The "Heating it" panel's groups.
    case heat
}

/// How the "Heating it" panel orders its groups (`w` cycles), biggest first.
public enum HeatSort: String, Sendable, Equatable, CaseIterable {
    case cpu, watts, gpu

    public var next: HeatSort {
        let all = HeatSort.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// The panel title's words for the order.
    public var label: String {
        switch self {
        case .cpu: "by CPU"
        case .watts: "by ≈ W"
        case .gpu: "by GPU"
        }
    }
}

/// The lowest and highest reading of a sensor since thermtop started (in °C).
public struct Extremes: Sendable, Equatable {
    public var low: Double
    public var high: Double

    public init(_ celsius: Double) {
        low = celsius
        high = celsius
    }

    public mutating func add(_ celsius: Double) {
        low = min(low, celsius)
        high = max(high, celsius)
    }
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
    /// Wakeups of the run loop that drew nothing (nothing visible changed).
    public var framesSkipped = 0
    public var cellsLastFrame = 0
    public var cellsTotal = 0
    public var samples = 0
    public var colorCount = 0
    public init() {}
}

/// What the sampler reports along with a status, for the debug overlay and the countdown.
public struct FeedInfo: Sendable, Equatable {
    public var samples: Int
    public var sampleMilliseconds: Double
    /// Monotonic time at which the next tier-paced refresh (rediscovery) is due.
    public var refreshDueAt: Double
    /// The simulated laptop's load, nil on real sensors.
    public var simulatedLoad: Double?
    /// Where a replay stands after this status; nil when not replaying.
    public var replay: ReplayPosition?
    /// When the sampler's timer takes its next sample (monotonic); nil without a timer.
    public var nextSampleAt: Double?

    public init(samples: Int = 0, sampleMilliseconds: Double = 0, refreshDueAt: Double = 0, simulatedLoad: Double? = nil,
                replay: ReplayPosition? = nil, nextSampleAt: Double? = nil) {
        self.nextSampleAt = nextSampleAt
        self.samples = samples
        self.sampleMilliseconds = sampleMilliseconds
        self.refreshDueAt = refreshDueAt
        self.simulatedLoad = simulatedLoad
        self.replay = replay
    }
}

/// Everything the dashboard draws. Pure data: only `Reducer.reduce` changes it, widgets read it.
public struct AppState: Sendable, Equatable {
    public var status: MonitorStatus { didSet { updateList() } }
    /// Recent temperatures per sensor id, oldest first, one point per history step.
    public var history: [String: [Double]] = [:]
    /// Monotonic time of the newest history point's step.
    public var historyPointTime: Double?
    /// When each history point was taken, oldest first. Every sensor's list lines up with its
    /// end (a sensor that appeared later has fewer points), so graphs place points by time
    /// and their time axis stays true when the tier changes the step.
    public var historyTimes: [Double] = []
    /// Recent watts per power domain id, oldest first, one point per history step.
    public var powerHistory: [String: [Double]] = [:]
    /// The step each point was recorded at (the measured tier's), aligned with `historyTimes`:
    /// a gap of one such step between two points is no missing sample, whatever step draws it.
    public var historySteps: [Double] = []
    /// Points kept per sensor: enough for the widest graph.
    public static let historyLength = 300
    /// Animation tick: the pulse is a function of it and the tier.
    public var tick = 0
    /// Monotonic time of the last action that carried one.
    public var now: Double = 0
    /// Local wall-clock time of day, in seconds since midnight (the header clock).
    public var wallSeconds = 0
    public var paused = false
    public var overlay: Overlay = .none
    /// First line of the help or debug overlay shown (↑↓ PgUp PgDn Home End and the wheel
    /// scroll it when it is taller than the window).
    public var helpTop = 0
    /// The selected sensor, by identity: the cursor follows it across re-sorts.
    public var selectedID: String?
    /// Whether the person chose the selection (a key, a click, a search) rather than it landing
    /// on a row by itself: the history graph follows their choice, else the deciding sensor.
    public var selectionChosen = false
    /// The first sensor shown in the list, by identity (the scroll position).
    public var topID: String?
    /// Where the selection was in the list, to land nearby if its sensor vanishes.
    public var selectedIndexHint = 0
    public var sort: SortOrder = .headroom { didSet { updateList() } }
    /// The sort order turned upside down (`I`, as in htop).
    public var sortReversed = false { didSet { updateList() } }
    /// Sensors whose name, id or group contain this text (case-insensitive); "" shows all.
    public var filter = "" { didSet { if filter != oldValue { updateList() } } }
    /// The longest filter or search kept: a name is never longer, and a paste of thousands of
    /// characters must not cost a filter pass per character.
    public static let filterMaxLength = 64
    /// True while `/` (F4) or F3 is taking text.
    public var filterEditing = false
    /// True while the text typed goes to `search` (F3: move to the first match, hide nothing)
    /// rather than to `filter`.
    public var searching = false
    /// F3's text while it is being typed.
    public var search = ""
    /// Show what the tier means for software (animations, loading ahead, heavy extras, power
    /// saving) under the policy's tier line; off by default, the screen is about heat (`i`).
    public var showPolicy = false
    /// Each sensor's lowest and highest reading since thermtop started, by sensor id.
    public var extremes: [String: Extremes] = [:]
    /// Show hidden sensors too (ignored by configuration, known dummies).
    public var showAll = false { didSet { updateList() } }
    public var lowPowerMode: LowPowerMode = .live
    /// The simulated laptop's load when running it; nil on real sensors.
    public var simulatedLoad: Double?
    /// Shown under the header, e.g. why the simulated laptop is on.
    public var note: String?
    /// A one-off answer to the last key (why `+` does nothing here), cleared by the next key.
    public var message: String?
    public var hostname = "localhost"
    public var refreshDueAt: Double = 0
    /// When the sampler's timer takes its next sample (monotonic); nil without a timer. The
    /// live dashboard's pulse frames fall between samples, which draw a frame themselves.
    public var nextSampleAt: Double?
    public var sampleDelay: Double = 1
    public var width = 80
    public var height = 24
    public var unicode = true
    public var color = true
    public var stats = RuntimeStats()
    public var quit = false
    /// °C or °F for display (decisions stay in °C); the config's `units`, `f` toggles.
    package var units: TemperatureUnit = .celsius
    /// The recording being replayed (`--replay FILE`); nil for live sensors.
    public var replay: ReplayState?
    /// The config file's settings and the on-change counters (debug overlay).
    public var configInfo = ConfigInfo()
    /// The exit status to leave with (128 + signal after a quit signal).
    public var exitStatus: Int32 = 0
    /// What ↑↓ and `Enter` act on: the sensors, or the "Heating it" groups (`Tab`).
    public var focus: Focus = .sensors
    /// The order of the "Heating it" groups (`w`).
    public var heatSort: HeatSort = .cpu
    /// The selected heat-source group, by command name; nil: the first.
    public var selectedHeat: String?

    public init(status: MonitorStatus) {
        self.status = status
        lowPowerMode = LowPowerMode(override: status.overrides.lowPower)
        updateList()
    }

    /// The UI's own rules at the tier in force.
    public var renderPolicy: RenderPolicy { RenderPolicy(tier: status.tier, sampleDelay: sampleDelay) }

    public var secondsUntilRefresh: Double { max(0, refreshDueAt - now) }


    /// The step history is recorded at: the measured tier's (overrides do not change it).
    public var recordingStep: Double {
        let measured = QualityTier(state: status.assessment.state, lowPower: status.lowPowerAssessment.enabled)
        return RenderPolicy(tier: measured, sampleDelay: sampleDelay).historyStep(sampleDelay: sampleDelay)
    }

    /// A sensor's history in `columns` columns of `step` seconds each, ending now (the last
    /// column); nil where no sample was taken (before the sensor appeared, or while paused).
    /// Points are re-binned to `step` whatever step they were recorded at: several points in
    /// one column show the highest, and a point recorded at a coarser step fills the columns
    /// up to the next one. So the time axis is true after the tier changes.
    public func historyColumns(_ id: String, columns: Int, step: Double) -> [Double?] {
        guard columns > 0, step > 0 else { return [] }
        var out = [Double?](repeating: nil, count: columns)
        guard let values = history[id], !historyTimes.isEmpty else { return out }
        let times = Array(historyTimes.suffix(values.count))
        let steps = Array(historySteps.suffix(values.count))
        let vals = Array(values)
        // Newest at the right. Gaps of about a step or more move whole columns (rounded, so
        // sampling jitter of 0.98 s then 1.03 s never leaves a hole); shorter gaps, recorded at
        // a finer step than the one drawn, add up until they make a column.
        var column = columns - 1
        var carry = 0.0
        var i = vals.count - 1
        out[column] = vals[i]
        while i > 0 {
            let gap = times[i] - times[i - 1]
            let advance = gap / step
            var moved: Int
            if advance >= 0.75 {
                moved = Swift.max(1, Int(advance.rounded()))
                carry = 0
            } else {
                carry += advance
                moved = Int(carry.rounded())
                carry -= Double(moved)
            }
            let older = vals[i - 1]
            i -= 1
            if moved == 0 {
                out[column] = Swift.max(out[column] ?? older, older)
                continue
            }
            // No sample missing between the two points: the older one's value holds until the
            // newer one.
            let recorded = i < steps.count ? steps[i] : step
            let held = gap <= recorded * 1.5 + 1e-6
            let next = column - moved
            if held {
                for c in Swift.max(next + 1, 0)..<column where out[c] == nil { out[c] = older }
            }
            column = next
            guard column >= 0 else { break }
            out[column] = older
        }
        return out
    }

    /// `12:34:56` at full, `12:34` below (see `RenderPolicy`).
    public var clockText: String { renderPolicy.clockText(secondsSinceMidnight: wallSeconds) }

    /// Sensors in display order, after hiding and filtering. Worked out when the status or the
    /// list's order, filter or show-all change (`updateList`), not each time it is read: a key
    /// and a frame read it several times, and with 10,000 sensors each sort costs milliseconds.
    public private(set) var sortedSensors: [SensorAssessment] = []

    /// How many sensors are hidden (ignored or known dummies) while `showAll` is off.
    public private(set) var hiddenCount = 0

    /// How many members each headline folds (the cited sensor, which has a row of its own,
    /// not counted), by headline id: a row's `+N`.
    public private(set) var foldedCounts: [String: Int] = [:]

    private mutating func updateList() {
        let a = status.assessment
        sortedSensors = SensorList.rows(a.sensors, sort: sort, reversed: sortReversed, filter: filter, showAll: showAll,
                                        cited: a.cited, decider: a.decidedBy)
        hiddenCount = showAll ? 0 : a.sensors.filter { SensorList.isHidden($0) && $0.sensor.id != a.cited }.count
        var folded: [String: Int] = [:]
        for s in a.sensors {
            if let head = s.sensor.memberOf, s.sensor.id != a.cited { folded[head, default: 0] += 1 }
        }
        foldedCounts = folded
    }

    public var selectedIndex: Int? {
        guard let id = selectedID else { return nil }
        return sortedSensors.firstIndex { $0.sensor.id == id }
    }

    public var selectedSensor: SensorAssessment? {
        guard let id = selectedID else { return nil }
        return status.assessment.sensors.first { $0.sensor.id == id }
    }

    /// The sensor the history graph shows and why: the one the person selected, else the one
    /// that decides the state, else the selected row.
    public var graphedSensor: (sensor: SensorAssessment, why: String?)? {
        if selectionChosen, let a = selectedSensor { return (a, "selected") }
        if let id = status.assessment.decidedBy, let a = status.assessment.sensors.first(where: { $0.sensor.id == id }) {
            return (a, "deciding")
        }
        return (selectedSensor ?? sortedSensors.first).map { ($0, nil) }
    }

    /// Index of the first visible row for a list `capacity` rows tall: the stored top, moved
    /// just enough to keep the selection in view, never past the end. `rows` are
    /// `sortedSensors` when the caller already has them (a frame sorts once).
    public func topIndex(capacity: Int, rows given: [SensorAssessment]? = nil) -> Int {
        let rows = given ?? sortedSensors
        guard capacity > 0, rows.count > capacity else { return 0 }
        var top = topID.flatMap { id in rows.firstIndex { $0.sensor.id == id } } ?? 0
        if let id = selectedID, let sel = rows.firstIndex(where: { $0.sensor.id == id }) {
            if sel < top { top = sel }
            if sel >= top + capacity { top = sel - capacity + 1 }
        }
        return min(max(top, 0), rows.count - capacity)
    }

    /// The heat-source groups in the panel's order (`heatSort`), biggest first; empty when
    /// none were measured.
    public var heatRows: [ThermalHeatSource] { HeatPanelRows.sorted(status.heatSources?.sources ?? [], by: heatSort) }

    /// The selected group's index in `heatRows` (the first when none or gone).
    public var selectedHeatIndex: Int {
        guard let id = selectedHeat else { return 0 }
        return heatRows.firstIndex { $0.command == id } ?? 0
    }
}

/// The order and the GPU column of the "Heating it" panel: one place for both.
enum HeatPanelRows {
    /// A group's GPU use: its SM share summed over the GPUs it runs on (percent of one GPU, as
    /// CPU is percent of one core); nil where not known (not on a GPU, or NVML gave no share):
    /// shown as `–`, sorted last, never as 0.
    static func gpuPercent(_ s: ThermalHeatSource) -> Double? {
        let known = s.gpus.compactMap(\.smPercent)
        return known.isEmpty ? nil : known.reduce(0, +)
    }

    /// Biggest first by the key; unknowns last; ties by CPU, then name.
    static func sorted(_ sources: [ThermalHeatSource], by sort: HeatSort) -> [ThermalHeatSource] {
        func key(_ s: ThermalHeatSource) -> Double? {
            switch sort {
            case .cpu: s.cpuPercent
            case .watts: s.estimatedWatts
            case .gpu: gpuPercent(s)
            }
        }
        return sources.sorted { a, b in
            switch (key(a), key(b)) {
            case let (x?, y?) where x != y: return x > y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.cpuPercent != b.cpuPercent ? a.cpuPercent > b.cpuPercent : a.command < b.command
            }
        }
    }
}
