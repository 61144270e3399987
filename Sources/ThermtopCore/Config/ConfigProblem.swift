/// One thing wrong with a config file: where, which key, what is wrong and what was expected.
package struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case badTOML = "bad TOML"
        case unknownKey = "unknown key"
        case wrongType = "wrong type"
        case badValue = "bad value"
        case unknownSensor = "unknown sensor id"
        case thresholdOrder = "threshold order"
        case unreadable = "unreadable file"
        case unsafePermissions = "unsafe permissions"
    }

    public var kind: Kind
    public var file: String
    /// 1-based; 0 when the line is not known.
    public var line: Int
    /// `delay`, `sensor[2].serious`; nil for whole-file problems.
    public var key: String?
    public var message: String
    public var expected: String?

    public init(kind: Kind, file: String, line: Int, key: String?, message: String, expected: String? = nil) {
        self.kind = kind
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.expected = expected
    }

    /// `config.toml:7: sensor[1].serious: wrong type: got a string, expected a number in °C (1 to 150)`.
    /// Cleaned of control characters: messages quote the file's own text (a value, a key, the
    /// file name), and printing an ESC from a hostile config must not drive the terminal.
    public var description: String {
        var s = file
        if line > 0 { s += ":\(line)" }
        s += ": "
        if let key { s += "\(key): " }
        s += "\(kind.rawValue): \(message)"
        if let expected { s += "; expected \(expected)" }
        return Format.clean(s)
    }
}

/// Every problem found in a config file, in line order.
package struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public init(_ problems: [ConfigProblem]) {
        self.problems = problems.sorted { ($0.line, $0.key ?? "") < ($1.line, $1.key ?? "") }
    }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
