import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// Heat sources from process tables laid out as the kernel writes `/proc`
/// (`Tests/Fixtures/proc-table-1` and `-2`: two walks one second apart, with the hostile cases),
/// read through the real reader and measured by the pure model.
@Suite("Heat sources from /proc")
struct HeatSourcesTests {
    static let package40W = [ThermalPowerDomain(id: "rapl:package-0", name: "package-0", source: .rapl, watts: 40)]

    /// Both walks through one reader, as a sampler makes them: the root is a link re-pointed
    /// from the first table to the second between the walks.
    static func twoWalks() throws -> (ThermalProcessTable, ThermalProcessTable) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let link = base.appendingPathComponent("proc").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Fixture.path("proc-table-1"))
        let reader = ThermalProcessTableReader(path: link)
        var first = reader.walk()
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Fixture.path("proc-table-2"))
        var second = reader.walk()
        // The captured walks are one second apart, whenever this test read them.
        first.walkTime = 100
        second.walkTime = 101
        return (first, second)
    }

    static func measured(power: [ThermalPowerDomain] = package40W) throws -> ThermalHeatSources {
        let (a, b) = try twoWalks()
        // The fixture's ticks are in USER_HZ (100), which sysconf gives on Linux.
        #expect(b.ticksPerSecond == 100)
        return try #require(ThermalHeatSources.measure(b, previous: a, seconds: 1, power: power))
    }

    @Test("two busy processes named alike are the top source: one group, count 2, 200 % of one core")
    func alikeProcessesAreOneGroup() throws {
        let h = try Self.measured()
        let top = try #require(h.sources.first)
        #expect(top.command == "cc1plus")
        #expect(top.count == 2)
        #expect(abs(top.cpuPercent - 200) < 0.01)
        #expect(top.label == "cc1plus ×2")
        #expect(top.processes.map(\.pid) == [100, 101])
    }

    @Test("estimated watts are the share of busy CPU time times the package power, unknown without it")
    func wattsAreShareOfPackagePower() throws {
        let h = try Self.measured()
        // /proc/stat: 400 busy ticks in the window; cc1plus used 200 of them, of 40 W.
        #expect(abs((h.sources.first?.estimatedWatts ?? 0) - 20) < 0.01)
        #expect(h.packageWatts == 40)
        let unknown = try Self.measured(power: [ThermalPowerDomain(id: "rapl:package-0", name: "package-0", source: .rapl,
                                                                    watts: nil, reason: "needs root")])
        #expect(unknown.sources.first?.estimatedWatts == nil)
        #expect(unknown.wattsReason == "package-0 needs root")
        let none = try Self.measured(power: [])
        #expect(none.sources.allSatisfy { $0.estimatedWatts == nil })
    }

    @Test("kernel threads are counted under their name without the per-CPU suffix")
    func kernelThreadsGroupByName() throws {
        let h = try Self.measured()
        let kworker = try #require(h.sources.first { $0.command == "kworker" })
        #expect(kworker.count == 2)
        #expect(abs(kworker.cpuPercent - 25) < 0.01)
        #expect(kworker.processes.allSatisfy { $0.isKernelThread })
    }

    @Test("a reused pid is a new process; one new inside the window counts all its time; an older unseen one none")
    func pidReuseAndNewProcesses() throws {
        let h = try Self.measured()
        let names = h.sources.map(\.command)
        #expect(!names.contains("oldjob"))
        #expect(abs((h.sources.first { $0.command == "newjob" }?.cpuPercent ?? 0) - 20) < 0.01)
        #expect(abs((h.sources.first { $0.command == "make" }?.cpuPercent ?? 0) - 30) < 0.01)
        #expect(!names.contains("hidden"))
        #expect(!names.contains("gone"))
        // A zombie uses no CPU; an unparsable stat is counted as unreadable, never guessed.
        #expect(!names.contains("defunct"))
        #expect(h.unreadable == 1)
    }

    @Test("the command name runs to the last parenthesis, and nothing from /proc keeps a control character")
    func hostileNamesAreParsedAndCleaned() throws {
        let h = try Self.measured()
        #expect(h.sources.contains { $0.command == "a) (b" })
        let evil = try #require(h.sources.first { $0.command.hasPrefix("?]0;pwn") })
        #expect(evil.command == "?]0;pwn?ev?[2Jil")
        let all = h.sources.flatMap { [$0.command] + $0.processes.compactMap(\.commandLine) + $0.processes.compactMap(\.cgroup) }
        for s in all { #expect(!s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }, "\(s.debugDescription)") }
        #expect(evil.processes.first?.commandLine == "evil ?[2J?[31mred")
    }

    @Test("who a busy process is: uid, full command line and its systemd unit or container")
    func identityOfBusyProcesses() throws {
        let h = try Self.measured()
        let cc = try #require(h.sources.first?.processes.first)
        #expect(cc.uid == 1000)
        #expect(cc.commandLine == "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet main.cpp")
        #expect(cc.cgroup == "session-2.scope")
        #expect(h.sources.first { $0.command == "a) (b" }?.processes.first?.cgroup == "docker 3f2a9c1b7d4e")
    }

    @Test("the verdict names the top sources when fair or worse, and only then")
    func verdictNamesTopSources() throws {
        let h = try Self.measured()
        let trip = ThermalThreshold(celsius: 90, hysteresis: 2, rule: "passive trip")
        let hot = ThermalAssessment(state: .serious, why: ThermalReason(.reached(level: .serious, sensor: "CPU", celsius: 92, threshold: trip,
                                                                                 held: false, uncorroborated: false)),
                                    decidedBy: nil, sensors: [], cooling: [], throttle: nil)
        #expect(ThermalHeatSources.verdict(hot, sources: h).description
            == "serious: CPU 92.0 °C ≥ passive trip 90.0 °C (clears below 88.0 °C) — mostly cc1plus ×2 (200 % CPU, ≈ 20 W), make (30 % CPU, ≈ 3.0 W)")
        var cool = hot
        cool.state = .nominal
        cool.why = ThermalReason(.belowFair(sensor: "CPU", celsius: 50, fair: 80))
        #expect(ThermalHeatSources.verdict(cool, sources: h) == cool.why)
        #expect(ThermalHeatSources.verdict(hot, sources: nil) == hot.why)
    }

    @Test("rates are over the time between the two walks, not between the samples' starts")
    func ratesUseTheWalksTime() throws {
        var (a, b) = try Self.twoWalks()
        (a.walkTime, b.walkTime) = (100, 102)
        let h = try #require(ThermalHeatSources.measure(b, previous: a, seconds: 1, power: []))
        #expect(abs((h.sources.first?.cpuPercent ?? 0) - 100) < 0.01)
    }

    @Test("one walk has no rates: heat sources are unknown, never zero")
    func oneWalkIsUnknown() throws {
        let reader = ThermalProcessTableReader(path: Fixture.path("proc-table-1"))
        let h = try #require(ThermalHeatSources.measure(reader.walk(), previous: nil, seconds: nil, power: []))
        #expect(h.reason == ThermalEnergyRate.needsTwoSamples)
        #expect(h.sources.isEmpty)
        #expect(ThermalHeatSources.measure(nil, previous: nil, seconds: 1, power: []) == nil)
    }

    @Test("a process table that cannot be listed is an issue, not an empty machine")
    func unlistableRoot() throws {
        let reader = ThermalProcessTableReader(path: "/nonexistent-proc-root")
        let t = reader.walk()
        #expect(t.issue != nil)
        let h = try #require(ThermalHeatSources.measure(t, previous: t, seconds: 1, power: []))
        #expect(h.reason != nil)
    }

    @Test("a table of 10,000 processes is walked whole, and the report keeps a bounded number of groups")
    func tenThousandProcesses() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-proc10k-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try Data("cpu  100 0 0 0 0 0 0 0 0 0\n".utf8).write(to: base.appendingPathComponent("stat"))
        func write(ticks: Int) throws {
            for pid in 1...10_000 {
                let dir = base.appendingPathComponent("\(pid)")
                try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
                let line = "\(pid) (job\(pid % 100)) R 1 1 1 0 -1 4194560 0 0 0 0 \(ticks) 0 0 0 20 0 1 0 \(pid) 0 0\n"
                try Data(line.utf8).write(to: dir.appendingPathComponent("stat"))
            }
        }
        try write(ticks: 0)
        let reader = ThermalProcessTableReader(path: base.path)
        var a = reader.walk()
        try write(ticks: 1)
        var b = reader.walk()
        (a.walkTime, b.walkTime) = (nil, nil)
        #expect(a.processes.count == 10_000)
        #expect(b.processes.count == 10_000)
        let h = try #require(ThermalHeatSources.measure(b, previous: a, seconds: 1, power: []))
        #expect(h.sources.count == ThermalHeatSources.maximumSources)
        #expect(h.sources.first?.count == 100)
        #expect(h.sources.allSatisfy { $0.processes.count <= ThermalHeatSources.maximumProcessesPerSource })
    }

    @Test("a walk of the real /proc reads every stat on the walking thread, handing no batch to a reader; a tree laid out like /proc keeps the deadline's hand-off")
    func procfsStatIsReadOnTheWalkingThread() {
        let live = ThermalProcessTableReader(path: "/proc")
        let table = live.walk()
        #expect(table.processes.contains { $0.pid == Int(getpid()) })
        #expect(live.root.handedOffBatches == 0)
        let tree = ThermalProcessTableReader(path: Fixture.path("proc-table-1"))
        #expect(!tree.walk().processes.isEmpty)
        #expect(tree.root.handedOffBatches >= 1)
    }
}
