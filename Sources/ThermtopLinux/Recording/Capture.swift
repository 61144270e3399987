#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// `thermtop capture DIR`: copies the sysfs files thermtop reads into a tree that
/// `--sysfs-root DIR` reads back exactly as the live one. What to copy comes from the reading
/// layer itself (a tap on a discovery and a sample), so the capture follows the readers as they
/// change; the layout around it (class symlinks into `devices/`, `device` links, directories)
/// is copied as it is, links verbatim, plus each device's `uevent`. Serial numbers are left out
/// (`serial`, `serial_number`, `*SERIAL*=` lines in `uevent`) unless `keepSerials`.
package struct SysfsCapture {
    public struct Report: Sendable, Equatable {
        public var files = 0
        public var links = 0
        public var directories = 0
        public var bytes = 0
        /// Files that exist but could not be copied, with why (`EIO`, `EACCES`).
        public var unreadable: [String: String] = [:]
        public var serialsRemoved = 0
    }

    public let source: String
    public let destination: String
    public let keepSerials: Bool
    /// File contents are read through the reading layer, so a hung attribute costs the read
    /// deadline and is reported as timed out, as the readers report it, instead of hanging the
    /// capture.
    private let reader: SysfsRoot
    private var done: Set<String> = []
    private var placeholders: Set<String> = []
    public private(set) var report = Report()

    /// Refuses a destination that exists and is not an empty directory.
    /// `config`: the reading layer's numbers (its read deadline bounds each file read).
    public init(source: String, destination: String, keepSerials: Bool,
                config: ThermalConfig = ThermalConfig()) throws(RecordingIOError) {
        var s = source
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        var d = destination
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.source = s
        self.destination = d
        self.keepSerials = keepSerials
        reader = SysfsRoot(path: s, config: config)
        var st = stat()
        if lstat(d, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw RecordingIOError(path: d, message: "exists and is not a directory") }
            let names: [String]
            do throws(Syscalls.Failure) {
                names = try Syscalls.listDirectory(d)
            } catch {
                throw RecordingIOError(path: d, errno: error.code, doing: "open")
            }
            if !names.isEmpty {
                throw RecordingIOError(path: d, message: "is not empty (capture into a new or empty directory)")
            }
        } else {
            // Like mkdir -p: parents too.
            var partial = d.hasPrefix("/") ? "" : "."
            for c in d.split(separator: "/") {
                partial += "/" + c
                if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                    throw RecordingIOError(path: d, errno: errno, doing: "create")
                }
            }
        }
    }

    /// Copy what `accesses` touched (see `AccessRecorder`), and the `uevent` of every class
    /// entry and its device.
    public mutating func copy(_ accesses: RecordedAccesses) {
        var paths = Set(accesses.reads.keys)
        // Devices the readers found asleep (a GPU in D3cold): files of theirs that were not
        // read are created empty, never read, so capturing does not wake them.
        var asleep: [String] = []
        for (path, value) in accesses.reads {
            guard case .text(let t) = value else { continue }
            let v = t.trimmingSpaces
            if (path.hasSuffix("/power_state") && v.hasPrefix("D3")) || (path.hasSuffix("/runtime_status") && v == "suspended") {
                var dir = String(path.dropLast(path.hasSuffix("/power_state") ? "/power_state".count : "/power/runtime_status".count))
                if dir.hasSuffix("/device") { dir = String(dir.dropLast("/device".count)) }
                if let p = physical(dir) { asleep.append(p) }
            }
        }
        for (dir, names) in accesses.lists {
            paths.insert(dir)
            // Every entry of a listing the readers made: devices (links, folders) with what
            // they lead to, plain files with their contents (empty when the device sleeps).
            let physicalDir = physical(dir)
            let sleeping = physicalDir.map { d in asleep.contains { d == $0 || d.hasPrefix($0 + "/") } } ?? false
            for n in names ?? [] {
                let entry = join(dir, n)
                if isLinkOrDirectory(entry) || !sleeping || accesses.reads[entry] != nil {
                    paths.insert(entry)
                } else {
                    placeholders.insert(entry)
                }
            }
        }
        for p in placeholders.sorted() where !paths.contains(p) { ensure(p, placeholder: true) }
        for (p, e) in accesses.exists where e { paths.insert(p) }
        for (p, d) in accesses.isDirectory where d { paths.insert(p) }
        for (p, r) in accesses.resolved where r != nil { paths.insert(p) }
        for p in paths.sorted() { ensure(p) }
        // uevents of class entries and of the devices behind them (a developer reading the bug
        // report wants the driver and modalias).
        for (dir, names) in accesses.lists where dir.hasPrefix("class/") && dir.split(separator: "/").count == 2 {
            for n in names ?? [] {
                ensure(join(join(dir, n), "uevent"))
                ensure(join(join(dir, n), "device/uevent"))
            }
        }
    }

    private func join(_ a: String, _ b: String) -> String { a.isEmpty ? b : a + "/" + b }

    private func isLinkOrDirectory(_ rel: String) -> Bool {
        var st = stat()
        guard lstat(join(source, rel), &st) == 0 else { return false }
        let t = st.st_mode & S_IFMT
        return t == S_IFLNK || t == S_IFDIR
    }

    /// The canonical path of `rel` relative to the source root, nil when outside it or unresolvable.
    private func physical(_ rel: String) -> String? {
        guard let full = try? Syscalls.realpath(join(source, rel)), let root = try? Syscalls.realpath(source) else { return nil }
        if full == root { return "" }
        return full.hasPrefix(root + "/") ? String(full.dropFirst(root.count + 1)) : nil
    }

    /// Make `rel` exist in the destination as it is in the source: folders as folders, links
    /// with the same target (and what they point to), files with their contents.
    private mutating func ensure(_ rel: String, depth: Int = 0, placeholder: Bool = false) {
        guard !rel.isEmpty, depth < 40, done.insert(rel).inserted else { return }
        let comps = rel.split(separator: "/")
        if comps.contains("..") || comps.contains(".") { return }
        if comps.count > 1 { ensure(comps.dropLast().joined(separator: "/"), depth: depth + 1) }
        let src = join(source, rel), dst = join(destination, rel)
        var st = stat()
        guard lstat(src, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink(src, &buffer, 4095)
            guard n > 0 else { return }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var existing = stat()
            if lstat(dst, &existing) != 0 {
                if symlink(target, dst) == 0 { report.links += 1 }
            }
            // Follow the link inside the root so its target exists too (dangling and outside
            // links, such as the fixtures' /proc/self/mem, stay exactly as they are).
            if !target.hasPrefix("/"), let parent = physical(comps.dropLast().joined(separator: "/")) {
                if let canonical = normalize(join(parent, target)) { ensure(canonical, depth: depth + 1) }
            }
        case S_IFDIR:
            if mkdir(dst, 0o755) == 0 { report.directories += 1 }
        // A FIFO is read as an attribute is (a tree's stand-in for a driver that may never
        // answer): through the reading layer, bounded by its deadline, and stored as a file.
        case S_IFREG, S_IFIFO:
            if placeholder {
                let fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                if fd >= 0 { close(fd); report.files += 1 }
            } else {
                copyFile(rel, dst: dst)
            }
        default:
            return
        }
    }

    /// `a/b/../c` → `a/c`; nil when it climbs above the root.
    private func normalize(_ path: String) -> String? {
        var out: [Substring] = []
        for c in path.split(separator: "/") {
            if c == "." || c.isEmpty { continue }
            if c == ".." {
                guard !out.isEmpty else { return nil }
                out.removeLast()
            } else {
                out.append(c)
            }
        }
        return out.joined(separator: "/")
    }

    private mutating func copyFile(_ rel: String, dst: String) {
        let name = rel.split(separator: "/").last.map(String.init) ?? rel
        if !keepSerials && (name == "serial_number" || name == "serial") {
            report.serialsRemoved += 1
            return
        }
        // Outside any pass: nothing kept open, nothing profiled. sysfs attributes are at most
        // a page, which is what the reading layer reads.
        var data: [UInt8]
        switch reader.readEach([rel])[0] {
        case .success(let text): data = Array(text.utf8)
        case .failure(let issue):
            report.unreadable[rel] = issue.reason == .timedOut ? issue.reason.rawValue : issue.detail ?? issue.reason.rawValue
            return
        }
        if !keepSerials && name == "uevent" {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.filter { line in
                let key = line.split(separator: "=", maxSplits: 1).first ?? ""
                return !key.uppercased().contains("SERIAL")
            }
            report.serialsRemoved += lines.count - kept.count
            data = Array(kept.joined(separator: "\n").utf8)
        }
        let out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else {
            report.unreadable[rel] = "cannot write: \(SysfsRoot.errnoName(errno))"
            return
        }
        defer { close(out) }
        do throws(Syscalls.WriteFailure) { try Syscalls.writeAll(out, data) } catch {
            report.unreadable[rel] = "cannot write: \(SysfsRoot.errnoName(error.code))"
            return
        }
        report.files += 1
        report.bytes += data.count
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\t" { s.removeLast() }
        return String(s)
    }
}

extension RecordedHeatSources {
    /// The file a capture keeps its heat sources in, at the top of its tree.
    package static let captureFile = "thermtop-heat-sources.json"

    /// Writes `h` into the capture at `destination` (`commandLines`: with full command lines).
    package static func store(_ h: ThermalHeatSources, commandLines: Bool, destination: String) {
        let fd = open(destination + "/" + captureFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((value(h, commandLines: commandLines).serialized() + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { if n < 0 && errno == EINTR { continue }; break }
            off += n
        }
    }

    /// The heat sources a capture at `root` measured: nil when it has no such file (a live
    /// tree, a capture made without them), unknown with why when the file cannot be read.
    package static func captured(root: String) -> ThermalHeatSources? {
        // thermtop's own file, as a recording is (not a sysfs attribute, which is a page at most).
        let fd = open(root + "/" + captureFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 4 << 20 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        guard case .success(let v) = JSONParser.parse(bytes), let h = parse(v) else {
            return ThermalHeatSources(sources: [], reason: "\(captureFile) is not a list of heat sources")
        }
        return h
    }
}
