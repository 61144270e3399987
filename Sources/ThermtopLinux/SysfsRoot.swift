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
/// Reads go through a deadline (`ThermalConfig.readDeadlineSeconds`): a file that does not
/// answer in time is `timed-out`, the rest goes on, and it is not touched again while its read
/// is still hung. On a `ReadingThread` (the monitor's sampler) the reads are made on that
/// thread, guarded by the watchdog; a read that overruns retires the thread, and then that
/// file (for `ThermalConfig.inlineReadRetirementWindowSeconds`), and every read until a pass
/// completes without a stall, goes through reader threads (`ReadGate`). Elsewhere every read goes through reader threads, except on a backend
/// whose reads cannot block (a replay), which is read on the caller's thread. The source
/// brackets its work in passes (`withPass`): within a `.sample` pass value files stay open and
/// each is read once, with one `pread`; the files read in the previous pass of the same kind
/// are read up front in one batch (a discovery's only when its reads go through reader threads).
public final class SysfsRoot: Sendable {
    /// Absolute path of the root (`/sys`), or the label of a non-filesystem backend.
    public let path: String
    public let backend: any SysfsBackend
    let gate: ReadGate
    /// Sample passes after which a missing value file is looked up again.
    let missingRetrySamples: Int
    /// `ThermalConfig.inlineReadRetirementLimit`.
    let retirementLimit: Int
    /// `ThermalConfig.inlineReadRetirementWindowSeconds`.
    let retirementWindow: Double
    /// Released for a retired reading thread that held it (see `stepOverran`).
    private let passLock = HandoverLock()
    private let state = Mutex(PassState())

    /// What a pass is for: a `.discovery` pass reads static attributes (opened and closed),
    /// a `.sample` pass reads values (kept open, one `pread` each).
    public enum PassKind: Sendable, Hashable { case discovery, sample }

    /// One file of the pass under way.
    private struct PassEntry {
        /// nil until read.
        var result: Result<String, ReadingIssue>?
        /// A reader asked for it (else it was only read up front from the last profile).
        var asked = false
    }

    private struct PassState {
        var kind: PassKind?
        /// The files of the pass under way, each at its place in `entries`: a read hashes its
        /// path once (`slot`), and its result goes back by that place, not by a second lookup.
        var slots: [PathKey: Int] = [:]
        var entries: [PassEntry] = []
        /// The paths readers asked for in the pass under way, in order: the pass's profile (an
        /// untabled discovery's lists a path as often as it was read; the batch reading it up
        /// front serves each once).
        var recorded: [String] = []
        /// Counts passes begun and ended: a result that comes back after its pass ended (a read
        /// from another thread, outside the pass lock) finds a different number and is dropped.
        var generation = 0
        /// What the last pass of each kind read, in order (nil before the first one). Two
        /// fields, not a dictionary by kind: the dictionary was a generic type of its own to
        /// make at first use, and hashed the kind at every pass.
        var discoveryProfile: [String]?
        var sampleProfile: [String]?

        func profile(_ kind: PassKind) -> [String]? {
            switch kind {
            case .discovery: discoveryProfile
            case .sample: sampleProfile
            }
        }

        mutating func setProfile(_ kind: PassKind, _ paths: [String]) {
            switch kind {
            case .discovery: discoveryProfile = paths
            case .sample: sampleProfile = paths
            }
        }
        /// Whether any sample pass so far kept its value files open: until one has, there is
        /// nothing for `release` to close, and a one-shot never builds the set it keeps.
        var keptValues = false
        /// Value files found missing in a sample pass: not looked up again until the next
        /// discovery (sysfs attributes come and go with their device, and a device coming or
        /// going is a rediscovery) or until `missingRetrySamples` sample passes have gone by.
        /// With the sample pass in which each was found missing.
        var missing: [String: (issue: ReadingIssue, since: Int)] = [:]
        var samplePasses = 0
        var readCount = 0
        var tap: (@Sendable (SysfsAccess) -> Void)?
        /// Files whose read overran on a reading thread, with when: read through reader
        /// threads for `retirementWindow`, so one file cannot retire thread after thread.
        var slow: [String: Double] = [:]
        /// A read overran: every read goes through reader threads (which share one budget
        /// however many files hang) until a pass completes without a stall.
        var gatedUntilClean = false
        /// A discovery pass was cut short by a retirement: the source's layout is half made.
        var abandonedDiscovery = false
        /// When this root's reads retired a reading thread, within the last `retirementWindow`;
        /// at `retirementLimit` of them, no inline reads until the oldest leaves the window.
        var retirements: [Double] = []
        /// A discovery pass ended and no sample pass has run since: the discovery's folders are
        /// still open (see `pass`).
        var afterDiscovery = false
        /// Whether the sample pass under way keeps its value files open (see `pass`).
        var keepValues = false
        /// The pass under way (a discovery, or the first sample) reads file by file where it
        /// runs (see `pass`): its reads only add their paths to the profile, with no place in
        /// the pass's tables.
        var untabled = false

        /// The place of `path` in the pass's tables, made when new; `asking`: a reader asked
        /// for it (recorded in the profile the first time), not a read made up front.
        mutating func slot(for path: String, asking: Bool) -> Int {
            let next = entries.count
            let i = Self.claim(&slots[PathKey(path), default: -1], next)
            if i == next { entries.append(PassEntry()) }
            if asking && !entries[i].asked {
                entries[i].asked = true
                recorded.append(path)
            }
            return i
        }

        /// One lookup for "find or insert": the dictionary's defaulted subscript hands the
        /// value over in place.
        private static func claim(_ value: inout Int, _ next: Int) -> Int {
            if value < 0 { value = next }
            return value
        }

        mutating func resetPassTables() {
            slots = [:]
            entries = []
            recorded = []
            generation &+= 1
        }

        /// Whether nothing has gone wrong that routes reads through reader threads, without
        /// reading the clock (a read asks this every time).
        var nothingSlow: Bool { !gatedUntilClean && retirements.isEmpty && slow.isEmpty }

        /// Forget what left the window; true when the root may read inline.
        mutating func mayReadInline(now: Double, limit: Int, window: Double) -> Bool {
            if let first = retirements.first, first <= now - window { retirements.removeAll { $0 <= now - window } }
            if !slow.isEmpty, slow.values.contains(where: { $0 <= now - window }) {
                slow = slow.filter { $0.value > now - window }
            }
            return !gatedUntilClean && retirements.count < limit
        }
    }

    /// - Parameters:
    ///   - path: the root directory (`/sys`, or a fixture tree laid out like it).
    ///   - config: the reading layer's numbers: `readDeadlineSeconds`, `stalledReadGraceSeconds`,
    ///     `missingFileRetrySamples`, `movedFileCheckReads`, `inlineReadRetirementLimit`,
    ///     `inlineReadRetirementWindowSeconds`, `idleReaderSeconds`, `discoveryFoldersKeptOpen`.
    public convenience init(path: String = "/sys", config: ThermalConfig = ThermalConfig()) {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        self.init(backend: FileSystemBackend(rootPath: p, movedCheckReads: config.movedFileCheckReads,
                                             keptFolderLimit: config.discoveryFoldersKeptOpen),
                  path: p, config: config)
    }

    /// A root served by any backend (a replay); `path` is what it is shown as.
    public init(backend: any SysfsBackend, path: String, config: ThermalConfig = ThermalConfig()) {
        self.path = path
        self.backend = backend
        self.missingRetrySamples = max(1, config.missingFileRetrySamples)
        self.retirementLimit = max(0, config.inlineReadRetirementLimit)
        self.retirementWindow = max(0, config.inlineReadRetirementWindowSeconds)
        gate = ReadGate(backend: backend, deadline: config.readDeadlineSeconds, grace: config.stalledReadGraceSeconds,
                        idleExit: config.idleReaderSeconds)
    }

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
    /// Batches of reads handed to reader threads since creation (none in a reading thread's
    /// steady state: it reads on itself).
    public var handedOffBatches: Int { gate.batchCount }

    /// Observe every access (path and raw text or issue, listings, existence checks), in the
    /// order the readers make them: what `thermtop record` writes. Called on the reading
    /// thread; keep it cheap. nil removes it.
    public func setTap(_ tap: (@Sendable (SysfsAccess) -> Void)?) {
        state.withLock { $0.tap = tap }
    }

    private var tap: (@Sendable (SysfsAccess) -> Void)? { state.withLock { $0.tap } }

    /// The files a pass's tables have room for from its start when no pass of its kind came
    /// before (a laptop's first sample reads a few dozen).
    static let passTableCapacity = 64

    /// Run `body` as one pass of `kind`. Passes are serialised.
    public func withPass<T>(_ kind: PassKind, _ body: () throws -> T) rethrows -> T {
        if let thread = ReadingThread.current {
            return try thread.guarded { try passLock.withLock { try pass(kind, body) } }
        }
        return try passLock.withLock { try pass(kind, body) }
    }

    private func pass<T>(_ kind: PassKind, _ body: () throws -> T) rethrows -> T {
        let stallsBefore = gate.stallCount
        if kind == .discovery { backend.discoveryStarts() }
        // A discovery's up-front batch pays only where reads go through reader threads (one
        // hand-over for the lot instead of one per file). Read where it runs, the batch would
        // read the same files in the same way, and every read would also pay for its place in
        // the tables that serve it (a path hashed, looked up, written back): about a thousand
        // instructions a file. Such a pass only records what it read, for a later discovery
        // that may go through reader threads. The first sample pass is read so too (a one-shot
        // `status` has no other): no profile to read up front yet, and, right after a discovery,
        // no value file to keep open. Later sample passes keep their tables: they read their
        // profile up front, and their value files are what stays open.
        let readsHere = !(backend.readsCanBlock && inlineThread() == nil)
        let (profile, untabled) = state.withLock { s -> ([String], Bool) in
            let untabled = readsHere && (kind == .discovery || (s.afterDiscovery && s.sampleProfile == nil))
            s.untabled = untabled
            if kind == .discovery {
                s.missing = [:]
            } else {
                s.samplePasses += 1
                s.keepValues = !s.afterDiscovery
                if !s.missing.isEmpty {
                    let pass = s.samplePasses
                    s.missing = s.missing.filter { pass - $0.value.since < missingRetrySamples }
                }
            }
            s.kind = kind
            s.resetPassTables()
            if !untabled {
                // Room for the pass's files at once (as many as the last pass of its kind read,
                // and at least `passTableCapacity`): grown by doubling, the table rehashed every
                // path at each step (~12,000 instructions of a one-shot's 3.4 million).
                let expected = max(s.profile(kind)?.count ?? 0, Self.passTableCapacity)
                s.slots.reserveCapacity(expected)
                s.entries.reserveCapacity(expected)
                s.recorded.reserveCapacity(expected)
            }
            if kind == .sample && s.keepValues { s.keptValues = true }
            return (untabled ? [] : s.profile(kind) ?? [], untabled)
        }
        if !profile.isEmpty {
            // Each file once (an untabled pass's profile lists a path as often as it was read),
            // missing ones left out in a sample pass; each result goes back to its place.
            let (toRead, places, keep) = state.withLock { s -> ([String], [Int], Bool) in
                var paths: [String] = [], places: [Int] = []
                for p in profile where kind == .discovery || s.missing.isEmpty || s.missing[p] == nil {
                    let fresh = s.entries.count
                    let i = s.slot(for: p, asking: false)
                    if i == fresh {
                        paths.append(p)
                        places.append(i)
                    }
                }
                return (paths, places, s.keepValues)
            }
            let results = readBatch(toRead.map { ($0, kind == .sample && keep) })
            state.withLock { s in
                for (i, r) in zip(places, results) { s.entries[i].result = r }
            }
        }
        // A discovery's listed folders stay open through the sample that follows it (the hub
        // samples right after each discovery), and are let go after that sample: its value files
        // are opened relative to them, one path component each, instead of by a walk through
        // the class link. That sample keeps no value file open; the next one opens the files it
        // keeps. So a one-shot (`status`, `sample()` without `start()`) opens each file once,
        // relative, and never pays for keeping it (an `fstat` and `fstatfs` at open, a `close`
        // at the end), and a running monitor reaches its one-`pread` steady state a sample later.
        defer {
            let clean = gate.stallCount == stallsBefore
            let (recorded, foldersDone, anyKept) = state.withLock { s -> ([String], Bool, Bool) in
                s.kind = nil
                let recorded = s.recorded
                s.resetPassTables()
                s.setProfile(kind, recorded)
                if clean { s.gatedUntilClean = false }
                let done = kind == .sample && s.afterDiscovery
                s.afterDiscovery = kind == .discovery
                return (recorded, done, s.keptValues)
            }
            if kind == .sample {
                // Until a sample has kept files open, none is open to close: no set to build.
                backend.release(keeping: anyKept ? Set(recorded).union(gate.busyPaths) : [])
                gate.closeStallWindow()
                if foldersDone { backend.discoveryEnds() }
            }
        }
        return try body()
    }

    /// Read one attribute file (`class/thermal/thermal_zone0/temp`).
    @_disfavoredOverload
    public func read(_ relative: String) -> Result<String, ReadingIssue> {
        // Where the result goes back to in the pass's tables: (place, generation).
        typealias Slot = (index: Int, generation: Int)
        // Under one lock: the pass's table, the tap, and whether any file ever overran here
        // (each asked under a lock of its own was ~300 instructions a read).
        let (served, kind, keep, slot, tap, nothingSlow) = state.withLock { s
            -> (Result<String, ReadingIssue>?, PassKind?, Bool, Slot?, (@Sendable (SysfsAccess) -> Void)?, Bool) in
            s.readCount += 1
            guard let kind = s.kind else { return (nil, nil, false, nil, s.tap, s.nothingSlow) }
            if s.untabled {
                s.recorded.append(relative)
                return (nil, kind, false, nil, s.tap, s.nothingSlow)
            }
            let i = s.slot(for: relative, asking: true)
            if kind == .sample, !s.missing.isEmpty, let issue = s.missing[relative]?.issue {
                return (.failure(issue), kind, false, nil, s.tap, s.nothingSlow)
            }
            return (s.entries[i].result, kind, kind == .sample && s.keepValues, (i, s.generation), s.tap, s.nothingSlow)
        }
        let result: Result<String, ReadingIssue>
        if let served {
            result = served
        } else {
            result = readOne(relative, keepOpen: keep, nothingSlow: nothingSlow)
            if let slot {
                state.withLock { s in
                    if s.generation == slot.generation { s.entries[slot.index].result = result }
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
    public func list(_ relative: String) -> [String]? { listing(relative)?.names }

    /// `list`, as the names' bytes: a discovery makes Strings only of the names it uses. The
    /// file system backend lists into a `Listing` directly; another backend's names are put
    /// into one.
    func listing(_ relative: String) -> Listing? {
        let listing = blocking(relative) { () -> Listing? in
            if let files = backend as? FileSystemBackend { return files.listing(relative) }
            return backend.list(relative).map(Listing.init(names:))
        }
        if let tap { tap(.list(relative, listing?.names)) }
        return listing
    }

    /// Whether a reader should try an optional attribute `name` of a folder it listed
    /// (`listing`, nil when the folder could not be listed): not when the listing lacks it.
    /// Most devices lack most optional attributes, and each failed open is a path lookup; a
    /// folder that could not be listed has every attribute tried.
    static func mayHave(_ name: String, listing: Listing?) -> Bool {
        listing?.contains(name) ?? true
    }

    /// Whether a path exists (following links).
    @_disfavoredOverload
    public func exists(_ relative: String) -> Bool {
        let r = blocking(relative) { backend.exists(relative) }
        tap?(.exists(relative, r))
        return r
    }

    @_disfavoredOverload
    public func isDirectory(_ relative: String) -> Bool {
        let r = blocking(relative) { backend.isDirectory(relative) }
        tap?(.isDirectory(relative, r))
        return r
    }

    /// The canonical path relative to the root (`devices/platform/coretemp.0/hwmon/hwmon1`),
    /// or the absolute path when it lies outside the root; nil when it does not resolve.
    @_disfavoredOverload
    public func resolved(_ relative: String) -> String? {
        let r = blocking(relative) { backend.resolved(relative) }
        tap?(.resolved(relative, r))
        return r
    }

    // MARK: Where a read runs

    /// The reading thread to read on inline, nil when reads go through reader threads.
    private func inlineThread() -> ReadingThread? { inlineReading()?.thread }

    /// `inlineThread`, and whether nothing ever overran here (then no file is slow either).
    /// `nothingSlow`: that flag when the caller has just read it under the lock.
    private func inlineReading(nothingSlow known: Bool? = nil) -> (thread: ReadingThread, nothingSlow: Bool)? {
        guard let thread = ReadingThread.current, thread.canGuard else { return nil }
        // The usual case (no read ever overran here) needs no clock.
        if retirementLimit > 0, known ?? state.withLock({ $0.nothingSlow }) { return (thread, true) }
        let now = monotonicSeconds()
        guard state.withLock({ $0.mayReadInline(now: now, limit: retirementLimit, window: retirementWindow) }) else {
            return nil
        }
        return (thread, false)
    }

    /// Read files, in order: on this reading thread when it is one (files that overran before
    /// excepted), else through reader threads in one batch.
    private func readBatch(_ requests: [(path: String, keepOpen: Bool)]) -> [Result<String, ReadingIssue>] {
        guard backend.readsCanBlock else { return requests.map { backend.read($0.path, keepOpen: $0.keepOpen) } }
        guard let thread = inlineThread() else { return gate.readAll(requests) }
        // The slow and stuck tables (usually empty) are copied once per batch, not per file: a
        // step that overruns retires this thread, which then never reads the rest of the
        // batch, so they cannot go stale under it. Looked up as they are, with no set built
        // from them.
        let slow = state.withLock { $0.slow }, stuck = gate.stuckTable
        return requests.map {
            readInline($0.path, keepOpen: $0.keepOpen, on: thread,
                       overran: (!slow.isEmpty && slow[$0.path] != nil) || (!stuck.isEmpty && stuck[$0.path] != nil))
        }
    }

    /// `readBatch` of one file, without the arrays: a discovery reads file by file. The file is
    /// looked up in the slow and stuck tables where they are kept (a batch copies them once
    /// for all its files).
    private func readOne(_ path: String, keepOpen: Bool, nothingSlow known: Bool) -> Result<String, ReadingIssue> {
        guard backend.readsCanBlock else { return backend.read(path, keepOpen: keepOpen) }
        guard let (thread, nothingSlow) = inlineReading(nothingSlow: known) else { return gate.readAll([(path, keepOpen)])[0] }
        let slow = !nothingSlow && state.withLock { !$0.slow.isEmpty && $0.slow[path] != nil }
        return readInline(path, keepOpen: keepOpen, on: thread, overran: slow || gate.isStuck(path))
    }

    /// A read on this reading thread, guarded, unless the file overran before (`overran`: it is
    /// slow or still stuck; then through reader threads).
    private func readInline(_ path: String, keepOpen: Bool, on thread: ReadingThread, overran: Bool) -> Result<String, ReadingIssue> {
        if overran { return gate.readAll([(path, keepOpen)])[0] }
        let result = thread.guarded { thread.step(path, owner: self) { backend.read(path, keepOpen: keepOpen) } }
        // A ticked caller gave the read up (`stepAbandoned` marked it stuck): timed out, not
        // the EINTR it failed with.
        if case .failure = result, let since = gate.stuckSince(path) {
            return .failure(ReadGate.unanswered(path, after: monotonicSeconds() - since))
        }
        return result
    }

    /// A listing or a lookup: on a reading thread it is a guarded step too (a hung directory
    /// on a FUSE or network mount must not stop the sampler either).
    private func blocking<T>(_ label: String, _ body: () -> T) -> T {
        guard backend.readsCanBlock, let thread = inlineThread() else { return body() }
        return thread.guarded { thread.step(label, owner: self, body) }
    }

    /// Whether a discovery pass was cut short by a retired reading thread since last asked.
    public func takeAbandonedDiscovery() -> Bool {
        state.withLock { s in
            defer { s.abandonedDiscovery = false }
            return s.abandonedDiscovery
        }
    }

    static func issue(_ file: String, errno code: Int32) -> ReadingIssue {
        let reason: IssueReason
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

extension SysfsRoot: BlockingStepOwner {
    package func stepOverran(_ label: String, started: Double, on thread: ReadingThread) {
        gate.markStuck(label, since: started)
        let now = monotonicSeconds()
        state.withLock { s in
            s.slow[label] = now
            s.gatedUntilClean = true
            s.retirements.append(now)
            if s.kind == .discovery { s.abandonedDiscovery = true }
        }
    }

    package func stepReturnedLate(_ label: String) {
        gate.unstick(label)
    }

    /// Nothing is left blocked (the caller gave up the read and goes on), but the file is
    /// answered as hung for the rest of the work, as after a retirement: another try would
    /// cost another deadline. Unstuck when the work is over (`stepReturnedLate`).
    package func stepAbandoned(_ label: String, started: Double) {
        gate.markStuck(label, since: started)
    }
}

/// A path as a table key that hashes cheaply: its FNV-1a hash is taken once, from its bytes,
/// and only that word goes through the table's (seeded) hasher; keys whose hashes differ compare
/// unequal without comparing bytes. Keyed by the String itself, a pass's table cost a read
/// about a thousand instructions more: SipHash over the whole path at each lookup and at each
/// growth, and a byte comparison at every occupied bucket probed.
struct PathKey: Hashable {
    let path: String
    let fingerprint: UInt64

    init(_ path: String) {
        var p = path
        fingerprint = p.withUTF8 { bytes in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return h
        }
        self.path = p
    }

    static func == (a: PathKey, b: PathKey) -> Bool { a.fingerprint == b.fingerprint && a.path == b.path }
    func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }
}

/// `a2 < a10`: compare runs of ASCII digits as numbers (of any length: a run is compared by
/// its length without leading zeros, then digit by digit, so no integer can overflow), and
/// everything else by scalar value. Compared as UTF-8 bytes, which order as their scalars do
/// (a digit is one byte, never part of a longer sequence), without making arrays of scalars:
/// every listing is sorted with it.
func naturalLess(_ a: String, _ b: String) -> Bool {
    // Borrowed in place when both have contiguous UTF-8 (native strings, small ones included):
    // no copies for `withUTF8`. A listing sort compares a few hundred pairs per discovery.
    if let r = a.utf8.withContiguousStorageIfAvailable({ x in b.utf8.withContiguousStorageIfAvailable { y in naturalLess(x, y) } }),
       let r {
        return r
    }
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in naturalLess(x, y) } }
}

func naturalLess(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    func isDigit(_ u: UInt8) -> Bool { u >= 48 && u <= 57 }
    let zero = UInt8(ascii: "0")
    // Names in one folder share long beginnings (`temp1_crit_alarm`, `temp1_crit_hyst`): the
    // bytes both have alike are passed over plainly, and the comparison below starts where
    // they differ, or at the start of the digit run that reaches there (`temp1` against
    // `temp10` is decided by the whole numbers). Everything before that start is equal, token
    // for token, so the result is the same as comparing from the first byte.
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
    func listing(_ relative: SysfsPath) -> Listing? { listing(relative.string) }
    func exists(_ relative: SysfsPath) -> Bool { exists(relative.string) }
    func isDirectory(_ relative: SysfsPath) -> Bool { isDirectory(relative.string) }
    func resolved(_ relative: SysfsPath) -> String? { resolved(relative.string) }
}
