// End-to-end tests on the real binary in tmux (see DashboardTmuxTests.swift for the
// harness): the deciding sensor on the first screen, keys that arrive together, history that
// keeps real time across a tier change and a rediscovery, and SGR mouse reports.

import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite(
    "Dashboard end to end: the first screen never misleads",
    .serialized,
    .needs(.tmux)
)
struct FirstScreenTmuxTests {
    /// A private copy of a fixture with some files rewritten (`relative path` → contents).
    static func fixtureCopy(_ name: String, in dir: URL, writes: [String: String] = [:]) throws -> String {
        let tree = dir.appendingPathComponent(name).path
        let r = TmuxE2E.run("/bin/cp", ["-a", TmuxE2E.fixture(name), tree])
        try #require(r.status == 0, "cp failed: \(r.output)")
        for (path, text) in writes {
            try text.write(toFile: tree + "/" + path, atomically: false, encoding: .utf8)
        }
        return tree
    }

    static let coreDir = "devices/platform/coretemp.0/hwmon/hwmon1"

    /// The rows of the history graph's plot (between its title and its time axis).
    static func graphPlot(_ screen: String) -> [String]? {
        let lines = PaneText.lines(screen)
        guard let title = lines.firstIndex(where: { $0.contains("History of ") }) else { return nil }
        guard let axis = lines[(title + 1)...].firstIndex(where: { $0.contains("└") }) else { return nil }
        return Array(lines[(title + 1)..<axis])
    }

    /// For each column of the graph's plot, whether any of its rows has a block.
    static func graphColumns(_ screen: String) -> [Bool]? {
        guard let plot = graphPlot(screen) else { return nil }
        let blocks: Set<Character> = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let rows = plot.map { Array($0) }
        // Left of the plot: the temperature labels and the axis line `│`.
        let start = (rows.compactMap { $0.firstIndex(of: "│") }.min() ?? 0) + 1
        let width = rows.map(\.count).max() ?? 0
        guard width > start else { return [] }
        return (start..<width).map { x in rows.contains { x < $0.count && blocks.contains($0[x]) } }
    }

    @Test("a core folded under its package that decides the state is on the first screen, marked ▶, at 40x10, 80x24 and 120x40")
    func decidingCoreIsShown() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try Self.fixtureCopy("intel-laptop", in: dir, writes: [Self.coreDir + "/temp3_input": "91000\n"])
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", tree], width: 120, height: 40)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(screen.contains("Core 1 91.0 °C"), "Core 1 should decide:\n\(screen)")
        for (w, h) in [(120, 40), (80, 24), (40, 10)] {
            tmux.resize(width: w, height: h)
            let (shown, s) = tmux.waitForScreen {
                PaneText.lines($0).count >= h && PaneText.lines($0).contains { $0.hasPrefix("▶") && $0.contains("Core 1") }
            }
            #expect(shown, "at \(w)x\(h) no ▶ row shows Core 1:\n\(s)")
        }
    }

    @Test("2 and l typed in one read both apply: FAIR (SIMULATED) with low power forced on")
    func twoKeysInOneRead() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        tmux.type("2l")
        let (both, s) = tmux.waitForScreen(timeout: 3) {
            PaneText.badge($0) == "FAIR (SIMULATED)" && $0.contains("SIMULATED; measured off")
        }
        #expect(both, "2l in one read did not apply both keys:\n\(s)")
    }

    @Test("in a replay at 0.1x, 3 and then 0 show at once, not at the next recorded sample")
    func keysActAtOnceInASlowReplay() throws {
        let dir = try Run.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("calm.jsonl").path
        let r = TmuxE2E.run(TmuxE2E.binary, ["record", rec, "--seconds", "2", "--delay", "0.5", "--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        try #require(r.status == 0, "thermtop record failed: \(r.output)")
        let tmux = try TmuxDashboard(arguments: ["--replay", rec, "--speed", "0.1"])
        defer { tmux.stop() }
        let (up, first) = tmux.waitForScreen {
            PaneText.header($0).contains("REPLAY") && PaneText.lines($0).contains { $0.hasPrefix("? help q quit") }
        }
        try #require(up, "no replay on screen:\n\(first)")
        tmux.send("3")
        let (serious, s) = tmux.waitForScreen(timeout: 1.5) { PaneText.badge($0) == "SERIOUS (SIMULATED)" }
        #expect(serious, "3 did not show within 1.5 s in a 0.1x replay:\n\(s)")
        tmux.send("0")
        let (live, l) = tmux.waitForScreen(timeout: 1.5) { PaneText.badge($0) == "NOMINAL" }
        #expect(live, "0 did not show within 1.5 s in a 0.1x replay:\n\(l)")
    }

    @Test("a simulated serious re-bins the history to 15 s columns: 6 s of history fills one or two, not six")
    func historyRebinsOnTierChange() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 100, height: 34)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        let (grown, g) = tmux.waitForScreen(timeout: 15) { (Self.graphColumns($0)?.filter { $0 }.count ?? 0) >= 6 }
        try #require(grown, "no history graph with 6 columns:\n\(g)")
        tmux.send("3")
        let (rebinned, s) = tmux.waitForScreen(timeout: 3) {
            $0.contains("one column every 15 s") && (1...2).contains(Self.graphColumns($0)?.filter { $0 }.count ?? 0)
        }
        #expect(rebinned, "6+ s of history drawn at 15 s a column must fill 1 or 2 columns:\n\(s)")
        tmux.send("0")
        let (back, b) = tmux.waitForScreen(timeout: 3) { $0.contains("one column every 1 s") && (Self.graphColumns($0)?.filter { $0 }.count ?? 0) >= 6 }
        #expect(back, "back at full, the history recorded meanwhile must still be there at 1 s a column:\n\(b)")
    }

    @Test("the rediscovery 30 s after start leaves no blank column in the history graph")
    func rediscoveryLeavesNoHole() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")], width: 100, height: 34)
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        // 36 columns: past the first rediscovery (30 s) by a few samples.
        let (long, s) = tmux.waitForScreen(timeout: 50) { (Self.graphColumns($0)?.filter { $0 }.count ?? 0) >= 36 }
        try #require(long, "the history never reached 36 columns:\n\(s)")
        let cols = try #require(Self.graphColumns(s))
        let first = try #require(cols.firstIndex(of: true))
        let holes = cols[first...].indices.filter { !cols[$0] }
        #expect(holes.isEmpty, "blank columns at \(holes) of the history graph:\n\(s)")
    }

    @Test("mouse reporting asks for SGR (1006); an SGR click selects the row under it and none of its digits act as keys")
    func sgrMouseClick() throws {
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop")])
        defer { tmux.stop() }
        let (up, screen) = tmux.waitForDashboard()
        try #require(up, "the dashboard never appeared:\n\(screen)")
        #expect(tmux.format("#{mouse_sgr_flag}") == "1", "SGR mouse mode (1006) is off")
        let lines = PaneText.lines(screen)
        // The second sensor row (the first is selected at start).
        let heading = try #require(lines.firstIndex { $0.contains("Sensors (") }, "\(screen)")
        let row = heading + 2
        let name = lines[row].dropFirst(2).prefix(12).trimmingCharacters(in: .whitespaces)
        try #require(!name.isEmpty, "\(screen)")
        // A left click on it as an SGR report, 1-based: ESC [ < 0 ; x ; y M, then the release.
        tmux.type("\u{1B}[<0;5;\(row + 1)M\u{1B}[<0;5;\(row + 1)m")
        let (selected, s) = tmux.waitForScreen(timeout: 3) { $0.contains("selected: \(name)") }
        #expect(selected, "the SGR click did not select \(name):\n\(s)")
        usleep(300_000)
        let after = tmux.capture()
        #expect(!after.contains("SIMULATED"), "an SGR click's digits acted as keys:\n\(after)")
        #expect(tmux.format("#{pane_dead}") != "1")
    }
}
