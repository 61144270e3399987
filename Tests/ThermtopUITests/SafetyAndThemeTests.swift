import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Sanitising, ASCII theme and monochrome")
struct SafetyAndThemeTests {
    /// Every state worth drawing: each scenario, a long list with a long name, each overlay.
    static func allStates(_ transform: (inout AppState) -> Void = { _ in }) -> [(String, AppState)] {
        var bases = Fixtures.Scenario.allCases.map { ($0.rawValue, $0.state) }
        var many = Fixtures.manySensorsState(count: 30)
        many.selectRow(7)   // the long-named channel
        bases.append(("many-sensors", many))
        many.selectRow(29)  // scrolled to the bottom: the outdoor channel below zero
        bases.append(("many-sensors-bottom", many))
        var hostile = SafetyAndThemeTests.hostileState()
        hostile.selectRow(0)
        bases.append(("hostile", hostile))
        var out: [(String, AppState)] = []
        for (name, base) in bases {
            for overlay in [Overlay.none, .help, .debug, .detail(base.selectedID ?? "")] {
                var s = base
                s.overlay = overlay
                transform(&s)
                out.append(("\(name)/\(overlay)", s))
            }
        }
        return out
    }

    static let sizes = Size.all + [Size(100, 30), Size(60, 15)]

    // MARK: - sanitising

    static let evilType = "evil\u{1b}[2J\u{07}zone"

    /// A laptop whose hottest zone has a type with a clear-screen sequence and a bell, and whose
    /// host name, cooling device, battery, reading issue and source label carry escapes too.
    static func hostileState() -> AppState {
        var snap = Fixtures.intelLaptop(time: 0, package: 93, skin: 44, packageType: evilType)
        snap.coolingDevices[0].type = "Proc\u{1b}]0;pwned\u{07}essor"
        snap.batteries[0].id = "BAT\u{1b}[31m0"
        snap.zones[2].issues = [ReadingIssue(file: "class/thermal/thermal_zone2/temp", reason: .readFailed,
                                             detail: "\u{1b}[H\u{1b}[2J\u{07}\u{9b}31m")]
        var state = Fixtures.appState([snap], sourceLabel: "/tmp/\u{1b}[2Jroot", simulated: false)
        state.hostname = "host\u{1b}[5m\u{07}"
        return state
    }

    static func isControl(_ c: Character) -> Bool {
        c.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f || (0x80..<0xa0).contains($0.value) }
    }

    @Test("a zone type holding ESC [2J and BEL renders with no ESC, BEL or other control cell anywhere",
          arguments: sizes)
    func escapesNeverReachTheBuffer(size: Size) {
        for overlay in [Overlay.none, .help, .debug, .detail("thermal_zone1")] {
            var state = Self.hostileState()
            state.overlay = overlay
            for unicode in [true, false] {
                state.unicode = unicode
                let buf = state.render(size)
                let bad = buf.cells.filter { $0.char == "\u{1b}" || $0.char == "\u{07}" || Self.isControl($0.char) }
                #expect(bad.isEmpty, "\(overlay) \(size.testDescription): \(bad.count) control cells")
                #expect(buf.cells.allSatisfy { CellBuffer.isSafe($0.char) })
            }
        }
    }

    @Test("the hostile zone is shown, deciding the state, with its escapes drawn as ?")
    func hostileZoneShownSanitised() {
        let state = Self.hostileState()
        #expect(state.status.assessment.decidedBy == "thermal_zone1")
        let text = state.render(.large).text()
        #expect(text.contains("▶ evil?[2J?zone"))
        #expect(text.contains("serious: evil?[2J?zone 93.0 °C"))
        #expect(text.contains("host?[5m?"))
        #expect(text.contains("Proc?]0;pwned?essor"))
        #expect(text.contains("BAT?[31m0"))
        var debug = state
        debug.overlay = .debug
        let d = debug.render(.large).text()
        #expect(d.contains("Deciding sensor evil?[2J?zone (thermal_zone1)"))
        #expect(d.contains("read-failed (?[H?[2J??31m)"))
        var detail = state
        detail.overlay = .detail("thermal_zone1")
        #expect(detail.render(.large).text().contains("kernel name evil?[2J?zone · thermal_zone1 · kind zone"))
    }

    // MARK: - ASCII

    @Test("with the ASCII theme no cell holds a character outside ASCII", arguments: sizes)
    func asciiOnly(size: Size) {
        let states = Self.allStates {
            $0.unicode = false
            $0.hostname = "build-runner-0042.ci.example.org"
        }
        for (name, state) in states {
            let buf = state.render(size)
            let bad = buf.rows.enumerated().filter { !$0.element.unicodeScalars.allSatisfy(\.isASCII) }
            #expect(bad.isEmpty, "\(name) at \(size.testDescription):\n\(bad.map { "\($0.offset): \($0.element)" }.joined(separator: "\n"))")
        }
    }

    @Test("the ASCII theme still draws bars, gauge, sparklines, marker and pulse")
    func asciiStillDraws() {
        var state = Fixtures.Scenario.reduced.state
        state.unicode = false
        let rows = state.render(.large).rows
        #expect(rows[0].contains(Pulse.frame(tick: state.tick, tier: .reduced, unicode: false)))
        #expect(!rows[0].contains("♥"))
        #expect(rows[4].hasPrefix(" Sensor") && rows[4].contains(" C "))
        #expect(rows[5].hasPrefix("> CPU (x86_pkg_temp)"))
        #expect(rows[5].contains("####") && rows[5].contains("|"))
        #expect(rows.contains { $0.contains(" 81 % ================----") })
        // `≥` keeps its meaning (`>=`), and the degree is spelt as the column heading spells it.
        #expect(rows[2].contains("83.0 C >= 80.0 C"))
        #expect(!rows.contains { $0.contains("oC") })
    }

    // MARK: - colour

    @Test("monochrome: no cell has a foreground or background colour", arguments: sizes)
    func monochrome(size: Size) {
        for (name, state) in Self.allStates({ $0.color = false }) {
            let buf = state.render(size)
            let coloured = buf.cells.filter { $0.style.fg != .defaultColor || $0.style.bg != .defaultColor }
            #expect(coloured.isEmpty, "\(name) at \(size.testDescription): \(coloured.count) coloured cells")
        }
    }

    @Test("monochrome still sets the badge apart in reverse video, and colour paints it by level",
          arguments: Fixtures.Scenario.allCases)
    func badgeStandsOut(scenario: Fixtures.Scenario) throws {
        var state = scenario.state
        let coloured = state.render(.large)
        let header = coloured.row(0)
        let range = try #require(header.range(of: scenario.expectedBadge))
        let columns = header.distance(from: header.startIndex, to: range.lowerBound)..<header.distance(from: header.startIndex, to: range.upperBound)
        let level = Theme(unicode: true, color: true).levelColor(state.status.thermalState)
        for x in columns { #expect(coloured[x, 0].style.bg == level) }
        state.color = false
        let mono = state.render(.large)
        for x in columns { #expect(mono[x, 0].style.reverse && mono[x, 0].style.bold) }
    }
}
