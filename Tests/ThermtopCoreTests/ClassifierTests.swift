import Testing
import ThermtopCore

@Suite("Classifier: hysteresis, cooling devices, throttle counters, device state")
struct ClassifierTests {
    // MARK: hysteresis

    struct Step: Sendable, CustomStringConvertible {
        let celsius: Double
        let level: ThermalState
        let held: Bool
        init(_ celsius: Double, _ level: ThermalState, held: Bool = false) {
            self.celsius = celsius
            self.level = level
            self.held = held
        }
        var description: String { "\(celsius) → \(level)\(held ? " (held)" : "")" }
    }

    /// x86_pkg_temp: passive 90 (hyst 2) → fair 80, serious 90, critical 100 (serious + 10), all
    /// other hystereses the 2 °C default.
    static let walk: [Step] = [
        Step(79.9, .nominal),
        Step(80.0, .fair),               // rises at the fair threshold
        Step(89.9, .fair),
        Step(90.0, .serious),            // rises at the passive trip
        Step(89.0, .serious, held: true),
        Step(88.0, .serious, held: true),// still serious at threshold − hysteresis
        Step(87.9, .fair),               // drops once below 88
        Step(90.0, .serious),
        Step(100.0, .critical),
        Step(98.5, .critical, held: true),
        Step(98.0, .critical, held: true),
        Step(97.9, .serious),
        Step(85.0, .fair),               // below the serious clearing point, still above fair
        Step(78.0, .fair, held: true),
        Step(77.9, .nominal),
        Step(85.0, .fair),
        Step(60.0, .nominal),            // a fall straight past every clearing point
    ]

    @Test("hysteresis both ways: a level starts at its threshold and clears only below threshold − hysteresis")
    func hysteresisWalk() {
        var memory = ClassifierMemory()
        for (i, step) in Self.walk.enumerated() {
            let snap = ThermalSnapshot(time: Double(i), zones: [packageZone(step.celsius)])
            let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
            let s = a.sensors.first { $0.sensor.id == "thermal_zone1" }
            #expect(s?.level == step.level, "step \(i): \(step)")
            #expect(s?.heldByHysteresis == step.held, "step \(i): \(step)")
            #expect(a.state == step.level, "step \(i): \(step)")
        }
    }

    @Test("the same reading gives a different level depending on where the sensor came from")
    func hysteresisNeedsHistory() {
        let th = SensorThresholds.derive(for: ThermalSensor(zone: packageZone(89)), config: ThermalConfig())
        #expect(ThermalClassifier.level(celsius: 89, thresholds: th, previous: .nominal).level == .fair)
        #expect(ThermalClassifier.level(celsius: 89, thresholds: th, previous: .serious).level == .serious)
        #expect(ThermalClassifier.level(celsius: 89, thresholds: th, previous: .serious).held)
    }

    @Test("without a trip hysteresis a level clears 2 °C below its threshold; with one, at the trip's")
    func tripHysteresisInUse() {
        for (hyst, expected) in [(0.0, ThermalState.fair), (5.0, ThermalState.serious)] {
            var memory = ClassifierMemory()
            _ = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [packageZone(91, passiveHyst: hyst)]), config: ThermalConfig(), memory: &memory)
            let a = ThermalClassifier.assess(ThermalSnapshot(time: 1, zones: [packageZone(86, passiveHyst: hyst)]), config: ThermalConfig(), memory: &memory)
            #expect(a.state == expected, "hyst \(hyst)")
        }
    }

    @Test("a sensor without a reading is unknown, counted as nominal, with its reason")
    func unknownSensor() {
        let z = ThermalZone(id: "thermal_zone4", type: "iwlwifi_1", celsius: nil,
                            issues: [ReadingIssue(file: "class/thermal/thermal_zone4/temp", reason: .ioError, detail: "EIO")])
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [z]), config: ThermalConfig(), memory: &memory)
        #expect(a.state == .nominal)
        #expect(a.sensors.first?.sensor.issue?.reason == .ioError)
        #expect(a.sensors.first?.reason.contains("io-error") == true)
    }

    @Test("a sensor ignored by configuration never raises the state")
    func ignoredSensor() {
        var config = ThermalConfig()
        config.overrides["x86_pkg_temp"] = SensorOverride(ignore: true)
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [packageZone(120)]), config: config, memory: &memory)
        #expect(a.state == .nominal)
        #expect(a.sensors.first?.ignored == true)
        #expect(a.sensors.first?.level == .nominal)
    }

    // MARK: cooling devices

    struct CoolingCase: Sendable, CustomTestStringConvertible {
        let type: String
        let cur: Int?
        let max: Int?
        let level: ThermalState
        var ignored = false
        var testDescription: String {
            "\(type) \(cur.map(String.init) ?? "?")/\(max.map(String.init) ?? "?") → \(ignored ? "ignored" : level.name)"
        }
    }

    static let coolingCases: [CoolingCase] = [
        // processor: fair 0.1, serious 0.5, critical 0.8
        CoolingCase(type: "Processor", cur: 0, max: 10, level: .nominal),
        CoolingCase(type: "Processor", cur: 1, max: 10, level: .fair),
        CoolingCase(type: "Processor", cur: 4, max: 10, level: .fair),
        CoolingCase(type: "Processor", cur: 5, max: 10, level: .serious),
        CoolingCase(type: "Processor", cur: 7, max: 10, level: .serious),
        CoolingCase(type: "Processor", cur: 8, max: 10, level: .critical),
        CoolingCase(type: "Processor", cur: 10, max: 10, level: .critical),
        CoolingCase(type: "thermal-cpufreq-0", cur: 1, max: 3, level: .fair),      // ceil(0.3) = 1
        CoolingCase(type: "thermal-cpufreq-0", cur: 2, max: 3, level: .serious),   // ceil(1.5) = 2
        CoolingCase(type: "thermal-cpufreq-0", cur: 3, max: 3, level: .critical),  // ceil(2.4) = 3
        CoolingCase(type: "thermal-cpufreq-0", cur: 0, max: 4, level: .nominal),
        CoolingCase(type: "intel_powerclamp", cur: 50, max: 100, level: .serious),
        CoolingCase(type: "intel_powerclamp", cur: 9, max: 100, level: .nominal),
        // fan: fair 0.5, serious 1.0, never critical
        CoolingCase(type: "pwm-fan", cur: 1, max: 3, level: .nominal),
        CoolingCase(type: "pwm-fan", cur: 2, max: 3, level: .fair),                // ceil(1.5) = 2
        CoolingCase(type: "pwm-fan", cur: 3, max: 3, level: .serious),
        CoolingCase(type: "Fan", cur: 3, max: 4, level: .fair),
        CoolingCase(type: "TFN1", cur: 4, max: 4, level: .serious),
        // charger: fair 0.7, serious 1.0, never critical
        CoolingCase(type: "TCHG", cur: 6, max: 10, level: .nominal),
        CoolingCase(type: "TCHG", cur: 7, max: 10, level: .fair),
        CoolingCase(type: "TCHG", cur: 9, max: 10, level: .fair),
        CoolingCase(type: "TCHG", cur: 10, max: 10, level: .serious),
        // other: fair 0.5, serious 0.8, critical 1.0
        CoolingCase(type: "Power Limit", cur: 4, max: 10, level: .nominal),
        CoolingCase(type: "Power Limit", cur: 5, max: 10, level: .fair),
        CoolingCase(type: "Power Limit", cur: 8, max: 10, level: .serious),
        CoolingCase(type: "Power Limit", cur: 9, max: 10, level: .serious),
        CoolingCase(type: "Power Limit", cur: 10, max: 10, level: .critical),
        // no level without a usable max or cur
        CoolingCase(type: "Processor", cur: 0, max: 0, level: .nominal),
        CoolingCase(type: "Processor", cur: 3, max: 0, level: .nominal),
        CoolingCase(type: "Processor", cur: nil, max: 10, level: .nominal),
        CoolingCase(type: "Processor", cur: 5, max: nil, level: .nominal),
        // not a response to heat
        CoolingCase(type: "LCD", cur: 10, max: 10, level: .nominal, ignored: true),
        CoolingCase(type: "TCC Offset", cur: 63, max: 63, level: .nominal, ignored: true),
    ]

    @Test("cooling devices reach a level at cur ≥ ceil(max × ChromeOS ratio)", arguments: coolingCases)
    func cooling(_ c: CoolingCase) {
        let d = CoolingDevice(id: "cooling_device0", type: c.type, currentState: c.cur, maxState: c.max)
        let a = ThermalClassifier.assess(cooling: d, config: ThermalConfig())
        #expect(a.level == c.level)
        #expect(a.ignored == c.ignored)
        var memory = ClassifierMemory()
        let device = ThermalClassifier.assess(ThermalSnapshot(time: 0, coolingDevices: [d]), config: ThermalConfig(), memory: &memory)
        #expect(device.state == c.level)
    }

    @Test("cooling device types map to the ChromeOS kinds",
          arguments: [("Processor", CoolingKind.processor), ("thermal-cpufreq-0", .processor), ("intel_powerclamp", .processor),
                      ("Fan", .fan), ("pwm-fan", .fan), ("TFN1", .fan), ("TCHG", .charger), ("Power Limit", .other)])
    func coolingKinds(_ type: String, _ kind: CoolingKind) {
        #expect(CoolingKind(type: type) == kind)
    }

    // MARK: throttle counters

    @Test("throttle counters that rose raise the state to serious for 30 s, then no more")
    func throttle() {
        var memory = ClassifierMemory()
        func at(_ t: Double, _ core: Int64, _ package: Int64) -> ThermalAssessment {
            ThermalClassifier.assess(ThermalSnapshot(time: t, throttle: ThrottleCounters(core: core, package: package, cpus: 2)),
                              config: ThermalConfig(), memory: &memory)
        }
        // Counters already non-zero when first seen: no rise observed yet.
        #expect(at(0, 4, 5).state == .nominal)
        #expect(at(5, 4, 5).state == .nominal)
        let rose = at(10, 6, 7)
        #expect(rose.state == .serious)
        #expect(rose.decidedBy == "throttle")
        #expect(rose.throttle?.lastIncrease == 4)
        #expect(at(25, 6, 7).state == .serious)
        #expect(at(40, 6, 7).state == .serious)      // exactly 30 s after the rise
        let later = at(40.5, 6, 7)
        #expect(later.state == .nominal)
        #expect(later.throttle?.level == .nominal)
        #expect(at(41, 6, 8).state == .serious)      // rose again
    }

    @Test("the throttle window comes from the configuration")
    func throttleWindow() {
        var config = ThermalConfig()
        config.throttleWindowSeconds = 5
        var memory = ClassifierMemory()
        _ = ThermalClassifier.assess(ThermalSnapshot(time: 0, throttle: ThrottleCounters(core: 0, package: 0, cpus: 1)), config: config, memory: &memory)
        _ = ThermalClassifier.assess(ThermalSnapshot(time: 1, throttle: ThrottleCounters(core: 1, package: 0, cpus: 1)), config: config, memory: &memory)
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 10, throttle: ThrottleCounters(core: 1, package: 0, cpus: 1)), config: config, memory: &memory)
        #expect(a.state == .nominal)
    }

    // MARK: device state

    @Test("the device state is the maximum over sensors and cooling devices, with the deciding sensor's reason")
    func deviceStateFromSensor() {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, zones: [packageZone(91), zone("thermal_zone0", type: "acpitz", celsius: 84, trips: [(.critical, 103, 0), (.passive, 95, 0)])],
                            coolingDevices: [CoolingDevice(id: "cooling_device0", type: "Processor", currentState: 5, maxState: 10)])
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        #expect(a.state == .serious)
        #expect(a.decidedBy == "thermal_zone1")
        #expect(a.reason.hasPrefix("serious: "))
        #expect(a.reason.contains("x86_pkg_temp 91.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C)"))
    }

    @Test("a cooling device above every sensor decides the state")
    func deviceStateFromCooling() {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, zones: [packageZone(91)],
                            coolingDevices: [CoolingDevice(id: "cooling_device0", type: "Processor", currentState: 8, maxState: 10)])
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        #expect(a.state == .critical)
        #expect(a.decidedBy == "cooling_device0")
        #expect(a.reason.contains("Processor"))
        #expect(a.reason.contains("8/10"))
    }

    @Test("throttling decides the state when every sensor is cool")
    func deviceStateFromThrottle() {
        var memory = ClassifierMemory()
        _ = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [packageZone(50)], throttle: ThrottleCounters(core: 1, package: 1, cpus: 1)),
                              config: ThermalConfig(), memory: &memory)
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 1, zones: [packageZone(50)], throttle: ThrottleCounters(core: 3, package: 1, cpus: 1)),
                                  config: ThermalConfig(), memory: &memory)
        #expect(a.state == .serious)
        #expect(a.decidedBy == "throttle")
        #expect(a.reason.contains("throttle"))
    }

    @Test("among sensors at the same level, the one furthest past its threshold decides")
    func furthestPastDecides() {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, zones: [
            zone("thermal_zone0", type: "acpitz", celsius: 96, trips: [(.passive, 95, 0), (.critical, 120, 0)]),
            zone("thermal_zone3", type: "SEN1", celsius: 70, trips: [(.passive, 65, 2), (.hot, 100, 0)]),
        ])
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        #expect(a.state == .serious)
        #expect(a.decidedBy == "thermal_zone3")
        #expect(a.reason.contains("SEN1 70.0 °C"))
    }

    @Test("nominal names the sensor closest to its limit by the name its row shows; no sensors says so")
    func nominalReasons() {
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(ThermalSnapshot(time: 0, zones: [packageZone(53)]), config: ThermalConfig(), memory: &memory)
        #expect(a.state == .nominal)
        #expect(a.reason.contains("closest: CPU (x86_pkg_temp) 53.0 °C"), "\(a.reason)")
        let empty = ThermalClassifier.assess(ThermalSnapshot(time: 0), config: ThermalConfig(), memory: &memory)
        #expect(empty.state == .nominal)
        #expect(empty.reason.contains("no thermal sensor or cooling device found"))
    }

    @Test("an hwmon copy of a zone is judged once, as the zone")
    func mirrorsJudgedOnce() {
        let snap = ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "cpu-thermal", celsius: 52.582, trips: [(.passive, 75, 2)])],
                            hwmon: [HwmonChannel(device: "hwmon0", chip: "cpu_thermal", channel: "temp1", celsius: 52.582,
                                                 crit: 90, mirrorsZone: "thermal_zone0"),
                                    HwmonChannel(device: "hwmon1", chip: "nvme", channel: "temp1", label: "Composite", celsius: 40)])
        #expect(snap.temperatureSensors.map(\.id) == ["thermal_zone0", "hwmon1/temp1"])
    }
}
