// Fuzz target `config`: a user's config.toml (any bytes) through the TOML reader and every
// check of keys, types and values (ConfigParser, TOMLKit and toml++ built instrumented too),
// then what thermtop does with the result: the problems printed to a terminal must be inert,
// and a parsed config's rules (globs, thresholds, names) are applied to a real fixture and
// printed.
import ThermtopConfig
import ThermtopCore
import ThermtopLinux

final class Base {
    let snapshot: ThermalSnapshot
    init() {
        snapshot = SysfsSource(root: SysfsRoot(path: "Tests/Fixtures/intel-laptop"), ppdStatePath: nil).sample(at: 0)
        guard !snapshot.temperatureSensors.isEmpty else { fail("no sensors in Tests/Fixtures/intel-laptop (run from the repository root)") }
    }
}

nonisolated(unsafe) let base = Base()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    let result = ConfigParser.parse(text, file: "fuzz.toml")
    switch result {
    case .failure(let e):
        if e.problems.isEmpty { fail("a failure with no problem") }
        for p in e.problems { requireInert(p.description, "config problem") }
    case .success(let c):
        if let d = c.delay, !UserConfig.delayRange.contains(d) { fail("delay \(d) accepted") }
        if let i = c.onChangeMinInterval, !UserConfig.onChangeIntervalRange.contains(i) { fail("interval \(i) accepted") }
        for r in c.sensors {
            if r.match.problem != nil || r.match.pattern.isEmpty { fail("bad glob accepted: \(r.match.pattern.debugDescription)") }
            for t in [r.fair, r.serious, r.critical].compactMap({ $0 }) where !UserConfig.thresholdRange.contains(t) { fail("threshold \(t)") }
            let given = [r.fair, r.serious, r.critical].compactMap { $0 }
            if given != given.sorted() || Set(given).count != given.count { fail("thresholds out of order accepted: \(given)") }
            if let n = r.name { requireInert(n, "sensor name") }
            _ = r.match.matches(base.snapshot.temperatureSensors.first?.id ?? "")
        }
        // The rules applied to a real machine: decided and printed without a trap or a raw byte.
        var memory = ClassifierMemory()
        let config = c.applied(to: ThermalConfig())
        let assessment = ThermalClassifier.assess(base.snapshot, config: config, memory: &memory)
        let status = MonitorStatus(snapshot: base.snapshot, assessment: assessment,
                                   lowPowerAssessment: LowPowerAssessment.assess(base.snapshot, config: config),
                                   overrides: .none, sourceLabel: "fuzz", sourceIsSimulated: false)
        requireInert(ThermalStatusReport.text(status), "status text")
        requireInert(ThermalStatusReport.json(status, version: "fuzz").serialized(), "status JSON")
    }
    return 0
}
