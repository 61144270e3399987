import ThermtopCore

/// One key binding: the keys, how the help screen names them, and what they do.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    public var label: String
    public var help: String
    public var action: Action

    public init(_ keys: [Key], _ label: String, _ help: String, _ action: Action) {
        self.keys = keys
        self.label = label
        self.help = help
        self.action = action
    }
}

/// The one key map. The help screen and the status line are generated from it.
public enum KeyMap {
    public static let bindings: [KeyBinding] = [
        KeyBinding([.down, .char("j")], "↓ j", "select next sensor", .selectNext),
        KeyBinding([.up, .char("k")], "↑ k", "select previous sensor", .selectPrevious),
        KeyBinding([.pageDown], "PgDn", "a page down", .pageDown),
        KeyBinding([.pageUp], "PgUp", "a page up", .pageUp),
        KeyBinding([.home, .char("g")], "Home g", "first sensor", .selectFirst),
        KeyBinding([.end, .char("G")], "End G", "last sensor", .selectLast),
        KeyBinding([.enter], "Enter", "sensor detail, or a Heating it group's processes (Tab)", .toggleDetail),
        KeyBinding([.char("s"), .function(6)], "s F6", "sort: nearest limit → hottest → name → group", .cycleSort),
        KeyBinding([.char("I")], "I", "reverse the sort", .reverseSort),
        KeyBinding([.tab], "Tab", "↑↓ Enter act on the Heating it groups ↔ the sensors", .toggleFocus),
        KeyBinding([.char("w")], "w", "Heating it: sort by CPU → estimated watts → GPU", .cycleHeatSort),
        KeyBinding([.char("/"), .function(4)], "/ F4", "filter by name or group (Enter keeps, Esc clears)", .startFilter),
        KeyBinding([.function(3)], "F3", "search: select the first match, hide nothing", .startSearch),
        KeyBinding([.char("a")], "a", "show all sensors, hidden ones too", .toggleShowAll),
        KeyBinding([.char("1")], "1", "simulate nominal", .simulateState(.nominal)),
        KeyBinding([.char("2")], "2", "simulate fair", .simulateState(.fair)),
        KeyBinding([.char("3")], "3", "simulate serious", .simulateState(.serious)),
        KeyBinding([.char("4")], "4", "simulate critical", .simulateState(.critical)),
        KeyBinding([.char("l")], "l", "low power: live → forced on → forced off → live", .cycleLowPower),
        KeyBinding([.char("S")], "S", "simulated laptop on/off", .toggleSimulatedLaptop),
        KeyBinding([.char("+"), .char("=")], "+", "raise the simulated laptop's load", .raiseLoad),
        KeyBinding([.char("-"), .char("_")], "-", "lower the simulated laptop's load", .lowerLoad),
        KeyBinding([.char("0")], "0", "back to live: clear every simulation", .backToLive),
        KeyBinding([.char("p"), .char(" ")], "p Space", "pause sampling (a replay: pause the replay)", .togglePause),
        KeyBinding([.char("n"), .char(".")], "n .", "replay: one recorded sample (pauses)", .replayStep),
        KeyBinding([.char(">")], ">", "replay: twice as fast", .replayFaster),
        KeyBinding([.char("<")], "<", "replay: half as fast", .replaySlower),
        KeyBinding([.char("f")], "f", "temperatures in °C ↔ °F (decisions stay in °C)", .toggleUnits),
        KeyBinding([.char("r")], "r", "full refresh now (rediscover devices)", .refreshNow),
        KeyBinding([.char("i")], "i", "what the tier means for software (policy details)", .togglePolicy),
        KeyBinding([.char("d")], "d", "debug overlay (rules, files, event sources)", .toggleDebug),
        KeyBinding([.char("?"), .char("h"), .function(1)], "? h F1", "this help", .toggleHelp),
        KeyBinding([.escape], "Esc", "close overlay, or clear the filter", .closeOverlay),
        KeyBinding([.char("q"), .function(10), .interrupt], "q F10 ^C", "quit", .quit),
    ]

    /// The action for a key, if any.
    public static func action(for key: Key) -> Action? {
        if case .mouse(let m) = key { return .mouse(m) }
        if case .paste(let text) = key { return .paste(text) }
        return bindings.first { $0.keys.contains(key) }?.action
    }

    /// The action for the keys at the front of `keys` and how many of them it takes: one key,
    /// or every character in a row while the filter takes text (a paste is one edit).
    public static func next(_ keys: ArraySlice<Key>, in state: AppState) -> (action: Action?, count: Int) {
        guard let first = keys.first else { return (nil, 0) }
        guard state.filterEditing, case .char = first else { return (action(for: first, in: state), 1) }
        var text = ""
        var count = 0
        for key in keys {
            guard case .char(let c) = key else { break }
            text.append(c)
            count += 1
        }
        return (.filterText(text), count)
    }

    /// The action for a key in a state: while the filter takes text, keys type into it.
    public static func action(for key: Key, in state: AppState) -> Action? {
        // `q` in the help closes it, as in htop and less (F10 and Ctrl-C still quit); over
        // the debug and detail overlays it quits, as their titles do not say otherwise.
        if state.overlay == .help, key == .char("q") { return .closeOverlay }
        guard state.filterEditing else { return action(for: key) }
        switch key {
        case .char(let c): return .filterInput(c)
        case .backspace: return .filterBackspace
        case .enter: return .filterCommit
        case .escape: return .filterCancel
        case .interrupt: return .quit
        default: return action(for: key)
        }
    }

    /// The short list of keys on the status line, most useful first (cut from the right).
    public static let statusLine: [(String, String)] = [
        ("?", "help"), ("q", "quit"), ("↑↓", "select"), ("Enter", "detail"), ("1-4", "simulate"),
        ("0", "live"), ("l", "low power"), ("s", "sort"), ("/", "filter"), ("d", "debug"), ("p", "pause"),
    ]

    /// The status line during a replay: its own keys first.
    public static let replayStatusLine: [(String, String)] = [
        ("?", "help"), ("q", "quit"), ("p", "pause"), ("n", "step"), ("< >", "speed"), ("↑↓", "select"),
        ("Enter", "detail"), ("f", "°C/°F"), ("s", "sort"), ("/", "filter"), ("d", "debug"),
    ]
}
