// Fuzz target `keys`: what the terminal hands over (curses key codes and characters,
// including control bytes, invalid scalars, function keys and resizes) decoded by the
// terminal layer, mapped by the key map, applied by the reducer, and drawn at whatever size
// the input asks for (1x1 to 300x100), on the simulated laptop.
@testable import ThermtopTerminal
import ThermtopCore
import ThermtopUI
import CNcursesw

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeys(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    return MainActor.assumeIsolated { runKeys(bytes) }
}

@MainActor
func runKeys(_ bytes: [UInt8]) -> Int32 {
    do {
        var input = Bytes(bytes)
        // A fresh laptop per input: the same input always replays the same way.
        let laptop = SimulatedLaptop()
        var memory = ClassifierMemory()
        var t = 0.0
        func status(_ overrides: ThermalOverrides) -> MonitorStatus {
            let snap = laptop.sample(at: t)
            let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
            return MonitorStatus(snapshot: snap, assessment: a, lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                                 overrides: overrides, sourceLabel: laptop.label, sourceIsSimulated: true)
        }
        var app = AppState(status: status(.none))
        // Every input reaches the state as an action through the one reducer, as in the run loop.
        func arrive(_ overrides: ThermalOverrides) {
            _ = Reducer.reduce(&app, .statusArrived(status(overrides), FeedInfo(samples: 1, simulatedLoad: laptop.load)))
        }
        arrive(.none)
        var width = 100, height = 30
        var steps = 0
        while !input.isEmpty && steps < 32 {
            steps += 1
            let kind = input.byte()
            let key: Key?
            switch kind % 4 {
            case 0:   // a character wget_wch returned: any code point, any junk
                let code = wint_t(input.byte()) << 24 | wint_t(input.byte()) << 16 | wint_t(input.byte()) << 8 | wint_t(input.byte())
                key = Terminal.characterKey(kind & 4 == 0 ? code & 0x1ffff : code)
            case 1:   // a curses function-key code
                key = Terminal.functionKey(Int32(input.byte()) << 8 | Int32(input.byte()))
            case 2:   // a resize
                width = 1 + Int(input.byte()) % 300
                height = 1 + Int(input.byte()) % 100
                key = .resize
            default:  // time passes: a new sample
                t += Double(input.byte()) / 10
                arrive(app.status.overrides)
                key = nil
            }
            if let key, let action = KeyMap.action(for: key) {
                for effect in Reducer.reduce(&app, action) {
                    switch effect {
                    case .setOverrides(let o): arrive(o)
                    case .refresh, .useSimulatedLaptop, .setPaused, .suspend, .replayAdvance: arrive(app.status.overrides)
                    case .adjustLoad(let d): laptop.setLoad(laptop.load + d); arrive(app.status.overrides)
                    }
                }
            }
            if case .char(let c) = key, !CellBuffer.isSafe(c) { fail("unsafe character \(c.unicodeScalars.map(\.value)) passed as a key") }
            // The selection is an identity: it must name a listed sensor, or nothing.
            if let id = app.selectedID, app.selectedSensor == nil { fail("selection \(id) names no sensor") }
            _ = Reducer.reduce(&app, .tick(now: t, wallSeconds: Int(t)))
            let screen = Screen.render(app, width: width, height: height)
            if screen.width != width || screen.height != height { fail("frame \(screen.width)x\(screen.height) for \(width)x\(height)") }
            requireInert(screen.text(), "screen")
        }
        return 0
    }
}
