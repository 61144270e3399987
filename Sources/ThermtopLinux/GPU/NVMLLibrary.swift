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

    init(busID: String) { self.busID = busID }

    /// Everything NVML says about the GPU now. Runs on the GPU's caller thread; `tick` after
    /// each call. `mayEnumerate`: the library lacks lookup by bus id and every NVIDIA GPU is
    /// awake, so walking the device list wakes nothing.
    func query(_ lib: NVMLLibrary, caller: NVMLCaller, mayEnumerate: Bool) -> ThermalGPU {
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
        }
        g.name = name
        g.uuid = uuid
        g.limits = limits
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
        return dropIfLost(g, lost)
    }

    /// A lost GPU's handle is useless: the next query looks it up again (after a reset).
    private func dropIfLost(_ g: ThermalGPU, _ lost: Bool) -> ThermalGPU {
        if lost { handle = nil; name = nil; uuid = nil; limits = ThermalGPULimits(); fanCount = 0 }
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
