#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux
import Synchronization
import ThermtopCore

/// Where `SysfsRoot` gets its files from: the real filesystem (`FileSystemBackend`, the
/// default) or anything else that can answer the same questions, such as a replay of recorded
/// file contents. Paths are relative to the root (`class/thermal/thermal_zone0/temp`).
/// Implementations must be safe to call from several threads at once: reads run on reader
/// threads so that a hung file cannot stall the sampler.
public protocol SysfsBackend: Sendable {
    /// The file's text, or why it could not be read. `keepOpen`: the file is a value read every
    /// sample, worth keeping open (a hint; backends without descriptors ignore it).
    func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue>
    /// Directory entries (unsorted is fine), nil when it cannot be listed.
    func list(_ relative: String) -> [String]?
    /// Whether anything (a file, a folder, a link that resolves) is at `relative`.
    func exists(_ relative: String) -> Bool
    /// Whether `relative` is a folder (following links).
    func isDirectory(_ relative: String) -> Bool
    /// The canonical path relative to the root (`devices/platform/coretemp.0/hwmon/hwmon1`),
    /// the absolute path when it lies outside the root, nil when it does not resolve.
    func resolved(_ relative: String) -> String?
    /// Close whatever is kept open for files not in `keeping` (called after each sample).
    func release(keeping: Set<String>)
    /// Whether a read can block (files: a hung driver, a FIFO). Reads that cannot (a replay's
    /// recorded files, in memory) are made on the caller's thread, with no deadline and no
    /// reader thread. Default true.
    var readsCanBlock: Bool { get }
    /// Syscall counters, when the backend makes syscalls.
    var ioStats: SysfsIOStats? { get }
}

extension SysfsBackend {
    public func release(keeping: Set<String>) {}
    public var readsCanBlock: Bool { true }
    public var ioStats: SysfsIOStats? { nil }
}

/// What `FileSystemBackend` did to the kernel, counted where the syscalls are made.
public struct SysfsIOStats: Sendable, Equatable {
    /// Successful opens (each is closed once, now or later).
    public var opens = 0
    /// Opens the kernel refused (ENOENT, EACCES…).
    public var failedOpens = 0
    /// Descriptors closed.
    public var closes = 0
    /// Reads of a file's contents (each value read is exactly one).
    public var reads = 0
    /// Files reopened because the kernel said the old descriptor was gone (ENODEV, ENOENT,
    /// ESTALE) or, outside sysfs, because the file was replaced (renamed over).
    public var reopens = 0
    /// Descriptors currently kept open.
    public var openFiles = 0
    /// Opens that failed for want of descriptors (EMFILE, ENFILE) and were made again after
    /// the kept descriptors were closed.
    public var descriptorShortages = 0
    /// All counts zero.
    public init() {}
}

/// One access through a `SysfsRoot`, as a tap sees it (`thermtop record` writes these).
public enum SysfsAccess: Sendable, Equatable {
    /// A file read: its path and its text or why not.
    case read(String, Result<String, ReadingIssue>)
    /// A folder listed: its path and entries, nil when it could not be.
    case list(String, [String]?)
    /// An existence check and its answer.
    case exists(String, Bool)
    /// A folder check and its answer.
    case isDirectory(String, Bool)
    /// A path resolved: the canonical path, nil when it does not resolve.
    case resolved(String, String?)
}

/// The real filesystem under `rootPath`. Value files (`keepOpen`) stay open and are read with
/// one `pread` at offset 0 per sample; static attributes are opened, read and closed.
///
/// Files are opened `O_NONBLOCK`: opening a FIFO then never waits for a writer. A FIFO-like
/// file (a FIFO or a socket, which sysfs never has but a fixture or a graft over /sys may) is
/// waited for with `poll` until it has something to say; that wait, like a driver hung in
/// `read`, is what the reading layer's deadline abandons.
///
/// When the process runs out of descriptors (EMFILE, ENFILE) the kept ones are closed and no
/// file is kept open any more: each read opens, reads and closes, so a tree with more value
/// files than the descriptor limit is still read whole.
package final class FileSystemBackend: SysfsBackend {
    public let rootPath: String

    /// sysfs's magic number (`SYSFS_MAGIC` in <linux/magic.h>), what `fstatfs` says of its files.
    static let sysfsMagic = 0x6265_6572

    /// Whether an open file is on sysfs, whose files are never replaced while open, so they
    /// need no per-read `stat`; a fixture or a tmpfs graft over /sys can have files renamed
    /// over or moved away, so there each read first checks that the path still names the
    /// open file.
    static func isOnSysfs(_ fd: Int32) -> Bool {
        var fs = statfs()
        return fstatfs(fd, &fs) == 0 && Int(fs.f_type) == sysfsMagic
    }

    /// procfs's magic number (`PROC_SUPER_MAGIC` in <linux/magic.h>).
    static let procMagic = 0x9fa0

    /// Whether `path` is on a mounted procfs (not a tree laid out like one).
    static func isProcfs(_ path: String) -> Bool {
        var fs = statfs()
        return statfs(path, &fs) == 0 && Int(fs.f_type) == procMagic
    }

    private struct OpenFile {
        var fd: Int32
        var onSysfs: Bool
        /// The open file's identity, taken when it was opened.
        var identity: FileIdentity
    }

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    private struct State {
        var open: [String: OpenFile] = [:]
        var stats = SysfsIOStats()
        /// Descriptors ran out once: files are no longer kept open.
        var keepingDisabled = false
    }

    private let state = Mutex(State())

    public init(rootPath: String) {
        self.rootPath = rootPath
    }

    deinit {
        state.withLock { s in
            for f in s.open.values { _ = close(f.fd) }
            s.open = [:]
        }
    }

    /// `rootPath/relative`, or `rootPath` alone for "".
    private func absolute(_ relative: String) -> String {
        relative.isEmpty ? rootPath : "\(rootPath)/\(relative)"
    }

    public var ioStats: SysfsIOStats? {
        state.withLock { s in
            var st = s.stats
            st.openFiles = s.open.count
            return st
        }
    }

    public func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue> {
        if let file = state.withLock({ $0.open[relative] }) {
            if !file.onSysfs && identity(of: relative) != file.identity {
                forget(relative, file.fd)
            } else {
                switch readAll(file.fd) {
                case .success(let text): return .success(text)
                case .failure(let e) where e.code == ENODEV || e.code == ENOENT || e.code == ESTALE:
                    // The device behind the descriptor went away (unbind, hot-unplug): drop
                    // it and try the path afresh, once.
                    forget(relative, file.fd)
                case .failure(let e): return .failure(SysfsRoot.issue(relative, errno: e.code))
                }
            }
        }
        let fd: Int32
        switch openFile(relative) {
        case .success(let opened): fd = opened
        case .failure(let e): return .failure(SysfsRoot.issue(relative, errno: e.code))
        }
        let result = readAll(fd)
        var st = stat()
        if keepOpen, fstat(fd, &st) == 0,
           keep(relative, OpenFile(fd: fd, onSysfs: Self.isOnSysfs(fd), identity: FileIdentity(st))) {
            return result.mapError { SysfsRoot.issue(relative, errno: $0.code) }
        }
        closeCounted(fd)
        return result.mapError { SysfsRoot.issue(relative, errno: $0.code) }
    }

    /// Keeps `file` open for `relative`; false when it is not kept (keeping was given up, or
    /// another reader kept the same file meanwhile): the caller closes it.
    private func keep(_ relative: String, _ file: OpenFile) -> Bool {
        state.withLock { s in
            guard !s.keepingDisabled, s.open[relative] == nil else { return false }
            s.open[relative] = file
            return true
        }
    }

    /// `open(2)` of a file relative to the root. Out of descriptors, the kept ones are closed
    /// (and none kept from then on) and the open is made once more: a sensor must not go
    /// unread because others hold descriptors.
    private func openFile(_ relative: String) -> Result<Int32, Errno> {
        let path = absolute(relative)
        func attempt() -> Result<Int32, Errno> {
            let fd = Syscalls.retryingEINTR { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            if fd < 0 { return .failure(Errno(code: errno)) }
            return .success(fd)
        }
        var result = attempt()
        if case .failure(let e) = result, e.code == EMFILE || e.code == ENFILE {
            let kept = state.withLock { s -> [Int32] in
                s.keepingDisabled = true
                s.stats.descriptorShortages += 1
                defer { s.open = [:] }
                return s.open.values.map(\.fd)
            }
            for fd in kept { closeCounted(fd) }
            result = attempt()
        }
        state.withLock { s in
            if case .success = result { s.stats.opens += 1 } else { s.stats.failedOpens += 1 }
        }
        return result
    }

    struct Errno: Error { var code: Int32 }

    /// Up to a page from offset 0: sysfs attributes are at most a page, and reading at offset
    /// 0 makes the kernel regenerate the value each time. A FIFO-like file cannot be read at an
    /// offset (`pread` says ESPIPE, at once): it is waited for until it has data or its writer
    /// leaves, then read once. Sysfs never has one, so the failed `pread` costs only a fixture.
    private func readAll(_ fd: Int32) -> Result<String, Errno> {
        state.withLock { $0.stats.reads += 1 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
            var n = Syscalls.retryingEINTR { pread(fd, buffer.baseAddress, buffer.count, 0) }
            if n < 0 && errno == ESPIPE {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = Syscalls.retryingEINTR { poll(&p, 1, -1) }
                n = Syscalls.retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            if n < 0 { return .failure(Errno(code: errno)) }
            return .success(String(decoding: UnsafeBufferPointer(rebasing: buffer[..<n]), as: UTF8.self))
        }
    }

    /// What a path names now (links followed), nil when nothing.
    private func identity(of relative: String) -> FileIdentity? {
        var st = stat()
        guard stat(absolute(relative), &st) == 0 else { return nil }
        return FileIdentity(st)
    }

    private func forget(_ relative: String, _ fd: Int32) {
        let removed = state.withLock { s -> Bool in
            guard let f = s.open[relative], f.fd == fd else { return false }
            s.open[relative] = nil
            s.stats.reopens += 1
            return true
        }
        if removed { closeCounted(fd) }
    }

    private func closeCounted(_ fd: Int32) {
        _ = close(fd)
        state.withLock { $0.stats.closes += 1 }
    }

    public func release(keeping: Set<String>) {
        let stale = state.withLock { s -> [Int32] in
            let gone = s.open.filter { !keeping.contains($0.key) }
            for key in gone.keys { s.open[key] = nil }
            return gone.values.map(\.fd)
        }
        for fd in stale { closeCounted(fd) }
    }

    /// The folder's entries but `.` and `..`.
    public func list(_ relative: String) -> [String]? {
        try? Syscalls.listDirectory(absolute(relative))
    }

    public func exists(_ relative: String) -> Bool {
        access(absolute(relative), F_OK) == 0
    }

    public func isDirectory(_ relative: String) -> Bool {
        var st = stat()
        return stat(absolute(relative), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// `realpath(3)` of `rootPath/relative`, relative to the root's own canonical path (the
    /// whole path when it lies outside the root; "" for the root itself).
    public func resolved(_ relative: String) -> String? {
        guard let root = try? Syscalls.realpath(rootPath.isEmpty && !relative.isEmpty ? "/" : rootPath.isEmpty ? "." : rootPath),
              let full = try? Syscalls.realpath(rootPath.isEmpty && !relative.isEmpty ? "/\(relative)" : absolute(relative))
        else { return nil }
        if full == root { return "" }
        if root != "/", full.hasPrefix(root + "/") { return String(full.dropFirst(root.count + 1)) }
        return full
    }
}
