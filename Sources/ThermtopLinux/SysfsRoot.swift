#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ThermtopCore

/// The one funnel through which thermtop touches sysfs. Every read goes through `read(_:)`,
/// relative to a root directory: `/sys` in production, a fixture tree in tests. Failures come
/// back as a typed `ReadingIssue` carrying the errno name, never as a crash or a guess.
public final class SysfsRoot: @unchecked Sendable {
    /// Absolute path of the root (`/sys`).
    public let path: String
    /// Attribute reads since creation (for the debug overlay and benchmarks).
    public private(set) var readCount = 0

    public init(path: String = "/sys") {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        self.path = p
    }

    /// Whether the root is a directory that can be listed.
    public var isUsable: Bool { isDirectory("") }

    private func absolute(_ relative: String) -> String {
        relative.isEmpty ? path : path + "/" + relative
    }

    /// Read one attribute file (`class/thermal/thermal_zone0/temp`) in one `read(2)`.
    /// sysfs attributes are at most a page long.
    public func read(_ relative: String) -> Result<String, ReadingIssue> {
        readCount += 1
        let fd = open(absolute(relative), O_RDONLY | O_CLOEXEC)
        if fd < 0 { return .failure(Self.issue(relative, errno: errno)) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 4096) }
        } while n < 0 && errno == EINTR
        if n < 0 { return .failure(Self.issue(relative, errno: errno)) }
        return .success(String(decoding: buffer[0..<n], as: UTF8.self))
    }

    /// The entries of a directory, in natural order (`thermal_zone2` before `thermal_zone10`);
    /// nil when it cannot be listed. Hidden entries (`.gitkeep` in a fixture tree) are skipped:
    /// sysfs never has any, so they are never devices or attributes.
    public func list(_ relative: String) -> [String]? {
        guard let dir = opendir(absolute(relative)) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted(by: naturalLess)
    }

    /// Whether a path exists (following links).
    public func exists(_ relative: String) -> Bool {
        access(absolute(relative), F_OK) == 0
    }

    public func isDirectory(_ relative: String) -> Bool {
        var st = stat()
        guard stat(absolute(relative), &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The target of a symlink, as stored (`../../devices/...`); nil if not a link.
    public func linkTarget(_ relative: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(absolute(relative), &buffer, 4095)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical path relative to the root (`devices/platform/coretemp.0/hwmon/hwmon1`),
    /// or the absolute path when it lies outside the root; nil when it does not resolve.
    public func resolved(_ relative: String) -> String? {
        guard let r = realpath(absolute(relative), nil) else { return nil }
        defer { free(r) }
        let full = String(cString: r)
        guard let rootReal = realpath(path, nil) else { return full }
        defer { free(rootReal) }
        let root = String(cString: rootReal)
        if full == root { return "" }
        if full.hasPrefix(root + "/") { return String(full.dropFirst(root.count + 1)) }
        return full
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
        default: "errno \(code)"
        }
    }
}

/// `a2 < a10`: compare runs of ASCII digits as numbers (of any length: a run is compared by
/// its length without leading zeros, then digit by digit, so no integer can overflow), and
/// everything else by scalar value.
func naturalLess(_ a: String, _ b: String) -> Bool {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    func isDigit(_ u: Unicode.Scalar) -> Bool { u.value >= 48 && u.value <= 57 }
    var i = 0, j = 0
    while i < x.count && j < y.count {
        if isDigit(x[i]) && isDigit(y[j]) {
            var ei = i, ej = j
            while ei < x.count && isDigit(x[ei]) { ei += 1 }
            while ej < y.count && isDigit(y[ej]) { ej += 1 }
            var si = i, sj = j
            while si < ei - 1 && x[si] == "0" { si += 1 }
            while sj < ej - 1 && y[sj] == "0" { sj += 1 }
            if ei - si != ej - sj { return ei - si < ej - sj }
            for k in 0..<(ei - si) where x[si + k] != y[sj + k] { return x[si + k].value < y[sj + k].value }
            // Same number: the shorter spelling (fewer leading zeros) first, for a total order.
            if ei - i != ej - j { return ei - i < ej - j }
            i = ei; j = ej
            continue
        }
        if x[i] != y[j] { return x[i].value < y[j].value }
        i += 1; j += 1
    }
    return i == x.count && j < y.count
}

/// Monotonic clock (CLOCK_MONOTONIC) for the monitor.
public struct SystemClock: MonitorClock {
    public init() {}
    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
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
