import ThermtopCore

/// What the config file set and how the on-change command is doing, for the debug overlay.
public struct ConfigInfo: Sendable, Equatable {
    /// The file read, nil when none was (missing, or --no-config).
    public var path: String?
    /// One line per option the file sets (`UserConfig.summary`).
    public var lines: [String]
    /// Rules that match no sensor now, and similar non-fatal problems.
    public var warnings: [String]
    /// The `--on-change` command, if any.
    public var onChange: String?
    public var onChangeRuns = 0
    public var onChangeFailures = 0
    public var onChangeLastFailure: String?

    public init(path: String? = nil, lines: [String] = [], warnings: [String] = [], onChange: String? = nil) {
        self.path = path
        self.lines = lines
        self.warnings = warnings
        self.onChange = onChange
    }

    /// The overlay's lines: `from config: …` for each option, then warnings and the hook.
    public var overlayLines: [String] {
        var out: [String] = []
        if let path { out.append("config file \(path)") } else { out.append("config file: none") }
        for l in lines { out.append("from config: \(l)") }
        for w in warnings { out.append("warning: \(w)") }
        if let c = onChange {
            var l = "on-change: \(c) · runs \(onChangeRuns) · failures \(onChangeFailures)"
            if let f = onChangeLastFailure { l += " (last: \(f))" }
            out.append(l)
        }
        return out
    }
}
