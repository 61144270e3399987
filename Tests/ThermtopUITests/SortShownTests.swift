import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 9: the sort order is said at every width, not only from 120 columns.
@Suite struct SortShownTests {
    @Test("the list heading says the order at 80x24, 100x30 and 120x40, in every order, reversed too",
          arguments: [Size.standard, .medium, .large])
    func sortAlwaysShown(size: Size) throws {
        var state = Fixtures.Scenario.full.state
        for reversed in [false, true] {
            for _ in SortOrder.allCases {
                let screen = state.render(size)
                let heading = try #require(screen.rows.first { $0.contains("Sensors (") }, "\(screen.text())")
                let words = reversed ? [state.sort.reversedLabel, state.sort.reversedShortLabel] : [state.sort.label, state.sort.shortLabel]
                #expect(words.contains { heading.contains($0) }, "\(size) \(state.sort) reversed \(reversed): \(heading)")
                state.press(.char("s"))
            }
            state.press(.char("I"))
        }
    }
}
