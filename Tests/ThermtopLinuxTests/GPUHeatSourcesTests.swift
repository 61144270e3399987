import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// GPU processes (as NVML lists them) joined to the process table's names: the two captured
/// walks of `Tests/Fixtures/proc-table-1` and `-2`, and GPUs as a sample holds them.
@Suite("Heat sources on the GPU")
struct GPUHeatSourcesTests {
    static func gpu(_ procs: [ThermalGPUProcess]?, bus: String = "0000:01:00.0", index: Int = 0,
                    watts: Double? = 300) -> ThermalGPU {
        var g = ThermalGPU(busID: bus)
        g.name = "NVIDIA H200"
        g.index = index
        g.powerWatts = watts
        g.processes = procs
        return g
    }

    static func measured(_ gpus: [ThermalGPU]) throws -> ThermalHeatSources {
        let (a, b) = try HeatSourcesTests.twoWalks()
        return try #require(ThermalHeatSources.measure(b, previous: a, seconds: 1, power: HeatSourcesTests.package40W, gpus: gpus))
    }

    @Test("a GPU process joins its command's group, with its GPU, memory, SM share and ≈ W as SM share × board power")
    func gpuProcessJoinsItsGroup() throws {
        let h = try Self.measured([Self.gpu([ThermalGPUProcess(pid: 100, memoryBytes: 2 << 30, smPercent: 60)])])
        let cc = try #require(h.sources.first { $0.command == "cc1plus" })
        #expect(cc.count == 2)
        #expect(abs(cc.cpuPercent - 200) < 0.01)
        let use = try #require(cc.gpus.first)
        #expect(cc.gpus.count == 1)
        #expect(use.busID == "0000:01:00.0" && use.index == 0 && use.processCount == 1)
        #expect(use.memoryBytes == 2 << 30)
        #expect(use.smPercent == 60)
        #expect(abs((use.estimatedWatts ?? 0) - 180) < 0.01)
        #expect(use.figures == "SM 60 %, 2.0 GiB, ≈ 180 W")
        #expect(cc.processes.first { $0.pid == 100 }?.gpus.first?.smPercent == 60)
        #expect(cc.processes.first { $0.pid == 101 }?.gpus.isEmpty == true)
    }

    @Test("a process only on the GPU still appears; a pid the table lacks is grouped as ? and marked so")
    func gpuOnlyAndUnknownPids() throws {
        let h = try Self.measured([Self.gpu([ThermalGPUProcess(pid: 2, memoryBytes: 1 << 20, smPercent: 10),
                                             ThermalGPUProcess(pid: 99_999, memoryBytes: 512 << 20, smPercent: 30)])])
        let only = try #require(h.sources.first { $0.command == "kthreadd" })
        #expect(only.cpuPercent == 0 && only.count == 1)
        #expect(only.gpus.first?.smPercent == 10)
        let unknown = try #require(h.sources.first { $0.command == ThermalHeatSources.unknownCommand })
        #expect(unknown.processes.map(\.pid) == [99_999])
        #expect(unknown.processes.first?.inProcessTable == false)
        #expect(unknown.gpus.first?.memoryBytes == 512 << 20)
        // Biggest SM share first on the GPU.
        #expect(h.onGPU("0000:01:00.0").map(\.source.command) == ["?", "kthreadd"])
    }

    @Test("unknown memory or SM share stays unknown, in the process and in its group's sum; no board power, no watts")
    func unknownStaysUnknown() throws {
        let h = try Self.measured([Self.gpu([ThermalGPUProcess(pid: 100, memoryBytes: nil, smPercent: 50),
                                             ThermalGPUProcess(pid: 101, memoryBytes: 1 << 30, smPercent: nil)], watts: nil)])
        let use = try #require(h.sources.first { $0.command == "cc1plus" }?.gpus.first)
        #expect(use.processCount == 2)
        #expect(use.memoryBytes == nil && use.smPercent == nil && use.estimatedWatts == nil)
        #expect(use.figures == "SM unknown, memory unknown")
    }

    @Test("SM shares adding up past 100 % are scaled so the estimates add up to the board power")
    func sharesPastAHundredAreScaled() throws {
        let h = try Self.measured([Self.gpu([ThermalGPUProcess(pid: 100, smPercent: 90), ThermalGPUProcess(pid: 200, smPercent: 60)])])
        let watts = h.sources.flatMap(\.gpus).compactMap(\.estimatedWatts)
        #expect(abs(watts.reduce(0, +) - 300) < 0.01)
        #expect(abs((h.sources.first { $0.command == "cc1plus" }?.gpus.first?.estimatedWatts ?? 0) - 180) < 0.01)
    }

    @Test("a verdict decided by a GPU names that GPU's processes, not the CPU's; one decided by the CPU names the CPU's")
    func verdictNamesTheGPUsProcesses() throws {
        let gpus = [Self.gpu([ThermalGPUProcess(pid: 100, memoryBytes: 2 << 30, smPercent: 60),
                              ThermalGPUProcess(pid: 101, memoryBytes: 1 << 30, smPercent: 30),
                              ThermalGPUProcess(pid: 200, memoryBytes: 1 << 20, smPercent: 2)]),
                    Self.gpu([ThermalGPUProcess(pid: 1, memoryBytes: 1 << 30, smPercent: 99)], bus: "0000:02:00.0", index: 1)]
        let h = try Self.measured(gpus)
        let byGPU = ThermalAssessment(state: .serious, why: ThermalReason(.device("serious: GPU NVIDIA H200 (0000:01:00.0) SW thermal slowdown active")),
                                      decidedBy: gpus[0].id, sensors: [], cooling: [], throttle: nil)
        #expect(ThermalHeatSources.verdict(byGPU, sources: h, gpus: gpus).text(.celsius)
            == byGPU.reason + " — mostly cc1plus ×2 (SM 90 %, 3.0 GiB, ≈ 270 W)")
        var bySensor = byGPU
        bySensor.decidedBy = gpus[1].id + "/nvidia/gpu"
        #expect(ThermalHeatSources.verdict(bySensor, sources: h, gpus: gpus).text(.celsius) == byGPU.reason + " — mostly systemd (SM 99 %, 1.0 GiB, ≈ 297 W)")
        var byCPU = byGPU
        byCPU.decidedBy = nil
        #expect(ThermalHeatSources.verdict(byCPU, sources: h, gpus: gpus).text(.celsius).contains(" — mostly cc1plus ×2 (200 % CPU"))
        // Nothing on the GPU above the verdict's floor: nothing named.
        let idle = [Self.gpu([ThermalGPUProcess(pid: 100, memoryBytes: 1 << 20, smPercent: 0)])]
        #expect(ThermalHeatSources.verdict(byGPU, sources: try Self.measured(idle), gpus: idle).text(.celsius) == byGPU.reason)
    }

    @Test("a group on a GPU is kept past the most groups a report holds")
    func gpuGroupsAreKept() throws {
        let procs = (1...40).map { ThermalProcess(pid: $0, startTicks: UInt64($0), command: "job\($0)", cpuTicks: UInt64(100 - $0)) }
        var a = ThermalProcessTable(processes: procs.map { var p = $0; p.cpuTicks = 0; return p }, totalTicks: 0, busyTicks: 0)
        var b = ThermalProcessTable(processes: procs + [ThermalProcess(pid: 500, startTicks: 1, command: "render", cpuTicks: 0)],
                                    totalTicks: 10_000, busyTicks: 5_000)
        a.processes.append(ThermalProcess(pid: 500, startTicks: 1, command: "render", cpuTicks: 0))
        (a.walkTime, b.walkTime) = (0, 1)
        let h = try #require(ThermalHeatSources.measure(b, previous: a, seconds: 1, power: [],
                                                        gpus: [Self.gpu([ThermalGPUProcess(pid: 500, graphics: true, smPercent: 40)])]))
        #expect(h.sources.count == ThermalHeatSources.maximumSources + 1)
        #expect(h.sources.last?.command == "render")
    }

    @Test("a GPU's processes survive the text a capture or recording stores, unknowns as unknowns")
    func recordTextKeepsProcesses() {
        var g = Self.gpu([ThermalGPUProcess(pid: 7, compute: true, graphics: true, memoryBytes: 3 << 20, smPercent: 12.5),
                          ThermalGPUProcess(pid: 8, compute: false, graphics: true, memoryBytes: nil, smPercent: nil)])
        g.smReason = "Not Supported"
        let back = ThermalGPU(busID: g.busID, recordText: g.recordText)
        #expect(back.processes == g.processes)
        #expect(back.index == 0 && back.smReason == "Not Supported")
        var none = Self.gpu([])
        #expect(ThermalGPU(busID: none.busID, recordText: none.recordText).processes == [])
        none.processes = nil
        none.processesReason = "compute: Insufficient Permissions"
        let unknown = ThermalGPU(busID: none.busID, recordText: none.recordText)
        #expect(unknown.processes == nil && unknown.processesReason == none.processesReason)
        // Hostile stored lines are skipped, not trusted.
        let hostile = ThermalGPU(busID: "x", recordText: "procs=1\nproc=-3 c 1 1\nproc=9 c 1 nan\nproc=4 c 18446744073709551616 5\n")
        #expect(hostile.processes?.map(\.pid) == [9, 4])
        #expect(hostile.processes?.first?.smPercent == nil && hostile.processes?.last?.memoryBytes == nil)
    }
}
