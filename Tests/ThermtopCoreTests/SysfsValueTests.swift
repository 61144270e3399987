import Testing
import ThermtopCore

/// What a parser must return for one raw text: a value, or unknown with a typed reason.
enum Expected: Sendable, Equatable, CustomStringConvertible {
    case value(Double)
    case unknown(ReadingIssueReason)

    var description: String {
        switch self {
        case .value(let v): "\(v)"
        case .unknown(let r): "unknown(\(r.rawValue))"
        }
    }
}

struct ParseCase: Sendable, CustomTestStringConvertible {
    let name: String
    let raw: String
    let expected: Expected
    init(_ name: String, _ raw: String, _ expected: Expected) {
        self.name = name
        self.raw = raw
        self.expected = expected
    }
    var testDescription: String { "\(name): \(raw.debugDescription) → \(expected)" }
}

private func check(_ reading: Reading<Double>, _ c: ParseCase, file: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    switch c.expected {
    case .value(let v):
        if let got = reading.value {
            #expect(abs(got - v) < 1e-9, "expected \(v), got \(got)", sourceLocation: sourceLocation)
        } else {
            Issue.record("expected \(v), got \(reading)", sourceLocation: sourceLocation)
        }
    case .unknown(let reason):
        #expect(reading.value == nil, "expected unknown, got \(reading)", sourceLocation: sourceLocation)
        #expect(reading.issue?.reason == reason, "expected \(reason), got \(reading)", sourceLocation: sourceLocation)
        #expect(reading.issue?.file == file, sourceLocation: sourceLocation)
    }
}

@Suite("SysfsValue parsers")
struct SysfsValueTests {
    static let temperatureCases: [ParseCase] = [
        ParseCase("empty file", "", .unknown(.empty)),
        ParseCase("only a newline", "\n", .unknown(.empty)),
        ParseCase("garbage", "abc\n", .unknown(.notANumber)),
        ParseCase("number with trailing garbage", "12.5abc\n", .unknown(.notANumber)),
        ParseCase("a decimal point is not m°C", "45.0\n", .unknown(.notANumber)),
        ParseCase("does not fit in 64 bits", "99999999999999999999\n", .unknown(.notANumber)),
        ParseCase("−273.15 °C sentinel", "-273150\n", .unknown(.sentinel)),
        ParseCase("−274 °C sentinel", "-274000\n", .unknown(.sentinel)),
        ParseCase("nvme 65261.85 °C sentinel", "65261850\n", .unknown(.sentinel)),
        ParseCase("exact 0 is a channel that is not implemented", "0\n", .unknown(.implausible)),
        ParseCase("huge", "999999999\n", .unknown(.implausible)),
        ParseCase("hugely negative", "-40000000\n", .unknown(.implausible)),
        ParseCase("just above the plausible range", "200001\n", .unknown(.implausible)),
        ParseCase("whole degrees", "45000\n", .value(45.0)),
        ParseCase("not integer-divided", "52582\n", .value(52.582)),
        ParseCase("plausible negative (outdoor sensor)", "-5000\n", .value(-5.0)),
        ParseCase("surrounding whitespace", "  31875 \n", .value(31.875)),
        ParseCase("no trailing newline", "48000", .value(48.0)),
    ]

    @Test("temperature parser: m°C to °C, rejecting empty, garbage, sentinels, 0 and absurd values",
          arguments: temperatureCases)
    func temperature(_ c: ParseCase) {
        check(SysfsValue.temperature(c.raw, file: "class/thermal/thermal_zone0/temp"), c,
              file: "class/thermal/thermal_zone0/temp")
    }

    static let limitCases: [ParseCase] = [
        ParseCase("empty", "", .unknown(.empty)),
        ParseCase("garbage", "high\n", .unknown(.notANumber)),
        ParseCase("unset programmable trip at 0", "0\n", .unknown(.implausible)),
        ParseCase("−273.15 °C placeholder", "-273150\n", .unknown(.sentinel)),
        ParseCase("−274 °C placeholder (iwlwifi)", "-274000\n", .unknown(.sentinel)),
        ParseCase("nvme no-limit", "65261850\n", .unknown(.sentinel)),
        ParseCase("negative limit", "-5000\n", .unknown(.implausible)),
        ParseCase("200 °C trip is junk", "200000000\n", .unknown(.implausible)),
        ParseCase("passive trip 90 °C", "90000\n", .value(90)),
        ParseCase("nvme max 81.85 °C", "81850\n", .value(81.85)),
    ]

    @Test("limit parser: trips and chip limits at or below 0 °C, sentinels and absurd values are junk",
          arguments: limitCases)
    func limit(_ c: ParseCase) {
        check(SysfsValue.limit(c.raw, file: "trip_point_0_temp"), c, file: "trip_point_0_temp")
    }

    static let hysteresisCases: [ParseCase] = [
        ParseCase("2 °C", "2000\n", .value(2)),
        ParseCase("zero", "0\n", .value(0)),
        ParseCase("negative", "-1000\n", .unknown(.implausible)),
        ParseCase("absurd", "90000\n", .unknown(.implausible)),
        ParseCase("empty", "", .unknown(.empty)),
    ]

    @Test("trip hysteresis parser: a delta in m°C between 0 and 50 °C", arguments: hysteresisCases)
    func hysteresis(_ c: ParseCase) {
        check(SysfsValue.hysteresis(c.raw, file: "trip_point_0_hyst"), c, file: "trip_point_0_hyst")
    }

    static let percentCases: [ParseCase] = [
        ParseCase("70", "70\n", .value(70)),
        ParseCase("0", "0\n", .value(0)),
        ParseCase("100", "100\n", .value(100)),
        ParseCase("250 is not a percentage", "250\n", .unknown(.implausible)),
        ParseCase("negative", "-1\n", .unknown(.implausible)),
        ParseCase("empty", "", .unknown(.empty)),
    ]

    @Test("percent parser: 0…100 only", arguments: percentCases)
    func percent(_ c: ParseCase) {
        check(SysfsValue.percent(c.raw, file: "capacity"), c, file: "capacity")
    }

    static let microCases: [ParseCase] = [
        ParseCase("36.309 Wh", "36309000\n", .value(36.309)),
        ParseCase("zero power", "0\n", .value(0)),
        ParseCase("negative unsigned value", "-5018000\n", .unknown(.implausible)),
        ParseCase("above the bound", "600000000\n", .unknown(.implausible)),
        ParseCase("garbage", "12 W\n", .unknown(.notANumber)),
    ]

    @Test("micro-unit parser: µ-units to base units, bounded, unsigned", arguments: microCases)
    func micro(_ c: ParseCase) {
        check(SysfsValue.micro(c.raw, file: "power_now", max: 500), c, file: "power_now")
    }

    @Test("micro-unit parser accepts a signed current as its magnitude when asked")
    func microSigned() {
        #expect(SysfsValue.micro("-412000\n", file: "current_now", max: 50, signed: true).value == 0.412)
        #expect(SysfsValue.micro("-412000\n", file: "current_now", max: 50).issue?.reason == .implausible)
    }

    @Test("integer parser: empty, garbage and negative numbers")
    func integer() {
        #expect(SysfsValue.integer("", file: "f").issue?.reason == .empty)
        #expect(SysfsValue.integer("1e3\n", file: "f").issue?.reason == .notANumber)
        #expect(SysfsValue.integer("-1\n", file: "f").value == -1)
        #expect(SysfsValue.integer("152\n", file: "f").value == 152)
    }

    @Test("flag parser: 0 and 1 (and online 2) only")
    func flag() {
        #expect(SysfsValue.flag("0\n", file: "online").value == false)
        #expect(SysfsValue.flag("1\n", file: "online").value == true)
        #expect(SysfsValue.flag("2\n", file: "online").value == true)
        #expect(SysfsValue.flag("maybe\n", file: "online").issue?.reason == .notANumber)
        #expect(SysfsValue.flag("3\n", file: "online").issue?.reason == .implausible)
    }

    @Test("string parser: trims the newline and treats blank text as empty")
    func string() {
        #expect(SysfsValue.string("Discharging\n", file: "status").value == "Discharging")
        #expect(SysfsValue.string("INT3400 Thermal\n", file: "type").value == "INT3400 Thermal")
        #expect(SysfsValue.string("  \n", file: "status").issue?.reason == .empty)
        #expect(SysfsValue.string("", file: "status").issue?.reason == .empty)
    }
}

@Suite("Trimming a raw value")
struct TrimmingTests {
    @Test("surrounding whitespace goes (trailing newline, space, tab, CR, NUL; leading space, tab, newline), the inside and non-ASCII stay", arguments: [
        ("45000\n", "45000"), ("  45000 \t\n", "45000"), ("acpitz\n\0\0", "acpitz"), ("Discharging\r\n", "Discharging"),
        ("\n\tx86_pkg_temp\n", "x86_pkg_temp"), ("a b\tc\n", "a b\tc"), ("\n", ""), ("", ""), ("   ", ""),
        ("café\n", "café"), ("\u{301}x\n", "\u{301}x"), ("\u{1F525}\0", "\u{1F525}"), ("\rleading-cr\n", "\rleading-cr"),
        ("no-newline", "no-newline"),
    ])
    func trims(raw: String, expected: String) {
        #expect(SysfsValue.trimmed(raw) == expected)
    }

    @Test("a PCI address is four hex digits, colon, two, colon, two, dot, one; nothing else is", arguments: [
        ("0000:00:18.3", true), ("0000:0a:1F.7", true), ("0000:00:18", false), ("0000:00:18.33", false),
        ("0000-00:18.3", false), ("0000:00:18:3", false), ("000g:00:18.3", false), ("0000:00:1é.3", false), ("", false),
    ])
    func pciAddress(text: String, isAddress: Bool) {
        #expect(ThermalDeviceInfo.isPCIAddress(text) == isAddress)
    }
}
