import Foundation
import Testing
import ThermtopTestSupport

/// NVIDIA GPUs through NVML with no GPU: a stand-in libnvidia-ml.so.1 built from
/// Tests/Fixtures/nvml-standin/standin.c, loaded by the real binary through LD_LIBRARY_PATH, on
/// a small sysfs tree holding the GPUs' PCI functions. The test writes the stand-in's answers
/// and reads the calls it logged.
@Suite("NVML stand-in", .serialized, .needs(.cCompiler))
struct NVMLStandInTests {
    /// The two builds of the stand-in (current driver, and one without ...ClocksEventReasons),
    /// each in a folder of its own, made once.
    /// Also two older process-list APIs: without the `_v3` calls, and with only the
    /// unversioned v1 calls and no nvmlDeviceGetProcessUtilization.
    static let libraries: (current: String, old: String, procsV2: String, procsV1: String)? = {
        let src = Thermtop.fixtures.appendingPathComponent("nvml-standin/standin.c").path
        let base = "/tmp/thermtop-nvml-\(getpid())"
        guard let cc = TestMachine.cCompiler.map(Proof.quote) else { return nil }
        let builds = [("current", ""), ("old", "-DOLD_DRIVER"), ("procs-v2", "-DPROCS_V2"), ("procs-v1", "-DPROCS_V1 -DNO_PROC_UTIL")]
        let script = builds.map { dir, flags in
            "mkdir -p \(base)/\(dir) && \(cc) -shared -fPIC \(flags) -o \(base)/\(dir)/libnvidia-ml.so.1 \(Proof.quote(src))"
        }.joined(separator: " && ")
        return Proof.sh(script).status == 0 ? (base + "/current", base + "/old", base + "/procs-v2", base + "/procs-v1") : nil
    }()

    struct Machine {
        let dir: String
        var config: String { dir + "/standin.conf" }
        var log: String { dir + "/calls.log" }
        var root: String { dir + "/sys" }

        /// A sysfs tree with NVIDIA display functions at `gpus` (bus id → runtime_status) and
        /// one Intel bridge, and the stand-in's answers.
        init(gpus: [String: String], answers: String) throws {
            dir = "/tmp/thermtop-nvml-m-\(UUID().uuidString.prefix(8))"
            var script = "mkdir -p \(dir)/sys/bus/pci/devices/0000:00:1f.0 && echo 0x8086 > \(dir)/sys/bus/pci/devices/0000:00:1f.0/vendor && echo 0x060100 > \(dir)/sys/bus/pci/devices/0000:00:1f.0/class"
            for (bus, status) in gpus {
                let d = "\(dir)/sys/bus/pci/devices/\(bus)"
                script += " && mkdir -p \(d)/power && echo 0x10de > \(d)/vendor && echo 0x030200 > \(d)/class && echo \(status) > \(d)/power/runtime_status"
            }
            try #require(Proof.sh(script).status == 0)
            try answers.write(toFile: dir + "/standin.conf", atomically: true, encoding: .utf8)
        }

        func run(_ args: String, library: String?) -> (status: Int32, output: String) {
            let lib = library ?? (dir + "/nolib")
            return Proof.sh("mkdir -p \(dir)/nolib; env LD_LIBRARY_PATH=\(lib) THERMTOP_NVML=live NVML_STANDIN_CONFIG=\(config) NVML_STANDIN_LOG=\(log) \(Proof.quote(Proof.binary)) \(args) --sysfs-root \(root)", stdoutOnly: true)
        }

        func statusJSON(_ extra: String = "", library: String?) throws -> [String: Any] {
            let r = run("status --json" + extra, library: library)
            let obj = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any]
            return try #require(obj, "status --json did not print an object: \(r.output)")
        }

        var calls: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func discard() { Proof.discard(dir) }
    }

    static let h200 = """
    0000:01:00.0.name=NVIDIA H200
    0000:01:00.0.uuid=GPU-11111111
    0000:01:00.0.temp=45
    0000:01:00.0.mem_temp=41
    0000:01:00.0.slowdown=89
    0000:01:00.0.shutdown=95
    0000:01:00.0.gpu_max=87
    0000:01:00.0.mem_max=95
    0000:01:00.0.power_mw=84000
    0000:01:00.0.limit_mw=700000
    0000:01:00.0.pstate=0
    0000:01:00.0.util=97

    """

    func gpus(_ j: [String: Any]) -> [[String: Any]] { j["gpus"] as? [[String: Any]] ?? [] }
    func sensorIDs(_ j: [String: Any]) -> [String] { (j["sensors"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }

    @Test("several GPUs: each in gpus[] with NVML's values and limits, its temperatures in sensors[], no 'no sensors'")
    func severalGPUs() throws {
        let libs = try #require(Self.libraries, "the C compiler could not build the stand-in")
        let m = try Machine(gpus: ["0000:01:00.0": "active", "0000:02:00.0": "active"], answers: "gpus=0000:01:00.0,0000:02:00.0\n" + Self.h200 + """
        0000:01:00.0.reasons=0x4
        0000:02:00.0.name=NVIDIA GeForce RTX 4090
        0000:02:00.0.temp=61
        0000:02:00.0.reasons=0x1
        0000:02:00.0.fans=2
        0000:02:00.0.fan=55

        """)
        defer { m.discard() }
        let j = try m.statusJSON(library: libs.current)
        let g = gpus(j)
        try #require(g.count == 2)
        #expect(g[0]["bus_id"] as? String == "0000:01:00.0")
        #expect(g[0]["name"] as? String == "NVIDIA H200")
        #expect(g[0]["celsius"] as? Double == 45)
        #expect(g[0]["memory_celsius"] as? Double == 41)
        #expect(g[0]["power_watts"] as? Double == 84)
        #expect(g[0]["power_limit_watts"] as? Double == 700)
        let th = g[0]["thresholds"] as? [String: Any] ?? [:]
        #expect(th["slowdown_celsius"] as? Double == 89 && th["shutdown_celsius"] as? Double == 95
                && th["gpu_max_celsius"] as? Double == 87 && th["memory_max_celsius"] as? Double == 95)
        #expect(g[0]["clock_event_reason_names"] as? [String] == ["SW power cap"])
        #expect(g[0]["power_limited"] as? Bool == true)
        #expect(g[1]["fan_percent"] as? [Int] == [55, 55])
        #expect(g[1]["clock_event_reason_names"] as? [String] == ["idle"])
        let ids = sensorIDs(j)
        #expect(ids.contains("pci-0000:01:00.0/nvidia/gpu") && ids.contains("pci-0000:01:00.0/nvidia/memory")
                && ids.contains("pci-0000:02:00.0/nvidia/gpu"))
        #expect(j["no_sensors"] as? Bool == false)
        // A power cap is not heat.
        #expect(j["thermal_state"] as? String == "nominal")
        let text = m.run("status", library: libs.current).output
        #expect(!text.contains("No thermal sensors"))
        #expect(text.contains("NVIDIA H200 (0000:01:00.0): 45.0 °C, memory 41.0 °C · 84.0 W of 700.0 W"))
        #expect(text.contains("power-limited"))
    }

    @Test("NVML's limits decide the GPU sensor's levels: GPU max operating is serious, slowdown critical")
    func limitsDecideLevels() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200.replacingOccurrences(of: ".temp=45", with: ".temp=88"))
        defer { m.discard() }
        let j = try m.statusJSON(library: libs.current)
        #expect(j["thermal_state"] as? String == "serious")
        #expect(j["decided_by"] as? String == "pci-0000:01:00.0/nvidia/gpu")
        #expect((j["reason"] as? String)?.contains("NVIDIA H200 88.0 °C") == true)
    }

    @Test("SW thermal slowdown makes the state at least serious, HW thermal slowdown critical, naming the GPU")
    func thermalReasonsMoveTheState() throws {
        let libs = try #require(Self.libraries)
        for (bits, state, words) in [("0x20", "serious", "SW thermal slowdown"), ("0x40", "critical", "HW thermal slowdown"),
                                     ("0x80", "nominal", "HW power brake slowdown")] {
            let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + "0000:01:00.0.reasons=\(bits)\n")
            defer { m.discard() }
            let j = try m.statusJSON(library: libs.current)
            #expect(j["thermal_state"] as? String == state, "reasons \(bits)")
            #expect(gpus(j).first?["clock_event_reason_names"] as? [String] == [words])
            if state != "nominal" {
                #expect(j["decided_by"] as? String == "pci-0000:01:00.0")
                #expect((j["reason"] as? String)?.contains("GPU NVIDIA H200 (0000:01:00.0) \(words) active") == true)
            }
        }
    }

    @Test("reasons that change from sample to sample move the state; a GPU lost mid-run reads as unknown, with why")
    func reasonsChangeThenGPUIsLost() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200
                            + "0000:01:00.0.reasons_seq=0x1,0x20,0x40\n0000:01:00.0.lost_after=4\n")
        defer { m.discard() }
        let rec = m.dir + "/run.jsonl"
        let r = m.run("record \(rec) --seconds 2 --delay 0.4", library: libs.current)
        #expect(r.status == 0, "\(r.output)")
        // The recording's sample times, then the state the replay decides at each.
        let recorded = (try? String(contentsOfFile: rec, encoding: .utf8)) ?? ""
        let times = recorded.split(separator: "\n").dropFirst().compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"] as? Double
        }
        try #require(times.count >= 5, "\(recorded)")
        func status(at t: Double) throws -> [String: Any] {
            let out = Proof.sh("\(Proof.quote(Proof.binary)) status --json --replay \(rec) --at \(t)", stdoutOnly: true).output
            return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        }
        let states = try times.prefix(3).map { try status(at: $0)["thermal_state"] as? String ?? "?" }
        #expect(states == ["nominal", "serious", "critical"])
        let end = try #require(gpus(try status(at: times.last!)).first)
        #expect(end["celsius"] is NSNull)
        #expect((end["issues"] as? [String])?.contains { $0.contains("vanished") && $0.contains("GPU is lost") } == true, "\(end)")
    }

    @Test("fields the driver does not support are unknown, never zero")
    func notSupportedFields() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:03:00.0": "active"], answers: "gpus=0000:03:00.0\n0000:03:00.0.temp=50\n")
        defer { m.discard() }
        let g = try #require(gpus(try m.statusJSON(library: libs.current)).first)
        #expect(g["celsius"] as? Double == 50)
        for k in ["memory_celsius", "power_watts", "power_limit_watts", "clock_event_reasons", "performance_state", "name"] {
            #expect(g[k] is NSNull, "\(k) should be null")
        }
        #expect(g["fan_percent"] as? [Int] == [])
    }

    @Test("an older driver without ...ClocksEventReasons is read through ...ClocksThrottleReasons")
    func olderDriverFallsBack() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + "0000:01:00.0.reasons=0x20\n")
        defer { m.discard() }
        let j = try m.statusJSON(library: libs.old)
        #expect(gpus(j).first?["clock_event_reason_names"] as? [String] == ["SW thermal slowdown"])
        #expect(j["thermal_state"] as? String == "serious")
        #expect(m.calls.contains("nvmlDeviceGetCurrentClocksThrottleReasons 0000:01:00.0"))
    }

    @Test("init failures and a missing library give one notice line with NVML's own words")
    func initFailures() throws {
        let libs = try #require(Self.libraries)
        for (rc, words) in [("9", "Driver Not Loaded"), ("18", "NVML/RM version mismatch")] {
            let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "init=\(rc)\ngpus=0000:01:00.0\n" + Self.h200)
            defer { m.discard() }
            let j = try m.statusJSON(library: libs.current)
            #expect((j["gpu_notice"] as? String)?.contains(words) == true, "\(j["gpu_notice"] ?? "none")")
            #expect(gpus(j).isEmpty)
            let text = m.run("status", library: libs.current).output
            #expect(text.split(separator: "\n").filter { $0.contains(words) }.count == 1)
        }
        // Only where this machine has no NVML of its own (CI never has one).
        if Proof.sh("ldconfig -p | grep -q libnvidia-ml.so.1").status != 0 {
            let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n")
            defer { m.discard() }
            let j = try m.statusJSON(library: nil)
            #expect((j["gpu_notice"] as? String)?.contains("libnvidia-ml.so.1") == true)
        }
    }

    @Test("no NVML call for a runtime-suspended GPU, and no nvmlInit while every GPU sleeps")
    func suspendedGPUIsNeverAsked() throws {
        let libs = try #require(Self.libraries)
        let both = "gpus=0000:01:00.0,0000:02:00.0\n" + Self.h200 + "0000:02:00.0.temp=40\n"
        let one = try Machine(gpus: ["0000:01:00.0": "active", "0000:02:00.0": "suspended"], answers: both)
        defer { one.discard() }
        let j = try one.statusJSON(library: libs.current)
        #expect(!one.calls.isEmpty)
        #expect(!one.calls.contains { $0.contains("0000:02:00.0") }, "\(one.calls)")
        #expect(gpus(j).last?["asleep"] as? String == "suspended")
        let all = try Machine(gpus: ["0000:01:00.0": "suspended", "0000:02:00.0": "suspended"], answers: both)
        defer { all.discard() }
        let k = try all.statusJSON(library: libs.current)
        #expect(all.calls.isEmpty, "\(all.calls)")
        #expect(gpus(k).count == 2 && gpus(k).allSatisfy { $0["asleep"] as? String == "suspended" })
        #expect(k["no_sensors"] as? Bool == false)
    }

    @Test("a hung NVML call makes that GPU timed-out within the read deadline; the others are read")
    func hungCallTimesOut() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active", "0000:02:00.0": "active"],
                            answers: "gpus=0000:01:00.0,0000:02:00.0\n" + Self.h200 + "0000:02:00.0.temp=40\n0000:02:00.0.hang=1\n")
        defer { m.discard() }
        let start = Date()
        let j = try m.statusJSON(library: libs.current)
        #expect(Date().timeIntervalSince(start) < 10, "status waited for the hung call")
        let g = gpus(j)
        try #require(g.count == 2)
        #expect(g[0]["celsius"] as? Double == 45)
        #expect(g[1]["timed_out"] as? Bool == true)
        #expect((g[1]["issues"] as? [String])?.first?.contains("timed-out") == true)
    }

    @Test("capture stores NVML's readings beside the tree and status --sysfs-root on it shows the GPU")
    func captureKeepsTheGPU() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + "0000:01:00.0.reasons=0x20\n")
        defer { m.discard() }
        let cap = m.dir + "/cap"
        #expect(m.run("capture \(cap)", library: libs.current).status == 0)
        let r = Proof.sh("env THERMTOP_NVML= \(Proof.quote(Proof.binary)) status --json --sysfs-root \(cap)", stdoutOnly: true)
        let j = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let g = try #require(gpus(j).first)
        #expect(g["celsius"] as? Double == 45 && g["name"] as? String == "NVIDIA H200")
        #expect(g["uuid"] is NSNull, "the UUID is a serial: left out without --keep-serials")
        #expect(j["thermal_state"] as? String == "serious")
    }

    // MARK: GPU processes (heat sources on the GPU)

    /// A process table laid out like /proc for `--proc-root`: `names` pid → comm, each with a
    /// command line; nothing uses the CPU (the table stands still), so every source is the GPU's.
    static func procTable(in dir: String, _ names: [Int: String]) throws -> String {
        let root = dir + "/proc"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "cpu  1000 0 500 100000 50 0 0 0 0 0\n".write(toFile: root + "/stat", atomically: true, encoding: .utf8)
        for (pid, comm) in names {
            let d = root + "/\(pid)"
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            let stat = "\(pid) (\(comm)) S 1 \(pid) \(pid) 0 -1 4194560 120 0 0 0 10 0 0 0 20 0 1 0 \(pid) 1234 56" + String(repeating: " 0", count: 30) + "\n"
            try stat.write(toFile: d + "/stat", atomically: true, encoding: .utf8)
            try "Name:\t\(comm)\nUid:\t1000\t1000\t1000\t1000\n".write(toFile: d + "/status", atomically: true, encoding: .utf8)
            try "python3\0train.py\0--\(comm)\0".write(toFile: d + "/cmdline", atomically: true, encoding: .utf8)
            try "0::/user.slice/user-1000.slice/session-2.scope\n".write(toFile: d + "/cgroup", atomically: true, encoding: .utf8)
        }
        return root
    }

    static let trainer = "0000:01:00.0.procs=4242:2147483648:97\n"

    func heatSources(_ j: [String: Any]) -> [[String: Any]] { j["heat_sources"] as? [[String: Any]] ?? [] }
    func source(_ j: [String: Any], _ command: String) -> [String: Any]? { heatSources(j).first { $0["command"] as? String == command } }
    func gpuUse(_ s: [String: Any]?) -> [String: Any]? { (s?["gpu"] as? [[String: Any]])?.first }

    @Test("A GPU process reported by NVML is named under its GPU with its memory and SM share, in status and JSON")
    func gpuProcessIsNamedUnderItsGPU() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + Self.trainer)
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "train"])
        let j = try m.statusJSON(" --proc-root \(proc)", library: libs.current)
        let train = try #require(source(j, "train"), "\(heatSources(j))")
        #expect(train["cpu_percent"] as? Double == 0)
        let use = try #require(gpuUse(train))
        #expect(use["bus_id"] as? String == "0000:01:00.0")
        #expect(use["index"] as? Int == 0)
        #expect(use["uuid"] as? String == "GPU-11111111")
        #expect(use["memory_bytes"] as? Int == 2_147_483_648)
        #expect(use["sm_percent"] as? Double == 97)
        // SM share × board power: 97 % of 84 W.
        #expect(use["estimated_watts"] as? Double == 81.48)
        let p = try #require((train["processes"] as? [[String: Any]])?.first)
        #expect(p["pid"] as? Int == 4242 && p["in_process_table"] as? Bool == true)
        #expect(p["command_line"] as? String == "python3 train.py --train")
        #expect(gpuUse(p)?["sm_percent"] as? Double == 97)
        let status = try #require((j["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]])
        #expect(status.first?["processes"] as? Int == 1 && status.first?["reason"] is NSNull)
        let text = m.run("status --proc-root \(proc)", library: libs.current).output
        #expect(text.contains("GPU 0 NVIDIA H200 (0000:01:00.0): 1 process ("), "\(text)")
        #expect(text.contains("  train: SM 97 %, 2.0 GiB, ≈ 81 W"), "\(text)")
        #expect(text.contains("pid 4242 ") && text.contains("SM 97 %, 2.0 GiB, ≈ 81 W python3 train.py --train"), "\(text)")
        #expect(m.calls.contains("nvmlDeviceGetComputeRunningProcesses_v3 0000:01:00.0"))
        #expect(m.calls.contains("nvmlDeviceGetProcessUtilization 0000:01:00.0"))
    }

    @Test("a GPU that decides the state names its processes in the reason; GPU processes are not asked for without heat sources")
    func verdictNamesTheGPUsProcesses() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n"
                            + Self.h200.replacingOccurrences(of: ".temp=45", with: ".temp=88") + Self.trainer)
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "train"])
        let j = try m.statusJSON(" --proc-root \(proc)", library: libs.current)
        #expect(j["thermal_state"] as? String == "serious")
        #expect((j["reason"] as? String)?.contains(" — mostly train (SM 97 %, 2.0 GiB, ≈ 81 W)") == true, "\(j["reason"] ?? "")")
        // export without --heat-sources walks no /proc and lists no GPU processes.
        try? FileManager.default.removeItem(atPath: m.log)
        let prom = m.dir + "/t.prom"
        #expect(m.run("export --textfile \(prom)", library: libs.current).status == 0)
        #expect(!m.calls.isEmpty && !m.calls.contains { $0.contains("RunningProcesses") }, "\(m.calls)")
    }

    @Test("missing process symbols fall back to _v2 and to the v1 calls (their shorter struct read right); no utilisation call is SM unknown, with why; a process listed per MIG instance is one, its memory added up")
    func missingSymbolsFallBack() throws {
        let libs = try #require(Self.libraries)
        for (lib, call) in [(libs.procsV2, "nvmlDeviceGetComputeRunningProcesses_v2"), (libs.procsV1, "nvmlDeviceGetComputeRunningProcesses")] {
            let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200
                                + "0000:01:00.0.procs=4242:1073741824:97,4243:1048576:1,4242:1073741824\n0000:01:00.0.gprocs=4243:na\n")
            defer { m.discard() }
            let proc = try Self.procTable(in: m.dir, [4242: "train", 4243: "viewer"])
            let j = try m.statusJSON(" --proc-root \(proc)", library: lib)
            #expect(m.calls.contains("\(call) 0000:01:00.0"), "\(call)")
            #expect(gpuUse(source(j, "train"))?["memory_bytes"] as? Int == 2_147_483_648, "\(call)")
            #expect(gpuUse(source(j, "viewer"))?["memory_bytes"] as? Int == 1_048_576, "\(call): the compute list's memory stands")
            // 4242 twice in one list (two MIG instances): its memory added up, one process.
            #expect(source(j, "train")?["count"] as? Int == 1)
            if lib == libs.procsV1 {
                #expect(gpuUse(source(j, "train"))?["sm_percent"] is NSNull)
                #expect(gpuUse(source(j, "train"))?["estimated_watts"] is NSNull)
                let st = (j["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]]
                #expect((st?.first?["sm_reason"] as? String)?.contains("no nvmlDeviceGetProcessUtilization") == true)
            } else {
                #expect(gpuUse(source(j, "train"))?["sm_percent"] as? Double == 97)
            }
        }
    }

    @Test("process lists NVML refuses are unknown with NVML's reason, never empty; an unsupported utilisation call leaves memory known")
    func refusedListsAreUnknown() throws {
        let libs = try #require(Self.libraries)
        for (rc, words) in [("4", "Insufficient Permissions"), ("3", "Not Supported")] {
            let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + Self.trainer + "0000:01:00.0.procs_rc=\(rc)\n")
            defer { m.discard() }
            let proc = try Self.procTable(in: m.dir, [4242: "train"])
            let j = try m.statusJSON(" --proc-root \(proc)", library: libs.current)
            #expect(source(j, "train") == nil)
            let st = try #require(((j["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]])?.first)
            #expect(st["processes"] is NSNull)
            #expect((st["reason"] as? String)?.contains("compute: \(words)") == true, "\(st)")
            let text = m.run("status --proc-root \(proc)", library: libs.current).output
            #expect(text.contains("GPU 0 NVIDIA H200 (0000:01:00.0): processes unknown (compute: \(words)"), "\(text)")
        }
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + Self.trainer + "0000:01:00.0.util_rc=3\n")
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "train"])
        let j = try m.statusJSON(" --proc-root \(proc)", library: libs.current)
        let use = try #require(gpuUse(source(j, "train")))
        #expect(use["memory_bytes"] as? Int == 2_147_483_648)
        #expect(use["sm_percent"] is NSNull && use["estimated_watts"] is NSNull)
        let st = ((j["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]])?.first
        #expect(st?["sm_reason"] as? String == "Not Supported")
    }

    @Test("a list that grows between NVML's counting and filling calls is asked again; one that keeps growing is unknown, with why")
    func insufficientSizeIsRetried() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + Self.trainer + "0000:01:00.0.procs_grow=2\n")
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "train"])
        let j = try m.statusJSON(" --window 0 --proc-root \(proc)", library: libs.current)
        // One sample: the count, two fills refused, the third filled.
        #expect(m.calls.filter { $0 == "nvmlDeviceGetComputeRunningProcesses_v3 0000:01:00.0" }.count == 4, "\(m.calls)")
        let st = try #require(((j["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]])?.first)
        #expect(st["processes"] as? Int == 1)
        let always = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200 + Self.trainer + "0000:01:00.0.procs_grow=1000\n")
        defer { always.discard() }
        let k = try always.statusJSON(" --window 0 --proc-root \(proc)", library: libs.current)
        let st2 = try #require(((k["heat_sources_status"] as? [String: Any])?["gpus"] as? [[String: Any]])?.first)
        #expect(st2["processes"] is NSNull)
        #expect((st2["reason"] as? String)?.contains("Insufficient Size") == true, "\(st2)")
    }

    @Test("a pid NVML reports that /proc lacks is a ? group, marked; hostile process names reach no output unescaped")
    func unknownPidsAndHostileNames() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200
                            + "0000:01:00.0.procs=4242:1048576:40,777777:2097152:50\n")
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "\u{1b}]0;pwn\u{07}ev\u{1b}[2Jil"])
        let out = m.run("status --json --proc-root \(proc)", library: libs.current).output
        let j = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let unknown = try #require(source(j, "?"), "\(heatSources(j))")
        let p = try #require((unknown["processes"] as? [[String: Any]])?.first)
        #expect(p["pid"] as? Int == 777_777 && p["in_process_table"] as? Bool == false)
        #expect(gpuUse(unknown)?["sm_percent"] as? Double == 50)
        #expect(source(j, "?]0;pwn?ev?[2Jil") != nil, "\(heatSources(j).map { $0["command"] ?? "" })")
        let text = m.run("status --proc-root \(proc)", library: libs.current).output
        #expect(text.contains("pid 777777 (not in the process table) SM 50 %, 2 MiB"), "\(text)")
        for o in [out, text] { #expect(!o.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }) }
    }

    @Test("export --heat-sources N writes each GPU's top sources by SM share, labelled by the GPU, unknowns absent")
    func exportWritesGPUSources() throws {
        let libs = try #require(Self.libraries)
        let m = try Machine(gpus: ["0000:01:00.0": "active"], answers: "gpus=0000:01:00.0\n" + Self.h200
                            + "0000:01:00.0.procs=4242:2147483648:97,4243:na:2\n")
        defer { m.discard() }
        let proc = try Self.procTable(in: m.dir, [4242: "train", 4243: "viewer"])
        let prom = m.dir + "/t.prom"
        let r = m.run("export --textfile \(prom) --heat-sources 3 --proc-root \(proc)", library: libs.current)
        #expect(r.status == 0, "\(r.output)")
        let lines = ((try? String(contentsOfFile: prom, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(lines.contains("thermtop_heat_source_gpu_sm_percent{gpu=\"pci-0000:01:00.0\",rank=\"1\",command=\"train\"} 97"), "\(lines.filter { $0.contains("heat_source_gpu") })")
        #expect(lines.contains("thermtop_heat_source_gpu_memory_bytes{gpu=\"pci-0000:01:00.0\",rank=\"1\",command=\"train\"} 2147483648"))
        #expect(lines.contains("thermtop_heat_source_gpu_sm_percent{gpu=\"pci-0000:01:00.0\",rank=\"2\",command=\"viewer\"} 2"))
        #expect(!lines.contains { $0.hasPrefix("thermtop_heat_source_gpu_memory_bytes{") && $0.contains("viewer") })
        // Neither used the CPU: they are not among the CPU's top sources.
        #expect(!lines.contains { $0.hasPrefix("thermtop_heat_source_cpu_percent{") })
    }
}
