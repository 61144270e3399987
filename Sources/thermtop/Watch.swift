import ArgumentParser
import ThermtopLinux
import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

/// `--on-change`, `--on-change-min-interval`, `--on-change-timeout` and
/// `--on-change-simulated`, for the dashboard and `watch`.
struct OnChangeOptions: ParsableArguments {
    @Option(name: RootOption.onChange.name, help: ArgumentHelp(
        "Run COMMAND on every change of thermal state, low power or tier (split into words, no shell; values in THERMTOP_STATE, THERMTOP_TIER, THERMTOP_LOW_POWER, THERMTOP_REASON, THERMTOP_PREVIOUS_STATE, THERMTOP_SIMULATED=0|1). One run at a time: changes while it runs wait, and the latest runs after it. Simulated changes (forced state or low power, --simulate) do not run it unless --on-change-simulated is given.",
        valueName: "command"))
    var onChange: String?

    // `.unconditional`: `-1` must reach validate() and get the range message.
    @Option(name: RootOption.onChangeMinInterval.name, parsing: .unconditional, help: ArgumentHelp(
        "Run the on-change command at most once per this many seconds (default 10); the last change still runs when the interval ends.",
        valueName: "seconds"))
    var minInterval: Double?

    // `.unconditional`: `-1` must reach validate() and get the range message.
    @Option(name: RootOption.onChangeTimeout.name, parsing: .unconditional, help: ArgumentHelp(
        "Stop a run of the on-change command that takes longer than this many seconds (0.1 to 86400; default 30): SIGTERM to its process group, SIGKILL 2 s later.",
        valueName: "seconds"))
    var timeout: Double?

    @Flag(name: RootOption.onChangeSimulated.name, help: ArgumentHelp(
        "Also run the on-change command for simulated changes (keys 1-4 and l in the dashboard, --simulate-state, --simulate); THERMTOP_SIMULATED=1 tells it so."))
    var simulated = false

    static let defaultMinInterval = 10.0
    static let defaultTimeout = 30.0

    func validate() throws {
        if let c = onChange {
            if let why = CommandLineWords.problem(c) { throw ValidationError("--on-change: \(why).") }
            if CommandLineWords.split(c).isEmpty { throw ValidationError("--on-change: the command is empty.") }
        }
        if let m = minInterval, !(m.isFinite && UserConfig.onChangeIntervalRange.contains(m)) {
            throw ValidationError("--on-change-min-interval must be between 0 and 86400 seconds (got \(m)).")
        }
        if let t = timeout, !(t.isFinite && UserConfig.onChangeTimeoutRange.contains(t)) {
            throw ValidationError("--on-change-timeout must be between 0.1 and 86400 seconds (got \(t)).")
        }
    }

    /// The command and interval in force: flags win over the config file.
    func resolved(_ config: UserConfig) -> (command: String, interval: Double)? {
        guard let c = onChange ?? config.onChange else { return nil }
        return (c, minInterval ?? config.onChangeMinInterval ?? Self.defaultMinInterval)
    }

    /// The timeout in force: the flag, else the config file's, else 30 s.
    func timeout(_ config: UserConfig) -> Double { timeout ?? config.onChangeTimeout ?? Self.defaultTimeout }
}

/// Runs the on-change command as the schedule allows, for a loop that samples. One thread at a
/// time: the dashboard calls it with its display locked.
final class OnChangeHook {
    let runner: CommandRunner
    var schedule: OnChangeSchedule
    /// `--on-change-simulated`: simulated changes run the command too.
    let simulatedAllowed: Bool

    init(command: String, interval: Double, output: CommandRunner.Output, initial: MonitorStatus, simulatedAllowed: Bool,
         timeout: Double = OnChangeOptions.defaultTimeout) {
        runner = CommandRunner(command: command, output: output, timeout: timeout)
        self.simulatedAllowed = simulatedAllowed
        // Starting on the simulated laptop without the flag: the measured view of a real
        // machine is never seen, so the schedule starts from the status as is and never runs.
        let start = ChangeKey.hookView(of: initial, simulatedAllowed: simulatedAllowed)?.key ?? ChangeKey(initial)
        schedule = OnChangeSchedule(minInterval: interval, initial: start)
    }

    /// After every sample (and on wakeups for a pending change).
    func observe(_ status: MonitorStatus, now: Double) {
        runner.reap(now: now)
        guard let view = ChangeKey.hookView(of: status, simulatedAllowed: simulatedAllowed) else { return }
        if let r = schedule.observe(view.key, reason: view.reason, at: now) { runner.run(r, now: now) }
    }

    func poll(now: Double) {
        runner.reap(now: now)
        if let r = schedule.due(at: now) { runner.run(r, now: now) }
    }

    /// When `poll` next has something to do: a change held by the interval, the running
    /// command's timeout, or a change waiting for the running command.
    func nextDue(now: Double) -> Double? {
        [schedule.nextDue, runner.nextDeadline(now: now)].compactMap { $0 }.min()
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print one line per change of thermal state, low power or tier (no screen).",
        discussion: """
            Prints the current state first, then a line on every change. With --json, each line \
            is a JSON object with the header fields of `status --json` (schema, source, \
            thermal_state, reason, low_power, tier, policy …) plus `event` (start or change), \
            `changed` and `time`. Exits with status 3 and a message when the source disappears.
            """)

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions
    @OptionGroup var hook: OnChangeOptions

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @OptionGroup var timing: DelayOption

    // The root's dashboard options reach here too: refused, not ignored (watch's own --delay
    // and --on-change options are its own).
    @ParentCommand var root: Thermtop

    func validate() throws {
        try root.rejectRootOptions(in: "watch", uses: RootOption.onChangeHook.union([.delay]))
    }

    @MainActor
    mutating func run() async throws {
        // A closed pipe is an EPIPE from write, handled where the line is written (exit 0),
        // not a SIGPIPE death (141). The hook's children get the default action back.
        signal(SIGPIPE, SIG_IGN)
        StandardStreams.guardClosedDescriptors()
        try StandardStreams.requireStdout()
        let cfg = try config.load()
        try source.apply(cfg)
        let delay = timing.delay ?? cfg.delay ?? 1
        // The dashboard's engine, started: it samples on its own thread every `delay` and at
        // once when the kernel or the desktop says something changed (charger plugged, trip
        // crossed, profile switched, device added or removed), so a change prints within
        // milliseconds instead of at the next poll, and a hung sensor read never stalls us.
        // With a hook, the reason it gets names the processes heating the machine
        // (THERMTOP_REASON): the process table is walked each sample, as the dashboard does.
        let hub = source.makeHub(config: cfg.applied(), overrides: source.overrides, delay: delay,
                                 heatSources: hook.resolved(cfg) != nil)
        var status = hub.current
        for w in ConfigOptions.warnings(cfg, status: status) { printError("thermtop: warning: \(w)") }
        if let why = Self.gone(status, hadSensors: false) {
            printError("thermtop: \(why)")
            throw ExitCode(3)
        }
        let hadSensors = !status.snapshot.isEmpty
        let units = cfg.units ?? .celsius
        emit(status, previous: nil, units: units)
        let hook = hook.resolved(cfg).map { OnChangeHook(command: $0.command, interval: $0.interval, output: .stderr, initial: status,
                                                         simulatedAllowed: self.hook.simulated, timeout: self.hook.timeout(cfg)) }
        // Ctrl-C, a closed terminal or a `kill` ends the loop here, so a running hook is
        // stopped rather than left behind.
        WatchStop.install()
        hub.start()
        defer { hub.stop() }
        while true {
            if let sig = WatchStop.received {
                hook?.runner.stop()
                throw ExitCode(128 + sig)
            }
            let wake = waitReadable(hub.wakeDescriptor, until: hook?.nextDue(now: hub.clock.now()), clock: hub.clock,
                                    watchingOutput: true)
            if wake == .outputGone {
                // `watch | head -1` on a machine whose state does not change: the reader is gone
                // and no next line would ever tell us, so stop now, as EPIPE would (exit 0).
                hook?.runner.stop()
                throw ExitCode.success
            }
            if wake == .readable {
                hub.consumeWake()
                let previous = status
                status = hub.current
                if let why = Self.gone(status, hadSensors: hadSensors) {
                    printError("thermtop: \(why)")
                    throw ExitCode(3)
                }
                if ChangeKey(status) != ChangeKey(previous) { emit(status, previous: previous, units: units) }
                hook?.observe(status, now: hub.clock.now())
            }
            hook?.poll(now: hub.clock.now())
        }
    }

    /// Why the source is gone, if it is, from the status alone: its sysfs root vanished, or
    /// every device it had did.
    static func gone(_ status: MonitorStatus, hadSensors: Bool) -> String? {
        if let issue = status.snapshot.sourceVanished {
            return "the source disappeared: \(issue.detail ?? status.sourceLabel)."
        }
        if hadSensors && status.snapshot.isEmpty {
            return "the source disappeared: every sensor, cooling device and battery under \(status.sourceLabel) is gone."
        }
        return nil
    }

    /// One line for `status`; the text form shows temperatures in the config's `units`, the JSON
    /// form stays in °C like `status --json`.
    func emit(_ s: MonitorStatus, previous: MonitorStatus?, units: TemperatureUnit) {
        var changed: [String] = []
        if let p = previous {
            if p.thermalState != s.thermalState { changed.append("thermal_state") }
            if p.isLowPowerModeEnabled != s.isLowPowerModeEnabled { changed.append("low_power") }
            if p.tier != s.tier { changed.append("tier") }
        }
        let time = utcNow()
        let line: String
        if json {
            guard case .object(let fields) = ThermalStatusReport.json(s, version: ThermtopInfo.version) else { return }
            // The header of `status --json` (every field before the per-device lists), then its
            // power domains and throttling verdict.
            let header = Array(fields.prefix { $0.0 != "sensors" })
                + fields.filter { $0.0 == "window_seconds" || $0.0 == "power" || $0.0 == "throttling" }
            line = JSONValue.object(header + [
                ("event", .string(previous == nil ? "start" : "change")),
                ("changed", .array(changed.map(JSONValue.string))),
                ("previous_thermal_state", previous.map { .string($0.thermalState.name) } ?? .null),
                ("time", .string(time)),
            ]).serialized(pretty: false)
        } else {
            // Unknown says so, as in `status` and `watch --json` (apps are still told nominal).
            // What is not this machine's measurement says so on every line, as `status` and
            // the JSON's `simulated` do: a forced state, forced low power, the simulated laptop.
            let stateMark = s.stateIsSimulated ? " (simulated)" : s.sourceIsSimulated ? " (simulated laptop)" : ""
            var parts = ["\(time) \(s.shownStateName)\(stateMark)"]
            if let p = previous, p.shownStateName != s.shownStateName { parts[0] += " (was \(p.shownStateName))" }
            parts.append("tier \(s.tier.rawValue)")
            parts.append("low power \(s.isLowPowerModeEnabled ? "on" : "off")\(s.lowPowerIsSimulated ? " (simulated)" : "")")
            parts.append(Format.clean(s.why.text(units)))
            line = parts.joined(separator: " · ")
        }
        writeLine(line)
    }
}

/// One line to stdout, unbuffered, so `watch | while read` sees it at once. The reader going
/// away (`watch | head -1`: EPIPE, SIGPIPE being ignored; `watch`'s wait also notices it
/// between lines) ends the command quietly with 0, as a Unix filter does; any other failure
/// (a full disk, /dev/full) is said on stderr and ends it with 74, as `status` does.
func writeLine(_ s: String) {
    do throws(Syscalls.WriteFailure) {
        try Syscalls.writeAll(STDOUT_FILENO, Array((s + "\n").utf8))
    } catch {
        if error.code == EPIPE { exit(0) }
        StandardStreams.fail("cannot write to standard output: \(String(cString: strerror(error.code)))")
    }
}

/// What ended a `waitReadable`.
enum WaitOutcome: Equatable {
    /// The descriptor is readable.
    case readable
    /// The deadline passed, or a signal ended the wait early.
    case timedOut
    /// Standard output's reader went away (a pipe whose reader closed, a socket whose peer did).
    case outputGone
}

/// Waits in `poll` until `fd` is readable or the `deadline` on `clock` passes; a nil deadline
/// waits for the descriptor alone. With `watchingOutput`, standard output is watched too: a
/// pipe whose reader has closed reports POLLERR at once, while a terminal, a file or /dev/null
/// report nothing, as no events are asked of it.
func waitReadable(_ fd: Int32, until deadline: Double?, clock: any MonitorClock,
                  watchingOutput: Bool = false) -> WaitOutcome {
    // A stop signal (`WatchStop`, once installed) ends the wait too, as `timedOut`: the caller
    // looks at `WatchStop.received` on every turn.
    var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
               pollfd(fd: watchingOutput ? STDOUT_FILENO : -1, events: 0, revents: 0),
               pollfd(fd: WatchStop.descriptor, events: Int16(POLLIN), revents: 0)]
    var timeout = deadline.map { Int32(clamping: Int((max(0, $0 - clock.now()) * 1000).rounded(.up))) } ?? -1
    // Out of descriptors there is no self-pipe, and a signal taken by another thread would not
    // end the wait: look at the flag at least this often instead.
    if WatchStop.descriptor < 0 { timeout = timeout < 0 ? WatchStop.unpipedCheckMilliseconds : min(timeout, WatchStop.unpipedCheckMilliseconds) }
    guard poll(&fds, nfds_t(fds.count), timeout) > 0 else { return .timedOut }
    if fds[1].revents & Int16(POLLERR | POLLHUP) != 0 { return .outputGone }
    return fds[0].revents & Int16(POLLIN) != 0 ? .readable : .timedOut
}

/// The signal that asked `watch`, `export --every` or `record` to stop, recorded by its handler
/// and acted on by the loop (which the signal also wakes from `poll`). SIGQUIT too: left to the
/// Swift runtime, it prints a crash report and the process goes on.
enum WatchStop {
    nonisolated(unsafe) private static var signal: sig_atomic_t = 0
    /// The read end of a self-pipe the handler writes to: the loop runs on a dispatch thread,
    /// and the kernel may hand the signal to any other, so `poll` watches this to be woken
    /// whichever thread took it. -1 before `install()`.
    nonisolated(unsafe) private(set) static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    static var received: Int32? { signal == 0 ? nil : signal }

    /// How often a wait looks at `received` when no self-pipe could be made.
    static let unpipedCheckMilliseconds: Int32 = 250

    static func install() {
        if descriptor < 0 {
            if let fds = try? Syscalls.pipe(nonBlocking: true) { (descriptor, writeEnd) = fds }
        }
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                let saved = errno
                WatchStop.signal = sig
                Syscalls.wake(WatchStop.writeEnd)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, nil)
        }
    }
}
