#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// NVIDIA GPUs for a `SysfsSource`. The driver puts nothing in sysfs but the PCI function, so
/// the readings come from NVML on the live machine, and from what `capture` or `record` stored
/// (`nvml/<bus id>` files, `ThermalGPU.recordText`) anywhere else.
///
/// Live, a GPU whose PCI function is runtime-suspended is not asked anything (an NVML query
/// would wake it), and NVML is not even initialised while every NVIDIA GPU sleeps.
public final class SysfsGPUReader {
    /// Where GPU readings come from.
    public enum Mode: Sendable, Equatable {
        /// This machine's GPUs, through NVML.
        case live
        /// The `nvml/` folder of the root (a capture, a replayed recording).
        case stored
        /// None (`THERMTOP_NVML=off`): NVML is never loaded.
        case off
    }

    /// Where this reader's GPU readings come from.
    public let mode: Mode
    /// NVIDIA display-class PCI functions (live) or the stored GPUs' bus ids.
    private var busIDs: [String] = []
    private var devices: [String: NVMLDevice] = [:]
    /// Each GPU's last core temperature and its time, shown while it sleeps or does not answer.
    private var last: [String: (celsius: Double, at: Double)] = [:]
    /// Set by `record`: the live readings are written into the recording as the `nvml/` files
    /// a replay reads back.
    public var tap: (@Sendable (SysfsAccess) -> Void)?
    /// The last live sample's files (`nvml/<bus id>`, `nvml/notice`), for `capture`.
    public private(set) var storedFiles: [(path: String, text: String)] = []

    /// The folder the readings are stored in, relative to the root.
    public static let folder = "nvml"
    static let noticeFile = "notice"

    /// `THERMTOP_NVML=live` reads this machine's NVML for a root that is not `/sys` (the tests'
    /// stand-in library on a fixture tree); `off` never loads it.
    public init(rootPath: String, environment: String? = SysfsGPUReader.environment()) {
        switch environment {
        case "off"?: mode = .off
        case "live"?: mode = .live
        default: mode = LinuxWakeSources.apply(toRoot: rootPath) ? .live : .stored
        }
    }

    /// The `THERMTOP_NVML` environment variable (`live`, `off`), nil when unset.
    public static func environment() -> String? { getenv("THERMTOP_NVML").map { String(cString: $0) } }

    func rediscover(_ root: SysfsRoot) {
        switch mode {
        case .off: busIDs = []
        case .stored: busIDs = (root.list(Self.folder) ?? []).filter { $0 != Self.noticeFile }
        case .live:
            var found: [String] = []
            for d in root.list("bus/pci/devices") ?? [] {
                let dir = "bus/pci/devices/" + d
                guard root.value(dir + "/vendor", Parse.string).value == ThermalGPULimits.nvidiaVendor,
                      root.value(dir + "/class", Parse.string).value?.hasPrefix("0x03") == true else { continue }
                found.append(d)
            }
            busIDs = found
        }
    }

    /// `processes`: also list each GPU's processes (heat sources are on).
    func sample(_ root: SysfsRoot, time: Double, deadline: Double, initDeadline: Double, processes: Bool = false,
                into snap: inout ThermalSnapshot) {
        switch mode {
        case .off: return
        case .stored:
            for b in busIDs {
                if case .success(let text) = root.read(Self.folder + "/" + b) { snap.gpus.append(ThermalGPU(busID: b, recordText: text)) }
            }
            if !busIDs.isEmpty || root.exists(Self.folder + "/" + Self.noticeFile),
               let n = root.value(Self.folder + "/" + Self.noticeFile, Parse.string).value {
                snap.gpuNotice = n
            }
        case .live:
            guard !busIDs.isEmpty else { return }
            var asleep: [String: String] = [:]
            for b in busIDs {
                if root.value("bus/pci/devices/" + b + "/power/runtime_status", Parse.string).value == "suspended" {
                    asleep[b] = "suspended"
                }
            }
            var notice: String?
            if asleep.count < busIDs.count, let why = NVMLLibrary.shared.start(deadline: initDeadline) {
                let awake = busIDs.filter { asleep[$0] == nil }
                notice = "NVIDIA GPU \(awake.joined(separator: ", ")) on the PCI bus, but NVML cannot be used: \(why)"
            }
            var gpus: [ThermalGPU] = []
            for b in busIDs {
                var g: ThermalGPU
                if let state = asleep[b] {
                    g = ThermalGPU(busID: b)
                    g.asleep = state
                } else if notice != nil {
                    continue
                } else {
                    let device = devices[b] ?? NVMLDevice(busID: b)
                    devices[b] = device
                    let mayEnumerate = asleep.isEmpty
                    let lib = NVMLLibrary.shared
                    if let answer = NVMLCaller.named(b).run(deadline: deadline, { c in
                        device.query(lib, caller: c, mayEnumerate: mayEnumerate, processes: processes)
                    }) {
                        g = answer
                    } else {
                        g = ThermalGPU(busID: b)
                        g.issues = [ReadingIssue(file: "nvml/" + b, reason: .timedOut,
                                                 detail: "NVML did not answer within \(Format.fixed(deadline, places: 2)) s")]
                    }
                }
                if let c = g.celsius {
                    last[b] = (c, time)
                } else if let l = last[b] {
                    g.lastCelsius = l.celsius
                    g.lastReadAt = l.at
                }
                gpus.append(g)
            }
            snap.gpus += gpus
            snap.gpuNotice = notice
            storedFiles = gpus.map { (Self.folder + "/" + $0.busID, $0.recordText) }
            if let notice { storedFiles.append((Self.folder + "/" + Self.noticeFile, notice + "\n")) }
            if let tap {
                tap(.list(Self.folder, storedFiles.map { String($0.path.dropFirst(Self.folder.count + 1)) }))
                for f in storedFiles { tap(.read(f.path, .success(f.text))) }
            }
        }
    }
}
