import ThermtopCore

/// What a key (or the run loop) asks for.
public enum Action: Sendable, Equatable {
    case simulateState(ThermalState)
    case backToLive
    case cycleLowPower
    case raiseLoad
    case lowerLoad
    case toggleDebug
    case toggleHelp
    case togglePause
    case refreshNow
    case quit
    case selectNext
    case selectPrevious
    case toggleDetail
    case closeOverlay
}

/// Work the run loop must do after the reducer changed the state (I/O stays at the edge).
public enum Effect: Sendable, Equatable {
    /// Apply these overrides to the monitor.
    case setOverrides(Overrides)
    /// Rediscover devices and sample now.
    case refresh
    /// Change the simulated laptop's load by this much.
    case adjustLoad(Double)
}

public enum Reducer {
    /// Apply an action to the state; returns the effects the run loop must perform.
    public static func reduce(_ state: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .simulateState(let s):
            var o = state.status.overrides
            o.thermalState = s
            return [.setOverrides(o)]
        case .backToLive:
            var o = state.status.overrides
            o.thermalState = nil
            return [.setOverrides(o)]
        case .cycleLowPower:
            state.lowPowerMode = state.lowPowerMode.next
            var o = state.status.overrides
            o.lowPower = state.lowPowerMode.override
            return [.setOverrides(o)]
        case .raiseLoad:
            return state.simulatedLoad == nil ? [] : [.adjustLoad(0.1)]
        case .lowerLoad:
            return state.simulatedLoad == nil ? [] : [.adjustLoad(-0.1)]
        case .toggleDebug:
            state.overlay = state.overlay == .debug ? .none : .debug
        case .toggleHelp:
            state.overlay = state.overlay == .help ? .none : .help
        case .togglePause:
            state.paused.toggle()
        case .refreshNow:
            return [.refresh]
        case .quit:
            state.quit = true
        case .selectNext:
            state.selected = min(state.selected + 1, max(state.sortedSensors.count - 1, 0))
        case .selectPrevious:
            state.selected = max(state.selected - 1, 0)
        case .toggleDetail:
            state.overlay = state.overlay == .detail ? .none : .detail
        case .closeOverlay:
            state.overlay = .none
        }
        return []
    }
}
