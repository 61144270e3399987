#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux
import Synchronization
import ThermtopCore

/// Where `SysfsRoot` gets its files from: the real filesystem (`FileSystemBackend`, the
/// default) or anything else that can answer the same four questions, such as a replay of
/// recorded file contents. Paths are relative to the root (`class/thermal/thermal_zone0/temp`).
/// Implementations must be safe to call from several threads at once: reads run on reader
/// threads so that a hung file cannot stall the sampler.
public protocol SysfsBackend: Sendable {
    /// The file's text, or why it could not be read. `keepOpen`: the file is a value read every
    /// sample, worth keeping open (a hint; backends without descriptors ignore it).
    func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue>
    /// Directory entries (unsorted is fine), nil when it cannot be listed.
    func list(_ relative: String) -> [String]?
    func exists(_ relative: String) -> Bool
    func isDirectory(_ relative: String) -> Bool
    /// The canonical path relative to the root (`devices/platform/coretemp.0/hwmon/hwmon1`),
    /// the absolute path when it lies outside the root, nil when it does not resolve.
    func resolved(_ relative: String) -> String?
    /// Close whatever is kept open for files not in `keeping` (called after each sample).
    func release(keeping: Set<String>)
    /// A discovery pass starts: forget anything remembered about the tree's links.
    func discoveryStarts()
    /// A discovery pass and the sample pass right after it are over: let go of what only they
    /// needed (folders kept open).
    func discoveryEnds()
    /// Whether a read can block (files: a hung driver, a FIFO). Reads that cannot (a replay's
    /// recorded files, in memory) are made on the caller's thread, with no deadline and no
    /// reader thread. Default true.
    var readsCanBlock: Bool { get }
    /// Syscall counters, when the backend makes syscalls.
    var ioStats: SysfsIOStats? { get }
}

extension SysfsBackend {
    public func release(keeping: Set<String>) {}
    public func discoveryStarts() {}
    public func discoveryEnds() {}
    public var readsCanBlock: Bool { true }
    public var ioStats: SysfsIOStats? { nil }
}

/// What `FileSystemBackend` did to the kernel, counted where the syscalls are made.
public struct SysfsIOStats: Sendable, Equatable {
    /// Successful opens (each is closed once, now or later).
    public var opens = 0
    /// Opens the kernel refused (ENOENT, EACCES…).
    public var failedOpens = 0
    public var closes = 0
    /// `pread` calls (each value read is exactly one).
    public var reads = 0
    /// Files reopened because the kernel said the old descriptor was gone (ENODEV, ENOENT,
    /// ESTALE) or, outside sysfs, because the file was replaced (renamed over).
    public var reopens = 0
    /// Descriptors currently kept open.
    public var openFiles = 0
    /// Opens made relative to a listed folder's descriptor (one path component), included in
    /// `opens` and `failedOpens`.
    public var relativeOpens = 0
    /// Folders kept open from a discovery's listings right now (closed when it ends).
    public var keptFolders = 0
    /// The most folders kept open at once since creation.
    public var peakKeptFolders = 0
    public init() {}
}

/// One access through a `SysfsRoot`, as a tap sees it (`thermtop record` writes these).
public enum SysfsAccess: Sendable, Equatable {
    case read(String, Result<String, ReadingIssue>)
    case list(String, [String]?)
    case exists(String, Bool)
    case isDirectory(String, Bool)
    case resolved(String, String?)
}

/// An open value file: a descriptor that only this backend closes, once.
struct ValueFile: Equatable, Sendable {
    let rawValue: Int32
    func close() { _ = Glibc.close(rawValue) }
}

/// A folder listed during a discovery, kept open until the discovery and the sample after it
/// end (`discoveryEnds`): its files are opened (`openat`), checked (`faccessat`) and stat'ed
/// (`fstatat`) relative to it, one path component each, instead of by a walk of the whole path
/// through the class links (`/sys/class/hwmon/hwmon2` -> `../../devices/pci0000:00/...`) for
/// every attribute. Whoever uses the descriptor holds the object, so it is closed only once no
/// reader is using it.
///
/// That sample opens no value file to keep (`SysfsRoot.pass`). A running monitor's rediscovery
/// still has its folders open beside the value files earlier samples kept, and with both a
/// laptop's tree nears 64 descriptors: past 64 the kernel grows a multi-threaded process's
/// descriptor table only after an RCU grace period (`expand_fdtable` -> `synchronize_rcu`,
/// 7-15 ms in one `openat`), which is why `Main` reserves a table of 256 while it has one thread.
final class ListedFolder: Sendable {
    let fd: Int32
    /// The entries as `getdents64` gave them (with `.` and `..`).
    let names: [String]
    init(fd: Int32, names: [String]) {
        self.fd = fd
        self.names = names
    }
    deinit { _ = Glibc.close(fd) }
}

/// The real filesystem under `rootPath`. Value files (`keepOpen`) stay open and are read with
/// one `pread` at offset 0 per sample; static attributes are opened, read and closed.
package final class FileSystemBackend: SysfsBackend {
    public let rootPath: String

    /// sysfs's magic number (`SYSFS_MAGIC` in <linux/magic.h>), what `fstatfs` says of its files.
    static let sysfsMagic = 0x6265_6572

    /// Whether an open file is on sysfs, whose files are never replaced while open, so they
    /// need no per-read `stat`; a fixture or a tmpfs graft over /sys can have files renamed
    /// over or moved away, so there each read first checks that the path still names the
    /// open file. One `fstatfs` when a value file is opened.
    static func isOnSysfs(_ fd: Int32) -> Bool {
        var fs = statfs()
        return fstatfs(fd, &fs) == 0 && Int(fs.f_type) == sysfsMagic
    }

    private struct OpenFile {
        var fd: ValueFile
        var onSysfs: Bool
        /// The open file's identity (st_dev, st_ino), taken once when it was opened: an open
        /// descriptor's inode never changes, so only the path needs a `stat` per read.
        var device: UInt64
        var inode: UInt64
        /// The identity of the folder the path names it in, taken at open.
        var folder: FileIdentity?
        var readsSincePathCheck = 0
    }

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private struct State {
        var open: [String: OpenFile] = [:]
        var stats = SysfsIOStats()
        /// Canonical forms of absolute paths resolved since the last discovery started
        /// (nil: does not resolve). Discovery resolves many links under the same few
        /// directories (`/sys`, `/sys/class/thermal`, `/sys/devices/virtual/thermal`); realpath
        /// would readlink each of them again every time.
        var canonical: [String: String?] = [:]
        /// Folders of open value files looked at since the last sample ended (off sysfs): one
        /// `stat` per device folder per sample, not one per file.
        var foldersSeen: [String: FileIdentity?] = [:]
        /// Folders listed in the discovery under way (at most `keptFolderLimit`).
        var listed: [String: ListedFolder] = [:]
        /// The kept folder that last answered `inListedFolder`, with its path: a discovery
        /// reads a folder's attributes one after another, so most lookups are answered by
        /// comparing bytes, without building and hashing each parent's path.
        var lastListed: (path: String, folder: ListedFolder)?
        var discovering = false
    }

    private let state = Mutex(State())

    /// Reads of an open value file between two checks that its path still names it (outside
    /// sysfs; `ThermalConfig.movedFileCheckReads`).
    let movedCheckReads: Int

    /// `ThermalConfig.discoveryFoldersKeptOpen`.
    let keptFolderLimit: Int

    public init(rootPath: String, movedCheckReads: Int = ThermalConfig().movedFileCheckReads,
                keptFolderLimit: Int = ThermalConfig().discoveryFoldersKeptOpen) {
        self.rootPath = rootPath
        self.movedCheckReads = max(1, movedCheckReads)
        self.keptFolderLimit = max(0, keptFolderLimit)
    }

    deinit {
        state.withLock { s in
            for f in s.open.values { f.fd.close() }
            s.open = [:]
        }
    }

    private func absolute(_ relative: String) -> String {
        relative.isEmpty ? rootPath : rootPath + "/" + relative
    }

    /// Folders up from a file looked at for a kept one: the file's own (`zone/trip_point_0_type`)
    /// and up to two more (`zone/device/power_state`, `cpu/cpu0/thermal_throttle/…`).
    static let listedFolderLevels = 3

    /// A kept folder holding `relative` (at most `listedFolderLevels` up: the last one that
    /// answered when it holds it, else the nearest) and the rest of the path from it, nil when
    /// there is none (go by the whole path). The kernel resolves the rest from the folder exactly
    /// as it would the whole path: links in it are followed from where they are, `..` from the
    /// folder's real place, so any kept folder holding the file names the same file. Only plain
    /// names are taken (no empty, `.` or `..` component).
    private func inListedFolder(_ relative: String) -> (folder: ListedFolder, name: Substring)? {
        let utf8 = relative.utf8
        let slash = UInt8(ascii: "/")
        return state.withLock { st -> (folder: ListedFolder, name: Substring)? in
            guard !st.listed.isEmpty else { return nil }
            if let last = st.lastListed, let rest = Self.below(last.path, relative) {
                return (last.folder, relative[rest...])
            }
            var end = utf8.endIndex
            for _ in 0..<Self.listedFolderLevels {
                guard let s = utf8[..<end].lastIndex(of: slash) else { return nil }
                // Each component below the folder must be a plain name.
                guard Self.isPlainName(utf8[utf8.index(after: s)..<end]) else { return nil }
                let folderPath = String(relative[..<s])
                if let f = st.listed[folderPath] {
                    st.lastListed = (folderPath, f)
                    return (f, relative[utf8.index(after: s)...])
                }
                end = s
            }
            return nil
        }
    }

    /// Whether a path component's bytes are a plain name: not empty, `.` or `..`.
    private static func isPlainName<C: Collection<UInt8>>(_ part: C) -> Bool {
        !part.isEmpty && !(part.count <= 2 && part.allSatisfy { $0 == UInt8(ascii: ".") })
    }

    /// Where the rest of `relative` starts when it lies in `folder`, at most
    /// `listedFolderLevels` components below it, each a plain name; nil otherwise. Compared
    /// in the strings' UTF-8 storage (native strings always have it).
    private static func below(_ folder: String, _ relative: String) -> String.Index? {
        let offset = folder.utf8.withContiguousStorageIfAvailable { f in
            relative.utf8.withContiguousStorageIfAvailable { r -> Int? in
                let slash = UInt8(ascii: "/")
                guard r.count > f.count + 1, r[f.count] == slash,
                      memcmp(r.baseAddress!, f.baseAddress!, f.count) == 0 else { return nil }
                var components = 0, start = f.count + 1, i = start
                while true {
                    if i == r.count || r[i] == slash {
                        guard isPlainName(r[start..<i]) else { return nil }
                        components += 1
                        if components > listedFolderLevels { return nil }
                        if i == r.count { return f.count + 1 }
                        start = i + 1
                    }
                    i += 1
                }
            } ?? nil
        } ?? nil
        return offset.map { relative.utf8.index(relative.utf8.startIndex, offsetBy: $0) }
    }

    /// `open(2)` of a file by its path relative to the root: relative to its folder's kept
    /// descriptor when there is one.
    private func openFile(_ relative: String) -> Int32 {
        if let (folder, name) = inListedFolder(relative) {
            state.withLock { $0.stats.relativeOpens += 1 }
            return openat(folder.fd, String(name), O_RDONLY | O_CLOEXEC)
        }
        return open(absolute(relative), O_RDONLY | O_CLOEXEC)
    }

    public var ioStats: SysfsIOStats? {
        state.withLock { s in
            var st = s.stats
            st.openFiles = s.open.count
            st.keptFolders = s.listed.count
            return st
        }
    }

    public func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue> {
        if let file = state.withLock({ $0.open[relative] }) {
            if !file.onSysfs && wasReplaced(file, relative) {
                forget(relative, file.fd)
                state.withLock { $0.stats.reopens += 1 }
            } else {
                switch pread(file.fd) {
                case .success(let text): return .success(text)
                case .failure(let f) where f.code == ENODEV || f.code == ENOENT || f.code == ESTALE:
                    // The device behind the descriptor went away (unbind, hot-unplug): drop
                    // it and try the path afresh, once.
                    forget(relative, file.fd)
                    state.withLock { $0.stats.reopens += 1 }
                case .failure(let f): return .failure(SysfsRoot.issue(relative, errno: f.code))
                }
            }
        }
        let raw = openFile(relative)
        guard raw >= 0 else {
            let code = errno
            state.withLock { $0.stats.failedOpens += 1 }
            return .failure(SysfsRoot.issue(relative, errno: code))
        }
        let fd = ValueFile(rawValue: raw)
        state.withLock { $0.stats.opens += 1 }
        let result = pread(fd)
        if keepOpen {
            var st = stat()
            let known = fstat(fd.rawValue, &st) == 0
            let onSysfs = known && Self.isOnSysfs(fd.rawValue)
            let folder = onSysfs ? nil : folderIdentity(of: relative)
            let kept = state.withLock { s -> Bool in
                guard s.open[relative] == nil else { return false }
                s.open[relative] = OpenFile(fd: fd, onSysfs: onSysfs, device: known ? UInt64(st.st_dev) : 0,
                                            inode: known ? UInt64(st.st_ino) : 0, folder: folder)
                return true
            }
            if kept { return result.mapError { SysfsRoot.issue(relative, errno: $0.code) } }
            // Another reader kept the same file open meanwhile: ours goes.
        }
        closeCounted(fd)
        return result.mapError { SysfsRoot.issue(relative, errno: $0.code) }
    }

    private struct Failure: Error { var code: Int32 }

    /// One `pread` of up to a page at offset 0: sysfs attributes are at most a page, and
    /// reading at offset 0 makes the kernel regenerate the value each time.
    private func pread(_ fd: ValueFile) -> Result<String, Failure> {
        state.withLock { $0.stats.reads += 1 }
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) { buffer in
            var n: Int
            repeat {
                n = Glibc.pread(fd.rawValue, buffer.baseAddress, buffer.count, 0)
            } while n < 0 && errno == EINTR
            if n < 0 { return .failure(Failure(code: errno)) }
            return .success(String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self))
        }
    }

    /// Outside sysfs a path can be renamed over, deleted or moved away while its descriptor
    /// stays open on the old inode: the path no longer names the file that is open. A `stat`
    /// of the whole path on every read would tell, but that walk was the costliest part of a
    /// read, so instead:
    /// - renamed over or deleted, the open inode has no name left: one `fstat` of the
    ///   descriptor, every read;
    /// - its device unplugged (the class link or the device folder gone or replaced): one
    ///   `stat` of the folder per sample, shared by the device's files;
    /// - the file alone moved away, still named elsewhere, and replaced: one `stat` of the path
    ///   every `movedCheckReads` reads.
    /// An fstat of a failed open gives 0/0, which never matches a real file, so such a file is
    /// reopened.
    private func wasReplaced(_ file: OpenFile, _ relative: String) -> Bool {
        var open = stat()
        guard fstat(file.fd.rawValue, &open) == 0, open.st_nlink > 0 else { return true }
        guard let now = folderIdentity(of: relative), now == file.folder else { return true }
        let due = state.withLock { s -> Bool in
            guard var f = s.open[relative] else { return true }
            f.readsSincePathCheck += 1
            let due = f.readsSincePathCheck >= movedCheckReads
            if due { f.readsSincePathCheck = 0 }
            s.open[relative] = f
            return due
        }
        guard due else { return false }
        return identity(of: relative) != FileIdentity(device: file.device, inode: file.inode)
    }

    /// What a path names now (links followed), nil when nothing.
    private func identity(of relative: String) -> FileIdentity? {
        var st = stat()
        guard stat(absolute(relative), &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The identity of the folder holding `relative`: one `stat` per folder per sample, shared
    /// by the folder's files (a reopen in the same sample takes it from there too).
    private func folderIdentity(of relative: String) -> FileIdentity? {
        let folder = Self.folder(of: relative)
        if let seen = state.withLock({ $0.foldersSeen[folder] }) { return seen }
        let now: FileIdentity?
        if let listed = state.withLock({ $0.listed[folder] }) {
            // The folder the path named when it was listed (in this pass): what a `stat` of
            // its path gives, without the walk.
            var st = stat()
            now = fstat(listed.fd, &st) == 0 ? FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)) : nil
        } else {
            now = identity(of: folder)
        }
        state.withLock { $0.foldersSeen[folder] = .some(now) }
        return now
    }

    static func folder(of relative: String) -> String {
        relative.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(relative[..<$0]) } ?? ""
    }

    private func forget(_ relative: String, _ fd: ValueFile) {
        let removed = state.withLock { s -> Bool in
            guard let f = s.open[relative], f.fd == fd else { return false }
            s.open[relative] = nil
            return true
        }
        if removed { closeCounted(fd) }
    }

    private func closeCounted(_ fd: ValueFile) {
        fd.close()
        state.withLock { $0.stats.closes += 1 }
    }

    public func release(keeping: Set<String>) {
        let stale = state.withLock { s -> [ValueFile] in
            s.foldersSeen = [:]
            let gone = s.open.filter { !keeping.contains($0.key) }
            for key in gone.keys { s.open[key] = nil }
            return gone.values.map(\.fd)
        }
        for fd in stale { closeCounted(fd) }
    }

    /// What `opendir`/`readdir` give (with `.` and `..`), from one `open` and `getdents64`
    /// into a stack buffer. In a discovery the folder stays open (see `ListedFolder`) until it
    /// ends; a folder listed again meanwhile is answered from that listing.
    public func list(_ relative: String) -> [String]? {
        if let kept = state.withLock({ $0.listed[relative] }) { return kept.names }
        // The flags opendir uses: O_DIRECTORY makes a FIFO or a file fail at once (ENOTDIR).
        let fd = open(absolute(relative), O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let names = Self.entries(fd) else {
            _ = Glibc.close(fd)
            return nil
        }
        let folder = ListedFolder(fd: fd, names: names)
        state.withLock { s in
            guard s.discovering, s.listed[relative] == nil, s.listed.count < keptFolderLimit else { return }
            s.listed[relative] = folder
            s.stats.peakKeptFolders = max(s.stats.peakKeptFolders, s.listed.count)
        }
        return names
    }

    /// Every entry name of an open folder (`linux_dirent64` records: d_ino 8, d_off 8,
    /// d_reclen 2, d_type 1, then the NUL-terminated name); nil when the kernel refuses.
    static func entries(_ fd: Int32) -> [String]? {
        withUnsafeTemporaryAllocation(byteCount: 16384, alignment: 8) { buffer -> [String]? in
            var names: [String] = []
            while true {
                var n: Int
                repeat {
                    n = thermtop_getdents64(fd, buffer.baseAddress, UInt(buffer.count))
                } while n < 0 && errno == EINTR
                if n < 0 { return nil }
                if n == 0 { return names }
                var offset = 0
                while offset < n {
                    let record = buffer.baseAddress! + offset
                    let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                    guard length > 19 else { return nil }
                    let name = (record + 19).assumingMemoryBound(to: CChar.self)
                    names.append(String(cString: name))
                    offset += length
                }
            }
        }
    }

    public func exists(_ relative: String) -> Bool {
        if let (folder, name) = inListedFolder(relative) {
            return faccessat(folder.fd, String(name), F_OK, 0) == 0
        }
        return access(absolute(relative), F_OK) == 0
    }

    public func resolved(_ relative: String) -> String? {
        guard let full = canonical(absolute(relative)) else { return nil }
        guard let root = canonical(rootPath) else { return full }
        if full == root { return "" }
        if full.hasPrefix(root + "/") { return String(full.dropFirst(root.count + 1)) }
        return full
    }

    public func discoveryStarts() {
        state.withLock { s in
            s.canonical = [:]
            s.listed = [:]
            s.lastListed = nil
            s.discovering = true
        }
    }

    public func discoveryEnds() {
        // Taken out under the lock, closed outside it (a folder a reader still holds closes
        // when that reader lets go).
        let closing = state.withLock { s -> [String: ListedFolder] in
            s.discovering = false
            let listed = s.listed
            s.listed = [:]
            s.lastListed = nil
            return listed
        }
        withExtendedLifetime(closing) {}
    }

    /// What realpath(3) answers (every link followed, `.` and `..` applied to the resolved
    /// path, nil when a component is missing, not a directory or loops), remembering the
    /// answer for the path and each of its folders until the next discovery: a path is its
    /// folder's canonical form and one more component, so a discovery's many paths under the
    /// same few folders (`/sys/class/thermal`, a device's folder) cost one lookup of the
    /// folder and one `readlink` each.
    ///
    /// Paths are split at `/` bytes, as the kernel does (and far cheaper than by Characters).
    private func canonical(_ path: String, depth: Int = 0) -> String? {
        guard depth <= 40 else { return nil }   // ELOOP, as the kernel counts
        if let known = state.withLock({ $0.canonical[path] }) { return known }
        let utf8 = path.utf8
        let answer: String?
        if let last = utf8.lastIndex(of: UInt8(ascii: "/")) {
            // `path[..<last]` for the folder: a String, not the Substring (`String + Substring`
            // is the generic RangeReplaceableCollection `+`, whose first use looks up an
            // associated type by scanning every conformance record of the binary).
            let folder = last == utf8.startIndex ? "/" : canonical(String(path[..<last]), depth: depth)
            answer = folder.flatMap { child($0, String(path[utf8.index(after: last)...]), depth: depth) }
        } else {
            answer = child(currentDirectory(), path, depth: depth)   // a relative name
        }
        state.withLock { $0.canonical[path] = .some(answer) }
        return answer
    }

    /// The canonical path of the component `name` of the canonical folder `folder`: the
    /// folder itself for an empty name or `.`, its parent for `..`, else what `name` resolves
    /// to there.
    private func child(_ folder: String, _ name: String, depth: Int) -> String? {
        let u = name.utf8
        if Self.isPlainName(u) { return resolve(folder == "/" ? "" : folder, name, depth: depth) }
        guard u.count == 2 else { return folder }   // "" or "."
        guard let up = folder.utf8.lastIndex(of: UInt8(ascii: "/")), up != folder.utf8.startIndex else { return "/" }
        return String(folder[..<up])
    }

    /// The canonical path of `part` (a plain name) in the canonical folder `folder` ("" for
    /// the root), nil when it does not resolve; remembered until the next discovery.
    private func resolve(_ folder: String, _ part: String, depth: Int) -> String? {
        let candidate = folder + "/" + part
        if let known = state.withLock({ $0.canonical[candidate] }) { return known }
        let resolved: String?
        let link = withUnsafeTemporaryAllocation(byteCount: Int(PATH_MAX), alignment: 1) { buffer -> (String?, Int32) in
            let n = readlink(candidate, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count)
            guard n >= 0 else { return (nil, errno) }
            return (String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self), 0)
        }
        if let target = link.0 {
            resolved = canonical(target.hasPrefix("/") ? target : folder + "/" + target, depth: depth + 1)
        } else if link.1 == EINVAL {
            resolved = candidate   // there, and not a link
        } else {
            resolved = nil
        }
        state.withLock { $0.canonical[candidate] = .some(resolved) }
        return resolved
    }

    private func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "" }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    public func isDirectory(_ relative: String) -> Bool {
        var st = stat()
        if let (folder, name) = inListedFolder(relative) {
            guard fstatat(folder.fd, String(name), &st, 0) == 0 else { return false }
        } else {
            guard stat(absolute(relative), &st) == 0 else { return false }
        }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }
}
