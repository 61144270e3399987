// Fuzz target `tree`: a copy of a real fixture sysfs tree (thermal zones with trip tables,
// hwmon chips, batteries with uevent, adapters, platform profile) plus a power-profiles
// state.ini, mutated by the input, then discovered, sampled twice, classified and printed
// as text, JSON and dashboard screens. Any file can be rewritten with arbitrary bytes,
// deleted, replaced by a directory or by a dangling link; everything is restored afterwards.
#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore
import ThermtopLinux
import ThermtopUI

final class Tree {
    let root: String
    var files: [String] = []
    var originals: [String: [UInt8]] = [:]

    init() {
        let src = getenv("THERMTOP_FUZZ_FIXTURE").map { String(cString: $0) } ?? "Tests/Fixtures/intel-laptop"
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        root = "\(base)/thermtop-fuzz-tree-\(getpid())"
        guard system("rm -rf '\(root)' && cp -a '\(src)' '\(root)' && printf '[State]\\nProfile=balanced\\n' > '\(root)/state.ini'") == 0 else {
            fail("cannot copy the fixture \(src) (run from the repository root or set THERMTOP_FUZZ_FIXTURE)")
        }
        walk("")
        files.sort()
        for f in files { originals[f] = read(f) }
        atexit { _ = system("rm -rf /dev/shm/thermtop-fuzz-tree-\(getpid()) /tmp/thermtop-fuzz-tree-\(getpid())") }
    }

    private func walk(_ rel: String) {
        guard let dir = opendir(rel.isEmpty ? root : "\(root)/\(rel)") else { return }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name == "." || name == ".." { continue }
            let path = rel.isEmpty ? name : "\(rel)/\(name)"
            var st = stat()
            guard lstat("\(root)/\(path)", &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR: walk(path)
            case S_IFREG: files.append(path)
            default: break
            }
        }
    }

    func read(_ rel: String) -> [UInt8] {
        let fd = open("\(root)/\(rel)", O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 8192)
        let n = Glibc.read(fd, &buf, buf.count)
        return n > 0 ? Array(buf[0..<n]) : []
    }

    func write(_ rel: String, _ bytes: ArraySlice<UInt8>) {
        let fd = open("\(root)/\(rel)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func clear(_ rel: String) {
        let p = "\(root)/\(rel)"
        if unlink(p) != 0 { rmdir(p) }
    }
}

nonisolated(unsafe) let tree = Tree()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTree(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    var input = Bytes(data, count)
    var touched: [String] = []
    // Records: [file index hi, lo] [op<<6 | length] [length bytes].
    while !input.isEmpty && touched.count < 24 {
        let index = (Int(input.byte()) << 8 | Int(input.byte())) % tree.files.count
        let head = input.byte()
        let file = tree.files[index]
        touched.append(file)
        tree.clear(file)
        switch head >> 6 {
        case 0, 1: tree.write(file, input.take(Int(head & 0x7f)))
        case 2: mkdir("\(tree.root)/\(file)", 0o755)
        default: symlink("\(tree.root)/nowhere/\(head)", "\(tree.root)/\(file)")
        }
    }
    defer {
        for f in touched {
            tree.clear(f)
            tree.write(f, tree.originals[f]![...])
        }
    }

    let source = SysfsSource(root: SysfsRoot(path: tree.root), ppdStatePath: "\(tree.root)/state.ini")
    var memory = ClassifierMemory()
    var config = ThermalConfig()
    config.sensorHoldSeconds = 1
    var last: MonitorStatus?
    for t in [0.0, 2.0] {
        let snap = source.sample(at: t)
        let assessment = ThermalClassifier.assess(snap, config: config, memory: &memory, timeOfDay: 43_267 + t)
        let lowPower = LowPowerAssessment.assess(snap, config: config)
        // The state is never lower than a readable, deciding sensor's own level (mirrors and
        // known dummies such as INT3400 are folded: they never decide).
        for s in assessment.sensors where !s.ignored && !s.sensor.isFolded && s.sensor.celsius != nil && s.level > assessment.state {
            fail("sensor \(s.id) at \(s.level) above device state \(assessment.state)")
        }
        last = MonitorStatus(snapshot: snap, assessment: assessment, lowPowerAssessment: lowPower,
                             overrides: .none, sourceLabel: source.label, sourceIsSimulated: false)
    }
    let status = last!
    requireInert(ThermalStatusReport.text(status), "status text")
    requireInert(ThermalStatusReport.json(status, version: "fuzz").serialized(), "status JSON")
    var app = AppState(status: status)
    let pick = count > 0 ? Int(data[0]) : 0
    app.overlay = [Overlay.none, .debug, .detail(status.assessment.sensors.first?.id ?? "")][pick % 3]
    let (w, h) = [(100, 30), (40, 10), (24, 6)][pick / 3 % 3]
    requireInert(Screen.render(app, width: w, height: h).text(), "screen \(w)x\(h)")
    return 0
}
