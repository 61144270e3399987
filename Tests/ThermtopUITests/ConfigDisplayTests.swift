import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite struct ConfigDisplayTests {
    func status(_ rules: [SensorRule]) -> MonitorStatus {
        let snap = ThermalSnapshot(time: 0, hwmon: [
            HwmonChannel(device: "hwmon1", chip: "coretemp", channel: "temp1", label: "Package id 0", celsius: 80),
            HwmonChannel(device: "hwmon1", chip: "coretemp", channel: "temp2", label: "Core 0", celsius: 70),
            HwmonChannel(device: "hwmon2", chip: "nvme", channel: "temp1", label: "Composite", celsius: 30),
        ])
        var memory = ClassifierMemory()
        let cfg = UserConfig(sensors: rules).applied()
        return MonitorStatus(snapshot: snap, assessment: ThermalClassifier.assess(snap, config: cfg, memory: &memory),
                             lowPowerAssessment: LowPowerAssessment.assess(snap, config: cfg), overrides: .none,
                             sourceLabel: "test", sourceIsSimulated: false)
    }

    @Test func hiddenSensorsAreNotListedAndPinnedOnesComeFirst() {
        let app = AppState(status: status([
            SensorRule(match: "hwmon1/temp2", hide: true),
            SensorRule(match: "hwmon2/*", name: "SSD", pin: true),
        ]))
        #expect(app.sortedSensors.map(\.sensor.id) == ["hwmon2/temp1", "hwmon1/temp1"])
        #expect(app.sortedSensors.first?.sensor.name == "SSD")
        let screen = Screen.render(app, width: 100, height: 30).text()
        #expect(screen.contains("SSD"))
        #expect(!screen.contains("Core 0"))
    }

    @Test func theDebugOverlayShowsWhatTheConfigSet() {
        let cfg = UserConfig(delay: 2, units: .fahrenheit, sensors: [SensorRule(match: "hwmon2/*", name: "SSD")], path: "/home/u/.config/thermtop/config.toml")
        var app = AppState(status: status(cfg.sensors))
        app.configInfo = ConfigInfo(path: cfg.path, lines: cfg.summary, warnings: [], onChange: "notify-send hot")
        app.configInfo.onChangeRuns = 3
        app.configInfo.onChangeFailures = 1
        app.overlay = .debug
        let screen = Screen.render(app, width: 140, height: 50).text()
        #expect(screen.contains("config file /home/u/.config/thermtop/config.toml"))
        #expect(screen.contains("from config: delay = 2 s"))
        #expect(screen.contains("from config: units = fahrenheit"))
        #expect(screen.contains("from config: sensor #1: match hwmon2/*, name SSD"))
        #expect(screen.contains("on-change: notify-send hot · runs 3 · failures 1"))
    }
}
