import Testing
@testable import ThermtopUI

@Suite("Canvas: cell buffer, sanitising, diff")
struct CanvasTests {
    // MARK: put and clipping

    @Test("put writes left to right and returns the columns written")
    func putWritesLeftToRight() {
        var buffer = CellBuffer(width: 10, height: 2, fill: Cell("x"))
        let written = buffer.put("cpu", x: 2, y: 1)
        #expect(written == 3)
        #expect(buffer.text() == "xxxxxxxxxx\nxxcpuxxxxx")
    }

    @Test("put clips at the right edge and counts only the cells written")
    func putClipsAtRightEdge() {
        var buffer = CellBuffer(width: 6, height: 1, fill: Cell("x"))
        #expect(buffer.put("temperature", x: 3, y: 0) == 3)
        #expect(buffer.text() == "xxxtem")
    }

    @Test("put clips a negative x at the left edge")
    func putClipsAtLeftEdge() {
        var buffer = CellBuffer(width: 6, height: 1, fill: Cell("x"))
        #expect(buffer.put("abcdef", x: -2, y: 0) == 4)
        #expect(buffer.text() == "cdefxx")
    }

    @Test("put outside the rows or past the right edge writes nothing")
    func putOutsideWritesNothing() {
        var buffer = CellBuffer(width: 4, height: 2, fill: Cell("x"))
        #expect(buffer.put("abc", x: 0, y: -1) == 0)
        #expect(buffer.put("abc", x: 0, y: 2) == 0)
        #expect(buffer.put("abc", x: 4, y: 0) == 0)
        #expect(buffer.put("abc", x: -3, y: 0) == 0)
        #expect(buffer.text() == "xxxx\nxxxx")
    }

    @Test("put stops at maxWidth even when the buffer has room")
    func putHonoursMaxWidth() {
        var buffer = CellBuffer(width: 10, height: 1, fill: Cell("x"))
        #expect(buffer.put("package", x: 1, y: 0, maxWidth: 4) == 4)
        #expect(buffer.text() == "xpackxxxxx")
    }

    @Test("put with maxWidth zero or negative writes nothing, and a huge one does not overflow")
    func putWithDegenerateMaxWidth() {
        var buffer = CellBuffer(width: 4, height: 1, fill: Cell("x"))
        #expect(buffer.put("ab", x: 0, y: 0, maxWidth: 0) == 0)
        #expect(buffer.put("ab", x: 0, y: 0, maxWidth: -5) == 0)
        #expect(buffer.put("abcdef", x: 1, y: 0, maxWidth: Int.max) == 3)
        #expect(buffer.text() == "xabc")
    }

    @Test("put applies the style to every cell it writes")
    func putAppliesStyle() {
        var buffer = CellBuffer(width: 4, height: 1)
        let hot = CellStyle(fg: .red, bold: true)
        buffer.put("hot", x: 0, y: 0, style: hot)
        #expect(buffer[0, 0] == Cell("h", style: hot))
        #expect(buffer[2, 0].style == hot)
        #expect(buffer[3, 0] == .blank)
    }

    @Test("subscript ignores writes outside the buffer and reads them as blank")
    func subscriptOutOfRange() {
        var buffer = CellBuffer(width: 2, height: 2, fill: Cell("x"))
        buffer[5, 0] = Cell("!")
        buffer[-1, 1] = Cell("!")
        buffer[0, 2] = Cell("!")
        #expect(buffer.text() == "xx\nxx")
        #expect(buffer[9, 9] == .blank)
    }

    // MARK: sanitising

    @Test("an escape sequence from sysfs renders as text with no ESC cell")
    func escapeSequenceIsNeutralised() {
        var buffer = CellBuffer(width: 12, height: 1)
        buffer.put("a\u{1b}[2Jb", x: 0, y: 0)
        #expect(!buffer.cells.contains { $0.char == "\u{1b}" })
        #expect(buffer.text() == "a?[2Jb")
    }

    @Test(
        "control, C1, bidi, invisible, wide and combining characters become ?",
        arguments: [
            ("NUL", "\u{0}"), ("BEL", "\u{7}"), ("backspace", "\u{8}"), ("tab", "\t"),
            ("newline", "\n"), ("carriage return", "\r"), ("CRLF", "\r\n"), ("ESC", "\u{1b}"),
            ("DEL", "\u{7f}"), ("C1 CSI", "\u{9b}"), ("C1 NEL", "\u{85}"), ("soft hyphen", "\u{ad}"),
            ("zero-width space", "\u{200b}"), ("zero-width joiner", "\u{200d}"),
            ("right-to-left override", "\u{202e}"), ("line separator", "\u{2028}"),
            ("word joiner", "\u{2060}"), ("byte order mark", "\u{feff}"),
            ("CJK ideograph", "温"), ("fullwidth A", "Ａ"), ("emoji", "🔥"),
            ("emoji-width square", "\u{25fe}"), ("e with combining acute", "e\u{301}"),
            ("heart with emoji selector", "\u{2665}\u{fe0f}"), ("replacement char", "\u{fffd}"),
        ] as [(String, String)]
    )
    func unsafeCharactersAreReplaced(name: String, text: String) {
        #expect(CellBuffer.sanitize(text) == "?", "\(name)")
        var buffer = CellBuffer(width: 3, height: 1, fill: Cell("x"))
        #expect(buffer.put(text, x: 1, y: 0) == 1, "\(name)")
        #expect(buffer.row(0) == "x?x", "\(name)")
    }

    @Test(
        "ASCII, Latin-1 and drawing characters pass through unchanged",
        arguments: [
            "Package id 0: +45.0°C", "café µs ±2 ×3", "• – — … ‰ ‹›",
            "←↑→↓⇒", "─│┌┐└┘├┤┬┴┼═║╔╗╭╮╰╯", "▁▂▃▄▅▆▇█░▒▓▌▐",
            "■□▲▶▼◀●○◆", "⠁⠂⣿⡇", "♥♠♣♦ ✓✗ ★ ⚠ ℃ ≤≥≈−∞",
        ]
    )
    func safeCharactersPassThrough(text: String) {
        #expect(CellBuffer.sanitize(text) == text)
    }

    @Test("sanitize keeps one character per column so count measures width")
    func sanitizeMeasuresColumns() {
        let raw = "acpi\u{1b}]0;pwn\u{7}tz温🔥"
        let safe = CellBuffer.sanitize(raw)
        #expect(safe == "acpi?]0;pwn?tz??")
        #expect(safe.count == safe.unicodeScalars.count)
    }

    @Test("a fill cell or a subscript write with an unsafe character stores ?")
    func fillAndSubscriptSanitise() {
        var buffer = CellBuffer(width: 3, height: 1, fill: Cell("\u{1b}"))
        #expect(buffer.row(0) == "???")
        buffer[1, 0] = Cell("\u{9b}")
        buffer.fill(Rect(x: 2, y: 0, width: 1, height: 1), with: Cell("\u{7}"))
        buffer[0, 0] = Cell("ok".first!)
        #expect(buffer.row(0) == "o??")
    }

    @Test("a cell is plain data: one safe scalar and a style, no reference, so screens copy and diff as bytes")
    func cellIsPlainData() {
        #expect(_isPOD(Cell.self))
        #expect(MemoryLayout<Cell>.stride <= 12)
        // Made unsafe, a cell already holds the replacement, before any buffer sees it.
        #expect(Cell("e\u{301}").scalar == "?")
        #expect(Cell("🔥").char == "?")
        #expect(Cell("°").scalar == "°")
        #expect(Cell("\u{1b}", style: CellStyle(fg: .red)) == Cell("?", style: CellStyle(fg: .red)))
    }

    @Test("the ASCII fallback turns box drawing into lines and corners")
    func asciiFallbackForBoxes() {
        let line = "┌─┐│└┘█▁°x温"
        #expect(String(line.map(CellBuffer.asciiFallback)) == "+-+|++#_ox?")
    }

    // MARK: fill, clear, text

    @Test("text snapshot shows untouched cells of a sentinel fill and trims trailing spaces")
    func textSnapshotWithSentinel() {
        var buffer = CellBuffer(width: 8, height: 3, fill: Cell("x"))
        buffer.fill(Rect(x: 1, y: 1, width: 10, height: 5), with: .blank)
        buffer.put("ok", x: 2, y: 1)
        #expect(buffer.text() == """
            xxxxxxxx
            x ok
            x
            """)
        #expect(buffer.row(1) == "x ok    ")
    }

    @Test("fill clips to the buffer and clear blanks everything")
    func fillClipsAndClearBlanks() {
        var buffer = CellBuffer(width: 4, height: 2)
        buffer.fill(Rect(x: -2, y: -2, width: 4, height: 3), with: Cell("#"))
        #expect(buffer.text() == "##\n")
        buffer.clear()
        #expect(buffer == CellBuffer(width: 4, height: 2))
    }

    @Test("a zero-sized buffer accepts writes without crashing")
    func zeroSizedBuffer() {
        var buffer = CellBuffer(width: 0, height: 0)
        #expect(buffer.put("abc", x: 0, y: 0) == 0)
        buffer.fill(Rect(x: 0, y: 0, width: 5, height: 5), with: Cell("x"))
        #expect(buffer.text() == "")
        #expect(buffer.diff(from: nil).isEmpty)
    }

    // MARK: diff

    @Test("diff of an unchanged buffer is empty")
    func diffUnchangedIsEmpty() {
        var buffer = CellBuffer(width: 5, height: 3)
        buffer.put("same", x: 0, y: 1)
        #expect(buffer.diff(from: buffer).isEmpty)
    }

    @Test("diff of one changed cell is one run of one cell")
    func diffOneCell() {
        let before = CellBuffer(width: 5, height: 3)
        var after = before
        after[3, 2] = Cell("!")
        #expect(after.diff(from: before) == [CellRun(x: 3, y: 2, cells: [Cell("!")])])
    }

    @Test("a style change alone counts as a change")
    func diffStyleOnly() {
        let before = CellBuffer(width: 3, height: 1)
        var after = before
        after[1, 0] = Cell(" ", style: CellStyle(bg: .red))
        #expect(after.diff(from: before).map(\.x) == [1])
    }

    @Test("diff joins neighbouring changes into maximal runs, one row at a time")
    func diffMaximalRuns() {
        let before = CellBuffer(width: 6, height: 2, fill: Cell("x"))
        var after = before
        after.put("ab", x: 1, y: 0)
        after.put("c", x: 4, y: 0)
        after.put("de", x: 4, y: 1)
        after.put("f", x: 0, y: 1)
        let runs = after.diff(from: before)
        #expect(runs.map { [$0.x, $0.y, $0.cells.count] } == [[1, 0, 2], [4, 0, 1], [0, 1, 1], [4, 1, 2]])
        #expect(String(runs[0].cells.map(\.char)) == "ab")
    }

    @Test("diff rewriting a cell with the same content is not a change")
    func diffSameContent() {
        var before = CellBuffer(width: 4, height: 1)
        before.put("temp", x: 0, y: 0)
        var after = before
        after.put("temp", x: 0, y: 0)
        #expect(after.diff(from: before).isEmpty)
    }

    @Test("diff against nothing or a resized buffer redraws every row in full")
    func diffFullRedraw() {
        var buffer = CellBuffer(width: 3, height: 2, fill: Cell("x"))
        buffer.put("a", x: 0, y: 0)
        let expected = [
            CellRun(x: 0, y: 0, cells: [Cell("a"), Cell("x"), Cell("x")]),
            CellRun(x: 0, y: 1, cells: [Cell("x"), Cell("x"), Cell("x")]),
        ]
        #expect(buffer.diff(from: nil) == expected)
        #expect(buffer.diff(from: CellBuffer(width: 4, height: 2, fill: Cell("x"))) == expected)
        #expect(buffer.diff(from: CellBuffer(width: 3, height: 1, fill: Cell("x"))) == expected)
    }

    // MARK: Rect

    @Test("inset shrinks every side and never goes negative")
    func rectInset() {
        let rect = Rect(x: 2, y: 3, width: 10, height: 4)
        #expect(rect.inset(by: 1) == Rect(x: 3, y: 4, width: 8, height: 2))
        #expect(rect.inset(by: 3).isEmpty)
        #expect(Rect(x: 0, y: 0, width: -3, height: 2).width == 0)
    }

    @Test("splits and equal divisions cover the rectangle exactly")
    func rectSplits() {
        let rect = Rect(x: 0, y: 0, width: 10, height: 7)
        let (top, rest) = rect.splitTop(2)
        #expect(top == Rect(x: 0, y: 0, width: 10, height: 2))
        #expect(rest == Rect(x: 0, y: 2, width: 10, height: 5))
        #expect(rect.splitLeft(20).rest.isEmpty)
        #expect(rect.splitRight(3).right == Rect(x: 7, y: 0, width: 3, height: 7))
        #expect(rect.splitBottom(1).bottom == Rect(x: 0, y: 6, width: 10, height: 1))
        #expect(rect.rows(3).map(\.height) == [3, 2, 2])
        #expect(rect.rows(3).map(\.y) == [0, 3, 5])
        #expect(rect.columns(4).map(\.width) == [3, 3, 2, 2])
        #expect(rect.columns(0).isEmpty)
    }

    @Test("intersection of disjoint rectangles is empty")
    func rectIntersection() {
        let a = Rect(x: 0, y: 0, width: 4, height: 4)
        #expect(a.intersection(Rect(x: 2, y: 2, width: 4, height: 4)) == Rect(x: 2, y: 2, width: 2, height: 2))
        #expect(a.intersection(Rect(x: 10, y: 0, width: 1, height: 1)).isEmpty)
        #expect(a.contains(x: 3, y: 3) && !a.contains(x: 4, y: 0))
    }

    @Test("a diff limited to some rows reports changes there and ignores the others")
    func diffLimitedToRows() {
        let before = CellBuffer(width: 6, height: 3)
        var after = before
        after.put("a", x: 1, y: 0)
        after.put("b", x: 4, y: 2)
        #expect(after.diff(from: before, rows: 2..<3) == [CellRun(x: 4, y: 2, cells: [Cell("b")])])
        #expect(after.diff(from: before, rows: 1..<2).isEmpty)
        #expect(after.diff(from: before, rows: 0..<9).count == 2)
        #expect(after.diff(from: nil, rows: 2..<3).count == 3)
    }
}
