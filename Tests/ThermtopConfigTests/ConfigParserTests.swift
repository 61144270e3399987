import Testing
import ThermtopConfig
import ThermtopCore
import ThermtopLinux

private func problems(_ text: String) -> [ConfigProblem] {
    switch ConfigParser.parse(text, file: "t.toml") {
    case .success(let c): Issue.record("expected an error, parsed \(c)"); return []
    case .failure(let e): return e.problems
    }
}

private func parsed(_ text: String) throws -> UserConfig {
    switch ConfigParser.parse(text, file: "t.toml") {
    case .success(let c): return c
    case .failure(let e): Issue.record("unexpected: \(e)"); throw e
    }
}

@Suite struct ConfigParserTests {
    @Test func theIssueExampleParsesIntoRulesInOrder() throws {
        let c = try parsed("""
            delay = 1.0                 # seconds between samples
            units = "celsius"           # or "fahrenheit"
            color = true
            ascii = false
            [[sensor]]                  # rules apply in order
            match = "pci-*/nvme/*"
            hide = true
            [[sensor]]
            match = "platform-coretemp.0/coretemp/Package id 0"
            name = "CPU"
            fair = 70.0                 # any of fair / serious / critical / hysteresis, in °C
            serious = 85.0
            pin = true
            """)
        #expect(c.delay == 1.0)
        #expect(c.units == .celsius)
        #expect(c.color == true)
        #expect(c.ascii == false)
        #expect(c.sensors.count == 2)
        #expect(c.sensors[0].match.pattern == "pci-*/nvme/*")
        #expect(c.sensors[0].hide == true)
        #expect(c.sensors[0].line == 5)
        #expect(c.sensors[1].name == "CPU")
        #expect(c.sensors[1].fair == 70)
        #expect(c.sensors[1].serious == 85)
        #expect(c.sensors[1].critical == nil)
        #expect(c.sensors[1].pin == true)
        #expect(c.sensors[1].line == 8)
    }

    @Test("proc_root is a folder name and export_heat_sources a whole number from 1 to 10, as their flags")
    func heatSourceKeys() throws {
        let c = try parsed("proc_root = \"/srv/captured-proc\"\nexport_heat_sources = 3\n")
        #expect(c.procRoot == "/srv/captured-proc" && c.exportHeatSources == 3)
        #expect(c.summary.contains("proc_root = /srv/captured-proc") && c.summary.contains("export_heat_sources = 3"))
        for bad in ["proc_root = \"\"", "proc_root = 3", "export_heat_sources = 0", "export_heat_sources = 11",
                    "export_heat_sources = 2.5", "export_heat_sources = \"3\""] {
            let p = problems(bad + "\n")
            #expect(p.count == 1 && p.first?.key == String(bad.prefix { $0 != " " }), "\(bad): \(p)")
        }
        #expect(UserConfig.exportHeatSourcesRange == 1...MetricsReport.maximumHeatSources)
    }

    @Test("on_change_timeout is read in seconds and refused outside 0.1 to 86400")
    func onChangeTimeoutKey() throws {
        #expect(try parsed("on_change_timeout = 5\n").onChangeTimeout == 5)
        #expect(try parsed("on_change_timeout = 0.5\n").onChangeTimeout == 0.5)
        for bad in ["0", "-3", "100000", "\"30\""] {
            let p = problems("on_change_timeout = \(bad)\n")
            #expect(p.count == 1 && p.first?.key == "on_change_timeout", "\(bad): \(p)")
        }
    }

    @Test func integersAreAcceptedWhereNumbersAre() throws {
        let c = try parsed("delay = 2\n[[sensor]]\nmatch = \"x\"\nserious = 80\n")
        #expect(c.delay == 2)
        #expect(c.sensors[0].serious == 80)
    }

    @Test func anEmptyFileIsAnEmptyConfig() throws {
        #expect(try parsed("") == UserConfig())
        #expect(try parsed("# only a comment\n") == UserConfig())
    }

    @Test func theDefaultExampleParses() throws {
        _ = try parsed(ConfigFile.defaultText)
    }

    @Test func badTOMLNamesTheLine() {
        let p = problems("delay = 1.0\nunits = \"celsius\n")
        #expect(p.count == 1)
        #expect(p.first?.kind == .badTOML)
        #expect(p.first?.line == 2)
        #expect(p.first?.description.hasPrefix("t.toml:2: bad TOML") == true)
    }

    @Test func anUnknownKeyNamesFileLineKeyAndSuggests() {
        let p = problems("delay = 1\ndelya = 2\n")
        #expect(p.count == 1)
        #expect(p[0].kind == .unknownKey)
        #expect(p[0].line == 2)
        #expect(p[0].key == "delya")
        #expect(p[0].description.contains("did you mean delay?"))
    }

    @Test func anUnknownKeyInASensorTableIsNamedWithItsIndex() {
        let p = problems("[[sensor]]\nmatch = \"a\"\n\n[[sensor]]\nmatch = \"b\"\nseriuos = 80\n")
        #expect(p.count == 1)
        #expect(p[0].key == "sensor[2].seriuos")
        #expect(p[0].line == 6)
        #expect(p[0].expected?.contains("serious") == true)
    }

    @Test(arguments: [
        ("delay = \"fast\"", "delay", "a number of seconds"),
        ("color = \"yes\"", "color", "true or false"),
        ("ascii = 1", "ascii", "true or false"),
        ("units = 3", "units", "\"celsius\" or \"fahrenheit\""),
        ("sensor = 3", "sensor", "[[sensor]] tables"),
        ("[[sensor]]\nmatch = 5", "sensor[1].match", "a sensor id or a glob"),
        ("[[sensor]]\nmatch = \"a\"\nserious = \"hot\"", "sensor[1].serious", "a number in °C"),
        ("[[sensor]]\nmatch = \"a\"\nhide = \"yes\"", "sensor[1].hide", "true or false"),
    ])
    func aWrongTypeSaysWhatWasExpected(text: String, key: String, expected: String) {
        let p = problems(text)
        #expect(p.count == 1)
        #expect(p.first?.kind == .wrongType)
        #expect(p.first?.key == key)
        #expect(p.first?.expected?.contains(expected) == true, "\(p)")
        #expect((p.first?.line ?? 0) > 0)
    }

    @Test(arguments: [
        ("delay = 0.01", "delay"),
        ("delay = nan", "delay"),
        ("units = \"kelvin\"", "units"),
        ("[[sensor]]\nmatch = \"a\"\nserious = 900", "sensor[1].serious"),
        ("[[sensor]]\nmatch = \"a\"\nhysteresis = -1", "sensor[1].hysteresis"),
        ("[[sensor]]\nmatch = \"[abc\"", "sensor[1].match"),
        ("[[sensor]]\nmatch = \"\"", "sensor[1].match"),
        ("[[sensor]]\nhide = true", "sensor[1]"),
        ("[[sensor]]\nmatch = \"a\"\nname = \"two\\nlines\"", "sensor[1].name"),
        ("on_change = \"notify-send 'unclosed\"", "on_change"),
    ])
    func aBadValueIsRejected(text: String, key: String) {
        let p = problems(text)
        #expect(p.count == 1, "\(p)")
        #expect(p.first?.kind == .badValue)
        #expect(p.first?.key == key)
        #expect(p.first?.expected != nil)
    }

    @Test func thresholdsOutOfOrderAreAnError() {
        let p = problems("[[sensor]]\nmatch = \"a\"\nfair = 80\nserious = 75\ncritical = 90\n")
        #expect(p.count == 1)
        #expect(p[0].kind == .thresholdOrder)
        #expect(p[0].key == "sensor[1].serious")
        #expect(p[0].line == 4)
        #expect(p[0].description.contains("serious 75 °C is not above fair 80 °C"))
        #expect(p[0].expected == "fair < serious < critical")
        let q = problems("[[sensor]]\nmatch = \"a\"\nserious = 90\ncritical = 90\n")
        #expect(q.first?.kind == .thresholdOrder)
        #expect(q.first?.key == "sensor[1].critical")
    }

    @Test func everyProblemIsReportedInLineOrder() {
        let p = problems("bogus = 1\ndelay = \"x\"\n[[sensor]]\nmatch = \"a\"\nfair = 90\nserious = 80\n")
        #expect(p.map(\.line) == [1, 2, 6])
        #expect(p.map(\.kind) == [.unknownKey, .wrongType, .thresholdOrder])
    }

    @Test func aSingleSensorTableInsteadOfAnArrayIsExplained() {
        let p = problems("[sensor]\nmatch = \"a\"\n")
        #expect(p.first?.kind == .wrongType)
        #expect(p.first?.line == 1)
        #expect(p.first?.expected?.contains("[[sensor]]") == true)
    }

    @Test func aNulByteIsBadTOMLNotATruncatedFile() {
        let p = problems("delay = 1\n\u{0}bogus = 2\n")
        #expect(p.first?.kind == .badTOML)
        #expect(p.first?.line == 2)
    }
}

@Suite struct ConfigUnknownSensorTests {
    let sensors = [
        ThermalSensor(id: "thermal_zone0", name: "acpitz", kind: .zone, celsius: 40),
        ThermalSensor(id: "hwmon2/temp1", name: "nvme Composite", kind: .hwmon, celsius: 40),
    ]

    @Test func aRuleMatchingNoSensorIsReportedWithTheKnownIds() throws {
        var c = try #require(try? ConfigParser.parse("[[sensor]]\nmatch = \"hwmon*/temp1\"\n\n[[sensor]]\nmatch = \"thermal_zone9\"\n", file: "c.toml").get())
        c.path = "c.toml"
        let p = ConfigFile.unknownSensors(c, sensors: sensors)
        #expect(p.count == 1)
        #expect(p[0].kind == .unknownSensor)
        #expect(p[0].key == "sensor[2].match")
        #expect(p[0].line == 4)
        #expect(p[0].expected?.contains("thermal_zone0, hwmon2/temp1") == true)
    }
}

@Suite struct ConfigPathTests {
    @Test func xdgConfigHomeWinsOverHome() {
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/thermtop/config.toml")
        #expect(ConfigFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/thermtop/config.toml")
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/thermtop/config.toml")
        #expect(ConfigFile.defaultPath(environment: [:]) == nil)
    }

    @Test func aMissingDefaultFileIsNoConfigButAMissingExplicitOneIsAnError() {
        let missing = "/nonexistent-thermtop-test/config.toml"
        #expect((try? ConfigFile.load(missing, required: false, parse: ConfigParser.parse).get()) == .some(nil))
        guard case .failure(let e) = ConfigFile.load(missing, required: true, parse: ConfigParser.parse) else {
            Issue.record("expected failure"); return
        }
        #expect(e.problems.first?.kind == .unreadable)
        #expect(e.description.contains(missing))
    }

    @Test func aDirectoryIsNotAConfigFile() {
        guard case .failure(let e) = ConfigFile.load("/tmp", required: true, parse: ConfigParser.parse) else { Issue.record("expected failure"); return }
        #expect(e.description.contains("is a directory"))
    }
}
