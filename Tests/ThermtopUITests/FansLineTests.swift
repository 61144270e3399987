import Testing
import ThermtopCore
@testable import ThermtopUI

/// The dashboard's one-line fans summary (truth, minimal): every hwmon fan is listed, 0 RPM is
/// said as "stopped" or "no reading", and a fan that decides the state is coloured by its level.
@Suite("Dashboard fans line")
struct FansLineTests {
    static func state(fans: [ThermalFan]) -> AppState {
        var snap = Fixtures.intelLaptop(time: 0, package: 55, skin: 35)
        snap.fans = fans
        return Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
    }

    @Test("spinning, stopped and no-reading fans are all on the Fans line with RPM, PWM % and control")
    func listed() {
        let s = Self.state(fans: [
            ThermalFan(id: "a", location: "hwmon2/fan1", chip: "nct6798", rpm: 1180, pwm: 102, pwmEnable: 5),
            ThermalFan(id: "b", location: "hwmon2/fan2", chip: "nct6798", rpm: 0, pwm: 0, pwmEnable: 1),
            ThermalFan(id: "c", location: "hwmon2/fan3", chip: "nct6798", rpm: 0),
        ])
        let text = Screen.render(s, width: 160, height: 40).text()
        let line = text.split(separator: "\n").first { $0.contains("Fans ") }.map(String.init) ?? ""
        #expect(line.contains("nct6798 fan1 1180 rpm 40 % auto"), "\(line)")
        #expect(line.contains("nct6798 fan2 stopped 0 % manual"), "\(line)")
        #expect(line.contains("nct6798 fan3 no reading"), "\(line)")
    }

    @Test("GPU power meters without fans are on a Power line, not a Fans line")
    func powerOnly() {
        var s = Self.state(fans: [])
        s.status.snapshot.powerMeters = [
            ThermalPowerMeter(id: "p", location: "hwmon4/power1", chip: "amdgpu", label: "slowPPT",
                              averageWatts: 3.218, capWatts: 15),
        ]
        s.status.power = ThermalPowerDomains.measure(s.status.snapshot, previous: nil)
        let text = Screen.render(s, width: 120, height: 40).text()
        let line = text.split(separator: "\n").first { $0.contains("slowPPT") }.map(String.init) ?? ""
        #expect(line.hasPrefix(" Power "), "\(line)")
        #expect(line.contains("amdgpu slowPPT 3.2 W of 15 W limit"), "\(line)")
        #expect(!text.contains("Fans "))
    }

    @Test("no fans, no Fans line")
    func none() {
        #expect(!Screen.render(Self.state(fans: []), width: 120, height: 40).text().contains("Fans "))
    }
}
