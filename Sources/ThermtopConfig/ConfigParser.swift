import ThermtopCore
import TOMLKit

/// Parses `config.toml` with TOMLKit and checks every key, type and value. Pure: text in,
/// value or problems out (no file access), so it can be fuzzed.
package enum ConfigParser {
    public static let topLevelKeys = ["delay", "units", "color", "ascii", "on_change", "on_change_min_interval", "on_change_timeout", "proc_root", "export_heat_sources", "sensor"]
    public static let sensorKeys = ["match", "hide", "name", "pin", "ignore", "fair", "serious", "critical", "hysteresis"]

    public static func parse(_ text: String, file: String = "config.toml") -> Result<UserConfig, ConfigError> {
        // toml++ stops at a NUL; say so instead of silently reading half a file.
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
            return .failure(ConfigError([ConfigProblem(kind: .badTOML, file: file, line: line, key: nil,
                                                       message: "the file contains a NUL byte", expected: "UTF-8 text")]))
        }
        if let line = TOMLGuard.headerWithoutKey(text) {
            return .failure(ConfigError([ConfigProblem(kind: .badTOML, file: file, line: line, key: nil,
                                                       message: "a table header without a name after its [",
                                                       expected: "[name] or [[sensor]]")]))
        }
        if let line = TOMLGuard.overlongDottedKey(text) {
            return .failure(ConfigError([ConfigProblem(kind: .badTOML, file: file, line: line, key: nil,
                                                       message: "a dotted key of more than \(TOMLGuard.maxKeyParts) parts",
                                                       expected: "keys such as delay or [[sensor]] match")]))
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            return .failure(ConfigError([ConfigProblem(kind: .badTOML, file: file, line: e.source.begin.line, key: nil,
                                                       message: e.description, expected: "TOML (https://toml.io)")]))
        } catch {
            return .failure(ConfigError([ConfigProblem(kind: .badTOML, file: file, line: 0, key: nil,
                                                       message: "\(error)", expected: "TOML (https://toml.io)")]))
        }
        let lines = KeyLines(text)
        var problems: [ConfigProblem] = []
        var config = UserConfig()

        func problem(_ kind: ConfigProblem.Kind, _ key: String, line: Int, _ message: String, _ expected: String? = nil) {
            problems.append(ConfigProblem(kind: kind, file: file, line: line, key: key, message: message, expected: expected))
        }
        func number(_ v: TOMLValueConvertible, _ key: String, line: Int, range: ClosedRange<Double>, unit: String) -> Double? {
            let d: Double?
            switch v.type {
            case .double: d = v.double
            case .int: d = v.int.map(Double.init)
            default:
                problem(.wrongType, key, line: line, "got \(describe(v))", "a number \(unit)(\(fmt(range.lowerBound)) to \(fmt(range.upperBound)))")
                return nil
            }
            guard let d, d.isFinite, range.contains(d) else {
                problem(.badValue, key, line: line, "\(d.map(fmt) ?? "?") is out of range", "a number \(unit)from \(fmt(range.lowerBound)) to \(fmt(range.upperBound))")
                return nil
            }
            return d
        }
        func bool(_ v: TOMLValueConvertible, _ key: String, line: Int) -> Bool? {
            guard v.type == .bool, let b = v.bool else {
                problem(.wrongType, key, line: line, "got \(describe(v))", "true or false")
                return nil
            }
            return b
        }
        func string(_ v: TOMLValueConvertible, _ key: String, line: Int, expected: String) -> String? {
            guard v.type == .string, let s = v.string else {
                problem(.wrongType, key, line: line, "got \(describe(v))", expected)
                return nil
            }
            return s
        }

        for key in table.keys {
            guard let v = table[key] else { continue }
            let line = lines.line(of: key, table: nil)
            switch key {
            case "delay":
                config.delay = number(v, key, line: line, range: UserConfig.delayRange, unit: "of seconds ")
            case "units":
                if let s = string(v, key, line: line, expected: "\"celsius\" or \"fahrenheit\"") {
                    if let u = TemperatureUnit(rawValue: s) { config.units = u } else {
                        problem(.badValue, key, line: line, "\"\(s)\" is not a unit", "\"celsius\" or \"fahrenheit\"")
                    }
                }
            case "color": config.color = bool(v, key, line: line)
            case "ascii": config.ascii = bool(v, key, line: line)
            case "on_change":
                if let s = string(v, key, line: line, expected: "a command line (a string)") {
                    if let why = CommandLineWords.problem(s) {
                        problem(.badValue, key, line: line, why, "a command line with balanced quotes")
                    } else if CommandLineWords.split(s).isEmpty {
                        problem(.badValue, key, line: line, "the command is empty", "a command line")
                    } else {
                        config.onChange = s
                    }
                }
            case "on_change_min_interval":
                config.onChangeMinInterval = number(v, key, line: line, range: UserConfig.onChangeIntervalRange, unit: "of seconds ")
            case "on_change_timeout":
                config.onChangeTimeout = number(v, key, line: line, range: UserConfig.onChangeTimeoutRange, unit: "of seconds ")
            case "proc_root":
                if let s = string(v, key, line: line, expected: "a folder laid out like /proc (a string)") {
                    if s.isEmpty || s.contains("\0") {
                        problem(.badValue, key, line: line, "the folder is empty", "a folder laid out like /proc, such as \"/proc\"")
                    } else {
                        config.procRoot = s
                    }
                }
            case "export_heat_sources":
                let range = UserConfig.exportHeatSourcesRange
                if v.type != .int || v.int == nil {
                    problem(.wrongType, key, line: line, "got \(describe(v))", "a whole number (\(range.lowerBound) to \(range.upperBound))")
                } else if let n = v.int, !range.contains(n) {
                    problem(.badValue, key, line: line, "\(n) is out of range", "a whole number from \(range.lowerBound) to \(range.upperBound)")
                } else {
                    config.exportHeatSources = v.int
                }
            case "sensor":
                guard v.type == .array, let arr = v.array else {
                    problem(.wrongType, key, line: line, "got \(describe(v))",
                            "[[sensor]] tables (an array of tables), not [sensor] or a value")
                    continue
                }
                for i in 0..<arr.count {
                    let item = arr[i]
                    let header = lines.sensorHeader(i)
                    let prefix = "sensor[\(i + 1)]"
                    guard item.type == .table, let t = item.table else {
                        problem(.wrongType, prefix, line: header, "got \(describe(item))", "a table with match = \"…\"")
                        continue
                    }
                    config.sensors.append(contentsOf: sensorRule(t, index: i, header: header, lines: lines, prefix: prefix,
                                                                 number: number, bool: bool, string: string, problem: problem))
                }
            default:
                problem(.unknownKey, key, line: line, "thermtop does not know this key",
                        "one of \(topLevelKeys.filter { $0 != "sensor" }.joined(separator: ", ")) or [[sensor]] tables\(suggestion(key, topLevelKeys))")
            }
        }
        if !problems.isEmpty { return .failure(ConfigError(problems)) }
        return .success(config)
    }

    // Closures rather than methods so the per-file `problems` list stays local to `parse`.
    private static func sensorRule(
        _ t: TOMLTable, index i: Int, header: Int, lines: KeyLines, prefix: String,
        number: (TOMLValueConvertible, String, Int, ClosedRange<Double>, String) -> Double?,
        bool: (TOMLValueConvertible, String, Int) -> Bool?,
        string: (TOMLValueConvertible, String, Int, String) -> String?,
        problem: (ConfigProblem.Kind, String, Int, String, String?) -> Void
    ) -> [SensorRule] {
        var rule = SensorRule(match: "", line: header)
        var ok = true
        var sawMatch = false
        for key in t.keys {
            guard let v = t[key] else { continue }
            let line = lines.line(of: key, table: i)
            let name = "\(prefix).\(key)"
            let thresholdText = "in °C "
            switch key {
            case "match":
                if let s = string(v, name, line, "a sensor id or a glob of ids (a string)") {
                    sawMatch = true
                    if s.isEmpty {
                        problem(.badValue, name, line, "the pattern is empty", "a sensor id such as \"thermal_zone0\" or a glob such as \"hwmon*/temp1\"")
                        ok = false
                    } else if let why = SensorGlob(s).problem {
                        problem(.badValue, name, line, why, "a glob: * any text, ? one character, [abc] a set")
                        ok = false
                    } else {
                        rule.match = SensorGlob(s)
                    }
                } else { ok = false }
            case "hide": rule.hide = bool(v, name, line); ok = ok && rule.hide != nil
            case "pin": rule.pin = bool(v, name, line); ok = ok && rule.pin != nil
            case "ignore": rule.ignore = bool(v, name, line); ok = ok && rule.ignore != nil
            case "name":
                if let s = string(v, name, line, "a display name (a string)") {
                    if s.isEmpty || s.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }) {
                        problem(.badValue, name, line, "a name must be non-empty, on one line, without control characters", "a display name such as \"CPU\"")
                        ok = false
                    } else { rule.name = s }
                } else { ok = false }
            case "fair": rule.fair = number(v, name, line, UserConfig.thresholdRange, thresholdText); ok = ok && rule.fair != nil
            case "serious": rule.serious = number(v, name, line, UserConfig.thresholdRange, thresholdText); ok = ok && rule.serious != nil
            case "critical": rule.critical = number(v, name, line, UserConfig.thresholdRange, thresholdText); ok = ok && rule.critical != nil
            case "hysteresis": rule.hysteresis = number(v, name, line, UserConfig.hysteresisRange, thresholdText); ok = ok && rule.hysteresis != nil
            default:
                problem(.unknownKey, name, line, "a [[sensor]] table has no such key",
                        "one of \(sensorKeys.joined(separator: ", "))\(suggestion(key, sensorKeys))")
                ok = false
            }
        }
        if !sawMatch && t.keys.contains("match") == false {
            problem(.badValue, prefix, header, "this [[sensor]] table has no match", "match = \"<sensor id or glob>\"")
            ok = false
        }
        // Thresholds must rise: fair < serious < critical (only those this rule sets).
        let set: [(String, Double?)] = [("fair", rule.fair), ("serious", rule.serious), ("critical", rule.critical)]
        let given = set.compactMap { n, v in v.map { (n, $0) } }
        for k in 1..<max(1, given.count) where given[k - 1].1 >= given[k].1 {
            let (ln, lv) = given[k - 1], (hn, hv) = given[k]
            problem(.thresholdOrder, "\(prefix).\(hn)", lines.line(of: hn, table: i),
                    "\(hn) \(fmt(hv)) °C is not above \(ln) \(fmt(lv)) °C", "fair < serious < critical")
            ok = false
        }
        return ok ? [rule] : []
    }

    static func describe(_ v: TOMLValueConvertible) -> String {
        switch v.type {
        case .string: return "a string (\"\(v.string ?? "")\")"
        case .int: return "an integer (\(v.int ?? 0))"
        case .double: return "a number (\(v.double.map(fmt) ?? "?"))"
        case .bool: return "a boolean (\(v.bool ?? false))"
        case .array: return "an array"
        case .table: return "a table"
        case .date: return "a date"
        case .time: return "a time"
        case .dateTime: return "a date-time"
        }
    }

    static func fmt(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : "\(d)"
    }

    /// `; did you mean "delay"?` for a key one or two edits away from a known one.
    package static func suggestion(_ key: String, _ known: [String]) -> String {
        let best = known.map { ($0, editDistance(key.lowercased(), $0)) }.min { $0.1 < $1.1 }
        guard let (k, d) = best, d <= 2, d < key.count else { return "" }
        return " (did you mean \(k)?)"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars.prefix(64)), b = Array(b.unicodeScalars.prefix(64))
        var prev = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return a.isEmpty ? b.count : prev[b.count]
    }
}

/// Finds the line of a key in the file. TOMLKit gives no positions for values, so this scans
/// the text for `key =` lines under the right table header; values themselves are only ever
/// read by TOMLKit. Good enough for messages: the fallback is the table's header line.
struct KeyLines {
    /// (line, key) pairs before any table header.
    var top: [(Int, String)] = []
    /// Per `[[sensor]]` table: its header line and (line, key) pairs.
    var sensors: [(header: Int, keys: [(Int, String)])] = []

    init(_ text: String) {
        var current: Int? = nil   // index into sensors, nil = top level, -1 = another table
        var inMultiline: String? = nil
        var n = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if let delim = inMultiline {
                if line.contains(delim) { inMultiline = nil }
                continue
            }
            if line.hasPrefix("[[") {
                let name = line.dropFirst(2).prefix { $0 != "]" }.trimmingSpaces
                if name == "sensor" {
                    sensors.append((n, []))
                    current = sensors.count - 1
                } else { current = -1 }
                continue
            }
            if line.hasPrefix("[") {
                let name = line.dropFirst().prefix { $0 != "]" }.trimmingSpaces
                current = name == "sensor" ? -2 : -1
                if name == "sensor" { top.append((n, "sensor")) }
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { continue }
            var key = line[..<eq].trimmingSpaces
            if key.count >= 2, key.first == "\"" || key.first == "'", key.last == key.first {
                key = String(key.dropFirst().dropLast())
            }
            let value = line[line.index(after: eq)...].trimmingSpaces
            for delim in ["\"\"\"", "'''"] where value.hasPrefix(delim) && !value.dropFirst(3).contains(delim) {
                inMultiline = delim
            }
            switch current {
            case nil: top.append((n, key))
            case let i? where i >= 0: sensors[i].keys.append((n, key))
            default: break
            }
        }
    }

    func line(of key: String, table: Int?) -> Int {
        if let t = table {
            guard t < sensors.count else { return 0 }
            return sensors[t].keys.first { $0.1 == key }?.0 ?? sensors[t].header
        }
        return top.first { $0.1 == key }?.0 ?? 0
    }

    func sensorHeader(_ i: Int) -> Int { i < sensors.count ? sensors[i].header : 0 }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

/// Input that toml++ (the C++ parser under TOMLKit) does not survive: its table-header parser
/// asserts that a key follows `[` or `[[`, and a failed assertion aborts thermtop
/// (`[=`, `[#`, `[` at the end of a line; found by `scripts/fuzz.sh config`). Such a
/// file is not TOML anyway, so it is refused before toml++ sees it.
enum TOMLGuard {
    /// The 1-based line of the first `[` header whose name does not start like a key (bare key
    /// character or quote) or an immediate `]`, outside multi-line strings; nil if none.
    static func headerWithoutKey(_ text: String) -> Int? {
        var n = 0
        var inMultiline: [UInt8]? = nil
        // Open `[` and `{` of a value spanning lines: a line starting with `[` there is an
        // element of an array, not a table header.
        var valueDepth = 0
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            n += 1
            let line = raw.drop { $0 == 0x20 || $0 == 0x09 }
            if let delim = inMultiline {
                if contains(line, delim) { inMultiline = nil }
                continue
            }
            if valueDepth > 0 || line.first != UInt8(ascii: "[") { valueDepth = max(0, valueDepth + bracketBalance(line)) }
            if valueDepth == 0, line.first == UInt8(ascii: "[") {
                var rest = line.dropFirst()
                let spaced = rest.first == 0x20 || rest.first == 0x09
                rest = rest.drop { $0 == 0x20 || $0 == 0x09 }
                if rest.first == UInt8(ascii: "[") {
                    if spaced { continue }   // toml++ reports "[ [" itself
                    rest = rest.dropFirst().drop { $0 == 0x20 || $0 == 0x09 }
                }
                guard let c = rest.first, startsKey(c) else { return n }
                continue
            }
            // A value opening a multi-line string that does not close on its line.
            guard let eq = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let value = line[line.index(after: eq)...].drop { $0 == 0x20 || $0 == 0x09 }
            for delim in [Array("\"\"\"".utf8), Array("'''".utf8)] where value.starts(with: delim) && !contains(value.dropFirst(3), delim) {
                inMultiline = delim
            }
        }
        return nil
    }

    /// How many `[` and `{` a line opens, less those it closes, outside strings and comments.
    private static func bracketBalance(_ line: some Collection<UInt8>) -> Int {
        var balance = 0
        var quote: UInt8? = nil
        var escaped = false
        for c in line {
            if let q = quote {
                if escaped { escaped = false } else if q == UInt8(ascii: "\"") && c == UInt8(ascii: "\\") { escaped = true } else if c == q { quote = nil }
                continue
            }
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = c
            case UInt8(ascii: "#"): return balance
            case UInt8(ascii: "["), UInt8(ascii: "{"): balance += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): balance -= 1
            default: break
            }
        }
        return balance
    }

    /// The most parts a dotted key (`a.b.c`) may have here. toml++ handles each part of a
    /// dotted key one level deeper in its recursion, with no bound of its own: a 56 kB line of
    /// `a.a.a…` overflows the stack and kills thermtop. thermtop's own keys have one part, so
    /// nothing near this bound is a thermtop config.
    static let maxKeyParts = 64

    /// The 1-based line of the first run of more than `maxKeyParts` dot-separated key parts
    /// (bare or quoted; in a table header, before `=`, or in an inline table), outside comments
    /// and multi-line strings; nil if none. A float (`1.5`) is a run of two parts.
    static func overlongDottedKey(_ text: String) -> Int? {
        var n = 0
        var inMultiline: [UInt8]? = nil
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            n += 1
            let line = Array(raw)
            if let delim = inMultiline {
                if contains(raw, delim) { inMultiline = nil }
                continue
            }
            var parts = 0, afterDot = false, i = 0
            func segment() -> Bool {
                parts = afterDot ? parts + 1 : 1
                afterDot = false
                return parts > maxKeyParts
            }
            scan: while i < line.count {
                let c = line[i]
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    if line[i...].starts(with: [c, c, c]) {
                        // A multi-line string: the rest of this line, and more lines unless it
                        // closes here, are text.
                        if !contains(line[(i + 3)...], [c, c, c]) { inMultiline = [c, c, c] }
                        break scan
                    }
                    i += 1
                    while i < line.count && line[i] != c {
                        if c == UInt8(ascii: "\"") && line[i] == UInt8(ascii: "\\") { i += 1 }
                        i += 1
                    }
                    i += 1
                    if segment() { return n }
                case UInt8(ascii: "."):
                    afterDot = parts > 0
                    i += 1
                case 0x20, 0x09:
                    i += 1
                case UInt8(ascii: "#"):
                    break scan
                default:
                    guard startsBareKey(c) else {
                        parts = 0
                        afterDot = false
                        i += 1
                        continue
                    }
                    while i < line.count && startsBareKey(line[i]) { i += 1 }
                    if segment() { return n }
                }
            }
        }
        return nil
    }

    private static func startsBareKey(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    private static func startsKey(_ c: UInt8) -> Bool {
        startsBareKey(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "]")
    }

    private static func contains<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ needle: [UInt8]) -> Bool {
        var rest = bytes[...]
        while rest.count >= needle.count {
            if rest.starts(with: needle) { return true }
            rest = rest.dropFirst()
        }
        return false
    }
}
