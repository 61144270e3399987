import CNVML
import ThermtopCore

/// libnvidia-ml.so.1, loaded once per process when the first awake NVIDIA GPU is to be read,
/// and initialised once (`nvmlInit_v2`) on its own thread under a deadline.
final class NVMLLibrary: @unchecked Sendable {   // mutable fields guarded by `lock`
    static let shared = NVMLLibrary()

    private let lock = ConditionLock()
    /// The entry points; written once, before `initialised` is set, read-only after.
    private(set) var table = thermtop_nvml()
    private var loadFailure: String?
    private var loaded = false
    private var initialised = false

    /// Loads and initialises NVML if that has not been done. nil when NVML is ready; otherwise
    /// why not, in NVML's (or the loader's) own words. A failed init is tried again at the next
    /// call (a driver may be loaded later); a failed load is not.
    func start(deadline: Double) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if initialised { return nil }
        if !loaded {
            if let loadFailure { return loadFailure }
            var why = [CChar](repeating: 0, count: 512)
            if thermtop_nvml_load(&table, &why, why.count) == 0 {
                loadFailure = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return loadFailure
            }
            loaded = true
        }
        let t = table
        guard let rc = NVMLCaller.named("init").run(deadline: deadline, { _ in t.initV2!() }) else {
            return "nvmlInit_v2 did not answer within \(Format.fixed(deadline, places: 1)) s"
        }
        if Int(rc) != NVML_SUCCESS { return "nvmlInit_v2: " + errorText(rc) }
        initialised = true
        return nil
    }

    /// `nvmlErrorString`'s text for `rc` (`Driver Not Loaded`), or the code.
    func errorText(_ rc: nvmlReturn_t) -> String {
        if let f = table.errorString, let s = f(rc) { return String(cString: s) }
        return "NVML error \(rc)"
    }
}

/// What stays true of a GPU between samples: its handle and static facts, touched only on its
/// own `NVMLCaller` thread.
final class NVMLDevice: @unchecked Sendable {
    let busID: String
    var handle: nvmlDevice_t?
    var name: String?
    var uuid: String?
    var limits = ThermalGPULimits()
    var fanCount: UInt32 = 0
    var index: Int?
    /// The newest process-utilisation sample seen (NVML's CPU timestamp, µs): the next query
    /// asks for the samples after it, so each SM share covers the time since the last query.
    var lastUtilisationStamp: UInt64 = 0

    init(busID: String) { self.busID = busID }

    /// Everything NVML says about the GPU now. Runs on the GPU's caller thread; `tick` after
    /// each call. `mayEnumerate`: the library lacks lookup by bus id and every NVIDIA GPU is
    /// awake, so walking the device list wakes nothing. `processes`: also list the GPU's
    /// processes and their SM shares (heat sources are on).
    func query(_ lib: NVMLLibrary, caller: NVMLCaller, mayEnumerate: Bool, processes: Bool = false) -> ThermalGPU {
        let t = lib.table
        var g = ThermalGPU(busID: busID)
        let base = "nvml/" + busID + "/"
        /// A call's outcome: true on success; a lost GPU ends the query (and drops the handle).
        var lost = false
        func ok(_ rc: nvmlReturn_t, _ what: String, noteUnsupported: Bool = false) -> Bool {
            caller.tick()
            switch Int(rc) {
            case NVML_SUCCESS: return true
            case NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND:
                if noteUnsupported { g.issues.append(ReadingIssue(file: base + what, reason: .noData, detail: lib.errorText(rc))) }
            case NVML_ERROR_GPU_IS_LOST:
                lost = true
                g.issues.append(ReadingIssue(file: base + what, reason: .vanished, detail: lib.errorText(rc)))
            default:
                g.issues.append(ReadingIssue(file: base + what, reason: .readFailed, detail: lib.errorText(rc)))
            }
            return false
        }
        if handle == nil {
            var h: nvmlDevice_t?
            if let byBus = t.getHandleByPciBusId {
                if ok(byBus(busID, &h), "handle") { handle = h }
            } else if mayEnumerate, let count = t.getCount, let byIndex = t.getHandleByIndex, let pci = t.getPciInfo {
                var n: UInt32 = 0
                if ok(count(&n), "count") {
                    for i in 0..<n {
                        var info = nvmlPciInfo_t()
                        guard ok(byIndex(i, &h), "handle"), ok(pci(h, &info), "pci_info") else { continue }
                        if Self.sysfsBusID(info) == busID { handle = h; break }
                    }
                }
            }
            guard let h = handle else {
                if g.issues.isEmpty { g.issues.append(ReadingIssue(file: base + "handle", reason: .missing, detail: "NVML does not list this GPU")) }
                return g
            }
            var buf = [CChar](repeating: 0, count: Int(NVML_DEVICE_NAME_V2_BUFFER_SIZE))
            if let f = t.getName, ok(f(h, &buf, UInt32(buf.count)), "name") { name = Self.string(buf) }
            buf = [CChar](repeating: 0, count: Int(NVML_DEVICE_UUID_V2_BUFFER_SIZE))
            if !lost, let f = t.getUUID, ok(f(h, &buf, UInt32(buf.count)), "uuid") { uuid = Self.string(buf) }
            if !lost, let f = t.getTemperatureThreshold {
                func limit(_ kind: Int) -> Double? {
                    var v: UInt32 = 0
                    return !lost && ok(f(h, Int32(kind), &v), "threshold") ? Double(v) : nil
                }
                limits = ThermalGPULimits(slowdown: limit(Int(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)),
                                   shutdown: limit(Int(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)),
                                   gpuMax: limit(Int(NVML_TEMPERATURE_THRESHOLD_GPU_MAX)),
                                   memoryMax: limit(Int(NVML_TEMPERATURE_THRESHOLD_MEM_MAX)))
            }
            if !lost, let f = t.getNumFans {
                var n: UInt32 = 0
                fanCount = ok(f(h, &n), "fans") ? n : 0
            }
            var i: UInt32 = 0
            if !lost, let f = t.getIndex, ok(f(h, &i), "index") { index = Int(i) }
        }
        g.name = name
        g.uuid = uuid
        g.limits = limits
        g.index = index
        guard let h = handle, !lost else { return dropIfLost(g, lost) }
        var u: UInt32 = 0
        if let f = t.getTemperature, ok(f(h, Int32(NVML_TEMPERATURE_GPU), &u), "temperature", noteUnsupported: true) { g.celsius = Double(u) }
        if !lost, let f = t.getFieldValues {
            var fv = nvmlFieldValue_t()
            fv.fieldId = UInt32(NVML_FI_DEV_MEMORY_TEMP)
            if ok(f(h, 1, &fv), "memory_temperature"), ok(fv.nvmlReturn, "memory_temperature") {
                g.memoryCelsius = Self.number(fv)
            }
        }
        if !lost, let f = t.getPowerUsage, ok(f(h, &u), "power") { g.powerWatts = Double(u) / 1000 }
        if !lost, let f = t.getEnforcedPowerLimit, ok(f(h, &u), "power_limit") { g.powerLimitWatts = Double(u) / 1000 }
        var bits: UInt64 = 0
        if !lost, let f = t.getClockReasons, ok(f(h, &bits), "clock_reasons") { g.clockReasons = bits }
        if !lost, let f = t.getFanSpeed {
            for i in 0..<fanCount where !lost {
                if ok(f(h, i, &u), "fan") { g.fanPercent.append(Int(u)) }
            }
        }
        var p: Int32 = 0
        if !lost, let f = t.getPerformanceState, ok(f(h, &p), "pstate"), (0...15).contains(p) { g.performanceState = Int(p) }
        var util = nvmlUtilization_t()
        if !lost, let f = t.getUtilizationRates, ok(f(h, &util), "utilisation") {
            g.utilisationPercent = Int(util.gpu)
            g.memoryUtilisationPercent = Int(util.memory)
        }
        if !lost, processes {
            let r = readProcesses(lib, handle: h, tick: caller.tick) { rc, what in ok(rc, what) }
            (g.processes, g.processesReason, g.smReason) = (r.processes, r.reason, r.smReason)
        }
        return dropIfLost(g, lost)
    }

    /// The most entries one list call is given room for: a hostile or broken driver's count
    /// cannot make a huge allocation.
    static let maximumListEntries: UInt32 = 65_536
    /// Room for processes that start between the counting call and the filling one.
    static let listHeadroom: UInt32 = 8

    /// NVML's in/out count protocol: called with no buffer, the call answers
    /// `NVML_ERROR_INSUFFICIENT_SIZE` and the count it needs (`NVML_SUCCESS` and 0 when there is
    /// nothing); called again with room for that many (and `listHeadroom`), it fills them. A
    /// list that grew again between the calls is asked again, three times at most. nil with
    /// the last return code when it failed.
    static func list<T>(_ blank: T, tick: () -> Void,
                        _ call: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<T>?) -> nvmlReturn_t) -> (entries: [T]?, rc: nvmlReturn_t) {
        var n: UInt32 = 0
        var rc = call(&n, nil)
        tick()
        var tries = 0
        while (Int(rc) == NVML_ERROR_INSUFFICIENT_SIZE || (Int(rc) == NVML_SUCCESS && n > 0)) && tries < 3 {
            tries += 1
            let room = min(maximumListEntries, n &+ listHeadroom)
            var buffer = [T](repeating: blank, count: Int(room))
            var got = room
            rc = buffer.withUnsafeMutableBufferPointer { call(&got, $0.baseAddress) }
            tick()
            if Int(rc) == NVML_SUCCESS { return (Array(buffer.prefix(Int(min(got, room)))), rc) }
            n = got
        }
        return Int(rc) == NVML_SUCCESS ? ([], rc) : (nil, rc)
    }

    /// The GPU's compute and graphics processes (`_v3`, else `_v2`, else the unversioned v1
    /// calls), their memory and SM shares; nil processes when a list could not be read, with why
    /// (a list this driver lacks altogether is noted in the reason, and the other one stands).
    /// `ok` judges a failed call's return code as the query does (notes it; a lost GPU).
    private func readProcesses(_ lib: NVMLLibrary, handle h: nvmlDevice_t, tick: () -> Void,
                               ok: (nvmlReturn_t, String) -> Bool) -> (processes: [ThermalGPUProcess]?, reason: String?, smReason: String?) {
        let t = lib.table
        var found: [ThermalGPUProcess] = []
        var at: [Int: Int] = [:]
        var failures: [String] = []
        var listed = false
        var refused = false
        for graphics in [false, true] {
            let what = graphics ? "graphics_processes" : "compute_processes"
            let answer: (entries: [(pid: UInt32, memory: UInt64)]?, rc: nvmlReturn_t)
            if let f = graphics ? t.getGraphicsProcesses : t.getComputeProcesses {
                let r = Self.list(nvmlProcessInfo_t(), tick: tick) { n, buf in f(h, n, buf) }
                answer = (r.entries?.map { ($0.pid, $0.usedGpuMemory) }, r.rc)
            } else if let f = graphics ? t.getGraphicsProcessesV1 : t.getComputeProcessesV1 {
                let r = Self.list(nvmlProcessInfo_v1_t(), tick: tick) { n, buf in f(h, n, buf) }
                answer = (r.entries?.map { ($0.pid, $0.usedGpuMemory) }, r.rc)
            } else {
                failures.append("\(graphics ? "graphics" : "compute"): this driver's NVML has no process list")
                continue
            }
            guard let entries = answer.entries else {
                if !ok(answer.rc, what) { failures.append("\(graphics ? "graphics" : "compute"): \(lib.errorText(answer.rc))") }
                refused = true
                continue
            }
            listed = true
            // One list names a process once per MIG instance it uses, each with that
            // instance's memory: added up. The two lists name one process's memory once each.
            var inList: [Int: UInt64?] = [:]
            var order: [Int] = []
            for e in entries {
                let memory = e.memory == NVML_VALUE_NOT_AVAILABLE ? nil : e.memory
                if let sum = inList[Int(e.pid)] {
                    inList[Int(e.pid)] = sum.flatMap { a in memory.map { a &+ $0 } }
                } else {
                    inList[Int(e.pid)] = memory
                    order.append(Int(e.pid))
                }
            }
            for pid in order {
                let memory = inList[pid] ?? nil
                if let i = at[pid] {
                    found[i].graphics = found[i].graphics || graphics
                    found[i].compute = found[i].compute || !graphics
                    if found[i].memoryBytes == nil { found[i].memoryBytes = memory }
                } else {
                    at[pid] = found.count
                    found.append(ThermalGPUProcess(pid: pid, compute: !graphics, graphics: graphics, memoryBytes: memory))
                }
            }
        }
        let reason = failures.isEmpty ? nil : failures.joined(separator: "; ")
        // A list the driver has but refused leaves the GPU's processes unknown, not fewer.
        guard listed, !refused else { return (nil, reason, nil) }
        guard !found.isEmpty else { return (found, reason, nil) }
        guard let f = t.getProcessUtilization else {
            return (found, reason, "this driver's NVML has no nvmlDeviceGetProcessUtilization")
        }
        let since = lastUtilisationStamp
        let r = Self.list(nvmlProcessUtilizationSample_t(), tick: tick) { n, buf in f(h, buf, n, since) }
        var sums: [Int: (sm: Double, samples: Int)] = [:]
        if let samples = r.entries {
            for s in samples {
                sums[Int(s.pid), default: (0, 0)].sm += Double(min(s.smUtil, 100))
                sums[Int(s.pid), default: (0, 0)].samples += 1
                lastUtilisationStamp = max(lastUtilisationStamp, s.timeStamp)
            }
        } else if Int(r.rc) != NVML_ERROR_NOT_FOUND {
            // NOT_FOUND: no process used the GPU since `since`, so every share is 0.
            _ = ok(r.rc, "process_utilisation")
            return (found, reason, lib.errorText(r.rc))
        }
        for i in found.indices {
            let s = sums[found[i].pid]
            found[i].smPercent = s.map { $0.sm / Double($0.samples) } ?? 0
        }
        return (found, reason, nil)
    }

    /// A lost GPU's handle is useless: the next query looks it up again (after a reset).
    private func dropIfLost(_ g: ThermalGPU, _ lost: Bool) -> ThermalGPU {
        if lost { handle = nil; name = nil; uuid = nil; limits = ThermalGPULimits(); fanCount = 0; index = nil; lastUtilisationStamp = 0 }
        return g
    }

    private static func string(_ buf: [CChar]) -> String {
        String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func number(_ fv: nvmlFieldValue_t) -> Double? {
        switch fv.valueType {
        case Int32(NVML_VALUE_TYPE_DOUBLE): fv.value.dVal
        case Int32(NVML_VALUE_TYPE_UNSIGNED_INT): Double(fv.value.uiVal)
        case Int32(NVML_VALUE_TYPE_UNSIGNED_LONG): Double(fv.value.ulVal)
        case Int32(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG): Double(fv.value.ullVal)
        case Int32(NVML_VALUE_TYPE_SIGNED_LONG_LONG): Double(fv.value.sllVal)
        case Int32(NVML_VALUE_TYPE_SIGNED_INT): Double(fv.value.siVal)
        default: nil
        }
    }

    /// NVML's `00000000:3B:00.0` as sysfs names the function: `0000:3b:00.0`.
    static func sysfsBusID(_ info: nvmlPciInfo_t) -> String {
        var info = info
        let full = withUnsafeBytes(of: &info.busId) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return sysfsBusID(full)
    }

    static func sysfsBusID(_ nvml: String) -> String {
        let lower = nvml.lowercased()
        guard let colon = lower.firstIndex(of: ":"), let domain = UInt32(lower[..<colon], radix: 16) else { return lower }
        var d = String(domain, radix: 16)
        while d.count < 4 { d = "0" + d }
        return d + lower[colon...]
    }
}
