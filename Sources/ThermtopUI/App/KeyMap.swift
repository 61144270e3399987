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
        KeyBinding([.char("1")], "1", "simulate nominal", .simulateState(.nominal)),
        KeyBinding([.char("2")], "2", "simulate fair", .simulateState(.fair)),
        KeyBinding([.char("3")], "3", "simulate serious", .simulateState(.serious)),
        KeyBinding([.char("4")], "4", "simulate critical", .simulateState(.critical)),
        KeyBinding([.char("0")], "0", "back to the live state", .backToLive),
        KeyBinding([.char("l")], "l", "low power: live → on → off", .cycleLowPower),
        KeyBinding([.char("+"), .char("=")], "+", "raise simulated load", .raiseLoad),
        KeyBinding([.char("-"), .char("_")], "-", "lower simulated load", .lowerLoad),
        KeyBinding([.down, .char("j")], "↓ j", "select next sensor", .selectNext),
        KeyBinding([.up, .char("k")], "↑ k", "select previous sensor", .selectPrevious),
        KeyBinding([.enter], "Enter", "sensor detail (trips, thresholds, files)", .toggleDetail),
        KeyBinding([.char("d")], "d", "debug overlay", .toggleDebug),
        KeyBinding([.char("?"), .char("h"), .function(1)], "? h F1", "help", .toggleHelp),
        KeyBinding([.char("p"), .char(" ")], "p Space", "pause sampling", .togglePause),
        KeyBinding([.char("r")], "r", "full refresh now (rediscover devices)", .refreshNow),
        KeyBinding([.escape], "Esc", "close overlay", .closeOverlay),
        KeyBinding([.char("q"), .function(10), .interrupt], "q F10 ^C", "quit", .quit),
    ]

    /// The action for a key, if any.
    public static func action(for key: Key) -> Action? {
        bindings.first { $0.keys.contains(key) }?.action
    }

    /// The short list of keys on the status line.
    public static let statusLine: [(String, String)] = [
        ("1-4", "simulate"), ("0", "live"), ("l", "low power"), ("d", "debug"), ("?", "help"),
        ("p", "pause"), ("r", "refresh"), ("q", "quit"),
    ]
}
