import ArgumentParser
import ThermtopLinux
import ThermtopCore
import ThermtopTerminal
import ThermtopUI

#if canImport(Glibc)
import Glibc
#endif

struct Thermtop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thermtop",
        abstract: "top for heat: how hot this machine is, and how hard software should push right now.",
        discussion: """
            With no subcommand, opens the live dashboard (keys: 1-4 simulate a state, 0 back to \
            live, l low power, S simulated laptop, s sort, / filter, f °C/°F, d debug, ? help, q quit). `thermtop status` prints the same decision \
            once, as text or JSON. `--replay FILE` plays a recording (thermtop record) through the same \
            readers, classifier and policy: p pauses, n steps one sample, < and > halve and double the speed.
            """,
        version: ThermtopInfo.version,
        subcommands: [Status.self, Watch.self, Export.self, ConfigCommand.self, Record.self, Capture.self]
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions
    @OptionGroup var dashboard: DashboardOptions

    @Option(help: ArgumentHelp("Play a recording (thermtop record) instead of reading live sensors.", valueName: "file"))
    var replay: String?

    // `.unconditional`: `--speed -2` must reach validate() and get the range message.
    @Option(parsing: .unconditional, help: ArgumentHelp("With --replay: recorded seconds per second (default 1; < and > halve and double it).", valueName: "x"))
    var speed: Double?

    func validate() throws {
        if let speed {
            guard replay != nil else { throw ValidationError("--speed needs --replay FILE.") }
            // The range the < and > keys keep to: a speed past it (1e19) has no meaning and once
            // trapped in the number formatting.
            guard speed.isFinite && ReplayState.speedRange.contains(speed) else {
                throw ValidationError("--speed must be a positive number from 1/64 (0.015625) to 1024 (got \(speed)); 1 plays the recording in real time, 2 twice as fast.")
            }
        }
        if let replay {
            if replay.isEmpty { throw ValidationError("--replay needs a recording file (got an empty string).") }
            if source.sysfsRoot != nil || source.simulate || source.ppdState != nil {
                throw ValidationError("--replay reads its sensors from the recording; drop --sysfs-root/--simulate/--ppd-state.")
            }
            if dashboard.timing.delay != nil {
                throw ValidationError("--replay keeps the recording's own timing; drop --delay (use --speed X to play faster).")
            }
        }
    }

    @MainActor
    mutating func run() async throws { try runDashboard() }

    /// The dashboard, synchronously on the calling thread (`Main` calls it on the process's
    /// main thread).
    @MainActor
    mutating func runDashboard() throws {
        // A broken config or recording stops here, before the terminal is touched.
        let cfg = try config.load()
        try source.apply(cfg)
        let recording = try replay.map { try loadRecording($0, command: "") }
        if let problem = Terminal.preflight() {
            printError("thermtop: \(problem). The dashboard needs an interactive terminal; use `thermtop status` (or `thermtop status --json`) for a one-shot report.")
            throw ExitCode(2)
        }
        let delay = recording?.header.delaySeconds ?? dashboard.timing.delay ?? cfg.delay ?? 1
        let feed = recording.map { DashboardFeed(replay: $0, file: replay!, options: source, config: cfg.applied()) }
            ?? DashboardFeed(options: source, config: cfg.applied(), delay: delay)
        defer { feed.stop() }
        let envNoColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let noColor = dashboard.noColor || cfg.color == false

        TerminalSignals.install()
        let term: Terminal
        do {
            term = try Terminal(color: !noColor && !envNoColor)
        } catch {
            printError("thermtop: \(error). Use `thermtop status` instead.")
            throw ExitCode(2)
        }
        defer { term.restore() }

        var app = AppState(status: feed.hub.current)
        app.sampleDelay = delay
        app.unicode = term.unicode && !dashboard.ascii && cfg.ascii != true
        app.color = term.colorCount > 0 && !noColor && !envNoColor
        app.hostname = hostname()
        app.stats.colorCount = term.colorCount
        app.units = cfg.units ?? .celsius
        app.configInfo = ConfigInfo(path: cfg.path, lines: cfg.summary, warnings: ConfigOptions.warnings(cfg, status: app.status))
        let display = DashboardDisplay(app: app, terminal: term)
        var loop = RunLoop(feed: feed, display: display)
        if let recording, let file = replay {
            let h = recording.header
            display.app.hostname = h.host
            display.app.replay = ReplayState(file: file, host: h.host, kernel: h.kernel, startTime: h.startTime,
                                             total: recording.samples.last?.time ?? 0, sampleCount: recording.samples.count,
                                             position: ReplayPosition(index: 0, time: recording.samples.first?.time ?? 0, nextTime: nil),
                                             speed: speed ?? 1, now: display.clock.now())
        }
        if let (command, interval) = dashboard.hook.resolved(cfg) {
            display.hook = OnChangeHook(command: command, interval: interval, output: .discard, initial: app.status,
                                        simulatedAllowed: dashboard.hook.simulated, timeout: dashboard.hook.timeout(cfg))
            display.app.configInfo.onChange = command
        }
        loop.run()
        term.restore()
        if display.app.exitStatus != 0 { throw ExitCode(display.app.exitStatus) }
    }
}

/// The dashboard's loop: one `poll` over the terminal input, its own wake descriptor and the
/// signal self-pipe. Keys, time, resizes and signals each become an `Action` through
/// `Reducer.reduce`, the only code that changes `AppState`; effects go back to the feed. Each
/// wakeup renders the state and touches the terminal only when a cell changed.
///
/// Live, new samples do not wake it: the sampler's thread draws each one as it arrives
/// (`DashboardDisplay.sampleArrived`), and they carry the header's clock. The loop sleeps
/// until the next thing of its own that can change the screen: a pulse frame (by tier, see
/// `RenderPolicy`; while the pulse animates, the clock and the countdown change on its
/// frames), the countdown's next shown value, a key or a signal. A replay's samples are fed
/// here, at their recorded times.
@MainActor
struct RunLoop {
    let feed: DashboardFeed
    let display: DashboardDisplay
    var terminal: Terminal { display.terminal }
    var clock: SystemClock { display.clock }

    /// The state; only `Reducer.reduce` changes it.
    var app: AppState { display.app }

    init(feed: DashboardFeed, display: DashboardDisplay) {
        self.feed = feed
        self.display = display
        display.samplesArrive = feed.isLive && display.canWakeLoop
    }

    mutating func dispatch(_ action: Action) {
        for effect in Reducer.reduce(&display.app, action) {
            if effect == .suspend {
                terminal.suspend()
                let size = terminal.resizeToWindow()
                dispatch(.resized(width: size.width, height: size.height))
            } else {
                feed.perform(effect)
                // A replayed sample is read on this thread, and the monitor re-decides on new
                // overrides before it returns: the status is there now. Taking it at once makes
                // the next key of the same read see it, and a paused or slow replay show it.
                switch effect {
                case .replayAdvance, .setOverrides:
                    // The command's status, published on this thread, was left to the loop
                    // as missed: taken here, it is not taken twice.
                    _ = display.takeMissed()
                    let (status, info) = feed.drain()
                    dispatch(.statusArrived(status, info))
                default: break
                }
            }
        }
    }

    /// Runs until a quit key or signal. The display's lock is held throughout but for the
    /// sleeps in `poll`, when the sampler's thread may draw.
    mutating func run() {
        display.lockForLoop()
        defer {
            display.closed = true
            display.unlockForLoop()
        }
        let size = terminal.size
        dispatch(.resized(width: size.width, height: size.height))
        feed.observe { [display] hub in display.sampleArrived { DashboardFeed.newest(of: hub) } }
        let (first, info) = feed.drain()
        dispatch(.statusArrived(first, info))
        while !app.quit {
            let now = clock.now()
            let wall = WallClock.now()
            dispatch(.tick(now: now, wallSeconds: wall.seconds))
            takeMissedSample()
            display.observeChanges()
            display.draw()
            if app.quit { break }
            let ms = display.wakeMilliseconds(now: now, wallFraction: wall.fraction)
            display.loopWakesAt = now + Double(ms) / 1000
            wait(timeoutMilliseconds: ms)
        }
    }

    /// Takes the newest sample when one arrived while this loop held the display (the sampler
    /// left it here rather than wait).
    mutating func takeMissedSample() {
        guard display.takeMissed() else { return }
        let (status, info) = feed.drain()
        dispatch(.statusArrived(status, info))
    }

    /// Sleeps in `poll`, the display unlocked, and turns what woke it into actions.
    mutating func wait(timeoutMilliseconds: Int) {
        var fds = [
            pollfd(fd: terminal.inputDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: display.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: TerminalSignals.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        display.unlockForLoop()
        let n = poll(&fds, nfds_t(fds.count), Int32(clamping: timeoutMilliseconds))
        display.lockForLoop()
        let inputDue = terminal.inputDeadline.map { $0 <= clock.now() } ?? false
        guard n > 0 || inputDue else { return }  // timeout, or EINTR: the loop looks at the time again
        if fds[1].revents != 0 { display.consumeWakes() }
        if fds[2].revents != 0 {
            for sig in TerminalSignals.drain() {
                if sig == SIGWINCH {
                    let size = terminal.resizeToWindow()
                    dispatch(.resized(width: size.width, height: size.height))
                } else {
                    dispatch(.signal(sig))
                }
            }
        }
        if fds[0].revents & Int16(POLLIN) != 0 || inputDue {
            var keys = terminal.readKeys(now: clock.now())[...]
            while let key = keys.first {
                // A quit signal (SIGHUP when the terminal closes) ends the burst: the loop
                // handles it at its next poll, right after.
                if TerminalSignals.quitRequested { break }
                if key == .resize {
                    let size = terminal.size
                    dispatch(.resized(width: size.width, height: size.height))
                    keys = keys.dropFirst()
                    continue
                }
                // Characters typed into the filter in a row are one edit (an unbracketed paste).
                let (action, count) = KeyMap.next(keys, in: app)
                keys = keys.dropFirst(max(1, count))
                if let action { dispatch(action) }
            }
        }
        // The terminal went away: a hang-up on the descriptor, or a read that failed with EIO
        // (poll then says "readable" forever). Leave as if SIGHUP had come.
        if !app.quit && (terminal.inputClosed || fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0) {
            dispatch(.signal(SIGHUP))
        }
    }
}

/// Local time of day for the header clock.
enum WallClock {
    static func now() -> (seconds: Int, fraction: Double) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = ts.tv_sec
        var tmv = tm()
        localtime_r(&t, &tmv)
        return (Int(tmv.tm_hour) * 3600 + Int(tmv.tm_min) * 60 + Int(tmv.tm_sec), Double(ts.tv_nsec) / 1e9)
    }
}

func printError(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func hostname() -> String {
    var buf = [CChar](repeating: 0, count: 256)
    guard gethostname(&buf, 255) == 0 else { return "localhost" }
    return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
