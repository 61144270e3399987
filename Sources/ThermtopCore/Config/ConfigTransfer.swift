/// A line format for handing a parsed config (or its problems) from the `thermtop-toml` helper
/// process to thermtop. Not a user format: it exists so the dashboard binary need not link
/// TOMLKit, which imports Foundation (megabytes of resident memory for every run). Lossless:
/// doubles print in Swift's shortest round-trip form; text fields escape `\`, tab and newline.
public enum ConfigTransfer {
    public static func encode(_ result: Result<UserConfig, ConfigError>) -> String {
        var out: [String] = []
        func line(_ fields: String...) { out.append(fields.joined(separator: "\t")) }
        switch result {
        case .success(let c):
            line("config")
            if let v = c.delay { line("delay", "\(v)") }
            if let v = c.units { line("units", v.rawValue) }
            if let v = c.color { line("color", "\(v)") }
            if let v = c.ascii { line("ascii", "\(v)") }
            if let v = c.onChange { line("on_change", esc(v)) }
            if let v = c.onChangeMinInterval { line("on_change_min_interval", "\(v)") }
            for r in c.sensors {
                line("sensor", "\(r.line)", esc(r.match.pattern))
                if let v = r.name { line("s.name", esc(v)) }
                if let v = r.hide { line("s.hide", "\(v)") }
                if let v = r.pin { line("s.pin", "\(v)") }
                if let v = r.ignore { line("s.ignore", "\(v)") }
                if let v = r.fair { line("s.fair", "\(v)") }
                if let v = r.serious { line("s.serious", "\(v)") }
                if let v = r.critical { line("s.critical", "\(v)") }
                if let v = r.hysteresis { line("s.hysteresis", "\(v)") }
            }
        case .failure(let e):
            line("problems")
            for p in e.problems {
                line("problem", p.kind.rawValue, "\(p.line)", opt(p.key), esc(p.message), opt(p.expected))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// nil when the text is not this format (a broken or foreign helper).
    public static func decode(_ text: String, file: String) -> Result<UserConfig, ConfigError>? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let head = lines.first?.first else { return nil }
        if head == "problems" {
            var problems: [ConfigProblem] = []
            for f in lines.dropFirst() {
                guard f.count == 6, f[0] == "problem", let kind = ConfigProblem.Kind(rawValue: f[1]), let ln = Int(f[2]),
                      let msg = unesc(f[4]) else { return nil }
                problems.append(ConfigProblem(kind: kind, file: file, line: ln, key: unopt(f[3]), message: msg, expected: unopt(f[5])))
            }
            return .failure(ConfigError(problems))
        }
        guard head == "config" else { return nil }
        var c = UserConfig()
        for f in lines.dropFirst() {
            guard f.count >= 2 else { return nil }
            let v = f[1]
            switch f[0] {
            case "delay": guard let d = Double(v) else { return nil }; c.delay = d
            case "units": guard let u = TemperatureUnit(rawValue: v) else { return nil }; c.units = u
            case "color": guard let b = Bool(v) else { return nil }; c.color = b
            case "ascii": guard let b = Bool(v) else { return nil }; c.ascii = b
            case "on_change": guard let s = unesc(v) else { return nil }; c.onChange = s
            case "on_change_min_interval": guard let d = Double(v) else { return nil }; c.onChangeMinInterval = d
            case "sensor":
                guard f.count == 3, let ln = Int(v), let m = unesc(f[2]) else { return nil }
                c.sensors.append(SensorRule(match: m, line: ln))
            default:
                guard f[0].hasPrefix("s."), !c.sensors.isEmpty else { return nil }
                let i = c.sensors.count - 1
                switch f[0] {
                case "s.name": guard let s = unesc(v) else { return nil }; c.sensors[i].name = s
                case "s.hide": guard let b = Bool(v) else { return nil }; c.sensors[i].hide = b
                case "s.pin": guard let b = Bool(v) else { return nil }; c.sensors[i].pin = b
                case "s.ignore": guard let b = Bool(v) else { return nil }; c.sensors[i].ignore = b
                case "s.fair": guard let d = Double(v) else { return nil }; c.sensors[i].fair = d
                case "s.serious": guard let d = Double(v) else { return nil }; c.sensors[i].serious = d
                case "s.critical": guard let d = Double(v) else { return nil }; c.sensors[i].critical = d
                case "s.hysteresis": guard let d = Double(v) else { return nil }; c.sensors[i].hysteresis = d
                default: return nil
                }
            }
        }
        return .success(c)
    }

    static func esc(_ s: String) -> String {
        var o = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": o += "\\\\"
            case "\t": o += "\\t"
            case "\n": o += "\\n"
            case "\r": o += "\\r"
            default: o.unicodeScalars.append(u)
            }
        }
        return o
    }

    static func unesc(_ s: String) -> String? {
        var o = ""
        var it = s.unicodeScalars.makeIterator()
        while let u = it.next() {
            guard u == "\\" else { o.unicodeScalars.append(u); continue }
            switch it.next() {
            case "\\": o += "\\"
            case "t": o += "\t"
            case "n": o += "\n"
            case "r": o += "\r"
            default: return nil
            }
        }
        return o
    }

    static func opt(_ s: String?) -> String { s.map { "=" + esc($0) } ?? "~" }
    static func unopt(_ s: String) -> String? { s.hasPrefix("=") ? unesc(String(s.dropFirst())) : nil }
}
