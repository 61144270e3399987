import Foundation
import Testing
import ThermtopCore

@Suite("Report: JSON escaping and terminal-safe text")
struct ReportTests {
    @Test("JSON strings escape quotes, backslashes and every control character")
    func jsonEscaping() throws {
        let raw = "evil\u{1B}[2J zone\u{07}\n\t\"q\"\\\u{00}\u{7F}\u{85}é°"
        let text = JSONValue.string(raw).serialized()
        #expect(text == "\"evil\\u001b[2J zone\\u0007\\n\\t\\\"q\\\"\\\\\\u0000\\u007f\\u0085é°\"")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) })
        // And it round-trips through a real JSON parser.
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [String]
        #expect(parsed == [raw])
    }

    @Test("JSON strings escape exactly the C0, DEL and C1 controls of every scalar, multi-byte ones kept whole")
    func jsonEscapingOverEveryScalarClass() {
        // The reference: one scalar at a time, as the spec says (named escapes, \u00xx for the
        // other controls, everything else verbatim). The writer works on UTF-8 bytes instead.
        func reference(_ u: Unicode.Scalar) -> String {
            switch u {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\t": return "\\t"
            default:
                guard u.value < 0x20 || u.value == 0x7F || (0x80..<0xA0).contains(u.value) else { return String(u) }
                let hex = String(u.value, radix: 16)
                return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        let scalars = (0..<0x800).compactMap(Unicode.Scalar.init)
            + [0xFFFD, 0xFEFF, 0x1F525, 0x10FFFF].compactMap(Unicode.Scalar.init)
        for u in scalars {
            // Between multi-byte neighbours (U+0080 is C2 80): an escape that took or split a
            // neighbour's bytes would show.
            let raw = "\u{C2}" + String(u) + "\u{80}x"
            let expected = "\"" + reference("\u{C2}") + reference(u) + reference("\u{80}") + "x\""
            #expect(JSONValue.string(raw).serialized() == expected, "U+\(String(u.value, radix: 16))")
        }
    }

    @Test("JSON strings escape the same at every offset of a long string (plain bytes are skipped eight at a time)")
    func jsonEscapingAtEveryOffset() {
        let cases: [(raw: String, json: String)] = [
            ("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n"), ("\u{1B}", "\\u001b"), ("\u{7F}", "\\u007f"),
            ("\u{80}", "\\u0080"), ("\u{9F}", "\\u009f"), ("\u{A0}", "\u{A0}"), ("°", "°"), ("é", "é"), ("≥", "≥"),
            ("~", "~"), (" ", " "),
        ]
        for (raw, json) in cases {
            for offset in 0..<20 {
                let before = String(repeating: "a", count: offset), after = String(repeating: "b", count: 19 - offset)
                #expect(JSONValue.string(before + raw + after).serialized() == "\"" + before + json + after + "\"",
                        "\(json) at \(offset)")
                // Two in a row, the second across the next eight-byte boundary.
                #expect(JSONValue.string(before + raw + raw + after).serialized() == "\"" + before + json + json + after + "\"",
                        "\(json)\(json) at \(offset)")
            }
        }
    }

    @Test("JSON strings escape the same at every offset of every short length (the last bytes are read as the last eight)")
    func jsonEscapingAtEveryLength() {
        let cases: [(raw: String, json: String)] = [
            ("\"", "\\\""), ("\u{1B}", "\\u001b"), ("\u{85}", "\\u0085"), ("°", "°"), ("≥", "≥"), ("x", "x"),
        ]
        for (raw, json) in cases {
            for length in 0..<24 {
                for offset in 0...length {
                    let before = String(repeating: "a", count: offset), after = String(repeating: "b", count: length - offset)
                    #expect(JSONValue.string(before + raw + after).serialized() == "\"" + before + json + after + "\"",
                            "\(json) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test("JSON pretty and compact layouts: two-space indent per level, empty containers inline")
    func jsonLayout() {
        let v = JSONValue.object([("a", .array([.number(1), .number(2.5), .bool(true)])), ("b", .object([])),
                                  ("c", .array([])), ("d", .object([("e", .null)]))])
        #expect(v.serialized() == "{\n  \"a\": [\n    1,\n    2.5,\n    true\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": {\n    \"e\": null\n  }\n}")
        #expect(v.serialized(pretty: false) == "{\"a\":[1,2.5,true],\"b\":{},\"c\":[],\"d\":{\"e\":null}}")
        #expect(JSONValue.array([.string("x")]).serialized(indent: 1) == "[\n    \"x\"\n  ]")
    }

    @Test("a JSON document far larger than the writer's first buffer comes out whole (the buffer grows and keeps every byte)")
    func jsonLargerThanTheFirstBuffer() {
        let long = String(repeating: "é\"x\u{1B}", count: 300)
        let v = JSONValue.array((0..<200).map { i in
            .object([("i", .number(Double(i))), ("s", .string(long)), ("e", .array([])), ("n", .null)])
        })
        let escaped = String(repeating: "é\\\"x\\u001b", count: 300)
        let item = { (i: Int) in "{\"i\":\(i),\"s\":\"\(escaped)\",\"e\":[],\"n\":null}" }
        #expect(v.serialized(pretty: false) == "[" + (0..<200).map(item).joined(separator: ",") + "]")
        let pretty = v.serialized()
        #expect(pretty.hasPrefix("[\n  {\n    \"i\": 0,\n    \"s\": \"é\\\"x\\u001b"))
        #expect(pretty.hasSuffix("\"e\": [],\n    \"n\": null\n  }\n]"))
        #expect(pretty.utf8.count > 200 * long.utf8.count)
    }

    @Test("JSON whole numbers are spelled as Int64 spells them: sign, zero, and the largest written as integers")
    func jsonIntegers() {
        let values: [Double] = [0, -0.0, 1, -1, 9, 10, -274, 105_000, 36_857, -2_147_483_648, 999_999_999_999_999,
                                -999_999_999_999_999]
        for d in values {
            #expect(JSONValue.number(d).serialized() == String(Int64(d)), "\(d)")
        }
        // Beyond 1e15, and fractions, keep Double's own spelling.
        #expect(JSONValue.number(1e15).serialized() == "\(1e15)")
        #expect(JSONValue.number(-2.5).serialized() == "-2.5")
    }

    @Test("JSON object keys are escaped too, and nulls are explicit")
    func jsonKeys() throws {
        let v = JSONValue.object([("a\u{1B}b", .null), ("n", .num(36857.4, places: 0)), ("t", .num(48.0))])
        let obj = try JSONSerialization.jsonObject(with: Data(v.serialized().utf8)) as? [String: Any]
        #expect(obj?["a\u{1B}b"] is NSNull)
        #expect((obj?["n"] as? NSNumber)?.doubleValue == 36857)
        #expect((obj?["t"] as? NSNumber)?.doubleValue == 48)
    }

    @Test("Format.clean turns ESC, BEL, DEL and C1 controls into ?", arguments: [
        ("evil\u{1B}[2J zone\u{07}\n", "evil?[2J zone??"),
        ("CPU\tcore\u{FFFD}\u{FFFD}", "CPU?core??"),
        ("a\u{7F}b\u{9B}c", "a?b?c"),
        ("x86_pkg_temp", "x86_pkg_temp"),
        ("°C é", "°C é"),
    ])
    func clean(_ raw: String, _ expected: String) {
        let out = Format.clean(raw)
        #expect(out == expected)
        #expect(!out.unicodeScalars.contains { $0.value == 0x1B })
    }

    @Test("the status text never carries a raw escape byte from a sensor name")
    func statusTextSanitised() {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, zones: [ThermalZone(id: "thermal_zone7", type: "evil\u{1B}[2J zone\u{07}", celsius: 40)])
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        let status = MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []),
                                   overrides: .none, sourceLabel: "test", sourceIsSimulated: false)
        let text = ThermalStatusReport.text(status)
        #expect(text.contains("evil?[2J zone?"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test("the status text's forecast says degrees to the next limit, never Android's headroom (JSON keeps it)")
    func statusForecastInDegrees() throws {
        var memory = ClassifierMemory()
        let config = ThermalConfig()
        let snap = ThermalSnapshot(time: 0, zones: [ThermalZone(id: "thermal_zone0", type: "x86_pkg_temp", celsius: 76)])
        let a = ThermalClassifier.assess(snap, config: config, memory: &memory)
        var history = ForecastHistory()
        history.record(a, at: 0, config: config.forecast)
        let status = MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []),
                                   overrides: .none, sourceLabel: "test", sourceIsSimulated: false,
                                   forecast: Forecaster.forecast(a, history: history, config: config))
        #expect(status.forecast.headroom != nil)
        let line = try #require(ThermalStatusReport.text(status).split(separator: "\n").first { $0.hasPrefix("Forecast ") })
        #expect(line.contains("9.0 °C to serious"), "\(line)")
        #expect(!line.contains("headroom"), "\(line)")
        #expect(ThermalStatusReport.text(status, units: .fahrenheit).contains("16.2 °F to serious"))
        let json = ThermalStatusReport.json(status, version: "test")
        guard case .object(let fields) = json, case .object(let forecast)? = fields.first(where: { $0.0 == "forecast" })?.1 else {
            Issue.record("no forecast object"); return
        }
        #expect(forecast.contains { $0.0 == "headroom" })
    }

    @Test("status text in °F: the unit heading, every reading and limit, the CPU line and the reason; decisions unchanged")
    func statusTextFahrenheit() {
        var memory = ClassifierMemory()
        let snap = ThermalSnapshot(time: 0, zones: [ThermalZone(id: "thermal_zone0", type: "x86_pkg_temp", celsius: 91)])
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        let status = MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: LowPowerAssessment(enabled: false, reasons: []),
                                   overrides: .none, sourceLabel: "test", sourceIsSimulated: false)
        let celsius = ThermalStatusReport.text(status)
        let fahrenheit = ThermalStatusReport.text(status, units: .fahrenheit)
        // 91 °C = 195.8 °F; the default limits 75/85/95 °C = 167/185/203 °F.
        #expect(celsius.contains("91.0"))
        #expect(fahrenheit.contains("195.8 °F"), "\(fahrenheit)")
        #expect(fahrenheit.contains("°F  level"))
        #expect(fahrenheit.contains("195.8  serious   167.0   185.0    203.0"), "\(fahrenheit)")
        #expect(!fahrenheit.contains("°C"), "\(fahrenheit)")
        #expect(fahrenheit.contains("State      serious"))
        #expect(celsius.contains("State      serious"))
    }

    @Test("formatDegrees prints one decimal and a real minus sign",
          arguments: [(91.0, "91.0 °C"), (52.582, "52.6 °C"), (88.0, "88.0 °C"), (-5.04, "−5.0 °C"), (99.96, "100.0 °C"),
                       (0.0, "0.0 °C"), (-0.04, "0.0 °C"), (-0.06, "−0.1 °C"), (-273.15, "−273.2 °C"),
                       (1_234_567.89, "1234567.9 °C"), (-99.95, "−100.0 °C")])
    func degrees(_ c: Double, _ expected: String) {
        #expect(formatDegrees(c) == expected)
    }

    @Test("durations and percentages read like a person wrote them")
    func formats() {
        #expect(Format.duration(15468) == "4 h 17 min")
        #expect(Format.duration(982) == "16 min")
        #expect(Format.duration(42) == "42 s")
        #expect(Format.percent(70) == "70 %")
        #expect(Format.percent(63.774) == "63.8 %")
    }

    @Test("fixed-point formatting always prints the asked number of decimals and rounds half away")
    func fixedDecimals() {
        #expect(Format.fixed(0.4199, places: 2) == "0.42")
        #expect(Format.fixed(3.5, places: 2) == "3.50")
        #expect(Format.fixed(12.005, places: 1) == "12.0")
        #expect(Format.fixed(9.999, places: 2) == "10.00")
        #expect(Format.fixed(-1.25, places: 1) == "-1.3")
        #expect(Format.fixed(-0.001, places: 2) == "0.00")
        #expect(Format.fixed(7, places: 0) == "7")
    }
}
