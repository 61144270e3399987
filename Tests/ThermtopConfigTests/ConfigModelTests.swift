import Testing
import ThermtopCore

@Suite struct GlobTests {
    @Test(arguments: [
        ("pci-*/nvme/*", "pci-0000:01:00.0/nvme/Composite", true),
        ("pci-*/nvme/*", "pci-0000:01:00.0/k10temp/Tctl", false),
        ("hwmon*/temp1", "hwmon12/temp1", true),
        ("hwmon*/temp1", "hwmon12/temp10", false),
        ("*", "platform-coretemp.0/coretemp/Package id 0", true),
        ("platform-coretemp.0/coretemp/Package id 0", "platform-coretemp.0/coretemp/Package id 0", true),
        ("platform-coretemp.0/coretemp/Package id 0", "platform-coretemp.0/coretemp/Package id 01", false),
        ("thermal_zone?", "thermal_zone7", true),
        ("thermal_zone?", "thermal_zone17", false),
        ("thermal_zone[0-4]", "thermal_zone3", true),
        ("thermal_zone[0-4]", "thermal_zone5", false),
        ("thermal_zone[!0-4]", "thermal_zone5", true),
        ("a\\*b", "a*b", true),
        ("a\\*b", "axb", false),
        ("*Core*", "coretemp Core 1", true),
        ("", "", true),
        ("", "x", false),
    ])
    func matchesLikeAShell(pattern: String, id: String, expected: Bool) {
        #expect(SensorGlob(pattern).matches(id) == expected)
    }

    @Test(.timeLimit(.minutes(1))) func hostilePatternsFinishQuickly() {
        let pattern = String(repeating: "*a", count: 40) + "b"
        let text = String(repeating: "a", count: 200)
        var matched = true
        // A backtracking matcher takes exponential time here; a linear one well under a second.
        let elapsed = ContinuousClock().measure { matched = SensorGlob(pattern).matches(text) }
        #expect(!matched)
        #expect(elapsed < .seconds(1), "took \(elapsed)")
    }

    @Test func malformedPatternsAreReported() {
        #expect(SensorGlob("[abc").problem != nil)
        #expect(SensorGlob("abc\\").problem != nil)
        #expect(SensorGlob("[]]").problem == nil)
        #expect(SensorGlob("pci-*/nvme/*").problem == nil)
        #expect(SensorGlob("hwmon1/temp1").isLiteral)
        #expect(!SensorGlob("hwmon*/temp1").isLiteral)
    }
}

@Suite struct CommandLineWordsTests {
    @Test(arguments: [
        ("notify-send thermtop hot", ["notify-send", "thermtop", "hot"]),
        ("notify-send 'thermal state' \"is $THERMTOP_STATE\"", ["notify-send", "thermal state", "is $THERMTOP_STATE"]),
        ("a\\ b c", ["a b", "c"]),
        ("  spaced   out  ", ["spaced", "out"]),
        ("x \"\\\"q\\\"\"", ["x", "\"q\""]),
        ("'' b", ["", "b"]),
        ("echo $(rm -rf /); `id`", ["echo", "$(rm", "-rf", "/);", "`id`"]),
    ])
    func splitsWordsWithoutAShell(line: String, words: [String]) {
        #expect(CommandLineWords.split(line) == words)
        #expect(CommandLineWords.problem(line) == nil)
    }

    @Test func unbalancedQuotesAreProblems() {
        #expect(CommandLineWords.problem("echo 'open") != nil)
        #expect(CommandLineWords.problem("echo \"open") != nil)
        #expect(CommandLineWords.problem("echo \\") != nil)
        #expect(CommandLineWords.split("echo 'open").isEmpty)
    }
}

@Suite struct OnChangeScheduleTests {
    let nominal = ChangeKey(state: .nominal, lowPower: false, tier: .full)
    let fair = ChangeKey(state: .fair, lowPower: false, tier: .reduced)
    let serious = ChangeKey(state: .serious, lowPower: false, tier: .minimal)

    @Test func theFirstChangeRunsAtOnceWithThePreviousState() {
        var s = OnChangeSchedule(minInterval: 10, initial: nominal)
        #expect(s.observe(nominal, reason: "r", at: 0) == nil, "no change, no run")
        let r = s.observe(serious, reason: "hot", at: 1)
        #expect(r == ChangeReport(state: .serious, tier: .minimal, lowPower: false, reason: "hot", previousState: .nominal))
    }

    @Test func changesInsideTheIntervalWaitAndOnlyTheLastRuns() {
        var s = OnChangeSchedule(minInterval: 10, initial: nominal)
        #expect(s.observe(fair, reason: "a", at: 0) != nil)
        #expect(s.observe(serious, reason: "b", at: 2) == nil)
        #expect(s.observe(ChangeKey(state: .critical, lowPower: false, tier: .minimal), reason: "c", at: 3) == nil)
        #expect(s.nextDue == 10)
        #expect(s.due(at: 9.9) == nil)
        let r = s.due(at: 10)
        #expect(r?.state == .critical)
        #expect(r?.reason == "c")
        #expect(r?.previousState == .fair, "told relative to what the command last heard")
        #expect(s.nextDue == nil)
        #expect(s.due(at: 30) == nil, "runs once")
    }

    @Test func aChangeUndoneBeforeItRunsRunsNothing() {
        var s = OnChangeSchedule(minInterval: 10, initial: nominal)
        _ = s.observe(fair, reason: "a", at: 0)
        #expect(s.observe(serious, reason: "b", at: 1) == nil)
        #expect(s.observe(fair, reason: "c", at: 2) == nil)
        #expect(s.due(at: 10) == nil)
    }

    @Test func lowPowerAloneIsAChange() {
        var s = OnChangeSchedule(minInterval: 0, initial: nominal)
        let r = s.observe(ChangeKey(state: .nominal, lowPower: true, tier: .reduced), reason: "ppd", at: 0)
        #expect(r?.lowPower == true)
        #expect(r?.environment.first { $0.0 == "THERMTOP_LOW_POWER" }?.1 == "on")
    }

    @Test func aZeroIntervalRunsEveryChange() {
        var s = OnChangeSchedule(minInterval: 0, initial: nominal)
        #expect(s.observe(fair, reason: "", at: 0) != nil)
        #expect(s.observe(serious, reason: "", at: 0) != nil)
    }

    @Test func theEnvironmentCarriesEveryDocumentedName() {
        let r = ChangeReport(state: .serious, tier: .minimal, lowPower: false, reason: "x \"$(y)\"", previousState: .fair)
        let env = Dictionary(uniqueKeysWithValues: r.environment)
        #expect(env == ["THERMTOP_STATE": "serious", "THERMTOP_TIER": "minimal", "THERMTOP_LOW_POWER": "off",
                        "THERMTOP_REASON": "x \"$(y)\"", "THERMTOP_PREVIOUS_STATE": "fair",
                        "THERMTOP_SIMULATED": "0"])
    }
}

@Suite struct RulesAndUnitsTests {
    func sensor(_ id: String, _ c: Double, name: String = "s") -> ThermalSensor {
        ThermalSensor(id: id, name: name, kind: .hwmon, celsius: c)
    }

    @Test func laterRulesWinFieldByField() {
        let cfg = UserConfig(sensors: [
            SensorRule(match: "hwmon*", hide: true, serious: 80, hysteresis: 4),
            SensorRule(match: "hwmon1/temp1", hide: false, name: "CPU", serious: 70),
        ]).applied()
        let o = cfg.override(for: sensor("hwmon1/temp1", 50))
        #expect(o?.serious == 70)
        #expect(o?.hysteresis == 4)
        #expect(o?.hidden == false)
        #expect(o?.name == "CPU")
        #expect(cfg.override(for: sensor("hwmon2/temp1", 50))?.hidden == true)
        #expect(cfg.override(for: sensor("thermal_zone0", 50)) == nil)
    }

    @Test func configuredThresholdsDecideTheLevelAndTheNameReachesTheReason() {
        let cfg = UserConfig(sensors: [SensorRule(match: "hwmon1/*", name: "CPU", fair: 40, serious: 60, critical: 70, hysteresis: 3)]).applied()
        let a = ThermalClassifier.assess(sensor: sensor("hwmon1/temp1", 61, name: "coretemp Package id 0"), config: cfg, previous: .nominal)
        #expect(a.level == .serious)
        #expect(a.thresholds.fair.celsius == 40)
        #expect(a.thresholds.critical.celsius == 70)
        #expect(a.thresholds.serious.hysteresis == 3)
        #expect(a.sensor.name == "CPU")
        #expect(a.reason.hasPrefix("serious: CPU 61.0 °C"))
        let held = ThermalClassifier.assess(sensor: sensor("hwmon1/temp1", 57.5), config: cfg, previous: .serious)
        #expect(held.level == .serious && held.heldByHysteresis, "clears only below 60 − 3")
    }

    @Test func ignoreLeavesASensorOutOfTheDecisionAndALaterRuleCanUndoIt() {
        let cfg = UserConfig(sensors: [SensorRule(match: "*", ignore: true), SensorRule(match: "keep", ignore: false)]).applied()
        #expect(ThermalClassifier.assess(sensor: sensor("x", 120), config: cfg, previous: .nominal).ignored)
        #expect(!ThermalClassifier.assess(sensor: sensor("keep", 120), config: cfg, previous: .nominal).ignored)
    }

    @Test func fahrenheitIsOnlyADisplayConversion() {
        #expect(TemperatureUnit.fahrenheit.format(100) == "212.0 °F")
        #expect(TemperatureUnit.fahrenheit.format(-40) == "−40.0 °F")
        #expect(TemperatureUnit.celsius.format(91) == "91.0 °C")
        #expect(TemperatureUnit.fahrenheit.delta(2) == 3.6)
        #expect(TemperatureUnit.celsius.toggled == .fahrenheit)
    }

    @Test func theSummaryListsEverySetOption() {
        let c = UserConfig(delay: 2, units: .fahrenheit, color: false, ascii: true, onChange: "x", onChangeMinInterval: 5,
                           onChangeTimeout: 12, sensors: [SensorRule(match: "a*", name: "A", pin: true)])
        #expect(c.summary == ["delay = 2 s", "units = fahrenheit", "color = false", "ascii = true", "on_change = x",
                              "on_change_min_interval = 5 s", "on_change_timeout = 12 s", "sensor #1: match a*, name A, pin true"])
        #expect(UserConfig().summary.isEmpty)
    }
}

@Suite struct MetricsWriterTests {
    @Test("label values: control characters become ? by the screen's rule; backslash and quote are escaped")
    func labelValuesAreCleanedThenEscaped() {
        #expect(MetricsWriter.escapeLabel("a\"b\\c\nd") == "a\\\"b\\\\c?d")
        #expect(MetricsWriter.escapeLabel("x\u{1B}[2J\r\u{08}\u{07}y") == Format.clean("x\u{1B}[2J\r\u{08}\u{07}y"))
        #expect(MetricsWriter.escapeLabel("x\u{1B}[2J\r\u{08}\u{07}y") == "x?[2J???y")
        #expect(MetricsWriter.escapeHelp("x\\y\nz \"q\"") == "x\\\\y\\nz \"q\"")
    }

    @Test func numbersAreWrittenAsPrometheusParsesThem() {
        #expect(MetricsWriter.number(53) == "53")
        #expect(MetricsWriter.number(38.9) == "38.9")
        #expect(MetricsWriter.number(.nan) == "NaN")
        #expect(MetricsWriter.number(-.infinity) == "-Inf")
    }

    @Test func eachFamilyHasHelpAndTypeBeforeItsSamples() {
        var w = MetricsWriter()
        w.family("m_celsius", .gauge, help: "h")
        w.sample("m_celsius", [("id", "x")], 1.5)
        #expect(w.text == "# HELP m_celsius h\n# TYPE m_celsius gauge\nm_celsius{id=\"x\"} 1.5\n")
    }
}

@Suite("Formatters are total: huge, infinite and NaN values print, never trap")
struct FormatTotalityTests {
    @Test("fixed: huge values in Swift's shortest form, non-numbers as nan/inf")
    func fixedIsTotal() {
        #expect(Format.fixed(0.4199, places: 2) == "0.42")
        #expect(Format.fixed(-1.25, places: 1) == "-1.3" || Format.fixed(-1.25, places: 1) == "-1.2")
        #expect(Format.fixed(1e19, places: 1) == "1e+19")
        #expect(Format.fixed(-1e300, places: 0) == "-1e+300")
        #expect(Format.fixed(.infinity, places: 1) == "inf")
        #expect(Format.fixed(-.infinity, places: 1) == "-inf")
        #expect(Format.fixed(.nan, places: 3) == "nan")
        #expect(Format.fixed(Double.greatestFiniteMagnitude, places: 3) == "\(Double.greatestFiniteMagnitude)")
    }

    @Test("duration, percent and watts: no integer conversion of a value out of range")
    func theOthersAreTotal() {
        #expect(Format.duration(5025) == "1 h 23 min")
        #expect(Format.duration(.infinity) == "unknown")
        #expect(Format.duration(.nan) == "unknown")
        #expect(Format.duration(1e19).hasSuffix(" h"))
        #expect(Format.percent(72) == "72 %")
        #expect(Format.percent(.nan) == "? %")
        #expect(Format.percent(1e300) == "1e+300 %")
        #expect(Format.watts(.infinity) == "? W")
    }
}
