import Foundation
import Testing
import ThermtopCore
@testable import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

@Suite("thermtop capture's reads")
struct CaptureDeadlineTests {
    @Test("a hung attribute costs the read deadline and is reported as timed out; the files around it are copied")
    func hungFileTimesOut() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-capture-\(UUID().uuidString)").path
        defer { _ = try? FileManager.default.removeItem(atPath: base) }
        let zone = base + "/src/class/thermal/thermal_zone0"
        try FileManager.default.createDirectory(atPath: zone, withIntermediateDirectories: true)
        try "x86_pkg_temp\n".write(toFile: zone + "/type", atomically: false, encoding: .utf8)
        // A FIFO nobody writes to reads like a driver that never answers.
        #expect(mkfifo(zone + "/temp", 0o644) == 0)
        defer {
            // Let the reader thread left in the hung read go.
            let w = open(zone + "/temp", O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
        }
        var config = ThermalConfig()
        config.readDeadlineSeconds = 0.1
        var capture = try SysfsCapture(source: base + "/src", destination: base + "/dst", keepSerials: false, config: config)
        var accesses = RecordedAccesses()
        accesses.reads["class/thermal/thermal_zone0/type"] = .text("x86_pkg_temp\n")
        accesses.reads["class/thermal/thermal_zone0/temp"] = .text("45000\n")
        let clock = ContinuousClock()
        let took = clock.measure { capture.copy(accesses) }
        #expect(took < .seconds(5), "the capture waited on the hung file: \(took)")
        #expect(capture.report.unreadable == ["class/thermal/thermal_zone0/temp": "timed-out"])
        #expect(try String(contentsOfFile: base + "/dst/class/thermal/thermal_zone0/type", encoding: .utf8) == "x86_pkg_temp\n")
    }
}
