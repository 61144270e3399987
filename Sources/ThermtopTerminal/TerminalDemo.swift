import CNcursesw
import Glibc
import ThermtopUI

/// A temporary smoke test for the terminal layer: draws a box, coloured text and the
/// keys pressed; `q` quits, `!` crashes on purpose (to check the emergency restore).
/// Remove once the real app draws through `Terminal`.
public enum TerminalDemo {
    public static func run() {
        TerminalSignals.install()
        let terminal: Terminal
        do {
            terminal = try Terminal(color: true)
        } catch {
            fputs("thermtop: \(error)\n", thermtop_stderr())
            return
        }

        var keys: [String] = []
        var frame = 0
        var lastWritten = 0
        var reason = "q"
        loop: while true {
            if TerminalSignals.quitRequested {
                reason = "signal \(TerminalSignals.lastSignal)"
                break
            }
            let buffer = draw(
                size: terminal.size, terminal: terminal, keys: keys, frame: frame, lastWritten: lastWritten)
            lastWritten = terminal.present(buffer)
            frame += 1
            guard let key = terminal.readKey(timeoutMilliseconds: 250) else { continue }
            switch key {
            case .char("q"): break loop
            case .char("!"):
                terminal.present(CellBuffer(width: 0, height: 0))
                fatalError("TerminalDemo crashed on request")
            case .interrupt:
                reason = "Ctrl-C byte"
                break loop
            default:
                keys.append(describe(key))
                if keys.count > 8 { keys.removeFirst() }
            }
        }
        terminal.restore()
        print("TerminalDemo: quit by \(reason) after \(frame) frames")
    }

    private static func draw(
        size: (width: Int, height: Int), terminal: Terminal, keys: [String], frame: Int, lastWritten: Int
    ) -> CellBuffer {
        var buffer = CellBuffer(width: size.width, height: size.height)
        let box = buffer.bounds
        if box.width >= 2 && box.height >= 2 {
            let border = CellStyle(fg: .cyan)
            for x in box.x + 1..<box.maxX - 1 {
                buffer[x, box.y] = Cell("─", style: border)
                buffer[x, box.maxY - 1] = Cell("─", style: border)
            }
            for y in box.y + 1..<box.maxY - 1 {
                buffer[box.x, y] = Cell("│", style: border)
                buffer[box.maxX - 1, y] = Cell("│", style: border)
            }
            buffer[box.x, box.y] = Cell("╭", style: border)
            buffer[box.maxX - 1, box.y] = Cell("╮", style: border)
            buffer[box.x, box.maxY - 1] = Cell("╰", style: border)
            buffer[box.maxX - 1, box.maxY - 1] = Cell("╯", style: border)
            buffer.put(" thermtop demo ", x: 2, y: 0, style: CellStyle(bold: true), maxWidth: box.width - 4)
        }
        let inner = box.inset(by: 1).inset(dx: 1, dy: 0)
        var y = inner.y
        func line(_ text: String, _ style: CellStyle = .plain) {
            guard y < inner.maxY else { return }
            buffer.put(text, x: inner.x, y: y, style: style, maxWidth: inner.width)
            y += 1
        }
        line("size \(size.width)x\(size.height)  colours \(terminal.colorCount)  unicode \(terminal.unicode)")
        if y < inner.maxY {
            var x = inner.x
            let colours: [(String, TermColor)] = [
                ("red", .red), ("green", .green), ("yellow", .yellow), ("blue", .blue),
                ("magenta", .magenta), ("cyan", .cyan), ("gray", .gray),
            ]
            for (name, colour) in colours {
                x += buffer.put(name + " ", x: x, y: y, style: CellStyle(fg: colour), maxWidth: inner.maxX - x)
            }
            y += 1
        }
        if y < inner.maxY {
            var x = inner.x
            let styles: [(String, CellStyle)] = [
                ("bold", CellStyle(bold: true)), ("dim", CellStyle(dim: true)),
                ("reverse", CellStyle(reverse: true)), ("underline", CellStyle(underline: true)),
                ("hot", CellStyle(fg: .white, bg: .red, bold: true)),
            ]
            for (name, style) in styles {
                x += buffer.put(name, x: x, y: y, style: style, maxWidth: inner.maxX - x)
                x += buffer.put(" ", x: x, y: y, maxWidth: inner.maxX - x)
            }
            y += 1
        }
        line("sysfs text: evil\u{1b}[2J\u{7}name 45.0°C ▁▂▃▅▇█ ⣿")
        line("frame \(frame)  cells written last frame \(lastWritten)")
        line("keys: " + keys.joined(separator: " "), CellStyle(fg: .yellow))
        line("q quits, ! crashes, Ctrl-Z suspends", CellStyle(fg: .gray))
        return buffer
    }

    private static func describe(_ key: Key) -> String {
        switch key {
        case .char(let c): return "'\(c)'"
        case .function(let n): return "F\(n)"
        default: return "\(key)"
        }
    }
}
