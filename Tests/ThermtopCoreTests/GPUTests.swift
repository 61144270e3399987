import Testing
@testable import ThermtopCore

@Suite("GPU readings and rules")
struct GPUTests {
    func h200(reasons: UInt64?, celsius: Double? = 45) -> ThermalGPU {
        var g = ThermalGPU(busID: "0000:00:06.0")
        g.name = "NVIDIA H200"
        g.celsius = celsius
        g.memoryCelsius = 41
        g.limits = ThermalGPULimits(slowdown: 89, shutdown: 95, gpuMax: 87, memoryMax: 95)
        g.powerWatts = 77.809
        g.powerLimitWatts = 700
        g.clockReasons = reasons
        return g
    }

    @Test("clock-event reason bits decode to nvml.h's words; unknown bits stay visible in hex")
    func reasonWords() {
        #expect(ThermalGPUClockReason.words(0x1) == ["idle"])
        #expect(ThermalGPUClockReason.words(0x4 | 0x20) == ["SW power cap", "SW thermal slowdown"])
        #expect(ThermalGPUClockReason.words(0x40 | 0x80) == ["HW thermal slowdown", "HW power brake slowdown"])
        #expect(ThermalGPUClockReason.words(0x1000) == ["0x1000"])
        #expect(ThermalGPUClockReason.words(0) == [])
    }

    @Test("HW thermal slowdown is critical, SW thermal slowdown serious, a power cap no level at all")
    func clockRule() {
        #expect(ThermalGPUClockRule.assess(h200(reasons: 0x40))?.level == .critical)
        #expect(ThermalGPUClockRule.assess(h200(reasons: 0x20))?.level == .serious)
        #expect(ThermalGPUClockRule.assess(h200(reasons: 0x4)) == nil)
        #expect(ThermalGPUClockRule.assess(h200(reasons: nil)) == nil)
        #expect(ThermalGPUClockRule.powerNote(h200(reasons: 0x4)) == "power-limited")
        #expect(ThermalGPUClockRule.powerNote(h200(reasons: 0x1)) == nil)
        #expect(ThermalGPUClockRule.assess([h200(reasons: 0x20), h200(reasons: 0x40)])?.level == .critical)
    }

    @Test("the classifier takes the GPU rule: SW thermal slowdown at a cool temperature still makes the state serious")
    func classifierUsesTheRule() {
        var snap = ThermalSnapshot(time: 0)
        snap.gpus = [h200(reasons: 0x20)]
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        #expect(a.state == .serious)
        #expect(a.decidedBy == "pci-0000:00:06.0")
        #expect(a.reason.contains("GPU NVIDIA H200 (0000:00:06.0) SW thermal slowdown"))
        snap.gpus = [h200(reasons: 0x4)]
        #expect(ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory).state == .nominal)
    }

    @Test("NVML's limits become the sensor's: serious at GPU max operating, critical at slowdown")
    func limitsAsSensorThresholds() {
        let sensors = h200(reasons: 0x1).temperatureSensors
        #expect(sensors.map(\.id) == ["pci-0000:00:06.0/nvidia/gpu", "pci-0000:00:06.0/nvidia/memory"])
        let th = SensorThresholds.derive(for: sensors[0], config: ThermalConfig())
        #expect(th.serious.celsius == 87 && th.critical.celsius == 89)
        #expect(SensorThresholds.derive(for: sensors[1], config: ThermalConfig()).serious.celsius == 95)
        var snap = ThermalSnapshot(time: 0)
        snap.gpus = [h200(reasons: 0x1, celsius: 89)]
        var memory = ClassifierMemory()
        #expect(ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory).state == .critical)
        #expect(!snap.isEmpty)
    }

    @Test("a GPU's stored text reads back as the same reading")
    func recordTextRoundTrip() {
        var g = h200(reasons: 0x24)
        g.uuid = "GPU-1b2c"
        g.fanPercent = [40, 42]
        g.performanceState = 0
        g.utilisationPercent = 97
        g.memoryUtilisationPercent = 48
        g.issues = [ReadingIssue(file: "nvml/0000:00:06.0/fan", reason: .readFailed, detail: "Unknown Error")]
        #expect(ThermalGPU(busID: g.busID, recordText: g.recordText) == g)
        var asleep = ThermalGPU(busID: "0000:01:00.0")
        asleep.asleep = "suspended"
        asleep.lastCelsius = 38
        asleep.lastReadAt = 12.5
        #expect(ThermalGPU(busID: asleep.busID, recordText: asleep.recordText) == asleep)
    }
}
