import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Dashboard end to end: the Heating it panel on a captured process table", .serialized, .needs(.tmux))
struct HeatPanelTmuxTests {
    @Test("--proc-root on the fixture tables: the panel lists cc1plus ×2 beside the sensors, Tab and Enter open its processes, Esc closes")
    func panelOnFixtureTable() throws {
        // `proc` points at the first walk; after the first sample it points at the second, and
        // `r` samples again: the window between them is the fixture's.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-heat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("proc")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: TmuxE2E.fixture("proc-table-1"))
        let tmux = try TmuxDashboard(arguments: ["--sysfs-root", TmuxE2E.fixture("intel-laptop"), "--proc-root", link.path,
                                                 "--delay", "600"], width: 160, height: 40)
        defer { tmux.stop() }
        let (up, first) = tmux.waitForScreen(timeout: 10) { $0.contains("Heating it") && $0.contains("needs two samples") }
        try #require(up, "the panel never appeared, measuring:\n\(first)")

        let next = dir.appendingPathComponent("proc.next")
        try FileManager.default.createSymbolicLink(atPath: next.path, withDestinationPath: TmuxE2E.fixture("proc-table-2"))
        try #require(rename(next.path, link.path) == 0)
        tmux.send("r")
        let (measured, screen) = tmux.waitForScreen(timeout: 10) { $0.contains("cc1plus ×2") }
        try #require(measured, "the second walk never named cc1plus ×2:\n\(screen)")
        let rows = PaneText.lines(screen)
        let row = try #require(rows.first { $0.contains("cc1plus ×2") })
        #expect(row.contains("Sensors") || row.hasPrefix("▶") || row.hasPrefix("  "), "beside a sensor row: \(row)")
        #expect(row.contains(" %") && row.contains("–"), "CPU figures and an unknown GPU: \(row)")
        #expect(rows.contains { $0.contains("Heating it (") && $0.contains("by CPU") })
        // The unreadable stat (pid 700) is counted, not left out.
        #expect(screen.contains("unreadable"), "\(screen)")
        // Nothing from the hostile names reaches the terminal as an escape.
        #expect(!tmux.capture(escapes: true).contains("\u{1B}]0;"))

        tmux.send("w")
        let (watts, w) = tmux.waitForScreen { $0.contains("by ≈ W") }
        #expect(watts, "w did not change the order:\n\(w)")
        tmux.send("Tab")
        tmux.send("Home")
        tmux.send("Enter")
        // Its frame can be captured half written: waited for whole, with its rows.
        let (opened, o) = tmux.waitForScreen {
            $0.contains("Heating it: cc1plus (Enter/Esc closes)") && $0.contains("100") && $0.contains("101")
        }
        try #require(opened, "Enter did not open the group:\n\(o)")
        #expect(o.contains("100") && o.contains("101") && o.contains("cc1plus"), "\(o)")
        tmux.send("Escape")
        let (closed, c) = tmux.waitForScreen { !$0.contains("Enter/Esc closes") && $0.contains("cc1plus ×2") }
        #expect(closed, "Esc did not close the group:\n\(c)")
        tmux.send("q")
        #expect(tmux.waitForExitStatus() == 0)
    }
}
