import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 9: nothing of the dashboard sits against an overlay's border.
@Suite struct OverlayMarginTests {
    @Test("over the debug, help and detail overlays no row marker (▶, ?) is left beside the border", arguments: [Key.char("d"), .char("?"), .enter])
    func noStrayMarkers(key: Key) {
        var state = Fixtures.Scenario.reduced.state
        state.press(key)
        let screen = state.render(.standard)
        let covered = screen.rows.indices.filter { screen.rows[$0].contains("│") && screen.rows[$0].dropFirst().hasPrefix("│") }
        #expect(!covered.isEmpty, "\(screen.text())")
        for y in covered {
            #expect(screen.rows[y].first == " ", "row \(y) starts with \(String(screen.rows[y].prefix(2))):\n\(screen.text())")
        }
    }
}
