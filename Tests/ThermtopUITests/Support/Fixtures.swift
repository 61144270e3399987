import Testing
import ThermtopCore
@testable import ThermtopUI

/// Realistic dashboard states for the UI tests, built the way the run loop builds them: a
/// series of snapshots goes through `Classifier.assess` (carrying its memory, so hysteresis and
/// throttle history are real), the forecast (`Forecaster` over the series' history) and
/// `LowPowerAssessment.assess`, each result is applied to the
/// `AppState` (so sparklines have history), and keys go through `KeyMap` and `Reducer` with
/// their effects performed the way the run loop performs them.
///
/// Every field that varies between runs or machines (host name, clock, countdown, runtime
/// figures, animation tick) is set to a fixed value, so golden snapshots are stable.
enum Fixtures {
    static let hostname = "testbox"
    static let clock = "12:34:56"

    // MARK: - A hand-built Intel laptop (as read from /sys)

    /// One sample of an Intel laptop: package, skin, ACPI and Wi-Fi zones (the Wi-Fi one fails
    /// with EIO), a coretemp channel mirroring the package zone, an NVMe drive, two cooling
    /// devices, throttle counters, one battery and an adapter.
    static func intelLaptop(time: Double, package: Double, skin: Double, nvme: Double = 39.5,
                            batteryPercent: Double = 81, discharging: Bool = true,
                            profile: String = "balanced", packageType: String = "x86_pkg_temp") -> ThermalSnapshot {
        let energyFull = 56.0
        let battery = ThermalBattery(
            id: "BAT0", present: true, status: discharging ? .discharging : .charging,
            capacity: batteryPercent, capacityLevel: "Normal",
            energyNow: energyFull * batteryPercent / 100, energyFull: energyFull, energyFullDesign: 57.0,
            powerNow: 9.35, voltageNow: 12.1, cycleCount: 143, model: "5B10W13975", manufacturer: "SMP",
            technology: "Li-poly", scope: "System",
            issues: [ReadingIssue(file: "class/power_supply/BAT0/voltage_min_design", reason: .missing)])
        return ThermalSnapshot(
            time: time,
            zones: [
                ThermalZone(id: "thermal_zone0", type: "acpitz", celsius: 48.0, mode: "enabled", policy: "step_wise",
                            trips: [
                                TripPoint(index: 0, kind: .critical, celsius: 119, hysteresis: 0),
                                TripPoint(index: 1, kind: nil, celsius: nil,
                                          ignored: ReadingIssue(file: "class/thermal/thermal_zone0/trip_point_1_type",
                                                                reason: .unrecognised, detail: "weird")),
                            ]),
                ThermalZone(id: "thermal_zone1", type: packageType, celsius: package, mode: "enabled",
                            policy: "step_wise",
                            trips: [
                                TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: 2),
                                TripPoint(index: 1, kind: .critical, celsius: 100, hysteresis: 0),
                            ]),
                ThermalZone(id: "thermal_zone2", type: "iwlwifi_1", celsius: nil, mode: "enabled",
                            policy: "step_wise",
                            issues: [ReadingIssue(file: "class/thermal/thermal_zone2/temp", reason: .ioError, detail: "EIO")]),
                ThermalZone(id: "thermal_zone3", type: "TSKN", celsius: skin, mode: "enabled", policy: "user_space",
                            trips: [
                                TripPoint(index: 0, kind: .passive, celsius: 55, hysteresis: 3),
                                TripPoint(index: 1, kind: .hot, celsius: 65, hysteresis: 2),
                                TripPoint(index: 2, kind: .critical, celsius: 70, hysteresis: 0),
                            ]),
            ],
            coolingDevices: [
                CoolingDevice(id: "cooling_device0", type: "Processor", currentState: 0, maxState: 10),
                CoolingDevice(id: "cooling_device1", type: "Fan", currentState: 1, maxState: 5),
            ],
            hwmon: [
                HwmonChannel(device: "hwmon3", chip: "coretemp", channel: "temp1", label: "Package id 0",
                             celsius: package, max: 90, crit: 100, mirrorsZone: "thermal_zone1"),
                HwmonChannel(device: "hwmon2", chip: "nvme", channel: "temp1", label: "Composite",
                             celsius: nvme, max: 81.85, crit: 84.85, min: -273.15),
            ],
            batteries: [battery],
            adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: !discharging)],
            lowPower: LowPowerSignals(platformProfile: profile, platformProfileChoices: ["low-power", "balanced", "performance"]),
            throttle: ThrottleCounters(core: 12, package: 3, cpus: 8)
        )
    }

    /// `count` samples, one a second, with the package and skin moving linearly.
    static func intelSeries(count: Int = 24, package: (Double, Double), skin: (Double, Double),
                            batteryPercent: Double = 81, packageType: String = "x86_pkg_temp") -> [ThermalSnapshot] {
        (0..<count).map { i in
            let f = count > 1 ? Double(i) / Double(count - 1) : 1
            func lerp(_ r: (Double, Double)) -> Double { ((r.0 + (r.1 - r.0) * f) * 10).rounded() / 10 }
            return intelLaptop(time: Double(i), package: lerp(package), skin: lerp(skin),
                               batteryPercent: batteryPercent, packageType: packageType)
        }
    }

    // MARK: - From snapshots to an AppState

    /// Runs the snapshots through the classifier and the low-power rule like the monitor does,
    /// applying each result to the app state.
    static func appState(_ series: [ThermalSnapshot], sourceLabel: String, simulated: Bool,
                         overrides: ThermalOverrides = .none) -> AppState {
        precondition(!series.isEmpty)
        let config = ThermalConfig()
        var memory = ClassifierMemory()
        var history = ForecastHistory()
        var state: AppState?
        for snap in series {
            let assessment = ThermalClassifier.assess(snap, config: config, memory: &memory)
            history.record(assessment, at: snap.time, config: config.forecast)
            let status = MonitorStatus(
                snapshot: snap, assessment: assessment,
                lowPowerAssessment: LowPowerAssessment.assess(snap, config: config),
                overrides: overrides, sourceLabel: sourceLabel, sourceIsSimulated: simulated,
                forecast: Forecaster.forecast(assessment, history: history, config: config))
            if state == nil {
                state = AppState(status: status)
                state!.hostname = hostname
                state!.sampleDelay = 1
                state!.stats.colorCount = 256
                _ = Reducer.reduce(&state!, .resized(width: 120, height: 40))
            }
            _ = Reducer.reduce(&state!, .statusArrived(status, FeedInfo(samples: 0, refreshDueAt: snap.time + 17)))
        }
        var s = state!
        let last = series.last!.time
        _ = Reducer.reduce(&s, .statusArrived(s.status, FeedInfo(samples: series.count, sampleMilliseconds: 0.42,
                                                                   refreshDueAt: last + 17, simulatedLoad: nil)))
        _ = Reducer.reduce(&s, .tick(now: last, wallSeconds: wallSeconds))
        _ = Reducer.reduce(&s, .rendered(cells: 37, milliseconds: 1.5))
        // The pulse frame is a function of the tick; pin it so golden screens are stable.
        s.tick = 3
        return s
    }

    /// 12:34:56, the clock every fixture shows.
    static let wallSeconds = 12 * 3600 + 34 * 60 + 56

    /// The simulated laptop, sampled once a second for 30 s; its load goes from 25 % to 50 % after
    /// 10 s, so the sparklines climb. Measured state: nominal.
    static func simulatedState() -> AppState {
        let laptop = SimulatedLaptop(load: 0.25, adapterOnline: false, batteryPercent: 72)
        var series: [ThermalSnapshot] = []
        for t in 0..<30 {
            if t == 10 { laptop.setLoad(0.5) }
            series.append(laptop.sample(at: Double(t)))
        }
        var state = appState(series, sourceLabel: laptop.label, simulated: true)
        _ = Reducer.reduce(&state, .statusArrived(state.status, FeedInfo(samples: series.count, sampleMilliseconds: 0.42,
                                                                          refreshDueAt: state.refreshDueAt,
                                                                          simulatedLoad: laptop.load)))
        return state
    }

    // MARK: - Scenarios: one per tier (and the ways to reach it)

    enum Scenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The Intel laptop, live, everything nominal, low power off → tier full.
        case full
        /// The Intel laptop, live, package past its fair threshold → fair → tier reduced.
        case reduced
        /// The simulated laptop, nominal, low power forced on with `l` → tier reduced.
        case reducedLowPower = "reduced-lowpower"
        /// The simulated laptop with `3` pressed: serious (simulated) → tier minimal.
        case minimal
        /// The Intel laptop, live, fair and a 15 % discharging battery (battery saver) → minimal.
        case minimalLowPower = "minimal-lowpower"

        var testDescription: String { rawValue }

        var expectedTier: QualityTier {
            switch self {
            case .full: .full
            case .reduced, .reducedLowPower: .reduced
            case .minimal, .minimalLowPower: .minimal
            }
        }

        var expectedBadge: String {
            switch self {
            case .full, .reducedLowPower: " NOMINAL "
            case .reduced, .minimalLowPower: " FAIR "
            case .minimal: " SERIOUS (SIMULATED) "
            }
        }

        /// Whether anything on screen is simulated (the banner must show).
        var simulated: Bool { self == .reducedLowPower || self == .minimal }

        var batteryPercent: String {
            switch self {
            case .full, .reduced: "81 %"
            case .minimalLowPower: "15 %"
            case .reducedLowPower, .minimal: "71 %"
            }
        }

        var state: AppState {
            switch self {
            case .full:
                return Fixtures.appState(Fixtures.intelSeries(package: (62, 71), skin: (40, 42)),
                                         sourceLabel: "/sys", simulated: false)
            case .reduced:
                return Fixtures.appState(Fixtures.intelSeries(package: (70, 83), skin: (41, 44)),
                                         sourceLabel: "/sys", simulated: false)
            case .minimalLowPower:
                return Fixtures.appState(Fixtures.intelSeries(package: (70, 83), skin: (41, 44), batteryPercent: 15),
                                         sourceLabel: "/sys", simulated: false)
            case .reducedLowPower:
                var s = Fixtures.simulatedState()
                s.press(.char("l"))
                return s
            case .minimal:
                var s = Fixtures.simulatedState()
                s.press(.char("3"))
                return s
            }
        }
    }
}

/// A terminal size to render at.
struct Size: Sendable, Hashable, CustomTestStringConvertible {
    let width: Int
    let height: Int
    init(_ width: Int, _ height: Int) {
        self.width = width
        self.height = height
    }
    var testDescription: String { "\(width)x\(height)" }

    static let huge = Size(200, 60)
    static let large = Size(120, 40)
    static let medium = Size(100, 30)
    static let standard = Size(80, 24)
    static let compact = Size(40, 10)
    static let tiny = Size(20, 5)
    /// The golden sizes: every layout the issue names, and one too small.
    static let all = [huge, large, medium, standard, compact, tiny]
}

extension AppState {
    /// What the run loop does for a key: look it up in the key map, reduce, and feed the
    /// effects' results back as the monitor would: overrides come back as a new status with
    /// them applied, load as a status carrying the new load.
    @discardableResult
    mutating func press(_ key: Key) -> [Effect] {
        guard let action = KeyMap.action(for: key, in: self) else { return [] }
        let effects = Reducer.reduce(&self, action)
        for effect in effects {
            var info = FeedInfo(samples: stats.samples, sampleMilliseconds: stats.sampleMilliseconds,
                                refreshDueAt: refreshDueAt, simulatedLoad: simulatedLoad)
            var next = status
            switch effect {
            case .setOverrides(let o): next.overrides = o
            case .adjustLoad(let d): info.simulatedLoad = simulatedLoad.map { Swift.min(Swift.max($0 + d, 0), 1) }
            case .refresh, .useSimulatedLaptop, .setPaused, .suspend, .replayAdvance: continue
            }
            _ = Reducer.reduce(&self, .statusArrived(next, info))
        }
        return effects
    }

    /// Selects the row at `index` of the sorted list the way keys do (Home, then ↓).
    mutating func selectRow(_ index: Int) {
        _ = Reducer.reduce(&self, .selectFirst)
        for _ in 0..<index { _ = Reducer.reduce(&self, .selectNext) }
    }

    func render(_ size: Size) -> CellBuffer {
        Screen.render(self, width: size.width, height: size.height)
    }
}

extension CellBuffer {
    /// Every row as text, exactly `width` characters.
    var rows: [String] { (0..<height).map { row($0) } }

    /// Every cell, row by row.
    var allCells: [Cell] { cells }

    /// The index of the first row containing `needle`, if any.
    func firstRow(containing needle: String) -> Int? {
        rows.firstIndex { $0.contains(needle) }
    }
}

extension Fixtures {
    /// A server-ish machine with `count` hwmon channels at spread temperatures (more than any
    /// screen shows), some of them hot, a long-named one and an outdoor one below zero.
    static func manySensorsState(count: Int) -> AppState {
        var channels: [HwmonChannel] = []
        for i in 0..<count {
            let label = i == 7 ? "a very long channel label that cannot possibly fit in the name column"
                : i == 3 ? "Außen" : "Core \(i)"
            let celsius = i == 3 ? -4.5 : 40 + Double((i * 37) % 45)
            channels.append(HwmonChannel(device: "hwmon1", chip: "coretemp", channel: "temp\(i + 2)", label: label,
                                         celsius: celsius, max: 86, crit: 100))
        }
        let snap = ThermalSnapshot(time: 0, hwmon: channels,
                            batteries: [], adapters: [ThermalPowerAdapter(id: "AC", type: "Mains", online: true)])
        return appState([snap], sourceLabel: "/sys", simulated: false)
    }
}
