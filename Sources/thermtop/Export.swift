import ArgumentParser
import ThermtopLinux
import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write Prometheus metrics for node_exporter's textfile collector.",
        discussion: """
            Writes the state, tier, low power, every sensor's temperature and thresholds, the \
            battery, cooling devices, throttle counters and read errors in the Prometheus text \
            format to PATH, atomically (a temporary file in the same folder, then rename). Once, \
            or every SECONDS with --every (and at once when the kernel or the desktop reports a change: \
            charger plugged, trip crossed, profile switched). Point node_exporter's \
            --collector.textfile.directory at the folder; name the file *.prom.
            """)

    @Option(name: .customLong("textfile"), help: ArgumentHelp("The .prom file to write.", valueName: "path"))
    var textfile: String

    @Option(help: ArgumentHelp("Write again every this many seconds (1 to 86400) instead of once.", valueName: "seconds"))
    var every: Double?

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions

    // The root's dashboard options reach here too: refused, not ignored.
    @ParentCommand var root: Thermtop

    func validate() throws {
        try root.rejectRootOptions(in: "export")
        if textfile.isEmpty { throw ValidationError("--textfile needs a path.") }
        if let e = every, !(e.isFinite && (1...86400).contains(e)) {
            throw ValidationError("--every must be between 1 and 86400 seconds (got \(e)).")
        }
        let dir = Self.directory(of: textfile)
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ValidationError("--textfile \(textfile): the folder \(dir) does not exist.")
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw ValidationError("--textfile \(textfile): cannot write in \(dir) (permission denied).")
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    @MainActor
    mutating func run() async throws {
        let cfg = try config.load()
        // The engine the dashboard and `watch` run. Once: its first reading. With --every:
        // started, sampling every SECONDS on its own thread and at once on a kernel or desktop
        // event (charger plugged, trip crossed), each new status written as it comes.
        let hub = source.makeHub(config: cfg.applied(), overrides: source.overrides, delay: every ?? 1)
        var readErrors = 0
        var status = hub.current
        for w in ConfigOptions.warnings(cfg, status: status) { printError("thermtop: warning: \(w)") }
        if every != nil { hub.start() }
        defer { hub.stop() }
        while true {
            readErrors += status.snapshot.allIssues.count
            let text = MetricsReport.prometheus(status, version: ThermtopInfo.version, readErrorsTotal: readErrors,
                                                unixTime: Double(time(nil)))
            if let why = Self.writeAtomically(text, to: textfile) {
                printError("thermtop: export: \(why)")
                throw ExitCode(1)
            }
            guard every != nil else { return }
            while !waitReadable(hub.wakeDescriptor, until: nil, clock: hub.clock) {}
            hub.consumeWake()
            status = hub.current
        }
    }

    /// Writes a temporary file next to `path` and renames it over `path`, so the textfile
    /// collector never reads half a file. The temporary name does not end in `.prom`, so the
    /// collector ignores it. Returns why it failed, nil on success.
    static func writeAtomically(_ text: String, to path: String) -> String? {
        let dir = directory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let tmp = "\(dir)/.\(base).\(getpid()).tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0 { return "cannot create \(tmp): \(String(cString: strerror(errno)))" }
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let why = String(cString: strerror(errno))
                close(fd); unlink(tmp)
                return "cannot write \(tmp): \(why)"
            }
            off += n
        }
        // On disk before the rename, so a crash leaves the old file or the new one, never an empty one.
        _ = fsync(fd)
        close(fd)
        if rename(tmp, path) != 0 {
            let why = String(cString: strerror(errno))
            unlink(tmp)
            return "cannot rename \(tmp) to \(path): \(why)"
        }
        return nil
    }
}
