import Foundation
import Synchronization
import Testing
@testable import Thermtop

/// The fixtures, relative to this file.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A copy of a fixture tree in a new temporary folder (symlinks kept as links).
    static func copy(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-apple-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-a", path(name), dir.path + "/sys"]
        try cp.run()
        cp.waitUntilExit()
        #expect(cp.terminationStatus == 0)
        return dir.appendingPathComponent("sys")
    }

    /// Cool a copy of `intel-laptop-hot` down to `intel-laptop`: its temperatures, cooling
    /// states, battery and platform profile (the throttle counters stay: they only grow).
    static func coolDown(_ tree: URL) throws {
        let cool = directory.appendingPathComponent("intel-laptop")
        let fm = FileManager.default
        let files = try #require(fm.subpathsOfDirectory(atPath: cool.path) as [String]?)
        var rewritten = 0
        for rel in files where !rel.contains("thermal_throttle") && !rel.hasSuffix("README.md") {
            let from = cool.appendingPathComponent(rel)
            let to = tree.appendingPathComponent(rel)
            guard (try? fm.destinationOfSymbolicLink(atPath: from.path)) == nil,
                  let new = fm.contents(atPath: from.path), let old = fm.contents(atPath: to.path), new != old else { continue }
            try new.write(to: to)
            rewritten += 1
        }
        #expect(rewritten > 10, "only \(rewritten) files differ between intel-laptop and intel-laptop-hot")
    }
}

/// Wait, on the main actor, until `condition` holds or `seconds` pass.
@MainActor
func eventually(within seconds: Double = 15, _ condition: @MainActor () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > end { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

@Suite("Apple's ProcessInfo API on Linux")
struct ProcessInfoThermalTests {
    @Test("ProcessInfo.ThermalState has Apple's cases and raw values")
    func thermalStateHasApplesRawValues() {
        #expect(ProcessInfo.ThermalState.nominal.rawValue == 0)
        #expect(ProcessInfo.ThermalState.fair.rawValue == 1)
        #expect(ProcessInfo.ThermalState.serious.rawValue == 2)
        #expect(ProcessInfo.ThermalState.critical.rawValue == 3)
        #expect(ProcessInfo.ThermalState(rawValue: 4) == nil)
        #expect(Set(ThermalState.allCases.map(ProcessInfo.ThermalState.init)).count == 4)
        #expect(ProcessInfo.thermalStateDidChangeNotification.rawValue == "NSProcessInfoThermalStateDidChangeNotification")
        #expect(Notification.Name.NSProcessInfoPowerStateDidChange.rawValue == "NSProcessInfoPowerStateDidChangeNotification")
    }

    @Test("a tree with nothing readable is nominal to apps, with the reason and isMeasured false")
    func unknownIsNominalWithReason() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-empty-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let monitor = ThermalProcessMonitor(sysfsRoot: empty.path)
        defer { monitor.stop() }
        #expect(monitor.thermalState == .nominal)
        #expect(!monitor.isMeasured)
        #expect(monitor.status.sampler.samples >= 1, "the first read returned the placeholder")
        #expect(!monitor.reason.isEmpty && monitor.reason != ThermalAssessment.unknown.reason, "\(monitor.reason)")
    }

    @Test("the first reads, made at once from many threads, all return the measured state, read once")
    func firstReadFromManyThreadsIsMeasured() {
        let monitor = ThermalProcessMonitor(sysfsRoot: Fixtures.path("intel-laptop-hot"))
        defer { monitor.stop() }
        let seen = Mutex<[(ProcessInfo.ThermalState, Bool, Int)]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let s = monitor.status
            seen.withLock { $0.append((ProcessInfo.ThermalState(s.thermalState), s.isLowPowerModeEnabled, s.sampler.samples)) }
        }
        let all = seen.withLock { $0 }
        #expect(all.count == 8)
        #expect(all.allSatisfy { $0.0 == .serious && $0.1 }, "\(all)")
        #expect(all.allSatisfy { $0.2 >= 1 }, "a read returned the placeholder: \(all)")
    }

    /// The one test that touches the process-wide monitor: THERMTOP_SYSFS_ROOT is read on its
    /// first use, which this test makes.
    @Test("the seeds' code reads a hot tree as serious and low power, then follows it as it cools, notified by ProcessInfo")
    @MainActor
    func seedsFollowAHotTreeAsItCools() async throws {
        let tree = try Fixtures.copy("intel-laptop-hot")
        defer { try? FileManager.default.removeItem(at: tree.deletingLastPathComponent()) }
        setenv(ThermalProcessMonitor.sysfsRootVariable, tree.path, 1)

        // The first read: a measurement of the hot tree, never a placeholder.
        #expect(ProcessInfo.processInfo.thermalState == .serious)
        #expect(ThermalProcessMonitor.shared.sysfsRoot == tree.path)
        #expect(ThermalProcessMonitor.shared.isMeasured)
        #expect(ThermalProcessMonitor.shared.reason.hasPrefix("serious: "), "\(ThermalProcessMonitor.shared.reason)")
        #expect(ProcessInfo.processInfo.isLowPowerModeEnabled)
        #expect(InferenceBudget.current() == .reduced)
        let monitor = DeviceConditionMonitor()
        #expect(monitor.thermalState == .serious)
        #expect(monitor.isLowPower)
        #expect(monitor.tier == .minimal)

        let seen = Mutex<[(name: Notification.Name, objectIsProcessInfo: Bool, stateThen: ProcessInfo.ThermalState)]>([])
        var tokens: [NSObjectProtocol] = []
        for name in [ProcessInfo.thermalStateDidChangeNotification, .NSProcessInfoPowerStateDidChange] {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                let isInfo = (note.object as AnyObject?) === ProcessInfo.processInfo
                let state = ProcessInfo.processInfo.thermalState
                seen.withLock { $0.append((note.name, isInfo, state)) }
            })
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }

        // Rewritten with the sampler stopped, so no sample sees the tree half cooled.
        ThermalProcessMonitor.shared.stop()
        #expect(!ThermalProcessMonitor.shared.isRunning)
        try Fixtures.coolDown(tree)
        #expect(ProcessInfo.processInfo.thermalState == .serious, "a stopped monitor read the tree")
        ThermalProcessMonitor.shared.start()
        #expect(await eventually { seen.withLock { $0.count } >= 2 }, "notifications: \(seen.withLock { $0.map(\.name.rawValue) })")
        #expect(await eventually { monitor.thermalState == .nominal && !monitor.isLowPower })

        #expect(ProcessInfo.processInfo.thermalState == .nominal)
        #expect(!ProcessInfo.processInfo.isLowPowerModeEnabled)
        #expect(InferenceBudget.current() == .full)
        #expect(monitor.tier == .full)
        let notes = seen.withLock { $0 }
        #expect(notes.filter { $0.name == ProcessInfo.thermalStateDidChangeNotification }.count == 1)
        #expect(notes.filter { $0.name == .NSProcessInfoPowerStateDidChange }.count == 1)
        #expect(notes.allSatisfy { $0.objectIsProcessInfo }, "the object is not ProcessInfo.processInfo")
        // A handler reads the new value, not the old one.
        #expect(notes.allSatisfy { $0.stateThen == .nominal })
    }
}
