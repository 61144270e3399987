#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// Walks a process table (`/proc`, or a captured tree laid out like it) through the reading
/// layer (`SysfsRoot`), for heat sources.
///
/// Cost is by design: each walk reads `/proc/stat` and one `stat` per process, on the walking
/// thread where the root is a real procfs (`statOnThisThread`), else in one batch under the
/// deadline.
/// Who a process is (`status` for the uid, `cmdline`, `cgroup`) is read only for processes whose
/// CPU time moved since the last walk, once per process (pid and start time), so the idle
/// majority of a table costs one small read each.
public final class ThermalProcessTableReader: @unchecked Sendable {
    // Used from the sampling thread only (as `SysfsSource` is); @unchecked so a source holding
    // it can cross to that thread.
    public let root: SysfsRoot
    let ticksPerSecond: Double
    /// Whether the root is a mounted procfs, whose `stat` files are read on the walking
    /// thread: procfs answers them from the task under spinlocks only, never the process's
    /// memory lock that makes `cmdline` (and `status`) wait behind a process stuck in
    /// uninterruptible sleep. That saves a hand-off to a reader thread, two wakeups, on
    /// every walk. Any other tree (a capture, a fixture, which may hold a FIFO) and the
    /// identity files keep the deadline.
    let statOnThisThread: Bool

    private struct Known {
        var startTicks: UInt64
        var cpuTicks: UInt64
        var identity: Identity?
    }
    private struct Identity {
        var uid: Int?
        var user: String?
        var commandLine: String?
        var cgroup: String?
    }
    /// What the last walk saw, by pid.
    private var known: [Int: Known] = [:]
    private var walked = false
    private var userNames: [Int: String?] = [:]

    /// The login name of `uid` on this machine (cached), nil when it has none.
    private func userName(_ uid: Int?) -> String? {
        guard let uid, uid >= 0 else { return nil }
        if let known = userNames[uid] { return known }
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let name: String? = getpwuid_r(uid_t(uid), &pw, &buffer, buffer.count, &result) == 0 && result != nil
            ? Format.clean(String(cString: pw.pw_name)) : nil
        userNames[uid] = .some(name)
        return name
    }

    /// - path: the process table's root (`/proc`, or a tree laid out like it).
    public init(path: String = "/proc", config: ThermalConfig = ThermalConfig()) {
        root = SysfsRoot(path: path, config: config)
        statOnThisThread = FileSystemBackend.isProcfs(root.path)
        let t = sysconf(Int32(_SC_CLK_TCK))
        ticksPerSecond = t > 0 ? Double(t) : 100
    }

    /// One walk of the table. `identify`: pids whose identity is read even when their CPU
    /// time stands still (processes on a GPU, which are sources without using the CPU).
    public func walk(identify: Set<Int> = []) -> ThermalProcessTable {
        guard let names = root.list("") else {
            return ThermalProcessTable(processes: [], ticksPerSecond: ticksPerSecond,
                                       issue: ReadingIssue(file: root.path, reason: .readFailed, detail: "cannot be listed"))
        }
        let pids = names.compactMap { n -> Int? in
            guard !n.isEmpty, n.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), n.utf8.count < 10 else { return nil }
            return Int(n)
        }
        let start = monotonicSeconds()
        let results = root.readEach(["stat"] + pids.map { "\($0)/stat" }, onThisThread: statOnThisThread)
        var table = ThermalProcessTable(processes: [], ticksPerSecond: ticksPerSecond)
        // The middle of the reads: each process's time was read somewhere inside them.
        table.walkTime = (start + monotonicSeconds()) / 2
        if case .success(let text) = results[0], let totals = ProcFiles.cpuTotals(text) {
            table.totalTicks = totals.total
            table.busyTicks = totals.busy
        }
        var next: [Int: Known] = [:]
        next.reserveCapacity(pids.count)
        var needIdentity: [Int] = []
        table.processes.reserveCapacity(pids.count)
        for (pid, result) in zip(pids, results.dropFirst()) {
            switch result {
            case .success(let text):
                guard let st = ProcFiles.stat(text) else { table.unreadable += 1; continue }
                var p = ThermalProcess(pid: pid, startTicks: st.startTicks, command: st.command, cpuTicks: st.cpuTicks,
                                       state: st.state, isKernelThread: st.isKernelThread)
                var k = Known(startTicks: st.startTicks, cpuTicks: st.cpuTicks, identity: nil)
                if let old = known[pid], old.startTicks == st.startTicks {
                    k.identity = old.identity
                    if old.identity == nil && (st.cpuTicks > old.cpuTicks || identify.contains(pid)) { needIdentity.append(table.processes.count) }
                } else if (walked && st.cpuTicks > 0) || identify.contains(pid) {
                    // Started since the last walk (or first seen): a source only if it used CPU.
                    needIdentity.append(table.processes.count)
                }
                if st.isKernelThread { k.identity = Identity(uid: 0, user: userName(0)) }
                if let id = k.identity { p.uid = id.uid; p.user = id.user; p.commandLine = id.commandLine; p.cgroup = id.cgroup }
                next[pid] = k
                table.processes.append(p)
            case .failure(let issue):
                // Gone since the listing (ENOENT, ESRCH): not a process any more. Refused
                // (hidepid, EACCES): counted, so the report can say what it could not see.
                if issue.reason == .permissionDenied { table.unreadable += 1 }
            }
        }
        let wanted = needIdentity.filter { !table.processes[$0].isKernelThread }
        if !wanted.isEmpty {
            let files = wanted.flatMap { i -> [String] in
                let pid = table.processes[i].pid
                return ["\(pid)/status", "\(pid)/cmdline", "\(pid)/cgroup"]
            }
            let answers = root.readEach(files)
            for (n, i) in wanted.enumerated() {
                func text(_ k: Int) -> String? { if case .success(let t) = answers[n * 3 + k] { return t } else { return nil } }
                let uid = text(0).flatMap(ProcFiles.uid)
                let id = Identity(uid: uid, user: userName(uid), commandLine: text(1).flatMap(ProcFiles.commandLine),
                                  cgroup: text(2).flatMap(ProcFiles.cgroup))
                let pid = table.processes[i].pid
                table.processes[i].uid = id.uid
                table.processes[i].user = id.user
                table.processes[i].commandLine = id.commandLine
                table.processes[i].cgroup = id.cgroup
                next[pid]?.identity = id
            }
        }
        known = next
        walked = true
        return table
    }
}
