import Foundation
import Glibc
import Testing

@Suite("status with hung files")
struct StatusDeadlineTests {
    @Test("status --json with five hung files (FIFOs without a writer) finishes within its 0.5 s window plus 1.25 s and reports them timed-out")
    func hungFilesAreTimedOut() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("intel-laptop")
        // `cp -a` keeps the class symlinks as symlinks, as the kernel lays them out.
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-a", Thermtop.fixtures.appendingPathComponent("intel-laptop").path, root.path]
        try cp.run()
        cp.waitUntilExit()
        try #require(cp.terminationStatus == 0)
        let hung = [
            "class/thermal/thermal_zone0/temp", "class/thermal/thermal_zone1/temp",
            "class/power_supply/BAT0/energy_now", "class/power_supply/AC/online",
            "class/thermal/cooling_device0/cur_state",
        ]
        // One more FIFO has a writer that never writes: it has nothing to say either, so it is
        // timed-out like the others.
        let silent = "class/thermal/thermal_zone3/temp"
        var writer: Int32 = -1
        for f in hung + [silent] {
            let real = root.appendingPathComponent(f).resolvingSymlinksInPath().path
            try FileManager.default.removeItem(atPath: real)
            try #require(mkfifo(real, 0o644) == 0)
            if f == silent { writer = open(real, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        }
        defer { if writer >= 0 { close(writer) } }
        let start = Date()
        // A still process table: what is timed here is the sysfs read deadline, not how many
        // processes this machine runs (heat sources walk them twice).
        let table = Thermtop.fixtures.appendingPathComponent("proc-table-1").path
        let r = try Thermtop.run(["status", "--json", "--sysfs-root", root.path, "--proc-root", table])
        let elapsed = Date().timeIntervalSince(start)
        // The default window (two samples 0.5 s apart) plus the one-shot's bound: a stuck file
        // is not waited for again in the second sample.
        #expect(elapsed < 1.75, "status took \(elapsed) s")
        #expect(r.status == 0 || r.status == 69, "exit \(r.status): \(r.stderr)")
        let json = try r.json()
        let issues = (json["issues"] as? [[String: Any]]) ?? []
        let timedOut = Set(issues.filter { $0["reason"] as? String == "timed-out" }.compactMap { $0["file"] as? String })
        for f in hung { #expect(timedOut.contains(f), "\(f) not timed-out; got \(timedOut)") }
        #expect(timedOut.contains(silent), "\(silent) not timed-out; got \(timedOut)")
        // The rest was read.
        let zones = (json["zones"] as? [[String: Any]]) ?? []
        #expect(zones.contains { ($0["celsius"] as? NSNumber)?.doubleValue == 52.05 }, "thermal_zone5 not read: \(zones)")
    }
}
