import ArgumentParser
import ThermtopLinux
import ThermtopCore
#if canImport(Glibc)
import Glibc
#endif

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the thermal state, low power, tier, policy, sensors and batteries once.",
        discussion: """
            Exit status: 0 the state was measured; 64 bad invocation (unknown flag, bad \
            value, unusable --sysfs-root); 66 --sysfs-root is not a sysfs tree (no class/); \
            69 the state is not measured: no sensor was found \
            (containers, most VMs, a --sysfs-root with an empty class/) or none could be \
            read (the reason and "measured": false in the JSON say so); 74 the report could \
            not be written (standard output closed or full).
            """)

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions

    @Flag(help: "Print a versioned JSON object (schema thermtop.status/1) instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Decide from a recording (thermtop record) instead of live sensors.", valueName: "file"))
    var replay: String?

    // The dashboard's own `--replay` (root command) is parsed there even after `status`, so
    // the file may arrive in either.
    @ParentCommand var root: Thermtop
    var replayFile: String? { replay ?? root.replay }

    @Option(parsing: .unconditional, help: ArgumentHelp("With --replay: the moment, in seconds from the start (default: the end).", valueName: "seconds"))
    var at: Double?

    @Option(help: ArgumentHelp("Measure rates (watts, throttle counters) over this many seconds: two samples this far apart (default 0.5; 0 = one instant sample, rates unknown).", valueName: "seconds"))
    var window: Double?

    /// The default window: short, so `status` stays quick, and long enough for an energy
    /// counter to advance by many updates.
    static let defaultWindow = 0.5
    /// The longest window accepted (an energy counter's rate is not trusted over longer gaps).
    static let maximumWindow = 60.0

    func validate() throws {
        if let w = window, !(w.isFinite && w >= 0 && w <= Self.maximumWindow) {
            throw ValidationError("--window must be between 0 and \(Int(Self.maximumWindow)) seconds (got \(w)).")
        }
        if window != nil && replayFile != nil {
            throw ValidationError("--window measures live sensors; a replay's rates come from its recorded samples.")
        }
        // The root's dashboard options reach here too (`status --delay 5`): refused, not ignored.
        try root.rejectRootOptions(in: "status")
        if at != nil && replayFile == nil { throw ValidationError("--at needs --replay FILE.") }
        if let a = at, !(a.isFinite && a >= 0 && a <= RecordingFormat.maxSeconds) {
            throw ValidationError("--at must be between 0 and \(Format.fixed(RecordingFormat.maxSeconds, places: 0)) seconds from the start of the recording (got \(a)).")
        }
        if replayFile != nil && (source.sysfsRoot != nil || source.simulate) {
            throw ValidationError("--replay reads its sensors from the recording; drop --sysfs-root/--simulate.")
        }
    }

    @MainActor
    mutating func run() async throws { try report() }

    /// The whole command, synchronously (`Main` calls it on the main thread). Ends the process.
    @MainActor
    func report() throws -> Never { try StatusRun(self).report() }
}

/// Sleeps `seconds` on this thread (a one-shot's window between its two samples).
func pauseFor(_ seconds: Double) {
    var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var left = timespec()
    while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
}

/// `thermtop status` as plain values, and the command itself, made from a parsed `Status`.
struct StatusRun: Equatable {
    var source: SourceChoice
    var config: ConfigChoice
    var json = false
    var replayFile: String?
    var at: Double?
    var window = Status.defaultWindow

    init(source: SourceChoice, config: ConfigChoice, json: Bool, replayFile: String? = nil, at: Double? = nil,
         window: Double = Status.defaultWindow) {
        self.window = window
        self.source = source
        self.config = config
        self.json = json
        self.replayFile = replayFile
        self.at = at
    }

    init(_ command: Status) {
        var source = command.source.choice
        // Who is heating it: on by default in `status` (a walk of /proc over the window).
        source.heatSources = true
        self.init(source: source, config: command.config.choice, json: command.json,
                  replayFile: command.replayFile, at: command.at, window: command.window ?? Status.defaultWindow)
    }

    /// Writes the report and ends the process: exit 0, or 69 when sensors exist but none could
    /// be read (74 and 64 leave from `StandardStreams` and the thrown usage errors). A reading
    /// abandoned past its deadline may still hold a thread in the kernel, so the process exits
    /// here rather than waiting for the engine to be torn down.
    @MainActor
    func report() throws -> Never {
        StandardStreams.guardClosedDescriptors()
        try StandardStreams.requireStdout()
        let cfg = try config.load()
        let source = try self.source.applying(cfg)
        let status: MonitorStatus
        // What must stay alive until the process ends (see above).
        var engine: (ThermalStatusHub, LinuxWakeSources?)?
        if let replay = replayFile {
            status = try replayStatus(replay, config: cfg.applied())
        } else {
            // The same engine the dashboard and the library run: its first reading (discovery and
            // one sample, each read bounded by the read deadline) is the report. Not started, so
            // this thread is the one that makes and reads the event sources.
            // The D-Bus source first (the sysfs source reads the profile through it); the
            // kernel's sources, which the report only lists, are opened while the first reading
            // is made on its reading thread.
            let thermal = cfg.applied()
            let powerProfiles = source.makePowerProfiles(config: thermal)
            var wake: LinuxWakeSources?
            let sensors = source.makeSource(powerProfiles: powerProfiles)
            let hub = ThermalStatusHub(source: sensors,
                                       clock: SystemClock(), config: thermal, overrides: source.overrides)
            var live = hub.current(whileReading: { wake = source.makeWakeSources(powerProfiles: powerProfiles) })
            if window > 0 {
                // The second sample of the window: rates (watts, throttle counters) over it.
                pauseFor(window)
                live = hub.sample().status
            }
            live.eventSources = wake?.states ?? []
            status = live
            engine = (hub, wake)
        }
        for w in ConfigOptions.warnings(cfg, status: status) { printError("thermtop: warning: \(w)") }
        // Written from where it was made, not copied into an array first.
        if json {
            try ThermalStatusReport.withJSONLine(status, version: ThermtopInfo.version) { try StandardStreams.write($0) }
        } else {
            var report = ThermalStatusReport.text(status, units: cfg.units ?? .celsius)
            try report.withUTF8 { try StandardStreams.write($0) }
        }
        withExtendedLifetime(engine) {
            exit(status.assessment.nothingReadable ? StatusExit.nothingReadable : StatusExit.ok)
        }
    }

    /// Feed the recording through the monitor up to `--at` (every sample, in order, so
    /// hysteresis, the throttle window and the forecast's history are what they were live).
    @MainActor
    func replayStatus(_ file: String, config: ThermalConfig) throws -> MonitorStatus {
        let recording = try loadRecording(file, command: " status")
        let end = recording.samples.last!.time
        if let at, at > end + 1e-9 {
            printError("thermtop status: --at \(Format.fixed(at, places: 1)) is past the end of the recording (\(Format.fixed(end, places: 1)) s)")
            throw ExitCode(StatusExit.usage)
        }
        var driver = ReplayDriver(recording: recording, fileLabel: file, config: config, overrides: source.overrides)
        driver.run(through: at ?? end)
        return driver.status
    }
}
