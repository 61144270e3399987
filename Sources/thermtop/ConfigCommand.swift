import ArgumentParser
import ThermtopConfig
import ThermtopLinux
import ThermtopCore

/// `--config FILE` / `--no-config`, shared by the dashboard, `status`, `watch`, `export` and
/// `config --check`.
struct ConfigOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Read this config file instead of $XDG_CONFIG_HOME/thermtop/config.toml.", valueName: "file"))
    var configFile: String?

    @Flag(name: .customLong("no-config"), help: "Ignore the config file.")
    var noConfig = false

    /// The same choice as plain values.
    var choice: ConfigChoice { ConfigChoice(configFile: configFile, noConfig: noConfig) }

    func validate() throws { try choice.validate() }

    /// The file that would be read: `--config`, else the default path (which may not exist).
    var path: (path: String, required: Bool)? { choice.path }

    /// The config in force. A broken file stops the command before anything starts, with every
    /// problem on stderr and exit code 78 (EX_CONFIG).
    func load() throws -> UserConfig { try choice.load() }

    /// Warnings for rules that match none of `sensors` (not fatal outside `config --check`).
    /// Also says when `on_change` was refused (a file or folder others can write).
    static func warnings(_ config: UserConfig, status: MonitorStatus) -> [String] {
        let refused = config.onChangeRefused.map { [$0.description] } ?? []
        // Without a rule there is nothing to match: the sensors are not listed again (a
        // catalogue pass over the snapshot, a measurable part of a one-shot `status`).
        guard !config.sensors.isEmpty else { return refused }
        return refused + ConfigFile.unknownSensors(config, sensors: status.snapshot.temperatureSensors, others: status.power.map(\.id)).map(\.description)
    }
}

/// `ConfigOptions` as plain values, and the config they give.
struct ConfigChoice: Equatable {
    var configFile: String?
    var noConfig = false

    func validate() throws {
        if noConfig && configFile != nil { throw ValidationError("--config and --no-config cannot be used together.") }
    }

    var path: (path: String, required: Bool)? {
        if noConfig { return nil }
        if let f = configFile { return (f, true) }
        return ConfigFile.defaultPath(environment: ConfigFile.processEnvironment()).map { ($0, false) }
    }

    func load() throws -> UserConfig {
        guard let (path, required) = path else { return .empty }
        switch ConfigFile.load(path, required: required, parse: ConfigParser.parse) {
        case .success(let c): return c ?? .empty
        case .failure(let e) where !required && e.problems.allSatisfy({ $0.kind == .unreadable }):
            // The default location cannot be read (run as another user whose HOME is not
            // theirs, say): go on without it, but say so.
            printError("thermtop: warning: ignoring \(path): \(e.problems.map(\.message).joined(separator: "; ")) (use --config FILE or --no-config).")
            return .empty
        case .failure(let e):
            printError("thermtop: the config file has \(e.problems.count == 1 ? "a problem" : "\(e.problems.count) problems"):")
            for p in e.problems { printError("  \(p)") }
            printError("(`thermtop config --check` checks it; `--no-config` ignores it.)")
            throw ExitCode(78)
        }
    }
}

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print an example config file, or check one.",
        discussion: """
            The file is $XDG_CONFIG_HOME/thermtop/config.toml (~/.config/thermtop/config.toml) \
            unless --config names another. --check reports every problem with file, line and \
            key (bad TOML, unknown keys, wrong types, bad values, thresholds out of order, \
            sensor rules that match no sensor of the current source, and an on_change in a \
            file or folder that group or others can write) and exits 78 when there \
            is one, 0 when the file is good.
            """)

    @Flag(name: .customLong("print-default"), help: "Print a commented example config.")
    var printDefault = false

    @Flag(help: "Check the config file (and its sensor ids against the current source).")
    var check = false

    @OptionGroup var config: ConfigOptions
    @OptionGroup var source: SourceOptions

    // The root's dashboard options reach here too: refused, not ignored.
    @ParentCommand var root: Thermtop

    func validate() throws {
        try root.rejectRootOptions(in: "config")
        if printDefault == check { throw ValidationError("Give exactly one of --print-default or --check.") }
        if check && config.noConfig { throw ValidationError("--check needs a config file; drop --no-config.") }
    }

    @MainActor
    mutating func run() async throws {
        // `config --print-default > config.toml` on a full disk must not end with 0 and half a
        // file: the text goes out through the report's checked writes (74 on failure).
        if printDefault {
            try StandardStreams.requireStdout()
            var text = ConfigFile.defaultText
            try text.withUTF8 { try StandardStreams.write($0) }
            return
        }
        guard let (path, _) = config.path else {
            printError("thermtop: no config file: set HOME or XDG_CONFIG_HOME, or pass --config FILE.")
            throw ExitCode(78)
        }
        let result = ConfigFile.load(path, required: true, parse: ConfigParser.parse)
        var problems: [ConfigProblem] = []
        var loaded: UserConfig?
        switch result {
        case .success(let c):
            loaded = c
            if let refused = c?.onChangeRefused { problems.append(refused) }
        case .failure(let e): problems = e.problems
        }
        if let c = loaded {
            // The engine every command runs; its first reading lists the sensors to match.
            let status = source.makeHub(config: c.applied(), overrides: .none, delay: 1).current
            problems += ConfigFile.unknownSensors(c, sensors: status.snapshot.temperatureSensors, others: status.power.map(\.id))
        }
        if problems.isEmpty {
            let rules = loaded?.sensors.count ?? 0
            var text = "\(path): OK (\((loaded?.summary.count ?? 0) - rules) settings, \(rules) sensor rule\(rules == 1 ? "" : "s"))\n"
            for line in loaded?.summary ?? [] { text += "  \(line)\n" }
            try StandardStreams.requireStdout()
            try text.withUTF8 { try StandardStreams.write($0) }
            return
        }
        for p in problems.sorted(by: { $0.line < $1.line }) { printError(p.description) }
        printError("\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
        throw ExitCode(78)
    }
}
