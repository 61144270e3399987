import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 9's small ones: the low-power line, the help legend's step.
@Suite struct LowPowerLineTests {
    @Test("the low-power line names a low-power platform profile once, a balanced one once too",
          arguments: ["low-power", "balanced"])
    func profileSaidOnce(profile: String) throws {
        let series = (0..<4).map { Fixtures.intelLaptop(time: Double($0), package: 50, skin: 35, profile: profile) }
        let state = Fixtures.appState(series, sourceLabel: "/sys", simulated: false)
        #expect(state.status.isLowPowerModeEnabled == (profile == "low-power"))
        let screen = state.render(.large)
        let line = try #require(screen.rows.first { $0.contains("low power ") }, "\(screen.text())")
        #expect(line.components(separatedBy: "platform_profile").count - 1 == 1, "\(line)")
        #expect(line.contains(profile), "\(line)")
    }
}

@Suite struct HelpLegendStepTests {
    @Test("the help legend says the step the history is drawn at, for each tier",
          arguments: Fixtures.Scenario.allCases)
    func legendSaysTheStep(scenario: Fixtures.Scenario) throws {
        var state = scenario.state
        let step = state.renderPolicy.historyStep(sampleDelay: state.sampleDelay)
        #expect(step == ["full": 1, "reduced": 5, "minimal": 15][scenario.expectedTier.rawValue])
        state.press(.char("?"))
        let text = state.render(.large).text()
        #expect(text.contains("a column every \(Format.duration(step))"), "\(text)")
    }
}
