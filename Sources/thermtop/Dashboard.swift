import ArgumentParser
import ThermtopLinux
import ThermtopCore
import ThermtopTerminal
import ThermtopUI

#if canImport(Glibc)
import Glibc
#endif

@main
struct Thermtop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thermtop",
        abstract: "top for heat: how hot this machine is, and how hard software should push right now.",
        discussion: """
            With no subcommand, opens the live dashboard (keys: 1-4 simulate a state, 0 live, \
            l low power, d debug, ? help, q quit). `thermtop status` prints the same decision \
            once, as text or JSON.
            """,
        version: ThermtopInfo.version,
        subcommands: [Status.self, Watch.self, Export.self, ConfigCommand.self, Record.self, Capture.self]
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions
    @OptionGroup var hook: OnChangeOptions

    // `.unconditional`: `--delay -1` must reach validate() and get the range message, not
    // "Missing value" (the default strategy takes -1 for a flag).
    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between sensor samples (0.2 to 3600; default 1 or the config's delay).", valueName: "seconds"))
    var delay: Double?

    @Flag(name: .customLong("no-color"), help: "Monochrome (also when NO_COLOR is set).")
    var noColor = false

    @Flag(help: "ASCII bars, sparklines and boxes instead of Unicode.")
    var ascii = false

    func validate() throws {
        if let delay, !(delay.isFinite && UserConfig.delayRange.contains(delay)) {
            throw ValidationError("--delay must be between 0.2 and 3600 seconds (got \(delay)).")
        }
    }

    @MainActor
    mutating func run() async throws {
        // A broken config stops here, before the terminal is touched.
        let cfg = try config.load()
        if let problem = Terminal.preflight() {
            printError("thermtop: \(problem). The dashboard needs an interactive terminal; use `thermtop status` (or `thermtop status --json`) for a one-shot report.")
            throw ExitCode(2)
        }
        var src = source.makeSource()
        var note: String?
        let clock = SystemClock()
        if !source.simulate, source.sysfsRoot == nil, src.sample(at: clock.now()).isEmpty {
            src = SimulatedLaptop()
            note = "No sensors under /sys (a container or VM?): showing the SIMULATED laptop. `thermtop status` shows what was found."
        }
        let monitor = ThermalMonitor(source: src, clock: clock, config: cfg.applied(), overrides: source.overrides)
        let envNoColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let noColor = self.noColor || cfg.color == false
        let delay = self.delay ?? cfg.delay ?? 1

        TerminalSignals.install()
        let term: Terminal
        do {
            term = try Terminal(color: !noColor && !envNoColor)
        } catch {
            printError("thermtop: \(error). Use `thermtop status` instead.")
            throw ExitCode(2)
        }
        defer { term.restore() }

        var loop = RunLoop(monitor: monitor, terminal: term, delay: delay)
        loop.app.note = note
        loop.app.unicode = term.unicode && !ascii && cfg.ascii != true
        loop.app.units = cfg.units ?? .celsius
        loop.app.configInfo = ConfigInfo(path: cfg.path, lines: cfg.summary,
                                         warnings: ConfigOptions.warnings(cfg, status: loop.app.status))
        if let (command, interval) = hook.resolved(cfg) {
            loop.hook = OnChangeHook(command: command, interval: interval, output: .discard, initial: loop.app.status)
            loop.app.configInfo.onChange = command
        }
        loop.app.color = term.colorCount > 0 && !noColor && !envNoColor
        loop.app.hostname = hostname()
        loop.run()
        term.restore()
        if TerminalSignals.lastSignal != 0 && TerminalSignals.lastSignal != SIGINT {
            throw ExitCode(128 + TerminalSignals.lastSignal)
        }
    }
}

/// The dashboard's loop: sample on the delay, refresh on the policy's interval, animate the
/// pulse only while the tier allows, redraw only when something changed, and sleep in the
/// terminal's key wait in between (no other timers).
@MainActor
struct RunLoop {
    let monitor: ThermalMonitor
    let terminal: Terminal
    let delay: Double
    var app: AppState
    /// The `--on-change` command, if any.
    var hook: OnChangeHook?
    /// The last frame drawn, reused when only the pulse moved.
    var lastFrame: Screen.Frame?

    init(monitor: ThermalMonitor, terminal: Terminal, delay: Double) {
        self.monitor = monitor
        self.terminal = terminal
        self.delay = delay
        // The source discovered its devices when it was made; the first refresh is due after
        // the policy interval, like every later one.
        monitor.sample()
        app = AppState(status: monitor.status)
        app.sampleDelay = delay
        app.apply(monitor.status)
        app.simulatedLoad = monitor.hub.simulatedLoad
    }

    var clock: any MonitorClock { monitor.clock }

    mutating func run() {
        // Samples and pulse frames share one time base, so with the default 1 s delay every
        // other 2 fps frame falls on a sample: one wakeup draws both.
        let base = clock.now()
        var nextSample = base + delay
        var nextFrame = base
        var needsRender = true
        var pulseOnly = false
        updateClock()
        while !app.quit && !TerminalSignals.quitRequested {
            let now = clock.now()
            if !app.paused && now >= nextSample {
                sample(now: now)
                nextSample += delay
                if nextSample <= now { nextSample = now + delay }
                needsRender = true
            }
            let fps = Pulse.framesPerSecond(app.status.tier)
            if fps > 0 && now >= nextFrame {
                app.tick += 1
                nextFrame = base + ((now - base) * fps + 1e-3).rounded(.down) / fps + 1 / fps
                if !needsRender { pulseOnly = true }
            }
            if needsRender {
                render()
            } else if pulseOnly {
                renderPulse()
            }
            needsRender = false
            pulseOnly = false
            var wake = app.paused ? now + 60 : nextSample
            if fps > 0 { wake = min(wake, nextFrame) }
            if let due = hook?.schedule.nextDue { wake = min(wake, due) }
            let timeout = Int((max(0, min(wake - clock.now(), 60)) * 1000).rounded(.up))
            let key = terminal.readKey(timeoutMilliseconds: max(timeout, 1))
            if hook != nil { observeChanges() }
            guard let key else { continue }
            if key == .resize {
                terminal.invalidate()
                needsRender = true
                continue
            }
            guard let action = KeyMap.action(for: key) else { continue }
            for effect in Reducer.reduce(&app, action) { perform(effect) }
            if hook != nil { observeChanges() }
            needsRender = true
        }
    }

    /// Hands the state in force (simulated changes included, so `3` tests a notify script)
    /// to the on-change hook, and shows its counters in the debug overlay.
    mutating func observeChanges() {
        guard let hook else { return }
        hook.observe(app.status, now: clock.now())
        app.configInfo.onChangeRuns = hook.runner.runs
        app.configInfo.onChangeFailures = hook.runner.failures
        app.configInfo.onChangeLastFailure = hook.runner.lastFailure
    }

    mutating func sample(now: Double) {
        let t0 = clock.now()
        if monitor.secondsUntilRefresh(now: now) <= 0 { monitor.refresh() } else { monitor.sample() }
        app.stats.sampleMilliseconds = (clock.now() - t0) * 1000
        app.stats.samples = monitor.sampleCount
        app.apply(monitor.status)
        updateClock()
    }

    mutating func updateClock() {
        app.secondsUntilRefresh = monitor.secondsUntilRefresh()
        app.clock = localTime()
        if let reads = monitor.status.sampler.reads { app.stats.fileReads = reads.fileReads }
    }

    mutating func perform(_ effect: Effect) {
        switch effect {
        case .setOverrides(let o):
            monitor.overrides = o
            app.status = monitor.status
            updateClock()
        case .refresh:
            monitor.refresh()
            app.apply(monitor.status)
            updateClock()
        case .adjustLoad(let d):
            if let load = monitor.hub.adjustLoad(by: d) { app.simulatedLoad = load }
        }
    }

    mutating func render() {
        let t0 = clock.now()
        let size = terminal.size
        app.stats.terminalWidth = size.width
        app.stats.terminalHeight = size.height
        app.stats.colorCount = terminal.colorCount
        let frame = Screen.renderFrame(app, width: size.width, height: size.height)
        lastFrame = frame
        present(frame.buffer, since: t0)
    }

    /// An animation-only frame: reuse the last screen and move just the pulse.
    mutating func renderPulse() {
        let t0 = clock.now()
        let size = terminal.size
        guard var frame = lastFrame, frame.buffer.width == size.width, frame.buffer.height == size.height else {
            render()
            return
        }
        Screen.redrawPulse(app, in: &frame)
        lastFrame = frame
        present(frame.buffer, since: t0, onlyRows: frame.pulseY.map { $0..<($0 + 1) })
    }

    mutating func present(_ buffer: CellBuffer, since t0: Double, onlyRows: Range<Int>? = nil) {
        let cells = terminal.present(buffer, onlyRows: onlyRows)
        app.stats.frames += 1
        app.stats.cellsLastFrame = cells
        app.stats.cellsTotal += cells
        app.stats.renderMilliseconds = (clock.now() - t0) * 1000
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

func localTime() -> String {
    var t = time(nil)
    var tmv = tm()
    localtime_r(&t, &tmv)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec))"
}
