import ArgumentParser
import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// `thermtop record FILE`: what the reading layer reads, sample by sample (thermtop.recording/1).
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what thermtop reads from sysfs, sample by sample, to replay it later.",
        discussion: """
            Writes newline-delimited JSON (schema thermtop.recording/1): a header, one full \
            frame of raw file contents, then only the values that changed, with their time. \
            Each line is written as soon as it is complete, so a recording stopped by Ctrl-C \
            or a crash replays up to its last whole line. A name ending in .gz is gzip-compressed. \
            --delay S (0.2 to 3600, default 1 s) sets the seconds between samples. Replay with \
            `thermtop --replay FILE` or `thermtop status --replay FILE --at SECONDS`.
            """)

    @Argument(help: ArgumentHelp("The recording to write (overwritten; .gz for gzip).", valueName: "file"))
    var file: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds (default: until Ctrl-C).", valueName: "seconds"))
    var seconds: Double?

    // Listed here so that the help shows it; the root command, which has a --delay of its own,
    // may be the one that parses it, so both are read.
    @Option(name: RootOption.delay.name, parsing: .unconditional, help: ArgumentHelp("Seconds between samples (0.2 to 3600; default 1).", valueName: "seconds"))
    var delay: Double?

    @ParentCommand var root: Thermtop

    // Only --sysfs-root applies: the simulated laptop and the overrides are not files. They
    // are not this command's options (so its help does not list them); given anyway, the
    // root command parses them and validate() refuses them.
    @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Read sensors from this sysfs tree instead of /sys.", valueName: "dir"))
    var sysfsRoot: String?

    @OptionGroup var heat: HeatSourceKeeping

    func validate() throws {
        // The root's dashboard options reach here too: refused, not ignored.
        try root.rejectRootOptions(in: "record", uses: [.delay])
        try root.rejectConfigOptions(in: "record")
        try DelayOption.check(delay)
        if let s = seconds, !(s.isFinite && (0...RecordingFormat.maxSeconds).contains(s)) {
            throw ValidationError("--seconds must be from 0 to \(Format.fixed(RecordingFormat.maxSeconds, places: 0)), the longest a recording may be (got \(s)).")
        }
        if file.isEmpty { throw ValidationError("the recording needs a file name.") }
        let r = root.source
        if r.simulate || r.simulateState != nil || r.lowPower != nil || r.ppdState != nil {
            throw ValidationError("record reads sysfs: only --sysfs-root applies (the simulated laptop and overrides are not files).")
        }
        if let root = sysfsRoot ?? r.sysfsRoot { try SourceOptions.validateRoot(root) }
        try heat.validate(rootProcRoot: r.procRoot)
    }

    @MainActor
    mutating func run() async throws {
        // Ctrl-C, SIGTERM, SIGHUP and SIGQUIT end the recording between samples (the last line
        // stays whole), with the summary: caught, and the sleep between samples waits on them.
        WatchStop.install()

        let path = sysfsRoot ?? self.root.source.sysfsRoot ?? "/sys"
        let delay = self.delay ?? self.root.dashboard.timing.delay ?? 1
        let root = SysfsRoot(path: path)
        let recorder = AccessRecorder()
        root.setTap(recorder.tap)
        let source = SysfsSource(root: root, ppdStatePath: nil)
        // NVML's readings go into the recording as the files a replay reads back.
        source.gpus.tap = recorder.tap
        // Heat sources go in as measured (not as /proc's files, which hold every command line).
        source.processes = heat.reader(rootProcRoot: self.root.source.procRoot)
        let clock = SystemClock()
        let monitor = ThermalMonitor(source: source, clock: clock)

        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: file)
        } catch {
            printError("thermtop record: \(error)")
            throw ExitCode(73)
        }
        defer { writer.close() }
        let header = RecordingHeader(thermtopVersion: ThermtopInfo.version, host: hostname(), kernel: kernelName(),
                                     startTime: utcNow(), delaySeconds: delay, root: path, heatSources: heat.walks)
        var session = RecordingSession()
        let start = monitor.sample().snapshot.time
        var next = start
        var stoppedBy: Int32 = 0
        do {
            try writer.write(line: RecordingFormat.headerLine(header))
            // The first reading (discovery and a sample): that is the first frame.
            var status = monitor.status
            while true {
                try writer.write(line: session.line(time: status.snapshot.time, accesses: recorder.take(),
                                                    heatSources: status.heatSources, commandLines: heat.commandLines))
                // --seconds is the span recorded: stop at the first sample at or past it. A late
                // sample moves the schedule on, so counting scheduled times could stop short.
                if let limit = seconds, status.snapshot.time - start >= limit - 1e-6 { break }
                next += delay
                let wait = next - clock.now()
                if wait > 0 {
                    var stop = pollfd(fd: WatchStop.descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&stop, 1, Int32(clamping: Int((wait * 1000).rounded(.up))))
                } else {
                    next = clock.now()
                }
                if let sig = WatchStop.received { stoppedBy = sig; break }
                status = monitor.secondsUntilRefresh() <= 0 ? monitor.refresh() : monitor.sample()
            }
        } catch {
            // What is on disk: the header, then the sample lines written whole; the line
            // being written when it failed may be there in part.
            let whole = max(0, writer.lines - 1)
            let holds = writer.lines == 0 ? "nothing usable was written (not even the header)"
                : whole == 0 ? "no complete frame was written, so the recording cannot be replayed"
                : "the recording holds the \(whole) sample\(whole == 1 ? "" : "s") before it; the last line may be cut off, which replay skips"
            printError("thermtop record: \(error) (\(holds))")
            throw ExitCode(74)
        }
        writer.close()
        let duration = Format.fixed(max(0, clock.now() - start), places: 1)
        printError("thermtop record: \(session.samples) samples over \(duration) s, \(writer.bytesWritten) bytes to \(file)\(stoppedBy != 0 ? " (stopped by signal \(stoppedBy))" : "")")
    }
}

/// `uname -srm`, for the header.
func kernelName() -> String {
    var u = utsname()
    guard uname(&u) == 0 else { return "unknown" }
    func field<T>(_ f: T) -> String {
        withUnsafeBytes(of: f) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
    return "\(field(u.sysname)) \(field(u.release)) \(field(u.machine))"
}

/// `2026-11-23T12:00:00Z`.
/// `2026-11-23T11:55:00Z`: now, in UTC (recording headers, `watch` lines).
func utcNow() -> String {
    var t = time(nil)
    var parts = tm()
    gmtime_r(&t, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}
