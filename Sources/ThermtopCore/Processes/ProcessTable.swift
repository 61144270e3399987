/// One process as one walk of `/proc` saw it: the cumulative CPU time that heat sources are
/// measured from (two walks make a rate, like an energy counter), and who it is.
public struct ThermalProcess: Sendable, Equatable {
    /// The process id.
    public var pid: Int
    /// `/proc/[pid]/stat` field 22, in clock ticks since boot: with the pid, the process's
    /// identity (a pid reused between two walks has another start time).
    public var startTicks: UInt64
    /// The command name (`comm`), cleaned of control characters; a kernel thread's name
    /// without its per-CPU suffix (`kworker/3:1-events` is `kworker`).
    public var command: String
    /// utime + stime (fields 14 and 15), in clock ticks.
    public var cpuTicks: UInt64
    /// The state letter (field 3): `R`, `S`, `Z` (a zombie, which uses no CPU)…
    public var state: Character
    /// A kernel thread (`PF_KTHREAD` in field 9).
    public var isKernelThread: Bool
    /// The real user id (`status` `Uid:`), nil when unreadable.
    public var uid: Int?
    /// The user name of `uid` on this machine, nil when it has none.
    public var user: String?
    /// The full command line, arguments joined by spaces and cleaned; nil when unreadable or
    /// empty (kernel threads, zombies).
    public var commandLine: String?
    /// The systemd unit (`nginx.service`), the container (`docker 3f2a…`) or the cgroup path;
    /// nil when unreadable or the root cgroup.
    public var cgroup: String?

    /// A process as one walk read it, with times in clock ticks.
    public init(pid: Int, startTicks: UInt64, command: String, cpuTicks: UInt64, state: Character = "S",
                isKernelThread: Bool = false, uid: Int? = nil, commandLine: String? = nil, cgroup: String? = nil) {
        self.pid = pid
        self.startTicks = startTicks
        self.command = command
        self.cpuTicks = cpuTicks
        self.state = state
        self.isKernelThread = isKernelThread
        self.uid = uid
        self.commandLine = commandLine
        self.cgroup = cgroup
    }
}

/// One walk of `/proc`: every process it could read, the machine's CPU time (`/proc/stat`)
/// and what it could not see.
public struct ThermalProcessTable: Sendable, Equatable {
    /// Every process the walk could read.
    public var processes: [ThermalProcess]
    /// The `cpu` line of `/proc/stat`: all CPUs' time, and the busy part of it (all but idle
    /// and iowait), in clock ticks; nil when unreadable.
    public var totalTicks: UInt64?
    /// The busy part of `totalTicks`, in clock ticks; nil when unreadable.
    public var busyTicks: UInt64?
    /// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    public var ticksPerSecond: Double
    /// Process folders listed but not readable (`hidepid`, EACCES): counted, never guessed.
    public var unreadable: Int
    /// Why there is no table at all (the root cannot be listed), nil when there is one.
    public var issue: ReadingIssue?
    /// When the walk read the `stat` files (monotonic seconds), nil when not known. Rates are
    /// over the time between two walks, which is not the time between the samples' starts
    /// when other reads of a sample (a GPU library starting) take long.
    public var walkTime: Double?

    /// A walk's table; `walkTime` starts nil.
    public init(processes: [ThermalProcess], totalTicks: UInt64? = nil, busyTicks: UInt64? = nil,
                ticksPerSecond: Double = 100, unreadable: Int = 0, issue: ReadingIssue? = nil) {
        self.processes = processes
        self.totalTicks = totalTicks
        self.busyTicks = busyTicks
        self.ticksPerSecond = ticksPerSecond
        self.unreadable = unreadable
        self.issue = issue
    }
}

/// The parsers of `/proc`'s files, pure, for text laid out as the kernel writes it.
package enum ProcFiles {
    /// What `/proc/[pid]/stat` says that heat sources use.
    public struct Stat: Sendable, Equatable {
        /// The command name (`comm`), as `ThermalProcess.command` cleans it.
        public var command: String
        /// The state letter (field 3).
        public var state: Character
        /// `PF_KTHREAD` is set in the flags (field 9).
        public var isKernelThread: Bool
        /// utime + stime (fields 14 and 15), in clock ticks.
        public var cpuTicks: UInt64
        /// Start time (field 22), in clock ticks since boot.
        public var startTicks: UInt64
    }

    /// `PF_KTHREAD` (include/linux/sched.h).
    static let kernelThreadFlag: UInt64 = 0x0020_0000

    /// Parses `pid (comm) S ppid …`. The command name may hold spaces and parentheses
    /// (`(sd-pam)`, `a) b`): it runs from the first `(` to the LAST `)`. nil when malformed.
    public static func stat(_ text: String) -> Stat? {
        var text = text
        return text.withUTF8(stat(bytes:))
    }

    /// `stat` over the file's bytes: read in place, field by field, with no copy of the text
    /// (a walk parses one per process per sample).
    static func stat(bytes: UnsafeBufferPointer<UInt8>) -> Stat? {
        let space = UInt8(ascii: " ")
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close > open else { return nil }
        /// Fields from 3 (state) on are separated by spaces; starttime (22) is the last one needed.
        var state: UInt8?
        var flags: UInt64?, utime: UInt64?, stime: UInt64?, start: UInt64?
        var field = 2
        var i = close + 1
        while start == nil {
            while i < bytes.count && bytes[i] == space { i += 1 }
            guard i < bytes.count else { return nil }
            let from = i
            while i < bytes.count && bytes[i] != space { i += 1 }
            field += 1
            let text = UnsafeBufferPointer(rebasing: bytes[from..<i])
            switch field {
            case 3: state = text.first
            case 9: guard let v = number(text) else { return nil }; flags = v
            case 14: guard let v = number(text) else { return nil }; utime = v
            case 15: guard let v = number(text) else { return nil }; stime = v
            case 22: guard let v = number(text) else { return nil }; start = v
            default: break
            }
        }
        guard let stateByte = state, let flags, let utime, let stime, let start else { return nil }
        let (ticks, overflow) = utime.addingReportingOverflow(stime)
        guard !overflow else { return nil }
        let kernel = flags & kernelThreadFlag != 0
        let comm = String(decoding: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<close]), as: UTF8.self)
        return Stat(command: groupName(comm, kernelThread: kernel), state: Character(Unicode.Scalar(stateByte)),
                    isKernelThread: kernel, cpuTicks: ticks, startTicks: start)
    }

    /// A field of decimal digits, nil when empty, not all digits or past UInt64.
    private static func number(_ digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var v: UInt64 = 0
        for b in digits {
            guard b >= 48 && b <= 57 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b - 48))
            if o1 || o2 { return nil }
            v = s
        }
        return v
    }

    /// The name a process is grouped under: its `comm`, cleaned; for a kernel thread the part
    /// before `/` (`kworker/3:1-events` → `kworker`, `ksoftirqd/0` → `ksoftirqd`).
    static func groupName(_ comm: String, kernelThread: Bool) -> String {
        var name = comm
        if kernelThread, let slash = name.firstIndex(of: "/"), slash != name.startIndex { name = String(name[..<slash]) }
        let cleaned = Format.clean(name)
        return cleaned.isEmpty ? "?" : cleaned
    }

    /// The `cpu` line of `/proc/stat`: (all ticks, busy ticks). Busy is all but idle (4th)
    /// and iowait (5th); guest time is already inside user and nice, so it is left out.
    public static func cpuTotals(_ text: String) -> (total: UInt64, busy: UInt64)? {
        // Line by line until the `cpu` line (the first): the rest (a line per CPU, the long
        // `intr` line) is never split.
        var rest = Substring(text)
        var found: Substring?
        while found == nil && !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            if rest[..<end].hasPrefix("cpu ") { found = rest[..<end] }
            rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
        }
        guard let line = found else { return nil }
        let values = line.split(separator: " ").dropFirst().prefix(8).compactMap { UInt64($0) }
        guard values.count >= 4 else { return nil }
        var total: UInt64 = 0
        for v in values {
            let (s, o) = total.addingReportingOverflow(v)
            guard !o else { return nil }
            total = s
        }
        let idle = values[3] + (values.count > 4 ? values[4] : 0)
        return (total, total >= idle ? total - idle : 0)
    }

    /// The real uid from `/proc/[pid]/status` (`Uid:\treal\teffective…`).
    public static func uid(_ status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { return nil }
        return line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).first.flatMap { Int($0) }
    }

    /// The longest command line kept (a shell's can be megabytes; the kernel gives a page).
    public static let maximumCommandLine = 512

    /// `/proc/[pid]/cmdline`: NUL-separated arguments, joined by spaces, control characters
    /// replaced, cut at `maximumCommandLine` characters (`…`); nil when empty.
    public static func commandLine(_ text: String) -> String? {
        let args = text.split(separator: "\0", omittingEmptySubsequences: true)
        guard !args.isEmpty else { return nil }
        let joined = Format.clean(args.joined(separator: " "))
        return joined.count > maximumCommandLine ? String(joined.prefix(maximumCommandLine - 1)) + "…" : joined
    }

    /// `/proc/[pid]/cgroup` in words: the container (`docker 3f2a9c1b7d4e`, `podman …`,
    /// `kubepods …`), else the innermost systemd unit (`nginx.service`, `session-2.scope`),
    /// else the cgroup path; nil when empty.
    public static func cgroup(_ text: String) -> String? {
        // cgroup v2 is `0::/path`; under v1 the systemd hierarchy (`name=systemd`) names the unit.
        let lines = text.split(separator: "\n")
        let path = lines.first(where: { $0.hasPrefix("0::") }).map { String($0.dropFirst(3)) }
            ?? lines.first(where: { $0.contains(":name=systemd:") }).flatMap { $0.split(separator: ":", maxSplits: 2).last.map(String.init) }
            ?? lines.first.flatMap { $0.split(separator: ":", maxSplits: 2).last.map(String.init) }
        // The root cgroup (`/`, every process in a container without its own namespace) says nothing.
        guard let path, !path.isEmpty, path != "/" else { return nil }
        let parts = path.split(separator: "/")
        for p in parts.reversed() {
            for (prefix, runtime) in [("docker-", "docker"), ("libpod-", "podman"), ("cri-containerd-", "containerd"), ("crio-", "cri-o")]
            where p.hasPrefix(prefix) {
                let id = p.dropFirst(prefix.count).split(separator: ".").first ?? ""
                return Format.clean("\(runtime) \(id.prefix(12))")
            }
        }
        if parts.contains(where: { $0 == "docker" }), let id = parts.last, id.count >= 12 { return Format.clean("docker \(id.prefix(12))") }
        if let unit = parts.last(where: { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }) {
            return Format.clean(String(unit))
        }
        return Format.clean(path)
    }
}
