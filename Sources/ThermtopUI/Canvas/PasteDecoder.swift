/// Finds bracketed pastes in what the terminal reads. With bracketed paste on (xterm's mode
/// 2004, which `Terminal` sets), the terminal sends pasted text between `ESC[200~` and
/// `ESC[201~`; everything between the markers comes out as one `.paste`, so no pasted
/// character is ever taken for a key (a newline for Enter, `q` for quit, ESC for Esc).
///
/// The terminal hands input over in reads of any size, so a marker can be cut between two
/// reads: what may be the start of a marker is held back until the next input says whether it
/// is one, or until `deadline` passes (then it was keys: Esc and what followed it). A paste whose
/// end marker never comes (a terminal that lost it) ends once the input has been quiet for
/// `quietSeconds`, so the keys typed after it are not swallowed for good. A paste carries at
/// most `maxScalars` of its text; the rest is read to its end marker and dropped, never keys.
///
/// Pure: the caller reads the terminal and passes the monotonic time of each read.
public struct PasteDecoder: Sendable {
    /// What the terminal read, in order.
    public enum Input: Sendable, Hashable {
        /// A character as it came, control characters included.
        case character(Unicode.Scalar)
        /// What the terminal library decoded already: a function key, a mouse report.
        case key(Key)
    }

    /// What the decoder passes on, in the order it was read.
    public enum Output: Sendable, Hashable {
        /// Input outside any paste, unchanged.
        case input(Input)
        /// One whole paste: its text as sent, control characters included (what the filter
        /// keeps of it is the reducer's rule). Keys the terminal library decoded inside the
        /// paste (pasted escape sequences) are not text and are left out.
        case paste(String)
    }

    public static let start: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "0", "~"]
    public static let end: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    /// The most text one paste carries. A paste is only ever typed into the filter, which
    /// keeps far less; the bound keeps a pasted file from costing its size in memory.
    public static let maxScalars = 4096

    /// How long a possible start of a marker waits for the rest: a marker cut between two
    /// reads. The Esc key waits this long too before it acts (after curses' escape delay),
    /// short enough not to be felt.
    public static let markerWaitSeconds = 0.05

    /// How long an open paste waits for more input before it is taken as ended without its
    /// end marker. A terminal sends a paste in one go; the bound is for one that lost the
    /// marker, after which keys must work again.
    public static let quietSeconds = 1.0

    /// A prefix of the marker being looked for: the start marker outside a paste, the end
    /// marker inside one. It starts with ESC and holds no other ESC.
    private var held: [Unicode.Scalar] = []
    private var pasting = false
    private var text = String.UnicodeScalarView()
    private var textCount = 0
    private var lastInput = 0.0

    public init() {}

    /// When `expire` has something to hand on though no more input came: the held start of a
    /// marker, or an open paste. Nil when nothing waits.
    public var deadline: Double? {
        if pasting { return lastInput + Self.quietSeconds }
        return held.isEmpty ? nil : lastInput + Self.markerWaitSeconds
    }

    /// Takes one input read at monotonic time `now`; appends what it completes to `output`.
    public mutating func decode(_ input: Input, now: Double, into output: inout [Output]) {
        lastInput = now
        guard case .character(let c) = input else {
            if pasting {
                keepHeld()
            } else {
                flushHeld(into: &output)
                output.append(.input(input))
            }
            return
        }
        let marker = pasting ? Self.end : Self.start
        if c == marker[held.count] {
            held.append(c)
            if held.count == marker.count {
                held.removeAll()
                if pasting { finish(into: &output) } else { pasting = true }
            }
            return
        }
        // Not the marker: what was held is plain input, and `c` may begin the marker afresh
        // (the marker's only ESC is its first character, so no later part of it can).
        if pasting { keepHeld() } else { flushHeld(into: &output) }
        if c == marker[0] {
            held = [c]
        } else if pasting {
            keep(c)
        } else {
            output.append(.input(.character(c)))
        }
    }

    /// Hands on what waited past `deadline` by `now`: held characters as plain input, an open
    /// paste as the paste it was.
    public mutating func expire(now: Double, into output: inout [Output]) {
        guard let deadline, deadline <= now else { return }
        if pasting {
            keepHeld()
            finish(into: &output)
        } else {
            flushHeld(into: &output)
        }
    }

    private mutating func keep(_ c: Unicode.Scalar) {
        guard textCount < Self.maxScalars else { return }
        text.append(c)
        textCount += 1
    }

    private mutating func keepHeld() {
        for c in held { keep(c) }
        held.removeAll()
    }

    private mutating func flushHeld(into output: inout [Output]) {
        for c in held { output.append(.input(.character(c))) }
        held.removeAll()
    }

    private mutating func finish(into output: inout [Output]) {
        output.append(.paste(String(text)))
        pasting = false
        text = String.UnicodeScalarView()
        textCount = 0
    }
}
