import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// The battery reading limits live in `ThermalConfig` (one place); the reader follows them.
@Suite struct BatteryLimitsTests {
    @Test("energy_now above full is clamped and noted exactly past ThermalConfig.batteryOverFullTolerance")
    func overFullFollowsTheConfiguredTolerance() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let full = 50_000_000.0   // µWh
        try copy.write("class/power_supply/BAT0/energy_full", "\(Int(full))\n")
        func sample(_ factor: Double) -> ThermalBattery? {
            try? copy.write("class/power_supply/BAT0/energy_now", "\(Int(full * factor))\n")
            return SysfsSource(path: copy.path).sample(at: 0).battery("BAT0")
        }
        let tolerance = ThermalConfig.batteryOverFullTolerance
        let under = try #require(sample(tolerance - 0.01))
        #expect(!under.issues.contains { $0.file.hasSuffix("energy_now") }, "\(under.issues)")
        #expect(near(under.energyNow, full / 1e6 * (tolerance - 0.01), 0.001))
        let over = try #require(sample(tolerance + 0.01))
        #expect(over.issues.contains { $0.file.hasSuffix("energy_now") && $0.reason == .implausible })
        #expect(near(over.energyNow, full / 1e6, 0.001), "clamped to full")
    }
}

/// `watch` stops when its source goes, judging from the status alone (no downcast of the source).
@Suite struct SourceVanishedTests {
    @Test("a sample of a deleted sysfs root says the source vanished; a healthy sample does not")
    func vanishedRootIsInTheSnapshot() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let healthy = source.sample(at: 0)
        #expect(healthy.sourceVanished == nil)
        #expect(!healthy.isEmpty)
        try FileManager.default.removeItem(at: copy.root)
        let gone = source.sample(at: 1)
        let issue = try #require(gone.sourceVanished, "\(gone.issues)")
        #expect(issue.reason == .vanished)
        #expect(issue.detail?.contains(copy.path) == true)
    }
}
