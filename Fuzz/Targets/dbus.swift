// Fuzz target `dbus`: what any owner of the power-profiles name on the system bus can send
// (GetAll replies and PropertiesChanged signals: property names, variant types, strings with
// control bytes or invalid UTF-8, invalidated names), decoded by PowerProfileReading.apply,
// merged into a real fixture's low-power signals, assessed, and printed as text, JSON and a
// dashboard screen. sd-bus itself checks the wire format; this is what thermtop does with it.
import ThermtopCore
import ThermtopLinux
import ThermtopUI

final class Base {
    let snapshot: ThermalSnapshot
    let assessment: ThermalAssessment
    init() {
        let source = SysfsSource(root: SysfsRoot(path: "Tests/Fixtures/intel-laptop"), ppdStatePath: nil)
        snapshot = source.sample(at: 0)
        guard !snapshot.temperatureSensors.isEmpty else { fail("no sensors in Tests/Fixtures/intel-laptop (run from the repository root)") }
        var memory = ClassifierMemory()
        assessment = ThermalClassifier.assess(snapshot, config: ThermalConfig(), memory: &memory)
    }
}

nonisolated(unsafe) let base = Base()

let names = ["ActiveProfile", "PerformanceDegraded", "PerformanceInhibited", "Profiles", "Version", "Actions", ""]
let signatures = ["s", "s", "s", "i", "as", "aa{sv}", "v", "b", ""]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBus(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    var input = Bytes(data, count)
    // Records: [name selector][signature selector][length][bytes]; a selector past the list
    // takes its name or signature from the bytes instead.
    var properties: [PowerProfileProperty] = []
    var invalidated: [String] = []
    while !input.isEmpty && properties.count + invalidated.count < 16 {
        let n = Int(input.byte()), s = Int(input.byte()), len = Int(input.byte() & 0x7f)
        let text = String(decoding: input.take(len), as: UTF8.self)
        let name = n % 8 < names.count ? names[n % 8] : text
        if n & 0x80 != 0 {
            invalidated.append(name)
            continue
        }
        let signature = s % 10 < signatures.count ? signatures[s % 10] : text
        properties.append(PowerProfileProperty(name: name, signature: signature, string: signature == "s" ? text : nil))
    }
    let service = PowerProfilesSource.services[Int(count) % 2].name
    var reading = PowerProfileReading(activeProfile: "balanced", performanceDegraded: nil, service: service)
    let before = reading
    let again = reading.apply(properties, invalidated: invalidated)

    // The decoding rule, restated: the last string-typed value of each of the two names wins,
    // empty means none, nothing else changes the reading.
    func expected(_ key: String, _ old: String?) -> String? {
        guard let last = properties.last(where: { $0.name == key && $0.signature == "s" }) else { return old }
        return last.string.flatMap { $0.isEmpty ? nil : $0 }
    }
    if reading.activeProfile != expected("ActiveProfile", before.activeProfile) { fail("ActiveProfile decoded as \(reading.activeProfile.debugDescription)") }
    if reading.performanceDegraded != expected("PerformanceDegraded", before.performanceDegraded) { fail("PerformanceDegraded decoded as \(reading.performanceDegraded.debugDescription)") }
    if reading.service != service { fail("service changed") }
    if again != invalidated.contains(where: { $0 == "ActiveProfile" || $0 == "PerformanceDegraded" }) { fail("invalidated \(invalidated) → \(again)") }

    // What the monitor does with it: low power decided, status printed and drawn.
    var snap = base.snapshot
    snap.lowPower = snap.lowPower.merging(reading)
    if snap.lowPower.powerProfileOrigin != .dbus { fail("origin not dbus") }
    let lowPower = LowPowerAssessment.assess(snap, config: ThermalConfig())
    if reading.activeProfile == "power-saver", !lowPower.reasons.contains("power-profiles-daemon profile is power-saver (D-Bus)") {
        fail("power-saver over D-Bus is not a low-power reason: \(lowPower.reasons)")
    }
    if reading.performanceDegraded != nil, !lowPower.enabled { fail("performance degraded but low power off") }
    for r in lowPower.reasons { requireInert(Format.clean(r), "low-power reason") }
    let status = MonitorStatus(snapshot: snap, assessment: base.assessment, lowPowerAssessment: lowPower,
                               overrides: .none, sourceLabel: "fuzz", sourceIsSimulated: false)
    requireInert(ThermalStatusReport.text(status), "status text")
    requireInert(ThermalStatusReport.json(status, version: "fuzz").serialized(), "status JSON")
    var app = AppState(status: status)
    app.overlay = count % 2 == 0 ? .none : .debug
    requireInert(Screen.render(app, width: 100, height: 30).text(), "screen")
    return 0
}
