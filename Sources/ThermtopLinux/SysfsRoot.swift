#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import ThermtopCore

/// The one funnel through which thermtop touches sysfs, relative to a root directory: `/sys` in
/// production, a fixture tree in tests, or any `SysfsBackend` (a replay of recorded files).
/// Failures come back as a typed `ReadingIssue` carrying the errno name, never as a crash or a
/// guess.
///
/// File reads go through one deadline (`ThermalConfig.readDeadlineSeconds`, see `ReadGate`):
/// each is made on a reader thread the caller waits for at most that long, or, for the thread
/// that claimed the root (`readOnThisThread`, the hub's sampler), on that thread under a
/// watchdog that replaces it when a read hangs; so a hung driver, a slow SMBus sensor or a FIFO
/// in a fixture tree is `timed-out` and the rest goes on; the file is not touched again while
/// its read is still hung. A backend whose reads cannot block (a
/// replay) is read on the caller's thread. The source brackets its work in passes
/// (`withPass`): within a `.sample` pass value files stay open and each is read once; the files
/// read in the previous pass of the same kind are read up front in one batch, one hand-over to
/// the reader thread for the lot.
public final class SysfsRoot: Sendable {
    /// Absolute path of the root (`/sys`), or the label of a non-filesystem backend.
    public let path: String
    /// Where the files come from (the filesystem, or a recording).
    public let backend: any SysfsBackend
    let gate: ReadGate
    /// Sample passes after which a missing value file is looked up again.
    let missingRetrySamples: Int
    /// What the root was made with, for a fork.
    private let config: ThermalConfig
    private let passLock = ConditionLock()
    private let state = Mutex(PassState())

    /// What a pass is for: a `.discovery` pass reads static attributes (opened and closed),
    /// a `.sample` pass reads values (kept open).
    public enum PassKind: Sendable, Hashable {
        /// Finding devices and reading their static attributes.
        case discovery
        /// Reading the values, every sample.
        case sample
    }

    private struct PassState {
        var kind: PassKind?
        /// The results of the pass under way, by path (nil until read).
        var results: [String: Result<String, ReadingIssue>?] = [:]
        /// The paths readers asked for in the pass under way, in order: the pass's profile.
        var recorded: [String] = []
        /// Counts passes begun and ended: a result that comes back after its pass ended (a read
        /// from another thread) finds a different number and is dropped.
        var generation = 0
        /// What the last pass of each kind read, in order (nil before the first one).
        var profiles: [PassKind: [String]] = [:]
        /// Value files found missing in a sample pass: not looked up again until the next
        /// discovery (sysfs attributes come and go with their device, and a device coming or
        /// going is a rediscovery) or until `missingRetrySamples` sample passes have gone by.
        /// With the sample pass in which each was found missing.
        var missing: [String: (issue: ReadingIssue, since: Int)] = [:]
        var samplePasses = 0
        var readCount = 0
        var tap: (@Sendable (SysfsAccess) -> Void)?

        /// The paths in `recorded`.
        var asked: Set<String> = []

        /// What this pass already read of `path` (read up front, or asked before), nil when
        /// nothing; records it in the profile the first time it is asked for.
        mutating func ask(_ path: String) -> Result<String, ReadingIssue>? {
            if asked.insert(path).inserted { recorded.append(path) }
            return results[path] ?? nil
        }

        mutating func resetPassTables() {
            results = [:]
            recorded = []
            asked = []
            generation &+= 1
        }
    }

    /// A root over a directory.
    ///
    /// - Parameters:
    ///   - path: the root directory (`/sys`, or a fixture tree laid out like it).
    ///   - config: the reading layer's numbers: `readDeadlineSeconds`, `stalledReadGraceSeconds`,
    ///     `missingFileRetrySamples`, `idleReaderSeconds`.
    public convenience init(path: String = "/sys", config: ThermalConfig = ThermalConfig()) {
        self.init(path: path, config: config, abandonLimit: ReadGate.defaultAbandonLimit)
    }

    /// `abandonLimit`: the most reader threads left in hung reads at once (`ReadGate`).
    convenience init(path: String, config: ThermalConfig, abandonLimit: Int) {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        self.init(backend: FileSystemBackend(rootPath: p), path: p, config: config, abandonLimit: abandonLimit)
    }

    /// A root served by any backend (a replay); `path` is what it is shown as.
    public convenience init(backend: any SysfsBackend, path: String, config: ThermalConfig = ThermalConfig()) {
        self.init(backend: backend, path: path, config: config, abandonLimit: ReadGate.defaultAbandonLimit)
    }

    init(backend: any SysfsBackend, path: String, config: ThermalConfig, abandonLimit: Int, hung: HungReads = HungReads()) {
        self.path = path
        self.backend = backend
        self.config = config
        self.missingRetrySamples = max(1, config.missingFileRetrySamples)
        gate = ReadGate(backend: backend, deadline: config.readDeadlineSeconds, grace: config.stalledReadGraceSeconds,
                        idleExit: config.idleReaderSeconds, abandonLimit: abandonLimit, hung: hung)
    }

    /// A root over the same directory with descriptors, passes and a gate of its own, sharing
    /// this one's hung files: what a sampler goes on with when a read on its thread hangs.
    /// nil for a root not over a directory (a replay's reads cannot hang).
    func fork() -> SysfsRoot? {
        guard let files = backend as? FileSystemBackend else { return nil }
        return SysfsRoot(backend: FileSystemBackend(rootPath: files.rootPath), path: path, config: config,
                         abandonLimit: gate.abandonLimit, hung: gate.hung)
    }

    /// Read on the calling thread from now on (the hub's sampler: no hand-off, no wakeup of a
    /// reader thread), under the process's read watchdog; `onStuck` is called once, on the
    /// watchdog's thread, when a read there hangs: this root then answers nothing more
    /// (`isRetired`) and the caller goes on with a `fork()`. False, and reads stay handed to
    /// reader threads, for a root that cannot fork or when the process has no watchdog.
    public func readOnThisThread(onStuck: @escaping @Sendable () -> Void) -> Bool {
        guard backend.readsCanBlock, backend is FileSystemBackend else { return false }
        return gate.readOnThisThread(onStuck: onStuck)
    }

    /// The claiming thread stops reading here (see `readOnThisThread`).
    public func endReadsOnThisThread() { gate.endReadsOnThisThread() }

    /// Whether a read on the claiming thread hung and this root was given up (see
    /// `readOnThisThread`).
    public var isRetired: Bool { gate.isRetired }

    deinit { gate.shutdown() }

    /// Whether the root is a directory that can be listed.
    public var isUsable: Bool { isDirectory("") }

    /// Reads served to readers since creation (for the debug overlay and tests).
    public var readCount: Int { state.withLock { $0.readCount } }
    /// Syscall counters of the backend (nil for backends that make none).
    public var ioStats: SysfsIOStats? { backend.ioStats }
    /// Files whose read is hung right now (not retried until it returns).
    public var stuckFiles: [String] { gate.stuckPaths }
    /// Reads given up on since creation.
    public var timedOutReads: Int { gate.stallCount }
    /// Batches of reads handed to reader threads since creation.
    public var handedOffBatches: Int { gate.batchCount }
    /// Reader threads left in a hung read right now (at most the gate's `abandonLimit`).
    public var abandonedReaders: Int { gate.abandonedThreads }

    /// Observe every access (path and raw text or issue, listings, existence checks), in the
    /// order the readers make them: what `thermtop record` writes. Called on the reading
    /// thread; keep it cheap. nil removes it.
    public func setTap(_ tap: (@Sendable (SysfsAccess) -> Void)?) {
        state.withLock { $0.tap = tap }
    }

    private var tap: (@Sendable (SysfsAccess) -> Void)? { state.withLock { $0.tap } }

    /// Run `body` as one pass of `kind`. Passes are serialised.
    public func withPass<T>(_ kind: PassKind, _ body: () throws -> T) rethrows -> T {
        try passLock.withLock { try pass(kind, body) }
    }

    private func pass<T>(_ kind: PassKind, _ body: () throws -> T) rethrows -> T {
        let profile = state.withLock { s -> [String] in
            if kind == .discovery {
                s.missing = [:]
            } else {
                s.samplePasses += 1
                let pass = s.samplePasses
                s.missing = s.missing.filter { pass - $0.value.since < missingRetrySamples }
            }
            s.kind = kind
            s.resetPassTables()
            // Each file once, missing ones left out.
            var seen = Set<String>()
            return (s.profiles[kind] ?? []).filter { s.missing[$0] == nil && seen.insert($0).inserted }
        }
        if !profile.isEmpty {
            let results = readBatch(profile.map { ($0, kind == .sample) })
            state.withLock { s in
                for (p, r) in zip(profile, results) { s.results[p] = .some(r) }
            }
        }
        defer {
            let recorded = state.withLock { s -> [String] in
                s.kind = nil
                let recorded = s.recorded
                s.resetPassTables()
                s.profiles[kind] = recorded
                return recorded
            }
            if kind == .sample {
                backend.release(keeping: Set(recorded).union(gate.busyPaths))
                gate.closeStallWindow()
            }
        }
        return try body()
    }

    /// Read one attribute file (`class/thermal/thermal_zone0/temp`).
    @_disfavoredOverload
    public func read(_ relative: String) -> Result<String, ReadingIssue> {
        let (served, kind, generation, tap) = state.withLock { s
            -> (Result<String, ReadingIssue>?, PassKind?, Int, (@Sendable (SysfsAccess) -> Void)?) in
            s.readCount += 1
            guard let kind = s.kind else { return (nil, nil, s.generation, s.tap) }
            let known = s.ask(relative)
            if kind == .sample, let issue = s.missing[relative]?.issue { return (.failure(issue), kind, s.generation, s.tap) }
            return (known, kind, s.generation, s.tap)
        }
        let result: Result<String, ReadingIssue>
        if let served {
            result = served
        } else {
            result = readBatch([(relative, kind == .sample)])[0]
            if kind != nil {
                state.withLock { s in
                    if s.generation == generation { s.results[relative] = .some(result) }
                }
            }
        }
        if kind == .sample, case .failure(let issue) = result, issue.reason == .missing {
            state.withLock { s in
                if s.missing[relative] == nil { s.missing[relative] = (issue, s.samplePasses) }
            }
        }
        tap?(.read(relative, result))
        return result
    }

    /// The entries of a directory, in natural order (`thermal_zone2` before `thermal_zone10`);
    /// nil when it cannot be listed. Hidden entries (`.gitkeep` in a fixture tree) are skipped:
    /// sysfs never has any, so they are never devices or attributes.
    @_disfavoredOverload
    public func list(_ relative: String) -> [String]? {
        let names = backend.list(relative).map { $0.filter { !$0.hasPrefix(".") }.sorted(by: naturalLess) }
        tap?(.list(relative, names))
        return names
    }

    /// Whether a reader should try an optional attribute `name` of a folder it listed
    /// (`listing`, nil when the folder could not be listed): not when the listing lacks it.
    /// Most devices lack most optional attributes, and each failed open is a path lookup; a
    /// folder that could not be listed has every attribute tried. A set, because a chip may
    /// list thousands of files and each channel asks for several.
    static func mayHave(_ name: String, listing: Set<String>?) -> Bool {
        listing?.contains(name) ?? true
    }

    /// Whether a path exists (following links).
    @_disfavoredOverload
    public func exists(_ relative: String) -> Bool {
        let r = backend.exists(relative)
        tap?(.exists(relative, r))
        return r
    }

    /// Whether a path is a folder (following links).
    @_disfavoredOverload
    public func isDirectory(_ relative: String) -> Bool {
        let r = backend.isDirectory(relative)
        tap?(.isDirectory(relative, r))
        return r
    }

    /// The canonical path relative to the root (`devices/platform/coretemp.0/hwmon/hwmon1`),
    /// or the absolute path when it lies outside the root; nil when it does not resolve.
    @_disfavoredOverload
    public func resolved(_ relative: String) -> String? {
        let r = backend.resolved(relative)
        tap?(.resolved(relative, r))
        return r
    }

    /// Read many files in one hand-over to the reader threads, each under the deadline, outside
    /// any pass: nothing kept open, nothing profiled (a walk of `/proc`, whose files come and
    /// go with their processes).
    ///
    /// `onThisThread`: the caller knows these files answer without sleeping (a real procfs's
    /// `stat`): read here, with no hand-off and so no deadline.
    public func readEach(_ relatives: [String], onThisThread: Bool = false) -> [Result<String, ReadingIssue>] {
        let tap = state.withLock { s -> (@Sendable (SysfsAccess) -> Void)? in
            s.readCount += relatives.count
            return s.tap
        }
        let results: [Result<String, ReadingIssue>]
        if onThisThread {
            results = relatives.map { backend.read($0, keepOpen: false) }
        } else {
            results = readBatch(relatives.map { ($0, false) })
            gate.closeStallWindow()
        }
        if let tap { for (p, r) in zip(relatives, results) { tap(.read(p, r)) } }
        return results
    }

    /// Read files, in order: through reader threads in one batch, or here for a backend whose
    /// reads cannot block.
    private func readBatch(_ requests: [(path: String, keepOpen: Bool)]) -> [Result<String, ReadingIssue>] {
        guard backend.readsCanBlock else { return requests.map { backend.read($0.path, keepOpen: $0.keepOpen) } }
        return gate.readAll(requests)
    }

    static func issue(_ file: String, errno code: Int32) -> ReadingIssue {
        let reason: ReadingIssueReason
        switch code {
        case ENOENT, ENOTDIR: reason = .missing
        case EACCES, EPERM: reason = .permissionDenied
        case EIO: reason = .ioError
        case ENODATA: reason = .noData
        case EAGAIN, EBUSY: reason = .busy
        case EISDIR: reason = .notAFile
        default: reason = .readFailed
        }
        return ReadingIssue(file: file, reason: reason, detail: errnoName(code))
    }

    static func errnoName(_ code: Int32) -> String {
        switch code {
        case ENOENT: "ENOENT"
        case ENOTDIR: "ENOTDIR"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case EIO: "EIO"
        case ENODATA: "ENODATA"
        case EAGAIN: "EAGAIN"
        case EBUSY: "EBUSY"
        case EISDIR: "EISDIR"
        case EINVAL: "EINVAL"
        case ENXIO: "ENXIO"
        case ENODEV: "ENODEV"
        case EOPNOTSUPP: "EOPNOTSUPP"
        case ELOOP: "ELOOP (symlink loop)"
        case ENAMETOOLONG: "ENAMETOOLONG"
        case EMFILE: "EMFILE"
        case ENFILE: "ENFILE"
        case ESTALE: "ESTALE"
        case ESPIPE: "ESPIPE"
        // Sockets and the D-Bus connection (the event sources name their failures here too).
        case EAFNOSUPPORT: "EAFNOSUPPORT"
        case EPROTONOSUPPORT: "EPROTONOSUPPORT"
        case ENOBUFS: "ENOBUFS"
        case ENOMEM: "ENOMEM"
        case ECONNREFUSED: "ECONNREFUSED"
        case ECONNRESET: "ECONNRESET"
        case ETIMEDOUT: "ETIMEDOUT"
        case EADDRINUSE: "EADDRINUSE"
        case EMSGSIZE: "EMSGSIZE"
        case ENOTCONN: "ENOTCONN"
        case EHOSTUNREACH: "EHOSTUNREACH"
        case ESRCH: "ESRCH"
        default: "errno \(code)"
        }
    }
}

/// `a2 < a10`: compare runs of ASCII digits as numbers (of any length: a run is compared by
/// its length without leading zeros, then digit by digit, so no integer can overflow), and
/// everything else by scalar value. Compared as UTF-8 bytes, which order as their scalars do
/// (a digit is one byte, never part of a longer sequence).
func naturalLess(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in naturalLess(x, y) } }
}

func naturalLess(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    func isDigit(_ u: UInt8) -> Bool { u >= 48 && u <= 57 }
    let zero = UInt8(ascii: "0")
    // Everything before the first difference is equal token for token, so the comparison may
    // start there, or at the start of the digit run that reaches it (`temp1` against `temp10`
    // is decided by the whole numbers).
    let common = min(x.count, y.count)
    var k = 0
    while k < common && x[k] == y[k] { k += 1 }
    // One is the other's beginning: the shorter is less (its last number, if any, is no
    // greater, and when equal it is the shorter spelling).
    if k == common { return x.count < y.count }
    while k > 0 && isDigit(x[k - 1]) { k -= 1 }
    var i = k, j = k
    while i < x.count && j < y.count {
        if isDigit(x[i]) && isDigit(y[j]) {
            var ei = i, ej = j
            while ei < x.count && isDigit(x[ei]) { ei += 1 }
            while ej < y.count && isDigit(y[ej]) { ej += 1 }
            var si = i, sj = j
            while si < ei - 1 && x[si] == zero { si += 1 }
            while sj < ej - 1 && y[sj] == zero { sj += 1 }
            if ei - si != ej - sj { return ei - si < ej - sj }
            for k in 0..<(ei - si) where x[si + k] != y[sj + k] { return x[si + k] < y[sj + k] }
            // Same number: the shorter spelling (fewer leading zeros) first, for a total order.
            if ei - i != ej - j { return ei - i < ej - j }
            i = ei; j = ej
            continue
        }
        if x[i] != y[j] { return x[i] < y[j] }
        i += 1; j += 1
    }
    return i == x.count && j < y.count
}

/// Monotonic clock (CLOCK_MONOTONIC) for the monitor.
package struct SystemClock: MonitorClock {
    public init() {}
    public func now() -> Double {
        monotonicSeconds()
    }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }
    public func secondsSinceLocalMidnight() -> Double? {
        var t = time(nil)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return nil }
        return Double(parts.tm_hour * 3600 + parts.tm_min * 60 + parts.tm_sec)
    }
}

extension SysfsRoot {
    // The same calls for a path written as an interpolation at the call site (`SysfsPath`).
    func read(_ relative: SysfsPath) -> Result<String, ReadingIssue> { read(relative.string) }
    func list(_ relative: SysfsPath) -> [String]? { list(relative.string) }
    func exists(_ relative: SysfsPath) -> Bool { exists(relative.string) }
    func isDirectory(_ relative: SysfsPath) -> Bool { isDirectory(relative.string) }
    func resolved(_ relative: SysfsPath) -> String? { resolved(relative.string) }
}
