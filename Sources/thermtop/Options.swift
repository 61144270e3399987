import ArgumentParser
import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

extension ThermalState: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

enum OnOff: String, ExpressibleByArgument, CaseIterable {
    case on, off
    var bool: Bool { self == .on }
}

/// Options shared by the dashboard and every subcommand that reads sensors.
struct SourceOptions: ParsableArguments {
    @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Read sensors from this sysfs tree instead of /sys.", valueName: "dir"))
    var sysfsRoot: String?

    @Option(name: .customLong("proc-root"), help: ArgumentHelp("Read processes (heat sources) from this tree laid out like /proc instead of /proc.", valueName: "dir"))
    var procRoot: String?

    @Flag(help: "Use the simulated laptop instead of real sensors.")
    var simulate = false

    @Option(name: .customLong("simulate-state"), help: ArgumentHelp("Force the thermal state (reported as simulated); on the dashboard, keys 1-4 change it and 0 returns to live.", valueName: "state"))
    var simulateState: ThermalState?

    @Option(name: .customLong("low-power"), help: ArgumentHelp("Force low power on or off (reported as simulated); on the dashboard, key l toggles it.", valueName: "on|off"))
    var lowPower: OnOff?

    @Option(name: .customLong("ppd-state"), help: ArgumentHelp("power-profiles-daemon state file (default: /var/lib/power-profiles-daemon/state.ini for the live /sys).", valueName: "file"))
    var ppdState: String?

    /// The same choices as plain values (what the commands act on).
    var choice: SourceChoice {
        SourceChoice(sysfsRoot: sysfsRoot, simulate: simulate, simulateState: simulateState, lowPower: lowPower,
                     ppdState: ppdState, procRoot: procRoot)
    }

    func validate() throws { try choice.validate() }

    /// The config file's `proc_root` where `--proc-root` is not given (not for the simulated
    /// laptop, which has no processes); checked as the flag is.
    mutating func apply(_ cfg: UserConfig) throws {
        procRoot = try choice.applying(cfg).procRoot
    }

    /// The checks on a `--sysfs-root` directory (also used by `record` and `capture`).
    static func validateRoot(_ root: String) throws { try SourceChoice.validateRoot(root) }

    var overrides: ThermalOverrides { choice.overrides }

    /// The source the options ask for. `powerProfiles` (from `makePowerProfiles`) gives the live
    /// machine's source its D-Bus profile.
    func makeSource(powerProfiles: PowerProfilesSource? = nil) -> any ThermalSensorSource {
        choice.makeSource(powerProfiles: powerProfiles)
    }

    /// The real sensors: `--sysfs-root` or the live `/sys` (what `0` goes back to).
    func makeLiveSource(powerProfiles: PowerProfilesSource? = nil) -> any ThermalSensorSource {
        choice.makeLiveSource(powerProfiles: powerProfiles)
    }
}

/// `SourceOptions` as plain values, and what they make.
struct SourceChoice: Equatable {
    var sysfsRoot: String?
    var simulate = false
    var simulateState: ThermalState?
    var lowPower: OnOff?
    var ppdState: String?
    /// `--proc-root`: the process table heat sources read (default `/proc`).
    var procRoot: String?
    /// Whether the commands walk the process table for heat sources (`status` and the
    /// dashboard do; the rest opt in).
    var heatSources = false

    func validate() throws {
        if let root = sysfsRoot {
            if simulate { throw ValidationError("--sysfs-root and --simulate cannot be used together.") }
            try Self.validateRoot(root)
        }
        if let root = procRoot {
            if simulate { throw ValidationError("--proc-root and --simulate cannot be used together.") }
            try Self.validateRoot(root, flag: "--proc-root")
        }
    }

    /// These choices with the config file's `proc_root` where `--proc-root` is not given.
    func applying(_ cfg: UserConfig) throws -> SourceChoice {
        guard procRoot == nil, !simulate, let root = cfg.procRoot else { return self }
        try Self.validateRoot(root, flag: "proc_root (\(cfg.path ?? "config"))")
        var c = self
        c.procRoot = root
        return c
    }

    /// The process table reader for heat sources, nil when they are not asked for.
    func makeProcessReader(config: ThermalConfig = ThermalConfig()) -> ThermalProcessTableReader? {
        heatSources && !simulate ? ThermalProcessTableReader(path: procRoot ?? "/proc", config: config) : nil
    }

    static func validateRoot(_ root: String, flag: String = "--sysfs-root") throws {
            if root.isEmpty { throw ValidationError("\(flag) needs a directory (got an empty string).") }
            var st = stat()
            guard stat(root, &st) == 0 else {
                let code = errno
                switch code {
                case ENOENT: throw ValidationError("\(flag) \(root): no such directory.")
                case ELOOP: throw ValidationError("\(flag) \(root): symbolic link loop (too many levels of symbolic links).")
                case ENOTDIR: throw ValidationError("\(flag) \(root): a part of the path is not a directory.")
                case EACCES: throw ValidationError("\(flag) \(root): permission denied.")
                default: throw ValidationError("\(flag) \(root): \(String(cString: strerror(code))).")
                }
            }
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw ValidationError("\(flag) \(root): not a directory.")
            }
            guard access(root, R_OK | X_OK) == 0 else {
                throw ValidationError("\(flag) \(root): permission denied.")
            }
            // `/` is a directory but never a sysfs tree: reading class/ under it finds nothing
            // and would report "no sensors" about the wrong place.
            if let real = try? Syscalls.realpath(root) {
                if real == "/" {
                    throw ValidationError("\(flag) \(root) is the filesystem root, not \(flag == "--proc-root" ? "a process table; the live one is /proc" : "a sysfs tree; the live sysfs is /sys") (the default).")
                }
            }
            // A folder that is not a sysfs tree (a capture one level too deep or too high, a
            // typo) would read as "no sensors"; say what it is instead, with its own status.
            // A tree holds class/ (sensors, supplies), devices/, or bus/ (GPUs by PCI id) at least.
            // A process table has none of these: a bare table of pid folders is one.
            if flag == "--sysfs-root", !["class", "devices", "bus"].contains(where: { isDirectory(root + "/" + $0) }) {
                let hint = isDirectory(root + "/sys/class") ? " (did you mean \(root)/sys?)"
                    : root.hasSuffix("/class") || root == "class" ? " (did you mean the folder above it?)" : ""
                printError("thermtop: --sysfs-root \(Format.clean(root)) is not a sysfs tree: it has no class/ folder (nor devices/ or bus/)\(Format.clean(hint)).")
                throw ExitCode(StatusExit.notSysfsTree)
            }
    }

    var overrides: ThermalOverrides { ThermalOverrides(thermalState: simulateState, lowPower: lowPower?.bool) }

    func makeSource(powerProfiles: PowerProfilesSource? = nil) -> any ThermalSensorSource {
        simulate ? SimulatedLaptop() : makeLiveSource(powerProfiles: powerProfiles)
    }

    func makeLiveSource(powerProfiles: PowerProfilesSource? = nil) -> any ThermalSensorSource {
        let path = sysfsRoot ?? "/sys"
        let sysfs = ppdState.map { SysfsSource(root: SysfsRoot(path: path), ppdStatePath: $0) } ?? SysfsSource(path: path)
        sysfs.powerProfiles = powerProfiles
        // A capture's own heat sources, unless a process table is named (--proc-root wins).
        if heatSources && !simulate && procRoot == nil, let root = sysfsRoot, let captured = RecordedHeatSources.captured(root: root) {
            sysfs.capturedHeatSources = captured
        } else {
            sysfs.processes = makeProcessReader()
        }
        return sysfs
    }

    /// Whether the options get the live machine's event sources (uevent, thermal netlink, power
    /// profiles over D-Bus): not --simulate or --sysfs-root trees, which the kernel's events are
    /// not about.
    var hasWakeSources: Bool { !simulate && LinuxWakeSources.apply(toRoot: sysfsRoot ?? "/sys") }

    /// The D-Bus power-profiles source, made first (the sysfs source reads the profile through
    /// it); nil without event sources, or when --ppd-state names the file to read. `config` is
    /// the one the command runs with (its read deadline bounds the first D-Bus read).
    func makePowerProfiles(config: ThermalConfig) -> PowerProfilesSource? {
        hasWakeSources && ppdState == nil ? LinuxWakeSources.powerProfiles(config: config) : nil
    }

    /// The event sources, with `powerProfiles` from `makePowerProfiles`; nil without them.
    func makeWakeSources(powerProfiles: PowerProfilesSource?) -> LinuxWakeSources? {
        hasWakeSources ? LinuxWakeSources(powerProfiles: powerProfiles) : nil
    }
}

extension SourceOptions {
    /// The engine every long-running command drives (dashboard, `watch`, `export --every`):
    /// the simulated laptop, or the real sensors (`--sysfs-root` or the live `/sys`, which alone
    /// gets the kernel's and the desktop's event sources). Not started: call `start()`. Its
    /// `current` is already a real reading, which is all the one-shot commands need.
    /// `heatSources`: walk the process table each sample (the dashboard does).
    func makeHub(config: ThermalConfig, overrides: ThermalOverrides, delay: Double, simulated: Bool? = nil,
                 heatSources: Bool = false) -> ThermalStatusHub {
        if simulated ?? simulate {
            return ThermalStatusHub(source: SimulatedLaptop(), clock: SystemClock(), config: config, overrides: overrides,
                                    delay: delay)
        }
        let root = sysfsRoot ?? "/sys"
        // --ppd-state names the file to read: the D-Bus profile would override it.
        let none: @Sendable (any ThermalSensorSource) -> [any MonitorWakeSource] = { _ in [] }
        let wake = ppdState == nil ? SysfsSource.wakeSources(forRoot: root) : none
        var choice = self.choice
        choice.heatSources = heatSources
        return ThermalStatusHub(source: choice.makeLiveSource(), clock: SystemClock(), config: config,
                                overrides: overrides, delay: delay, wakeSources: wake)
    }
}

/// The root command's own options that only some commands use. ArgumentParser also accepts
/// them after a subcommand's name (`thermtop status --delay 5`); given to a subcommand that
/// does not use it, one is an error (exit 64), never silently ignored. Each option's flag is
/// its case here, and its declaration takes its name from it.
enum RootOption: String, CaseIterable {
    case delay
    case noColor = "no-color"
    case ascii
    case onChange = "on-change"
    case onChangeMinInterval = "on-change-min-interval"
    case onChangeTimeout = "on-change-timeout"
    case onChangeSimulated = "on-change-simulated"

    var flag: String { "--" + rawValue }
    var name: NameSpecification { .customLong(rawValue) }

    /// The on-change hook's options (the dashboard's and `watch`'s).
    static let onChangeHook: Set<RootOption> = [.onChange, .onChangeMinInterval, .onChangeTimeout, .onChangeSimulated]

    /// The commands it applies to, as a refusal says it.
    var usedBy: String {
        switch self {
        case .delay: "the dashboard, watch and record; export repeats with --every"
        case .noColor, .ascii: "the dashboard"
        case .onChange, .onChangeMinInterval, .onChangeTimeout, .onChangeSimulated: "the dashboard and watch"
        }
    }
}

/// `--delay`: the seconds between samples, and its one rule.
struct DelayOption: ParsableArguments {
    // `.unconditional`: `--delay -1` must reach validate() and get the range message, not
    // "Missing value" (the default strategy takes -1 for a flag).
    @Option(name: RootOption.delay.name, parsing: .unconditional, help: ArgumentHelp("Seconds between sensor samples (0.2 to 3600; default 1 or the config's delay).", valueName: "seconds"))
    var delay: Double?

    func validate() throws { try Self.check(delay) }

    static func check(_ delay: Double?) throws {
        if let delay, !(delay.isFinite && UserConfig.delayRange.contains(delay)) {
            throw ValidationError("--delay must be between 0.2 and 3600 seconds (got \(delay)).")
        }
    }
}

/// The root command's `RootOption`s: the dashboard's screen, its sampling and its hook.
struct DashboardOptions: ParsableArguments {
    @OptionGroup var hook: OnChangeOptions
    @OptionGroup var timing: DelayOption

    @Flag(name: RootOption.noColor.name, help: "Monochrome (also when NO_COLOR is set).")
    var noColor = false

    @Flag(name: RootOption.ascii.name, help: "ASCII bars, sparklines and boxes instead of Unicode.")
    var ascii = false

    func isGiven(_ option: RootOption) -> Bool {
        switch option {
        case .delay: timing.delay != nil
        case .noColor: noColor
        case .ascii: ascii
        case .onChange: hook.onChange != nil
        case .onChangeMinInterval: hook.minInterval != nil
        case .onChangeTimeout: hook.timeout != nil
        case .onChangeSimulated: hook.simulated
        }
    }
}

extension Thermtop {
    /// `record` and `capture` read no config file (they keep what sysfs says; no threshold
    /// plays a part). `--config` and `--no-config` given to them reach the root command, which
    /// every other command shares them with, so they are refused here, not silently ignored.
    func rejectConfigOptions(in command: String) throws {
        let given = [config.configFile != nil ? "--config" : nil, config.noConfig ? "--no-config" : nil].compactMap { $0 }
        guard !given.isEmpty else { return }
        throw ValidationError("`thermtop \(command)` reads no config file, so it does not use \(given.joined(separator: " or ")).")
    }

    /// Throws a usage error naming the root options given to `command` that it does not use.
    func rejectRootOptions(in command: String, uses: Set<RootOption> = []) throws {
        let unused = RootOption.allCases.filter { dashboard.isGiven($0) && !uses.contains($0) }
        guard !unused.isEmpty else { return }
        let what = unused.map { "\($0.flag) is for \($0.usedBy)" }.joined(separator: "; ")
        let once = command == "status" || command == "config" ? " prints once and" : ""
        throw ValidationError("`thermtop \(command)`\(once) does not use \(unused.map(\.flag).joined(separator: ", ")) (\(what)).")
    }
}

/// Whether `path` is a directory (following links).
func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

/// `record` and `capture`: heat sources are kept as measured (command names, counts, CPU,
/// watts), full command lines only when asked, since they can hold secrets.
struct HeatSourceKeeping: ParsableArguments {
    @Option(name: .customLong("proc-root"), help: ArgumentHelp("Read processes (heat sources) from this tree laid out like /proc instead of /proc.", valueName: "dir"))
    var procRoot: String?

    @Flag(name: .customLong("command-lines"), help: "Keep each heat source's full command lines too (they can hold secrets; off by default: command names, counts, CPU and watts only).")
    var commandLines = false

    @Flag(name: .customLong("no-heat-sources"), help: "Leave out the heat sources (no walk of the process table).")
    var noHeatSources = false

    var walks: Bool { !noHeatSources }

    /// `rootProcRoot`: a `--proc-root` the root command parsed instead.
    func validate(rootProcRoot: String?) throws {
        if let proc = procRoot ?? rootProcRoot { try SourceChoice.validateRoot(proc, flag: "--proc-root") }
        if noHeatSources && (commandLines || (procRoot ?? rootProcRoot) != nil) {
            throw ValidationError("--no-heat-sources leaves out the process table: --command-lines and --proc-root do not apply.")
        }
    }

    /// The process table reader, nil with --no-heat-sources.
    func reader(rootProcRoot: String?) -> ThermalProcessTableReader? {
        walks ? ThermalProcessTableReader(path: procRoot ?? rootProcRoot ?? "/proc") : nil
    }
}
