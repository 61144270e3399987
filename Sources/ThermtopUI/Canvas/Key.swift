/// A key press, already decoded from terminal key codes by the terminal layer.
public enum Key: Sendable, Hashable {
    /// A printable character (never a control character).
    case char(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backspace
    /// F1 is `.function(1)`.
    case function(Int)
    /// The terminal changed size; the next frame should be laid out again.
    case resize
    /// Ctrl-C arriving as a byte (raw mode). In cbreak mode Ctrl-C raises SIGINT
    /// instead; see `TerminalSignals`.
    case interrupt
}
