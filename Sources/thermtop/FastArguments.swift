import ArgumentParser
import ThermtopCore

/// The few invocations a script or a user types most (`thermtop`, `thermtop status [--json]`,
/// `thermtop --version`, plain flags and a few `--name value` options), parsed without
/// ArgumentParser's machinery. Its parse builds every command's argument set by reflection
/// (Mirror, protocol-conformance scans, `Decodable` through its own decoder) on every start:
/// about half of `thermtop --version`'s run time and a good part of its touched pages
/// (`Benchmarks/oneshot.sh`, README "Performance").
///
/// The rule: this either returns exactly the value `Thermtop.parseAsRoot` would (same command,
/// same fields, validated the same way; for `status`, the same values as plain `StatusRun`,
/// so no ArgumentParser struct is built at all on a one-shot's path) or declines with nil, and
/// ArgumentParser parses as always. It declines everything it does not fully understand: help, `--name=value`, `--`,
/// short or abbreviated names, repeats, values that look like options, any other subcommand or
/// option, and any invocation whose validation fails (so every error message is still
/// ArgumentParser's). `FastArgumentsTests` checks the equivalence on a corpus of vectors.
enum FastArguments {
    enum Parsed {
        /// `--version`: the text ArgumentParser prints (exit 0).
        case version(String)
        /// `status`, as plain values (no ArgumentParser struct is built).
        case status(StatusRun)
        case command(any ParsableCommand)
    }

    /// `arguments` without the program name.
    static func parse(_ arguments: [String]) -> Parsed? {
        if arguments == ["--version"] { return .version(ThermtopInfo.version) }
        var rest = arguments[...]
        let status = rest.first == "status"
        if status { rest.removeFirst() }

        var sysfsRoot: String?, simulate = false, simulateState: ThermalState?, lowPower: OnOff?, ppdState: String?
        var configFile: String?, noConfig = false
        var json = false, noColor = false, ascii = false, delay: Double?
        var seen: [String] = []
        while let name = rest.popFirst() {
            if seen.contains(name) { return nil }
            seen.append(name)
            switch name {
            // Flags of the groups both commands share: ArgumentParser gives them to the root
            // wherever they stand, and the subcommand's group of the same type reuses the
            // root's value.
            case "--simulate": simulate = true
            case "--no-config": noConfig = true
            case "--json" where status: json = true
            case "--no-color" where !status: noColor = true
            case "--ascii" where !status: ascii = true
            case "--sysfs-root", "--simulate-state", "--low-power", "--ppd-state", "--config", "--delay":
                // The value is the next argument, as long as it cannot be read as an option.
                guard let value = rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
                switch name {
                case "--sysfs-root": sysfsRoot = value
                case "--ppd-state": ppdState = value
                case "--config": configFile = value
                case "--simulate-state":
                    guard let s = ThermalState(argument: value) else { return nil }
                    simulateState = s
                case "--low-power":
                    guard let l = OnOff(argument: value) else { return nil }
                    lowPower = l
                default:
                    // `--delay` after `status` is refused by its validation (so declined below).
                    guard let d = Double(argument: value) else { return nil }
                    delay = d
                }
            default: return nil
            }
        }

        if status {
            // What Status's validation checks of these (a root option after `status` is
            // refused there: declined here).
            guard delay == nil, !noColor, !ascii else { return nil }
            let run = StatusRun(
                source: SourceChoice(sysfsRoot: sysfsRoot, simulate: simulate, simulateState: simulateState,
                                     lowPower: lowPower, ppdState: ppdState),
                config: ConfigChoice(configFile: configFile, noConfig: noConfig), json: json)
            do {
                try run.source.validate()
                try run.config.validate()
            } catch {
                return nil
            }
            return .status(run)
        }

        var source = SourceOptions()
        source.sysfsRoot = sysfsRoot
        source.simulate = simulate
        source.simulateState = simulateState
        source.lowPower = lowPower
        source.ppdState = ppdState
        var config = ConfigOptions()
        config.configFile = configFile
        config.noConfig = noConfig
        var hook = OnChangeOptions()
        hook.onChange = nil
        hook.minInterval = nil
        var root = Thermtop()
        root.source = source
        root.config = config
        root.hook = hook
        root.delay = delay
        root.noColor = noColor
        root.ascii = ascii
        root.replay = nil
        root.speed = nil
        // The checks ArgumentParser runs, in its order: each option group as it is decoded,
        // then the command; a subcommand's groups again (reused from the root), then it.
        do {
            try source.validate()
            try config.validate()
            try hook.validate()
            try root.validate()
            return .command(root)
        } catch {
            return nil
        }
    }
}
