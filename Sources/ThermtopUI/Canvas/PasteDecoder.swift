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
/// Outside a paste it also decodes SGR mouse reports (xterm's mode 1006, `ESC[<b;x;yM`, which
/// `Terminal` asks for when curses' own mouse encoding is the old one): a click or the wheel
/// comes out as `Key.mouse`, anything else the mouse reports (releases, motion, other buttons,
/// a report cut short) is dropped, and never one of its digits is taken for a key.
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
    /// The parameters of an SGR mouse report after its `ESC[<`, nil when none is open.
    private var mouseReport: [Unicode.Scalar]?
    /// The longest SGR mouse report's parameters (`65;9999;9999`, with room to spare).
    static let mouseReportMax = 24
    private var pasting = false
    private var text = String.UnicodeScalarView()
    private var textCount = 0
    private var lastInput = 0.0

    public init() {}

    /// When `expire` has something to hand on though no more input came: the held start of a
    /// marker, or an open paste. Nil when nothing waits.
    public var deadline: Double? {
        if pasting { return lastInput + Self.quietSeconds }
        return held.isEmpty && mouseReport == nil ? nil : lastInput + Self.markerWaitSeconds
    }

    /// Takes one input read at monotonic time `now`; appends what it completes to `output`.
    public mutating func decode(_ input: Input, now: Double, into output: inout [Output]) {
        lastInput = now
        if mouseReport != nil, case .character(let c) = input {
            mouse(c, into: &output)
            return
        }
        mouseReport = nil
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
        if !pasting, held.count == 2, c == "<" {
            held.removeAll()
            mouseReport = []
            return
        }
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
        // A mouse report cut short is dropped: its digits are no keys.
        mouseReport = nil
        if pasting {
            keepHeld()
            finish(into: &output)
        } else {
            flushHeld(into: &output)
        }
    }

    /// One more character of an open SGR mouse report: `b;x;y` then `M` (press) or `m`
    /// (release). A press of the left button (0, with any modifier) or the wheel (64 up, 65
    /// down) becomes a mouse key at 0-based cell coordinates; everything else is dropped.
    private mutating func mouse(_ c: Unicode.Scalar, into output: inout [Output]) {
        guard var report = mouseReport else { return }
        if c == "M" || c == "m" {
            mouseReport = nil
            let fields = String(String.UnicodeScalarView(report)).split(separator: ";", omittingEmptySubsequences: false)
            guard c == "M", fields.count == 3, let b = Int(fields[0]), let x = Int(fields[1]), let y = Int(fields[2]),
                  x >= 1, y >= 1 else { return }
            let button: MouseEvent.Button
            // Bits 2-4 are Shift, Meta and Ctrl; 32 is motion (a drag), dropped.
            switch b & ~0b11100 {
            case 0: button = .left
            case 64: button = .wheelUp
            case 65: button = .wheelDown
            default: return
            }
            output.append(.input(.key(.mouse(MouseEvent(x: x - 1, y: y - 1, button: button)))))
            return
        }
        guard (c == ";" || ("0"..."9").contains(c)), report.count < Self.mouseReportMax else {
            // Not a mouse report after all: dropped whole, and this character too.
            mouseReport = nil
            return
        }
        report.append(c)
        mouseReport = report
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
