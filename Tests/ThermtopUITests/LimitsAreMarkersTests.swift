import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 4: limits are markers, not alarms.
@Suite struct LimitsAreMarkersTests {
    @Test("the detail view of a cool NVMe drive draws its serious and critical limits without alarm colours")
    func detailLimitsPlainWhenCool() throws {
        var state = Fixtures.Scenario.full.state
        let nvme = try #require(state.status.assessment.sensors.first { $0.sensor.name.contains("nvme") || $0.sensor.displayName.contains("Composite") })
        #expect(nvme.level == .nominal)
        state.overlay = .detail(nvme.sensor.id)
        let screen = state.render(.large)
        for name in ["serious", "critical"] {
            let y = try #require(screen.rows.firstIndex { $0.contains("  \(name) ") && $0.contains("clears below") }, "\(screen.text())")
            let styles = (0..<screen.width).map { screen[$0, y].style }
            #expect(!styles.contains { $0.reverse || $0.fg == .red || $0.fg == .orange }, "the \(name) limit is drawn as an alarm: \(screen.rows[y])")
        }
    }
}
