import Testing
import ThermtopCore
@testable import ThermtopUI

/// TCA TestStore style: send an action, say exactly how the whole state must change and which
/// effects must come out. Any other change to any field fails, naming the fields that differ.
struct TestStore {
    var state: AppState

    init(_ state: AppState) { self.state = state }

    mutating func send(_ action: Action, effects expected: [Effect] = [],
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ update: (inout AppState) -> Void = { _ in }) {
        var wanted = state
        update(&wanted)
        let effects = Reducer.reduce(&state, action)
        #expect(effects == expected, "effects of \(action)", sourceLocation: sourceLocation)
        if state != wanted {
            Issue.record("state after \(action) differs in: \(Self.differences(state, wanted).joined(separator: "; "))",
                         sourceLocation: sourceLocation)
        }
    }

    /// Sends a key through the key map, as the run loop does.
    mutating func press(_ key: Key, effects expected: [Effect] = [], sourceLocation: SourceLocation = #_sourceLocation,
                        _ update: (inout AppState) -> Void = { _ in }) {
        guard let action = KeyMap.action(for: key, in: state) else {
            Issue.record("\(key) is not bound", sourceLocation: sourceLocation)
            return
        }
        send(action, effects: expected, sourceLocation: sourceLocation, update)
    }

    /// Field names (and values) that differ between two states.
    static func differences(_ a: AppState, _ b: AppState) -> [String] {
        let ma = Mirror(reflecting: a).children, mb = Mirror(reflecting: b).children
        var out: [String] = []
        for (x, y) in zip(ma, mb) where String(describing: x.value) != String(describing: y.value) {
            let got = String(describing: x.value).prefix(160), want = String(describing: y.value).prefix(160)
            out.append("\(x.label ?? "?"): got \(got), expected \(want)")
        }
        return out.isEmpty ? ["(a field not shown by reflection)"] : out
    }
}
