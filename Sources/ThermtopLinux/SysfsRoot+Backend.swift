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
    /// Whether its reads are syscalls that give up when a one-shot's read ticker interrupts
    /// them past their deadline (`ReadingThread.givesUpInterruptedStep`). Default false.
    var readsAreInterruptible: Bool { get }
    /// Syscall counters, when the backend makes syscalls.
    var ioStats: SysfsIOStats? { get }
}

extension SysfsBackend {
    public func release(keeping: Set<String>) {}
    public func discoveryStarts() {}
    public func discoveryEnds() {}
    public var readsCanBlock: Bool { true }
    public var readsAreInterruptible: Bool { false }
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
final class ListedFolder: @unchecked Sendable {
    let fd: Int32
    /// The path it was listed by, relative to the root, as UTF-8 bytes: compared with each
    /// path looked up in it (immutable, freed with the object, hence Sendable).
    let path: UnsafeMutableBufferPointer<UInt8>
    /// Its entries but the hidden ones (`.`, `..`), as `listing` gave them.
    let listing: Listing
    init(fd: Int32, path: UnsafeBufferPointer<UInt8>, listing: Listing) {
        self.fd = fd
        self.path = .allocate(capacity: path.count)
        _ = self.path.initialize(from: path)
        self.listing = listing
    }
    deinit {
        path.deallocate()
        _ = Glibc.close(fd)
    }

    /// Whether it was listed by the path whose UTF-8 bytes are `bytes`.
    func isListed(by bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        path.count == bytes.count && (bytes.isEmpty || memcmp(path.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
    }
}

/// The canonical folders' entries a discovery has looked up, for `FileSystemBackend.resolved`:
/// a tree whose nodes are paths (`/sys/class/thermal/thermal_zone0`), each with the node it
/// resolves to once a `readlink` has told. Only names are stored, as bytes in one buffer; a
/// folder's entries are found among its children by comparing those bytes, so a lookup builds
/// no String and hashes nothing, and a path is written out (for `readlink`, or the answer) by
/// walking up the parents.
struct LinkTree {
    struct Node {
        /// The folder holding it (the root holds itself: `/..` is `/`).
        var parent: Int32
        /// Its name: `names[nameStart ..< nameStart + nameCount]`.
        var nameStart: Int32
        var nameCount: Int32
        /// The length of its whole path (`/` and the names between).
        var pathCount: Int32
        var firstChild: Int32 = -1
        var nextSibling: Int32 = -1
        /// The node it resolves to, `none` when it does not, `unknown` until looked up.
        var target: Int32 = LinkTree.unknown
        /// How many links resolving it followed (itself, when a link, and those on the way to
        /// its target): realpath counts every link of a path towards its limit of 40.
        var links: Int32 = 0
    }
    static let unknown: Int32 = -2
    static let none: Int32 = -1
    /// `/`, the first node.
    static let root: Int32 = 0

    private(set) var nodes = [Node(parent: 0, nameStart: 0, nameCount: 0, pathCount: 1, target: 0)]
    private var names: [UInt8] = []
    /// The canonical node of the backend's root path, `unknown` until resolved, and the links
    /// followed to it.
    var rootTarget = LinkTree.unknown
    var rootLinks: Int32 = 0

    /// The entry `name` (a plain name) of the node `folder`, added when new (first among its
    /// siblings: the entries a discovery looks up next are mostly those it just added).
    mutating func child(of folder: Int32, named name: UnsafeRawBufferPointer) -> Int32 {
        let found = names.withUnsafeBufferPointer { bytes -> Int32? in
            var c = nodes[Int(folder)].firstChild
            while c >= 0 {
                let n = nodes[Int(c)]
                // Siblings' names often differ only at the end (`thermal_zone1`, `thermal_zone2`).
                if Int(n.nameCount) == name.count, bytes[Int(n.nameStart + n.nameCount) - 1] == name[name.count - 1],
                   memcmp(bytes.baseAddress! + Int(n.nameStart), name.baseAddress!, name.count) == 0 {
                    return c
                }
                c = n.nextSibling
            }
            return nil
        }
        if let found { return found }
        let f = nodes[Int(folder)]
        let added = Int32(nodes.count)
        nodes.append(Node(parent: folder, nameStart: Int32(names.count), nameCount: Int32(name.count),
                          pathCount: (folder == Self.root ? 0 : f.pathCount) + 1 + Int32(name.count),
                          nextSibling: f.firstChild))
        names.append(contentsOf: name)
        nodes[Int(folder)].firstChild = added
        return added
    }

    /// Writes the path of `node` below `top` (`top` itself excluded: the whole path for the
    /// root) ending at `end` in `buffer`, and returns where it starts. `top` must be `node` or
    /// one of its folders.
    func writePath(_ node: Int32, below top: Int32, endingAt end: Int, in buffer: UnsafeMutableRawBufferPointer) -> Int {
        var at = end, n = node
        names.withUnsafeBytes { bytes in
            while n != top {
                let node = nodes[Int(n)]
                at -= Int(node.nameCount)
                if node.nameCount > 0 {
                    copyBytes(buffer.baseAddress! + at, bytes.baseAddress! + Int(node.nameStart), count: Int(node.nameCount))
                }
                at -= 1
                buffer[at] = UInt8(ascii: "/")
                n = node.parent
            }
        }
        // Below any folder but the root the leading `/` is not part of the rest.
        return top == Self.root || at == end ? at : at + 1
    }

    /// Records what `node` resolves to.
    mutating func setTarget(_ node: Int32, _ target: Int32, links: Int32) {
        nodes[Int(node)].target = target
        nodes[Int(node)].links = links
    }

    /// Whether `folder` is `node` or one of its folders.
    func holds(_ folder: Int32, _ node: Int32) -> Bool {
        var n = node
        while true {
            if n == folder { return true }
            if n == Self.root { return false }
            n = nodes[Int(n)].parent
        }
    }
}

/// A per-thread buffer for one syscall's answer (a value, a link target, a folder's entries),
/// allocated once per thread that reads and freed when it ends: `withUnsafeTemporaryAllocation`
/// of more than 1 KB comes from the heap here, a `malloc` and a `free` for every read.
private enum Scratch {
    static let size = 16384
    /// nil when the process has no key left: each use then takes a temporary allocation.
    static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key) { free($0) } == 0 ? key : nil
    }()

    /// `body` given this thread's buffer, not to be kept. Whatever `body` calls may be given the
    /// same buffer, so `body` is done with it before calling out (`readLink` copies the target
    /// before following it).
    static func with<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        if let key {
            if let p = pthread_getspecific(key) { return body(UnsafeMutableRawBufferPointer(start: p, count: size)) }
            if let p = malloc(size) {
                if pthread_setspecific(key, p) == 0 { return body(UnsafeMutableRawBufferPointer(start: p, count: size)) }
                free(p)
            }
        }
        return onStack(body)
    }

    /// The buffer on the stack, when the thread has none of its own. A function of its own,
    /// never inlined: inlined, its 16 KB were part of the frame of every caller of `with`
    /// (each listing, each link read) whether or not it was used, and the stack pages they
    /// spanned were faulted in (a one-shot's stack reached 53 KB).
    @inline(never)
    private static func onStack<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 16, body)
    }
}

/// The real filesystem under `rootPath`. Value files (`keepOpen`) stay open and are read with
/// one `pread` at offset 0 per sample; static attributes are opened, read and closed.
package final class FileSystemBackend: SysfsBackend {
    package var readsAreInterruptible: Bool { true }
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
        /// What `resolved` has looked up since the last discovery started. Discovery resolves
        /// many links under the same few directories (`/sys`, `/sys/class/thermal`,
        /// `/sys/devices/virtual/thermal`); realpath would readlink each of them again every
        /// time.
        var links = LinkTree()
        /// Which `links` is current: a lookup that finds another one (a discovery started
        /// while it read a link) starts again in the new one.
        var linksGeneration: UInt64 = 0
        /// Folders of open value files looked at since the last sample ended (off sysfs): one
        /// `stat` per device folder per sample, not one per file.
        var foldersSeen: [String: FileIdentity?] = [:]
        /// Folders listed in the discovery under way (at most `keptFolderLimit`, so looked up
        /// by comparing paths, newest first), and the one that last answered `inListedFolder`:
        /// a discovery reads a folder's attributes one after another.
        var listed: [ListedFolder] = []
        var lastListed: ListedFolder?
        var discovering = false

        /// The kept folder listed by the path with these bytes.
        func listedFolder(_ path: UnsafeBufferPointer<UInt8>) -> ListedFolder? {
            listed.last { $0.isListed(by: path) }
        }
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

    /// `body` given the whole path of `relative` (`rootPath/relative`, `rootPath` for "") as a
    /// C string, built in a stack buffer (paths under 1 KB) rather than as a String.
    private func withAbsolutePath<R>(_ relative: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        if relative.isEmpty { return rootPath.withCString(body) }
        return Self.withUTF8(rootPath) { root in
            Self.withUTF8(relative) { rest in
                withUnsafeTemporaryAllocation(byteCount: root.count + rest.count + 2, alignment: 1) { buffer in
                    let base = buffer.baseAddress!
                    if !root.isEmpty { copyBytes(base, root.baseAddress!, count: root.count) }
                    buffer[root.count] = UInt8(ascii: "/")
                    if !rest.isEmpty { copyBytes(base + root.count + 1, rest.baseAddress!, count: rest.count) }
                    buffer[root.count + rest.count + 1] = 0
                    return body(base.assumingMemoryBound(to: CChar.self))
                }
            }
        }
    }

    /// Folders up from a file looked at for a kept one: the file's own (`zone/trip_point_0_type`)
    /// and up to two more (`zone/device/power_state`, `cpu/cpu0/thermal_throttle/…`).
    static let listedFolderLevels = 3

    /// A kept folder holding `relative` (at most `listedFolderLevels` up: the last one that
    /// answered when it holds it, else the nearest) and where the rest of the path from it
    /// starts (a UTF-8 offset), nil when there is none (go by the whole path). The kernel
    /// resolves the rest from the folder exactly as it would the whole path: links in it are
    /// followed from where they are, `..` from the folder's real place, so any kept folder
    /// holding the file names the same file. Only plain names are taken (no empty, `.` or `..`
    /// component). `opening`: count a relative open when there is one.
    private func inListedFolder(_ relative: String, opening: Bool = false) -> (folder: ListedFolder, rest: Int)? {
        Self.withUTF8(relative) { r in
            state.withLock { st -> (folder: ListedFolder, rest: Int)? in
                guard !st.listed.isEmpty else { return nil }
                var found: (folder: ListedFolder, rest: Int)?
                if let last = st.lastListed, let rest = Self.below(UnsafeBufferPointer(last.path), r) {
                    found = (last, rest)
                } else {
                    // Up folder by folder; each component below must be a plain name.
                    var end = r.count
                    for _ in 0..<Self.listedFolderLevels {
                        var s = end
                        while s > 0 && r[s - 1] != UInt8(ascii: "/") { s -= 1 }
                        guard s > 0, Self.isPlainName(r, s, end) else { break }
                        if let f = st.listedFolder(UnsafeBufferPointer(rebasing: r[..<(s - 1)])) {
                            st.lastListed = f
                            found = (f, s)
                            break
                        }
                        end = s - 1
                    }
                }
                if opening && found != nil { st.stats.relativeOpens += 1 }
                return found
            }
        }
    }

    /// What a path component is: an entry's name, or one of those that name none (empty or
    /// `.`: the folder itself; `..`: its parent).
    private enum Component { case name, same, parent }

    private static func component(_ part: UnsafeRawBufferPointer) -> Component {
        let dot = UInt8(ascii: ".")
        switch part.count {
        case 0: return .same
        case 1: return part[0] == dot ? .same : .name
        case 2: return part[0] == dot && part[1] == dot ? .parent : .name
        default: return .name
        }
    }

    /// Whether `bytes[start..<end]` is an entry's name.
    private static func isPlainName(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        component(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end]))) == .name
    }

    /// Where the rest of `relative` starts when it lies in `folder`, at most
    /// `listedFolderLevels` components below it, each a plain name; nil otherwise.
    private static func below(_ folder: UnsafeBufferPointer<UInt8>, _ relative: UnsafeBufferPointer<UInt8>) -> Int? {
        let slash = UInt8(ascii: "/")
        let f = folder, r = relative
        guard r.count > f.count + 1, r[f.count] == slash,
              f.isEmpty || memcmp(r.baseAddress!, f.baseAddress!, f.count) == 0 else { return nil }
        var start = f.count + 1
        for _ in 0..<listedFolderLevels {
            let end = componentEnd(UnsafeRawBufferPointer(r), from: start)
            guard isPlainName(r, start, end) else { return nil }
            if end == r.count { return f.count + 1 }
            start = end + 1
        }
        return nil
    }

    /// `open(2)` of a file by its path relative to the root: relative to its folder's kept
    /// descriptor when there is one (the rest of the path is the tail of `relative`'s own C
    /// string, so nothing is copied).
    private func openFile(_ relative: String) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC
        if let (folder, rest) = inListedFolder(relative, opening: true) {
            return interruptible { relative.withCString { openat(folder.fd, $0 + rest, flags) } }
        }
        return interruptible { withAbsolutePath(relative) { open($0, flags) } }
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
        let result = pread(fd, opened: true)
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
    /// reading at offset 0 makes the kernel regenerate the value each time. `opened`: `fd`
    /// was just opened (counted with the read).
    private func pread(_ fd: ValueFile, opened: Bool = false) -> Result<String, Failure> {
        state.withLock { s in
            s.stats.reads += 1
            if opened { s.stats.opens += 1 }
        }
        return Scratch.with { buffer in
            let n = interruptible { Glibc.pread(fd.rawValue, buffer.baseAddress, 4096, 0) }
            if n < 0 { return .failure(Failure(code: errno)) }
            return .success(String(decoding: UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n), as: UTF8.self))
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
        guard interruptible({ withAbsolutePath(relative, { stat($0, &st) }) }) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The identity of the folder holding `relative`: one `stat` per folder per sample, shared
    /// by the folder's files (a reopen in the same sample takes it from there too).
    private func folderIdentity(of relative: String) -> FileIdentity? {
        let folder = Self.folder(of: relative)
        if let seen = state.withLock({ $0.foldersSeen[folder] }) { return seen }
        let now: FileIdentity?
        if let listed = Self.withUTF8(folder, { path in state.withLock { $0.listedFolder(path) } }) {
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

    /// What `opendir`/`readdir` give (with `.` and `..` and any hidden name), in natural
    /// order, from one `open` and `getdents64` into a buffer.
    public func list(_ relative: String) -> [String]? {
        let fd = openFolder(relative)
        guard fd >= 0 else { return nil }
        defer { _ = Glibc.close(fd) }
        return Self.entries(fd, keepHidden: true)?.names
    }

    /// The folder's names but the hidden ones, as their bytes (`SysfsRoot.listing`: no String
    /// made per name). In a discovery the folder stays open (see `ListedFolder`) until it ends;
    /// a folder listed again meanwhile is answered from that listing.
    func listing(_ relative: String) -> Listing? {
        if let kept = Self.withUTF8(relative, { path in state.withLock { $0.listedFolder(path) } }) { return kept.listing }
        let fd = openFolder(relative)
        guard fd >= 0 else { return nil }
        guard let listing = Self.entries(fd, keepHidden: false) else {
            _ = Glibc.close(fd)
            return nil
        }
        Self.withUTF8(relative) { path in
            let folder = ListedFolder(fd: fd, path: path, listing: listing)
            state.withLock { s in
                guard s.discovering, s.listed.count < keptFolderLimit, s.listedFolder(path) == nil else { return }
                s.listed.append(folder)
                s.stats.peakKeptFolders = max(s.stats.peakKeptFolders, s.listed.count)
            }
        }
        return listing
    }

    /// A folder opened as `opendir` opens it (O_DIRECTORY makes a FIFO or a file fail at once,
    /// ENOTDIR); -1 when it cannot be.
    private func openFolder(_ relative: String) -> Int32 {
        interruptible { withAbsolutePath(relative) { open($0, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC) } }
    }

    /// The entry names of an open folder (`linux_dirent64` records: d_ino 8, d_off 8,
    /// d_reclen 2, d_type 1, then the NUL-terminated name), hidden ones too when `keepHidden`
    /// (then in natural order whatever their number, for `list`); nil when the kernel refuses.
    /// Read into the thread's scratch buffer, batch after batch for a folder larger than it,
    /// each name's bytes copied out into the listing's one buffer.
    static func entries(_ fd: Int32, keepHidden: Bool) -> Listing? {
        Scratch.with { buffer -> Listing? in
            var listing: Listing.Builder?
            while true {
                let n = interruptible { thermtop_getdents64(fd, buffer.baseAddress, UInt(buffer.count)) }
                if n < 0 { return nil }
                if n == 0 { return (listing ?? Listing.Builder(capacity: 0, names: 0, keepHidden: keepHidden)).listing(sorted: keepHidden) }
                guard let records = recordCount(buffer, 0..<n) else { return nil }
                // Sized for this batch (a folder usually comes in one): records' names are
                // shorter than the records.
                if listing == nil { listing = Listing.Builder(capacity: n - 19 * records, names: records, keepHidden: keepHidden) }
                var offset = 0
                while offset < n {
                    listing!.append(recordName(buffer, offset))
                    offset += Int(buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
                }
            }
        }
    }

    /// The name of the record at `offset` (up to its NUL: the padding after it is not
    /// cleared, the buffer is reused).
    private static func recordName(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> UnsafeBufferPointer<UInt8> {
        let record = buffer.baseAddress! + offset
        let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
        return UnsafeBufferPointer(start: (record + 19).assumingMemoryBound(to: UInt8.self),
                                   count: strnlen((record + 19).assumingMemoryBound(to: CChar.self), length - 19))
    }

    /// How many records `buffer[range]` holds; nil when a record length is impossible.
    private static func recordCount(_ buffer: UnsafeMutableRawBufferPointer, _ range: Range<Int>) -> Int? {
        var offset = range.lowerBound, records = 0
        while offset < range.upperBound {
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
            guard length > 19 else { return nil }
            records += 1
            offset += length
        }
        return records
    }

    public func exists(_ relative: String) -> Bool {
        if let (folder, rest) = inListedFolder(relative) {
            return interruptible { relative.withCString { faccessat(folder.fd, $0 + rest, F_OK, 0) } } == 0
        }
        return interruptible { withAbsolutePath(relative) { access($0, F_OK) } } == 0
    }

    public func discoveryStarts() {
        state.withLock { s in
            s.links = LinkTree()
            s.linksGeneration &+= 1
            s.listed = []
            s.lastListed = nil
            s.discovering = true
        }
    }

    public func discoveryEnds() {
        // Taken out under the lock, closed outside it (a folder a reader still holds closes
        // when that reader lets go).
        let closing = state.withLock { s -> [ListedFolder] in
            s.discovering = false
            let listed = s.listed
            s.listed = []
            s.lastListed = nil
            return listed
        }
        withExtendedLifetime(closing) {}
    }

    // MARK: Resolving links

    /// `body` on the link tree when it is still the one of `generation`; nil when a discovery
    /// started meanwhile (the lookup then starts again, in the new tree).
    private func links<R>(_ generation: UInt64, _ body: (inout LinkTree) -> R) -> R? {
        state.withLock { s in s.linksGeneration == generation ? body(&s.links) : nil }
    }

    /// What `walk` and `canonicalRoot` answer when the tree they worked in was replaced.
    private static let stale: Int32 = -3
    /// What `walk` answers past its limit of links: does not resolve, and is not remembered
    /// for the links on the way (from any of them but the first the rest may be short enough).
    private static let tooDeep: Int32 = -4
    /// realpath's limit (glibc's `__eloop_threshold`): ELOOP at the 41st link of a path.
    static let linkLimit: Int32 = 40

    /// What realpath(3) answers for `rootPath/relative` (every link followed, `.` and `..`
    /// applied to the resolved path, nil when a component is missing, a name is looked up in
    /// something that is not a directory, or the path takes more than 40 links, the root's
    /// counted), relative to the root's own canonical path. A path's components are taken one
    /// by one from the canonical folder reached so far: `.` and empty ones stay there, `..`
    /// goes to its parent, a name is what it resolves to in it. (Unlike realpath, a `.`, `..`
    /// or trailing `/` after a file is not refused: that would take a `stat`, and discovery
    /// only resolves class entries and their `device` links.) Each name's answer is remembered
    /// in `LinkTree` until the next discovery, so a discovery's many paths under the same few
    /// folders (`/sys/class/thermal`, a device's folder) cost one `readlink` each. A relative
    /// root is taken from the working directory (once per discovery).
    public func resolved(_ relative: String) -> String? {
        while true {
            let generation = state.withLock { $0.linksGeneration }
            if let answer = resolved(relative, generation: generation) { return answer }
        }
    }

    /// The answer (`.some(nil)`: does not resolve), nil when the tree went stale.
    private func resolved(_ relative: String, generation: UInt64) -> String?? {
        let root = canonicalRoot(generation)
        guard root != Self.stale else { return nil }
        // The whole path is `rootPath/relative`, or `rootPath` alone; `/relative` when the
        // root path is empty.
        let base = rootPath.isEmpty && !relative.isEmpty ? LinkTree.root : root
        guard base != LinkTree.none else { return .some(nil) }
        // The root's links count towards the whole path's (none for `/relative`).
        guard let rootLinks = base == root ? links(generation, { $0.rootLinks }) : 0 else { return nil }
        let full = Self.withBytes(relative) { walk(from: base, $0, limit: Self.linkLimit - rootLinks, generation).node }
        guard full != Self.stale else { return nil }
        guard full >= 0 else { return .some(nil) }
        if full == root { return "" }
        if full == LinkTree.root { return "/" }
        return links(generation) { tree -> String? in
            // Below the root: the rest of the path; else the whole (a root of `/` answers
            // whole paths too: no path starts with `//`).
            let top = root != LinkTree.none && root != LinkTree.root && tree.holds(root, full) ? root : LinkTree.root
            let count = Int(tree.nodes[Int(full)].pathCount)
            return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
                let start = tree.writePath(full, below: top, endingAt: count, in: buffer)
                return UnsafeRawBufferPointer(rebasing: buffer[start..<count]).withMemoryRebound(to: UInt8.self) {
                    String(decoding: $0, as: UTF8.self)
                }
            }
        }
    }

    /// `body` given the UTF-8 bytes of `string` (a native string's own storage).
    private static func withUTF8<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        string.utf8.withContiguousStorageIfAvailable(body) ?? Array(string.utf8).withUnsafeBufferPointer(body)
    }

    private static func withBytes<R>(_ string: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUTF8(string) { body(UnsafeRawBufferPointer($0)) }
    }

    /// The canonical node of `rootPath` (`LinkTree.none`: it does not resolve), once per
    /// discovery. A relative root starts from the working directory, taken as the kernel
    /// gives it (canonical); none when there is none (deleted), as realpath says.
    private func canonicalRoot(_ generation: UInt64) -> Int32 {
        guard let known = links(generation, { $0.rootTarget }) else { return Self.stale }
        if known != LinkTree.unknown { return known }
        var start: Int32? = LinkTree.root
        if !rootPath.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else {
                return links(generation) { $0.rootTarget = LinkTree.none } == nil ? Self.stale : LinkTree.none
            }
            defer { free(cwd) }
            let bytes = UnsafeRawBufferPointer(start: cwd, count: strlen(cwd))
            start = links(generation) { tree in
                var node = LinkTree.root
                Self.components(bytes) { name in
                    let name = UnsafeRawBufferPointer(rebasing: name)
                    if Self.component(name) == .name { node = tree.child(of: node, named: name) }
                }
                return node
            }
        }
        guard let start else { return Self.stale }
        let (root, used) = Self.withBytes(rootPath) { walk(from: start, $0, limit: Self.linkLimit, generation) }
        guard root != Self.stale else { return Self.stale }
        if root == Self.tooDeep { return LinkTree.none }
        let stored: Void? = links(generation) { tree in
            tree.rootTarget = root
            tree.rootLinks = used
        }
        guard stored != nil else { return Self.stale }
        return root
    }

    /// Each `/`-separated component of `path` (empty ones too).
    private static func components(_ path: UnsafeRawBufferPointer, _ body: (Slice<UnsafeRawBufferPointer>) -> Void) {
        var i = 0
        while i <= path.count {
            let j = componentEnd(path, from: i)
            body(path[i..<j])
            i = j + 1
        }
    }

    /// Where the component of `path` starting at `start` ends: its next `/`, or the end.
    private static func componentEnd(_ path: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard start < path.count, let base = path.baseAddress,
              let slash = memchr(base + start, Int32(UInt8(ascii: "/")), path.count - start) else { return path.count }
        return UnsafeRawPointer(slash) - base
    }

    /// The canonical node `path` names from the canonical folder `from` and the links followed
    /// to it: `LinkTree.none` when it does not resolve, `tooDeep` past `limit` links, `stale`
    /// when the tree was replaced meanwhile. Links are counted as realpath does, every one on
    /// the way (a remembered name adds the links it took), so the answer does not depend on
    /// what was looked up before.
    private func walk(from: Int32, _ path: UnsafeRawBufferPointer, limit: Int32, _ generation: UInt64) -> (node: Int32, links: Int32) {
        var folder = from, i = 0, used: Int32 = 0
        while i < path.count {
            // As far as the tree already knows, under one lock; stops at a name to look up.
            let step = links(generation) { tree -> (reached: Int32, next: Int, unknown: Int32, used: Int32) in
                var f = folder, k = i, used = used
                while k < path.count {
                    let j = Self.componentEnd(path, from: k)
                    let part = UnsafeRawBufferPointer(rebasing: path[k..<j])
                    switch Self.component(part) {
                    case .same: break
                    case .parent: f = tree.nodes[Int(f)].parent
                    case .name:
                        let c = tree.child(of: f, named: part)
                        let node = tree.nodes[Int(c)]
                        if node.target == LinkTree.unknown { return (f, j + 1, c, used) }
                        if node.target == LinkTree.none { return (LinkTree.none, j + 1, LinkTree.none, used) }
                        used += node.links
                        if used > limit { return (Self.tooDeep, j + 1, LinkTree.none, used) }
                        f = node.target
                    }
                    k = j + 1
                }
                return (f, k, LinkTree.none, used)
            }
            guard let step else { return (Self.stale, 0) }
            guard step.reached >= 0 else { return (step.reached, 0) }
            i = step.next
            used = step.used
            guard step.unknown != LinkTree.none else {
                folder = step.reached
                continue
            }
            let target: Int32, links: Int32
            let link = readLink(step.unknown, generation) { bytes in
                // A link's target is taken from the folder holding it (from `/` when absolute).
                used < limit ? walk(from: bytes.first == UInt8(ascii: "/") ? LinkTree.root : step.reached, bytes,
                                    limit: limit - used - 1, generation) : (node: Self.tooDeep, links: 0)
            }
            switch link {
            case nil: return (Self.stale, 0)
            case .target(let followed):
                guard followed.node != Self.stale, followed.node != Self.tooDeep else { return (followed.node, 0) }
                (target, links) = (followed.node, 1 + followed.links)
            case .notALink: (target, links) = (step.unknown, 0)
            case .missing: (target, links) = (LinkTree.none, 0)
            }
            guard self.links(generation, { $0.setTarget(step.unknown, target, links: links) }) != nil else { return (Self.stale, 0) }
            guard target != LinkTree.none else { return (LinkTree.none, 0) }
            used += links
            folder = target
        }
        return (folder, used)
    }

    private enum Link<Followed> {
        case target(Followed)
        /// There, and not a link (EINVAL).
        case notALink
        /// Not there, not a directory on the way, too long…
        case missing
    }

    /// One `readlink` of a node's path (nil: the tree was replaced), the target handed to
    /// `follow`. The path is built in a stack buffer (a heap one past 1 KB), the target read
    /// into the thread's scratch buffer and copied to a stack buffer of its length for
    /// `follow`.
    private func readLink<Followed>(_ node: Int32, _ generation: UInt64,
                                    follow: (UnsafeRawBufferPointer) -> Followed) -> Link<Followed>? {
        guard let count = links(generation, { Int($0.nodes[Int(node)].pathCount) }) else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: count + 1, alignment: 1) { path -> Link<Followed>? in
            let written: Void? = links(generation) { tree in
                path[count] = 0
                _ = tree.writePath(node, below: LinkTree.root, endingAt: count, in: path)
            }
            guard written != nil else { return nil }
            return Scratch.with { buffer -> Link<Followed>? in
                let n = interruptible {
                    readlink(path.baseAddress!.assumingMemoryBound(to: CChar.self),
                             buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int(PATH_MAX))
                }
                guard n >= 0 else { return errno == EINVAL ? .notALink : .missing }
                // Copied out first: following the link reads others into the same buffer.
                return withUnsafeTemporaryAllocation(byteCount: n, alignment: 1) { target in
                    if n > 0 { copyBytes(target.baseAddress!, buffer.baseAddress!, count: n) }
                    return .target(follow(UnsafeRawBufferPointer(target)))
                }
            }
        }
    }

    public func isDirectory(_ relative: String) -> Bool {
        // A folder this discovery listed was opened as one (O_DIRECTORY) moments ago: a
        // discovery asks this of each class entry it has just listed, one `stat` each.
        if Self.withUTF8(relative, { path in state.withLock { $0.listedFolder(path) } }) != nil { return true }
        var st = stat()
        if let (folder, rest) = inListedFolder(relative) {
            guard interruptible({ relative.withCString { fstatat(folder.fd, $0 + rest, &st, 0) } }) == 0 else { return false }
        } else {
            guard interruptible({ withAbsolutePath(relative, { stat($0, &st) }) }) == 0 else { return false }
        }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }
}

/// A syscall that may sleep in the kernel, made again when a signal interrupted it (EINTR),
/// unless a one-shot's read ticker did so past the step's deadline: then its failure (errno
/// EINTR) is the answer, and the step is given up on (`ReadingThread.givesUpInterruptedStep`).
@inline(__always)
func interruptible<R: BinaryInteger>(_ call: () -> R) -> R {
    while true {
        let r = call()
        if r >= 0 || errno != EINTR || ReadingThread.givesUpInterruptedStep() { return r }
    }
}
