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
    static let libraries: (current: String, old: String)? = {
        let src = Thermtop.fixtures.appendingPathComponent("nvml-standin/standin.c").path
        let base = "/tmp/thermtop-nvml-\(getpid())"
        guard let cc = TestMachine.cCompiler.map(Proof.quote) else { return nil }
        let r = Proof.sh("mkdir -p \(base)/current \(base)/old && \(cc) -shared -fPIC -o \(base)/current/libnvidia-ml.so.1 \(Proof.quote(src)) && \(cc) -shared -fPIC -DOLD_DRIVER -o \(base)/old/libnvidia-ml.so.1 \(Proof.quote(src))")
        return r.status == 0 ? (base + "/current", base + "/old") : nil
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

        func statusJSON(library: String?) throws -> [String: Any] {
            let r = run("status --json", library: library)
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
}
