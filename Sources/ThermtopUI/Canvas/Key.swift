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
    /// A mouse button or the wheel, at a cell of the screen.
    case mouse(MouseEvent)
    /// Text the terminal marked as pasted (bracketed paste, see `PasteDecoder`), whole and as
    /// sent: never keys, whatever characters it holds.
    case paste(String)
}

/// What the mouse did, and where (0-based cell coordinates).
public struct MouseEvent: Sendable, Hashable {
    public enum Button: Sendable, Hashable {
        /// The left button went down (a click; a second click on the same row is a double-click).
        case left
        case wheelUp, wheelDown
    }

    public var x: Int
    public var y: Int
    public var button: Button

    public init(x: Int, y: Int, button: Button) {
        self.x = x
        self.y = y
        self.button = button
    }
}
