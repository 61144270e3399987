import ThermtopCore
@testable import ThermtopUI

extension Fixtures {
    /// A build on the Intel laptop at fair: eight cc1plus, kernel workers, a browser, a process
    /// whose name carries a terminal escape, and seven processes `/proc` refused (hidepid).
    static func heatSources(unreadable: Int = 7) -> ThermalHeatSources {
        func procs(_ n: Int, from pid: Int, cpu: Double, user: String = "alice", cmd: String? = nil,
                   cgroup: String? = "session-2.scope", kernel: Bool = false) -> [ThermalHeatProcess] {
            (0..<n).map { i in
                ThermalHeatProcess(pid: pid + i, uid: 1000, user: user, commandLine: kernel ? nil : (cmd ?? "cmd \(i)"),
                                   cgroup: cgroup, cpuPercent: cpu, isKernelThread: kernel)
            }
        }
        let cc = procs(8, from: 4101, cpu: 80, cmd: "/usr/libexec/gcc/x86_64-linux-gnu/13/cc1plus -quiet -I include src/engine.cpp -O2 -o /tmp/ccA1b2.s")
        return ThermalHeatSources(sources: [
            ThermalHeatSource(command: "cc1plus", cpuPercent: 640, estimatedWatts: 38, processes: cc),
            ThermalHeatSource(command: "kworker", count: 12, cpuPercent: 35, estimatedWatts: 2.1,
                              processes: procs(3, from: 88, cpu: 11.7, user: "root", cgroup: nil, kernel: true)),
            ThermalHeatSource(command: "firefox", cpuPercent: 22, estimatedWatts: 1.3,
                              processes: procs(1, from: 2200, cpu: 22, cmd: "/usr/lib/firefox/firefox -contentproc")),
            ThermalHeatSource(command: "evil\u{1B}[2Jname", cpuPercent: 6.5, estimatedWatts: 0.4,
                              processes: procs(1, from: 3300, cpu: 6.5, user: "bob", cmd: "evil \u{1B}]0;pwned\u{07}", cgroup: "docker 3f2a9c1b7d4e")),
            ThermalHeatSource(command: "python3", count: 2, cpuPercent: 3.2, estimatedWatts: 0.2,
                              processes: procs(2, from: 5000, cpu: 1.6)),
        ], packageWatts: 42, processCount: 305, unreadable: unreadable)
    }

    /// `state` with `sources` as the monitor's last status carried them (the verdict names them).
    static func withHeat(_ state: AppState, _ sources: ThermalHeatSources?) -> AppState {
        var s = state
        var status = s.status
        status.heatSources = sources
        status.assessment.why = ThermalHeatSources.verdict(status.assessment, sources: sources, gpus: status.snapshot.gpus)
        _ = Reducer.reduce(&s, .statusArrived(status, FeedInfo(samples: s.stats.samples, sampleMilliseconds: s.stats.sampleMilliseconds,
                                                               refreshDueAt: s.refreshDueAt)))
        return s
    }

    /// The fair Intel laptop with the build heating it.
    static var heatState: AppState { withHeat(Scenario.reduced.state, heatSources()) }
}
