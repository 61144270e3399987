import CNcursesw
import Glibc
import ThermtopUI

/// A full-screen ncurses session on standard input/output: draws `CellBuffer`s and
/// reads keys. Use it from one thread (the main run loop); it is not `Sendable`.
///
/// Start it with `newterm`, never `initscr` (which exits the process when TERM is
/// unusable); stop it with `restore()` or by letting it deinitialise.
public final class Terminal {
    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private var active = true
    private var previous: CellBuffer?
    private var needsFullRedraw = true
    private var lastScreenSize = (width: -1, height: -1)
    private let palette: Palette
    private var pastes = PasteDecoder()

    /// Number of colours the terminal offers; 0 when drawing in monochrome (colour not
    /// wanted, or the terminal has none).
    public let colorCount: Int

    /// Whether the terminal reports the mouse (clicks and the wheel arrive as `Key.mouse`).
    public let mouse: Bool

    /// True once a read of the terminal failed with EIO: the terminal is gone (hung up), and
    /// no key will ever come again.
    public private(set) var inputClosed = false

    /// Whether the locale's character set is UTF-8. When it is not, `present` draws
    /// `CellBuffer.asciiFallback` of every non-ASCII character.
    public let unicode: Bool

    /// Checks, without starting curses, that a full-screen session can start: standard
    /// input and output are terminals and `TERM` names a usable terminfo entry (via
    /// `setupterm` with an error out-parameter). Returns nil when all is well.
    public static func preflight() -> TerminalProblem? {
        guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else { return .notATerminal }
        guard let raw = getenv("TERM"), raw.pointee != 0 else { return .termNotSet }
        let term = String(cString: raw)
        switch thermtop_probe_terminal(raw, STDOUT_FILENO) {
        case 1: return nil
        case -1: return .noTerminfoDatabase(term)
        default: return .unusableTerm(term)
        }
    }

    /// Starts curses: `setlocale(LC_ALL, "")`, `newterm`, cbreak, no echo, keypad,
    /// hidden cursor, and colour pairs when `color` is true and the terminal has colours.
    ///
    /// Also arms `TerminalSignals.emergencyRestore()` (from `atexit` and crash signals).
    /// Call `TerminalSignals.install()` first: the run loop then owns quit, stop and resize
    /// signals, and ncurses installs none of its own.
    ///
    /// - Throws: `TerminalProblem` when `preflight()` finds one or `newterm` fails.
    public init(color: Bool) throws {
        if let problem = Terminal.preflight() { throw problem }
        setlocale(LC_ALL, "")
        let codeset = thermtop_codeset().map { String(cString: $0) } ?? ""
        unicode = ["utf-8", "utf8"].contains(codeset.lowercased())

        EmergencyRestore.saveTermios(fd: STDIN_FILENO)
        guard let screen = newterm(nil, thermtop_stdout(), thermtop_stdin()) else {
            throw TerminalProblem.initializationFailed(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        self.screen = screen
        set_term(screen)
        window = thermtop_stdscr()

        cbreak()
        noecho()
        nonl()
        intrflush(window, false)
        keypad(window, true)
        leaveok(window, true)
        curs_set(0)
        // A lone ESC is the Escape key after 25 ms rather than the default second.
        set_escdelay(25)
        // Clicks and the wheel, as htop and btop take them; endwin turns reporting off again.
        mouse = thermtop_enable_mouse() != 0
        // SGR reports (1006) as well, decoded by `PasteDecoder` when curses does not know them:
        // without it a terminal that sends them has their digits read as keys. A terminal
        // without 1006 keeps sending the old encoding, which curses decodes.
        if mouse { Terminal.sgrMouse(true) }
        // Pasted text then arrives marked, as one `Key.paste`, instead of as keys that act.
        Terminal.bracketedPaste(true)

        if color && has_colors() {
            start_color()
            let defaults = use_default_colors() == OK
            colorCount = Int(thermtop_colors())
            palette = Palette(colors: colorCount, pairs: Int(thermtop_color_pairs()), defaultColors: defaults)
        } else {
            colorCount = 0
            palette = Palette(colors: 0, pairs: 0, defaultColors: false)
        }

        EmergencyRestore.arm(sequence: Terminal.restoreSequence())
        TerminalSignals.installCrashRestore()
    }

    deinit {
        restore()
    }

    /// The screen size in cells, as curses last saw it (updated on `Key.resize`).
    public var size: (width: Int, height: Int) {
        guard active else { return (max(0, lastScreenSize.width), max(0, lastScreenSize.height)) }
        var y: Int32 = 0, x: Int32 = 0
        thermtop_getmaxyx(window, &y, &x)
        return (Int(max(0, x)), Int(max(0, y)))
    }

    /// Whether `present(buffer)` would send nothing: the buffer equals the one presented
    /// last and no full redraw is pending. The run loop then leaves the terminal alone.
    public func isShowing(_ buffer: CellBuffer) -> Bool {
        guard active, !needsFullRedraw, size == lastScreenSize, let previous else { return false }
        return previous == buffer
    }

    /// Draws the cells of `buffer` that differ from the buffer presented last, then
    /// refreshes once. After a resize (or on the first frame) it clears and redraws
    /// everything. Cells beyond the screen are clipped; screen cells beyond the buffer
    /// stay blank.
    ///
    /// - Returns: the number of cells handed to curses.
    @discardableResult
    public func present(_ buffer: CellBuffer) -> Int {
        guard active else { return 0 }
        let screenSize = size
        if screenSize != lastScreenSize {
            lastScreenSize = screenSize
            needsFullRedraw = true
        }
        var base = previous
        if needsFullRedraw {
            werase(window)
            clearok(window, true)
            base = nil
            needsFullRedraw = false
        }

        var written = 0
        var line: [cchar_t] = []
        line.reserveCapacity(screenSize.width)
        let runs = base == nil ? buffer.diff(from: nil) : buffer.diff(from: base)
        for run in runs where run.y < screenSize.height && run.x < screenSize.width {
            let count = min(run.cells.count, screenSize.width - run.x)
            line.removeAll(keepingCapacity: true)
            for cell in run.cells.prefix(count) { line.append(character(for: cell)) }
            // wadd_wchnstr does not move the cursor, so the bottom-right cell is safe
            // and nothing wraps or scrolls.
            mvwadd_wchnstr(window, Int32(run.y), Int32(run.x), line, Int32(count))
            written += count
        }
        wrefresh(window)
        previous = buffer
        return written
    }

    /// Forgets what is on screen so the next `present` redraws every cell (for example
    /// after something else wrote to the terminal).
    public func invalidate() {
        needsFullRedraw = true
    }

    /// The terminal input's file descriptor, for the run loop's `poll`.
    public var inputDescriptor: Int32 { STDIN_FILENO }

    /// When `readKeys` must run although no input came: the start of a paste marker, or a
    /// paste without its end yet, waits for the rest until then (see `PasteDecoder`). Nil when
    /// nothing waits. Monotonic seconds, the clock `readKeys` is given.
    public var inputDeadline: Double? { active ? pastes.deadline : nil }

    /// Every key waiting in the input, without blocking (call when `poll` says the input is
    /// readable, or at `inputDeadline`). Drains curses' own buffer too, so no key waits unseen
    /// while the loop sleeps. Unmapped keys are dropped; a bracketed paste is one `Key.paste`.
    /// `now`: the monotonic time, for what waits for the rest of a paste.
    public func readKeys(now: Double) -> [Key] {
        guard active else { return [] }
        wtimeout(window, 0)
        var input: [PasteDecoder.Output] = []
        pastes.expire(now: now, into: &input)
        // Bounds on one burst, so a flood of input cannot starve the loop: 256 keys, and more
        // reads than that only while they are pasted text (kept or dropped, never keys).
        var reads = 0
        while input.count < 256 && reads < 1 << 16 {
            reads += 1
            var code: wint_t = 0
            errno = 0
            let result = wget_wch(window, &code)
            if result == KEY_CODE_YES {
                let key = Int32(bitPattern: code)
                if key == KEY_RESIZE {
                    // Curses' own event, not something the terminal sent: never part of a paste.
                    input.append(.input(.key(.resize)))
                } else if key == KEY_MOUSE {
                    if let m = readMouse() { pastes.decode(.key(.mouse(m)), now: now, into: &input) }
                } else if let key = Terminal.functionKey(key) {
                    pastes.decode(.key(key), now: now, into: &input)
                }
            } else if result == OK {
                if let scalar = Unicode.Scalar(UInt32(code)) { pastes.decode(.character(scalar), now: now, into: &input) }
            } else {
                // ERR: nothing more to read, or the read failed because the terminal hung up.
                if errno == EIO { inputClosed = true }
                break
            }
        }
        return input.compactMap { output in
            switch output {
            case .paste(let text): .paste(text)
            case .input(.key(let key)): key
            case .input(.character(let scalar)): Terminal.characterKey(wint_t(scalar.value))
            }
        }
    }

    private func readMouse() -> MouseEvent? {
        var x: Int32 = 0, y: Int32 = 0, kind: Int32 = 0
        guard thermtop_read_mouse(&x, &y, &kind) != 0 else { return nil }
        let button: MouseEvent.Button
        switch kind {
        case 1: button = .left
        case 2: button = .wheelUp
        case 3: button = .wheelDown
        default: return nil  // motion and releases: nothing to do
        }
        return MouseEvent(x: Int(x), y: Int(y), button: button)
    }

    /// Takes the window's size from the kernel (`TIOCGWINSZ`) after a SIGWINCH, tells curses
    /// (`resize_term`) and schedules a full redraw. Returns the new size.
    @discardableResult
    public func resizeToWindow() -> (width: Int, height: Int) {
        guard active else { return size }
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_row > 0, ws.ws_col > 0 {
            resize_term(Int32(ws.ws_row), Int32(ws.ws_col))
        }
        needsFullRedraw = true
        return size
    }

    /// Ctrl-Z: leaves curses mode (the shell gets a sane terminal back), stops the process,
    /// and on `fg` re-enters curses mode with a full redraw pending.
    public func suspend() {
        guard active else { return }
        def_prog_mode()
        Terminal.bracketedPaste(false)
        endwin()
        TerminalSignals.stopProcess()
        reset_prog_mode()
        Terminal.bracketedPaste(true)
        if mouse { Terminal.sgrMouse(true) }
        needsFullRedraw = true
    }

    /// Ends the curses session (`endwin`) and frees it. Idempotent; after it,
    /// `present` and `readKey` do nothing.
    public func restore() {
        guard active else { return }
        active = false
        EmergencyRestore.disarm()
        Terminal.bracketedPaste(false)
        endwin()
        delscreen(screen)
    }

    /// Turns bracketed paste (xterm's mode 2004) on or off. Curses knows nothing of the mode,
    /// so it is set beside curses' own modes: on once curses has the terminal, off before
    /// `endwin` hands it back (the shell would otherwise get pastes wrapped in markers).
    /// Flushed at once, so the mode has changed before the process stops on Ctrl-Z; curses'
    /// `putp` would leave it in stdio's buffer.
    private static func sgrMouse(_ on: Bool) {
        let out = thermtop_stdout()
        fputs(on ? "\u{1B}[?1006h" : "\u{1B}[?1006l", out)
        fflush(out)
    }

    private static func bracketedPaste(_ on: Bool) {
        let out = thermtop_stdout()
        fputs(on ? "\u{1B}[?2004h" : "\u{1B}[?2004l", out)
        fflush(out)
    }

    // MARK: - Cells

    private func character(for cell: Cell) -> cchar_t {
        let scalar = (unicode ? cell.scalar : CellBuffer.asciiFallback(cell.scalar)).value
        let (attributes, pair) = palette.attributes(for: cell.style)
        var result = cchar_t()
        var text: (wchar_t, wchar_t) = (wchar_t(bitPattern: scalar), 0)
        withUnsafePointer(to: &text) { pointer in
            pointer.withMemoryRebound(to: wchar_t.self, capacity: 2) { wide in
                _ = setcchar(&result, wide, attributes, pair, nil)
            }
        }
        return result
    }

    /// The terminfo strings that undo curses' modes, for the async-signal-safe
    /// emergency restore: reset attributes, show the cursor, leave keypad-transmit
    /// mode and the alternate screen.
    private static func restoreSequence() -> [UInt8] {
        var bytes: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = thermtop_tigetstr(capability) {
                bytes.append(contentsOf: Array(String(cString: value).utf8))
            }
        }
        // Mouse reporting off (the xterm modes ncurses may have turned on), so a crash does
        // not leave the shell receiving mouse reports; bracketed paste off, so its pastes do
        // not arrive wrapped in markers.
        bytes.append(contentsOf: Array("\u{1B}[?1003l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?1006l\u{1B}[?2004l".utf8))
        bytes.append(contentsOf: Array("\r\n".utf8))
        return bytes
    }
}
