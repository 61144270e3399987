/// How a parsed config (or its problems) goes from the `thermtop-toml` helper process to
/// thermtop. Not a user format: it exists so the dashboard binary need not link TOMLKit, which
/// imports Foundation (megabytes of resident memory for every run). It is one JSON object,
/// written with the project's `JSONValue` and read back with its strict `JSONParser`, so no
/// escaping or number format is invented here. Doubles print in Swift's shortest round-trip form.
package enum ConfigTransfer {
    public static func encode(_ result: Result<UserConfig, ConfigError>) -> String {
        let value: JSONValue
        switch result {
        case .success(let c):
            value = .object([
                ("config", .object([
                    ("delay", number(c.delay)), ("units", .str(c.units?.rawValue)),
                    ("color", bool(c.color)), ("ascii", bool(c.ascii)), ("on_change", .str(c.onChange)),
                    ("on_change_min_interval", number(c.onChangeMinInterval)),
                    ("sensors", .array(c.sensors.map { r in
                        .object([
                            ("line", .int(r.line)), ("match", .string(r.match.pattern)), ("name", .str(r.name)),
                            ("hide", bool(r.hide)), ("pin", bool(r.pin)), ("ignore", bool(r.ignore)),
                            ("fair", number(r.fair)), ("serious", number(r.serious)),
                            ("critical", number(r.critical)), ("hysteresis", number(r.hysteresis)),
                        ])
                    })),
                ])),
            ])
        case .failure(let e):
            value = .object([
                ("problems", .array(e.problems.map { p in
                    .object([
                        ("kind", .string(p.kind.rawValue)), ("line", .int(p.line)), ("key", .str(p.key)),
                        ("message", .string(p.message)), ("expected", .str(p.expected)),
                    ])
                })),
            ])
        }
        return value.serialized(pretty: false) + "\n"
    }

    /// nil when the text is not this format (a broken or foreign helper).
    public static func decode(_ text: String, file: String) -> Result<UserConfig, ConfigError>? {
        guard case .success(let root) = JSONParser.parse(Array(text.utf8)) else { return nil }
        if let problems = root["problems"] {
            guard case .array(let items) = problems else { return nil }
            var out: [ConfigProblem] = []
            for p in items {
                guard let kind = p["kind"]?.stringValue.flatMap(ConfigProblem.Kind.init(rawValue:)),
                      let line = p["line"]?.numberValue, let message = p["message"]?.stringValue,
                      let key = optional(p["key"], \.stringValue), let expected = optional(p["expected"], \.stringValue)
                else { return nil }
                out.append(ConfigProblem(kind: kind, file: file, line: Int(line), key: key, message: message, expected: expected))
            }
            return .failure(ConfigError(out))
        }
        guard let c = root["config"], case .object = c else { return nil }
        var config = UserConfig()
        guard let delay = optional(c["delay"], \.numberValue), let units = optional(c["units"], \.stringValue),
              let color = optional(c["color"], \.boolValue), let ascii = optional(c["ascii"], \.boolValue),
              let onChange = optional(c["on_change"], \.stringValue),
              let interval = optional(c["on_change_min_interval"], \.numberValue)
        else { return nil }
        config.delay = delay
        if let units {
            guard let u = TemperatureUnit(rawValue: units) else { return nil }
            config.units = u
        }
        config.color = color
        config.ascii = ascii
        config.onChange = onChange
        config.onChangeMinInterval = interval
        guard case .array(let rules)? = c["sensors"] else { return nil }
        for r in rules {
            guard let line = r["line"]?.numberValue, let match = r["match"]?.stringValue,
                  let name = optional(r["name"], \.stringValue), let hide = optional(r["hide"], \.boolValue),
                  let pin = optional(r["pin"], \.boolValue), let ignore = optional(r["ignore"], \.boolValue),
                  let fair = optional(r["fair"], \.numberValue), let serious = optional(r["serious"], \.numberValue),
                  let critical = optional(r["critical"], \.numberValue),
                  let hysteresis = optional(r["hysteresis"], \.numberValue)
            else { return nil }
            var rule = SensorRule(match: match, line: Int(line))
            rule.name = name; rule.hide = hide; rule.pin = pin; rule.ignore = ignore
            rule.fair = fair; rule.serious = serious; rule.critical = critical; rule.hysteresis = hysteresis
            config.sensors.append(rule)
        }
        return .success(config)
    }

    /// Unlike `JSONValue.num`, no rounding: the transfer must be lossless.
    static func number(_ v: Double?) -> JSONValue { v.map { .number($0) } ?? .null }
    static func bool(_ v: Bool?) -> JSONValue { v.map { .bool($0) } ?? .null }

    /// `.some(nil)` for a missing field or null, `.some(value)` for a value of the right type,
    /// nil (not this format) for a value of the wrong type.
    static func optional<T>(_ v: JSONValue?, _ get: (JSONValue) -> T?) -> T?? {
        guard let v, v != .null else { return .some(nil) }
        return get(v).map { .some($0) } ?? nil
    }
}
