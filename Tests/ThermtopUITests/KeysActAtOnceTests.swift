import Testing
import ThermtopCore
@testable import ThermtopUI

/// Issue 38 item 5: keys act at once, whatever arrives with them.
@Suite struct KeysActAtOnceTests {
    @Test("2 then l in one read, before the monitor answers: both apply (fair and low power forced on)")
    func twoKeysInOneRead() {
        var state = Fixtures.Scenario.full.state
        let first = Reducer.reduce(&state, KeyMap.action(for: .char("2"), in: state)!)
        let second = Reducer.reduce(&state, KeyMap.action(for: .char("l"), in: state)!)
        #expect(first == [.setOverrides(ThermalOverrides(thermalState: .fair))])
        #expect(second == [.setOverrides(ThermalOverrides(thermalState: .fair, lowPower: true))], "l dropped the 2: \(second)")
        let third = Reducer.reduce(&state, KeyMap.action(for: .char("0"), in: state)!)
        #expect(third == [.setOverrides(.none)], "0 after both: \(third)")
    }
}
