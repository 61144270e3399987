import ArgumentParser
import ThermtopLinux
import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write Prometheus metrics for node_exporter's textfile collector.",
        discussion: """
            Writes the state, tier, low power, every sensor's temperature and thresholds, the \
            battery, cooling devices, throttle counters and read errors in the Prometheus text \
            format to PATH, atomically (a temporary file in the same folder, then rename). Once, \
            or every SECONDS with --every (and at once when the kernel or the desktop reports a change: \
            charger plugged, trip crossed, profile switched). Point node_exporter's \
            --collector.textfile.directory at the folder; name the file *.prom. With --every, a \
            failed write (a full disk) is said on stderr once and tried again at the next \
            interval; thermtop_export_last_success_timestamp_seconds and \
            thermtop_export_write_failures_total tell a scraper. Exit status: 0 written; 64 bad \
            invocation; 74 the one write (no --every) failed; 78 bad config file.
            """)

    @Option(name: .customLong("textfile"), help: ArgumentHelp("The .prom file to write; - writes to standard output.", valueName: "path"))
    var textfile: String

    // `.unconditional`: `-1` must reach validate() and get the range message.
    @Option(parsing: .unconditional, help: ArgumentHelp("Write again every this many seconds (1 to 86400) instead of once.", valueName: "seconds"))
    var every: Double?

    @Option(name: .customLong("heat-sources"), parsing: .unconditional, help: ArgumentHelp("Also export the top N heat sources (1 to \(MetricsReport.maximumHeatSources); default none: it walks /proc each sample).", valueName: "N"))
    var heatSources: Int?

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions

    // The root's dashboard options reach here too: refused, not ignored.
    @ParentCommand var root: Thermtop

    func validate() throws {
        try root.rejectRootOptions(in: "export")
        if textfile.isEmpty { throw ValidationError("--textfile needs a path.") }
        if let n = heatSources, !(1...MetricsReport.maximumHeatSources).contains(n) {
            throw ValidationError("--heat-sources must be between 1 and \(MetricsReport.maximumHeatSources) (got \(n)).")
        }
        if let e = every, !(e.isFinite && (1...86400).contains(e)) {
            throw ValidationError("--every must be between 1 and 86400 seconds (got \(e)).")
        }
        // `-` is standard output (a pipe, a scrape by hand), as for most Unix tools.
        if textfile == "-" { return }
        if let why = Self.replaceProblem(textfile) { throw ValidationError("--textfile \(why)") }
        let dir = Self.directory(of: textfile)
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ValidationError("--textfile \(textfile): the folder \(dir) does not exist.")
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw ValidationError("--textfile \(textfile): cannot write in \(dir) (permission denied).")
        }
    }

    /// Why the file at `path` must not be replaced, nil when it may (a regular file, or nothing
    /// yet). Each write renames a new file over the path, so whatever is there is replaced, not
    /// written into: `--textfile /dev/null` run as root would put a regular file in place of
    /// the device, and a link or a FIFO would be swapped for a file just the same.
    static func replaceProblem(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        let kind: String
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: kind = "a folder"
        case S_IFLNK: kind = "a symbolic link"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        return "\(path) is \(kind): export replaces the file at that path with a new one each time, so it must be a regular file or not exist yet."
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    @MainActor
    mutating func run() async throws {
        let cfg = try config.load()
        try source.apply(cfg)
        let heatSources = self.heatSources ?? cfg.exportHeatSources
        // The engine the dashboard and `watch` run. Once: its first reading. With --every:
        // started, sampling every SECONDS on its own thread and at once on a kernel or desktop
        // event (charger plugged, trip crossed), each new status written as it comes.
        let hub = source.makeHub(config: cfg.applied(), overrides: source.overrides, delay: every ?? 1,
                                 heatSources: heatSources != nil)
        var readErrors = 0
        var status = hub.current
        for w in ConfigOptions.warnings(cfg, status: status) { printError("thermtop: warning: \(w)") }
        if every != nil {
            WatchStop.install()
            hub.start()
        } else {
            // One write: two samples `status`'s default window apart, so the file carries
            // rates (watts, throttle counters) as `status` does.
            pauseFor(Status.defaultWindow)
            status = hub.sample().status
        }
        defer { hub.stop() }
        var health = ExportHealth()
        // Failed writes in a row: the error is said once per streak, and its end once.
        var streak = 0
        while true {
            readErrors += status.snapshot.allIssues.count
            let now = Double(time(nil))
            // Written as if this write succeeds: when it does, the file says so; when it does not,
            // the file on disk still carries the last write that did.
            var attempt = health
            attempt.lastSuccess = now
            let text = MetricsReport.prometheus(status, version: ThermtopInfo.version, readErrorsTotal: readErrors,
                                                unixTime: now, export: attempt, heatSources: heatSources ?? 0)
            if textfile == "-" {
                // Written whole or the command fails with 74 (StandardStreams).
                Array(text.utf8).withUnsafeBufferPointer { try? StandardStreams.write($0) }
                health = attempt
            } else if let why = Self.writeAtomically(text, to: textfile) {
                guard every != nil else {
                    printError("thermtop export: \(why)")
                    throw ExitCode(74)
                }
                // A full disk or a read-only remount is often temporary: keep sampling and try
                // again at the next interval, so the file is fresh again as soon as it can be.
                health.failedWrites += 1
                if streak == 0 { printError("thermtop export: \(why); retrying every \(Format.fixed(every!, places: 0)) s") }
                streak += 1
            } else {
                health = attempt
                if streak > 0 { printError("thermtop export: writing \(textfile) again after \(streak) failed write\(streak == 1 ? "" : "s")") }
                streak = 0
            }
            guard every != nil else { return }
            while waitReadable(hub.wakeDescriptor, until: nil, clock: hub.clock) != .readable {
                if let sig = WatchStop.received { throw ExitCode(128 + sig) }
            }
            hub.consumeWake()
            status = hub.current
        }
    }

    /// Writes a temporary file next to `path` and renames it over `path`, so the textfile
    /// collector never reads half a file. The temporary file is made by `mkstemp` (a random
    /// name, created with O_EXCL), so nobody who can write in the folder can plant a link or
    /// a file there for us to write through; its name does not end in `.prom`, so the collector
    /// ignores it. Returns why it failed, nil on success.
    static func writeAtomically(_ text: String, to path: String) -> String? {
        let dir = directory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(dir)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { return "cannot create a temporary file in \(dir): \(String(cString: strerror(errno)))" }
        // Not inherited by an on-change hook or any other child.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func fail(_ doing: String, _ code: Int32) -> String {
            close(fd)
            unlink(tmp)
            return "cannot \(doing): \(String(cString: strerror(code)))"
        }
        // mkstemp makes it 0600; node_exporter often runs as another user.
        if fchmod(fd, 0o644) != 0 { return fail("set the mode of \(tmp)", errno) }
        do throws(Syscalls.WriteFailure) {
            try Syscalls.writeAll(fd, Array(text.utf8))
        } catch {
            return fail("write \(tmp)", error.code)
        }
        // On disk before the rename, so a crash leaves the old file or the new one, never an
        // empty one; a full disk can also first show here (delayed allocation).
        if fsync(fd) != 0 { return fail("write \(tmp)", errno) }
        if close(fd) != 0 {
            let code = errno
            unlink(tmp)
            return "cannot write \(tmp): \(String(cString: strerror(code)))"
        }
        if let why = replaceProblem(path) {
            unlink(tmp)
            return why
        }
        if rename(tmp, path) != 0 {
            let why = String(cString: strerror(errno))
            unlink(tmp)
            return "cannot rename \(tmp) to \(path): \(why)"
        }
        return nil
    }
}
