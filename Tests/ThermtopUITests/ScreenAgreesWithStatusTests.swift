import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 9: the screen and `thermtop status` print the same words for every line both show
/// (low power and its reasons, battery cycles, no battery). Each test reads `status`'s text and
/// the rendered screen of the same status and compares them.
@Suite("The dashboard says what status says")
struct ScreenAgreesWithStatusTests {
    /// Low battery and a low-power platform profile: two reasons.
    static func state(percent: Double = 15, profile: String = "low-power", cycles: Int? = 143,
                      overrides: ThermalOverrides = .none) -> AppState {
        var snap = Fixtures.intelLaptop(time: 0, package: 55, skin: 35, batteryPercent: percent, discharging: true, profile: profile)
        snap.batteries[0].cycleCount = cycles
        return Fixtures.appState([snap], sourceLabel: "/sys", simulated: false, overrides: overrides)
    }

    static func screenLines(_ s: AppState, width: Int = 220) -> [String] {
        Screen.render(s, width: width, height: 50).text().split(separator: "\n").map {
            String($0).trimmingCharacters(in: .whitespaces)
        }
    }

    /// `status`'s low-power block folded onto one line the way the dashboard shows it.
    static func statusLowPower(_ s: AppState) throws -> String {
        let lines = ThermalStatusReport.text(s.status).split(separator: "\n").map(String.init)
        let i = try #require(lines.firstIndex { $0.hasPrefix("Low power  ") })
        let headline = String(lines[i].dropFirst("Low power  ".count))
        let reasons = lines[(i + 1)...].prefix { $0.hasPrefix("           - ") }.map { String($0.dropFirst(13)) }
        return "low power " + headline + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; "))
    }

    @Test("the low-power line lists every reason status lists, word for word", arguments: [
        (15.0, "low-power", ThermalOverrides.none), (81.0, "low-power", ThermalOverrides.none), (81.0, "balanced", ThermalOverrides.none),
        (15.0, "low-power", ThermalOverrides(lowPower: false)), (81.0, "balanced", ThermalOverrides(lowPower: true)),
    ] as [(Double, String, ThermalOverrides)])
    func lowPower(_ percent: Double, _ profile: String, _ overrides: ThermalOverrides) throws {
        let s = Self.state(percent: percent, profile: profile, overrides: overrides)
        let expected = try Self.statusLowPower(s)
        let line = Self.screenLines(s).first { $0.hasPrefix("low power ") } ?? ""
        #expect(line.hasPrefix(expected), "screen: \(line)\nstatus: \(expected)")
        if percent < 20 && profile == "low-power" { #expect(expected.contains("; "), "two reasons: \(expected)") }
    }

    @Test("cycle_count 0 reads 'cycles not reported' on both; a real count reads 'N cycles'",
          arguments: [(0, "cycles not reported"), (143, "143 cycles")])
    func cycles(_ n: Int, _ text: String) {
        let s = Self.state(percent: 81, profile: "balanced", cycles: n)
        #expect(ThermalStatusReport.text(s.status).contains(text))
        #expect(Self.screenLines(s).contains { $0.contains(text) })
        #expect(!ThermalStatusReport.text(s.status).contains("0 cycles") || n != 0)
    }

    @Test("no battery: the same words on both, not a guess at the kind of machine")
    func noBattery() {
        var snap = Fixtures.intelLaptop(time: 0, package: 55, skin: 35)
        snap.batteries = []
        let s = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        #expect(ThermalStatusReport.text(s.status).contains("Battery    \(ThermalBattery.noneText)"))
        #expect(Self.screenLines(s).contains { $0.hasPrefix("Battery") && $0.contains(ThermalBattery.noneText) })
        #expect(!ThermalStatusReport.text(s.status).contains("desktop or server"))
    }
}
