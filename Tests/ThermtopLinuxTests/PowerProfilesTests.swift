import Foundation
import Testing
import ThermtopTestSupport
import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// Against a real dbus-daemon with python3-dbusmock's power-profiles-daemon; see DBusPeer.
@Suite("power profiles over D-Bus: a real dbus-daemon with python3-dbusmock",
       .needs(.dbus))
struct PowerProfilesDBusTests {
    @Test("while the bus gives the profile the state file is not read (its profile would be replaced); when the daemon leaves it is read again")
    func stateFileUnreadWhileTheBusAnswers() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "power-saver")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-ppd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("[State]\nProfile=balanced\n".utf8).write(to: dir.appendingPathComponent("state.ini"))
        let source = SysfsSource(root: SysfsRoot(path: Fixture.path("legion-go-s-couchside")),
                                 ppdStatePath: dir.appendingPathComponent("state.ini").path)
        let bus = PowerProfilesSource(address: peer.address)
        source.powerProfiles = bus
        func readsOfOneSample(_ t: Double) -> (Int, LowPowerSignals) {
            let before = source.readStats?.fileReads ?? -1
            let snap = source.sample(at: t)
            return ((source.readStats?.fileReads ?? -1) - before, snap.lowPower)
        }
        _ = source.sample(at: 0)
        let (withBus, busSignals) = readsOfOneSample(1)
        #expect(busSignals.powerProfilesDaemon == "power-saver" && busSignals.powerProfileOrigin == .dbus)
        peer.stopMock("net.hadess.PowerProfiles")
        _ = try #require(waitForHint(bus, since: monotonicSeconds(), timeout: 2) { _ in true })
        #expect(bus.reading == nil)
        let (withoutBus, fileSignals) = readsOfOneSample(2)
        #expect(fileSignals.powerProfilesDaemon == "balanced" && fileSignals.powerProfileOrigin == .stateFile)
        #expect(withoutBus == withBus + 1, "state.ini read with the bus answering (\(withBus) reads) or not after it left (\(withoutBus))")
    }

    @Test("ActiveProfile and PerformanceDegraded are read at creation, through the net.hadess fallback name")
    func readsAtCreation() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "power-saver", performanceDegraded: "lap-detected")

        let source = PowerProfilesSource(address: peer.address)
        #expect(source.state.active, "\(source.state.detail)")
        #expect(source.state.detail == "net.hadess.PowerProfiles")
        #expect(source.reading == PowerProfileReading(activeProfile: "power-saver", performanceDegraded: "lap-detected",
                                                      service: "net.hadess.PowerProfiles"))
        #expect(source.descriptor != nil)

        // Into the snapshot and the low-power verdict.
        let signals = LowPowerSignals(powerProfilesDaemon: "balanced", powerProfileOrigin: .stateFile).merging(source.reading)
        #expect(signals.powerProfilesDaemon == "power-saver")
        #expect(signals.performanceDegraded == "lap-detected")
        #expect(signals.powerProfileOrigin == .dbus)
        let verdict = LowPowerAssessment.assess(ThermalSnapshot(time: 0, lowPower: signals), config: ThermalConfig())
        #expect(verdict.enabled)
        #expect(verdict.reasons == ["power-profiles-daemon profile is power-saver (D-Bus)", "performance degraded: lap-detected"])
    }

    @Test("a profile switch arrives as PropertiesChanged and is read within 100 ms")
    func followsProfileSwitch() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "balanced")
        let source = PowerProfilesSource(address: peer.address)
        #expect(source.reading?.activeProfile == "balanced")
        #expect(source.reading?.performanceDegraded == nil)
        _ = source.drain()

        let start = monotonicSeconds()
        try peer.setTemplate("ActiveProfile", "power-saver")
        let sent = monotonicSeconds()
        let got = try #require(waitForHint(source, since: start, timeout: 2) { _ in true }, "no hint within 2 s")
        #expect(got.hint == .resample("D-Bus PropertiesChanged: profile power-saver"))
        #expect(source.reading?.activeProfile == "power-saver")
        // dbus-send's own start-up is part of `got.seconds`; the signal left the mock before it returned.
        let afterSend = max(0, got.seconds - (sent - start))
        #expect(got.seconds < eventDrivenBound || afterSend < eventDrivenBound, "hint \(got.seconds) s after dbus-send started, \(afterSend) s after it returned")
        print("D-Bus latency: Set → hint \(Int((got.seconds * 1000).rounded())) ms incl. dbus-send start-up")
        #expect(source.state.events >= 1)
    }

    @Test("PerformanceDegraded set and cleared is followed and becomes (and stops being) a low-power reason")
    func followsPerformanceDegraded() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "performance")
        let source = PowerProfilesSource(address: peer.address)
        _ = source.drain()

        try peer.setTemplate("PerformanceDegraded", "high-operating-temperature")
        let start = monotonicSeconds()
        let degraded = try #require(waitForHint(source, since: start, timeout: 2) { _ in true })
        #expect(degraded.hint == .resample("D-Bus PropertiesChanged: profile performance, performance degraded: high-operating-temperature"))
        let signals = LowPowerSignals().merging(source.reading)
        let verdict = LowPowerAssessment.assess(ThermalSnapshot(time: 0, lowPower: signals), config: ThermalConfig())
        #expect(verdict.reasons == ["performance degraded: high-operating-temperature"])

        try peer.setTemplate("PerformanceDegraded", "")
        _ = try #require(waitForHint(source, since: monotonicSeconds(), timeout: 2) { _ in true })
        #expect(source.reading?.performanceDegraded == nil)
        let cleared = LowPowerAssessment.assess(ThermalSnapshot(time: 0, lowPower: LowPowerSignals().merging(source.reading)), config: ThermalConfig())
        #expect(!cleared.enabled)
    }

    @Test("org.freedesktop.UPower.PowerProfiles is preferred when both names are on the bus")
    func prefersNewName() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "balanced")
        try peer.startUPowerPowerProfiles(activeProfile: "power-saver")
        let source = PowerProfilesSource(address: peer.address)
        #expect(source.reading?.service == "org.freedesktop.UPower.PowerProfiles")
        #expect(source.reading?.activeProfile == "power-saver")
        #expect(source.state.detail == "org.freedesktop.UPower.PowerProfiles")

        // A change under the other name is not ours to follow.
        _ = source.drain()
        try peer.setTemplate("ActiveProfile", "performance")
        let other = waitForHint(source, since: monotonicSeconds(), timeout: 0.3) { _ in true }
        #expect(other == nil)
        #expect(source.reading?.activeProfile == "power-saver")
    }

    @Test("the daemon leaving drops the reading (state.ini takes over); coming back is read again without waiting")
    func followsDaemonRestart() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "power-saver")
        let source = PowerProfilesSource(address: peer.address)
        #expect(source.reading?.activeProfile == "power-saver")
        _ = source.drain()

        peer.stopMock("net.hadess.PowerProfiles")
        let gone = try #require(waitForHint(source, since: monotonicSeconds(), timeout: 2) { _ in true })
        #expect(gone.hint == .resample("D-Bus net.hadess.PowerProfiles left the bus"))
        #expect(source.reading == nil)
        #expect(source.state.active)
        let fallback = LowPowerSignals(powerProfilesDaemon: "balanced", powerProfileOrigin: .stateFile).merging(source.reading)
        #expect(fallback.powerProfileOrigin == .stateFile && fallback.powerProfilesDaemon == "balanced")

        try peer.startPowerProfilesTemplate(activeProfile: "performance")
        let back = try #require(waitForHint(source, since: monotonicSeconds(), timeout: 3) {
            if case .resample(let s) = $0 { s.contains("profile performance") } else { false }
        })
        #expect(back.hint == .resample("D-Bus net.hadess.PowerProfiles: profile performance"))
        #expect(source.reading?.activeProfile == "performance")
    }

    @Test("a PropertiesChanged from a process that does not own the name is ignored")
    func ignoresSpoofedSignal() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "balanced")
        let source = PowerProfilesSource(address: peer.address)
        _ = source.drain()
        let eventsBefore = source.state.events
        try peer.python("""
            import dbus
            bus = dbus.bus.BusConnection("\(peer.address)")
            msg = dbus.lowlevel.SignalMessage("/net/hadess/PowerProfiles", "org.freedesktop.DBus.Properties", "PropertiesChanged")
            msg.append("net.hadess.PowerProfiles", dbus.Dictionary({"ActiveProfile": dbus.String("power-saver", variant_level=1)}, signature="sv"), dbus.Array([], signature="s"))
            bus.send_message(msg)
            bus.flush()
            """)
        // The signal does arrive (counted), but changes nothing and wakes nothing.
        let deadline = monotonicSeconds() + 2
        var hints: [MonitorChangeHint] = []
        while source.state.events == eventsBefore, monotonicSeconds() < deadline {
            guard let fd = source.descriptor, waitReadable(fd, events: source.pollEvents, timeout: 0.5) != nil else { continue }
            hints += source.drain()
        }
        #expect(source.state.events > eventsBefore)
        #expect(hints.isEmpty)
        #expect(source.reading?.activeProfile == "balanced")
    }

    @Test("with no power-profiles service on the bus the source listens and says so")
    func noService() throws {
        let peer = try DBusPeer()
        defer { peer.stop() }
        let source = PowerProfilesSource(address: peer.address)
        #expect(source.state.active)
        #expect(source.reading == nil)
        #expect(source.state.detail == "no power-profiles service (org.freedesktop.UPower.PowerProfiles: ServiceUnknown); watching the bus")
        #expect(source.descriptor != nil)
    }
}

@Suite("power profiles over D-Bus: no bus")
struct PowerProfilesNoBusTests {
    @Test("an address with nothing listening leaves the source unavailable with the reason")
    func noBus() {
        let path = "/tmp/thermtop-no-bus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let source = PowerProfilesSource(address: "unix:path=\(path)")
        #expect(!source.state.active)
        #expect(source.descriptor == nil)
        #expect(source.reading == nil)
        #expect(source.state.detail.hasPrefix("system bus: ENOENT"), "\(source.state.detail)")
        #expect(source.state.detail.hasSuffix("; state.ini fallback"))
        #expect(source.drain().isEmpty)
    }

    @Test("the system bus's source reports the same whether its service list is made at once or only with a bus")
    func systemBusSourceSameState() {
        let late = PowerProfilesSource(systemBusTimeout: 0.25)
        let early = PowerProfilesSource(timeout: .milliseconds(250))
        #expect(late.state == early.state)
        #expect(late.reading == early.reading)
        #expect((late.descriptor == nil) == (early.descriptor == nil))
        // What `status --json` lists as its event sources.
        let states = LinuxWakeSources(config: ThermalConfig()).states
        #expect(states.map(\.name) == ["uevent", "thermal netlink", "power profiles (D-Bus)"])
        #expect(states.last == early.state)
    }
}

/// The real `thermtop` binary against the private bus, reached through DBUS_SYSTEM_BUS_ADDRESS
/// as on a real machine.
@Suite("thermtop status with power profiles over D-Bus",
       .needs(.dbus))
struct StatusPowerProfilesTests {
    /// `<root>/.build/debug/thermtop` (`swift build --build-tests` builds it), or $THERMTOP_BINARY.
    static var binary: String? {
        if let env = ProcessInfo.processInfo.environment["THERMTOP_BINARY"], !env.isEmpty { return env }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [root.appendingPathComponent(".build/debug/thermtop").path]
            + (CommandLine.arguments.first.map { [URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("thermtop").path] } ?? [])
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("status --json takes the profile and PerformanceDegraded from D-Bus and lists the event sources")
    func statusJSON() throws {
        guard Needs.check(Self.binary != nil, "the thermtop binary is not built (swift build)") else { return }
        let peer = try DBusPeer()
        defer { peer.stop() }
        try peer.startPowerProfilesTemplate(activeProfile: "balanced", performanceDegraded: "lap-detected")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary!)
        p.arguments = ["status", "--json"]
        p.environment = peer.environment
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readToEndRetryingEINTR()
        p.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "not JSON: \(String(decoding: data, as: UTF8.self))")

        #expect(json["power_profiles_daemon"] as? String == "balanced")
        #expect(json["power_profile_origin"] as? String == "dbus")
        #expect(json["performance_degraded"] as? String == "lap-detected")
        let lowPower = try #require(json["low_power"] as? [String: Any])
        #expect(lowPower["measured"] as? Bool == true)
        #expect((lowPower["reasons"] as? [String])?.contains("performance degraded: lap-detected") == true)

        let sources = try #require(json["event_sources"] as? [[String: Any]])
        #expect(sources.map { $0["name"] as? String } == ["uevent", "thermal netlink", "power profiles (D-Bus)"])
        let dbus = try #require(sources.last)
        #expect(dbus["active"] as? Bool == true)
        #expect(dbus["detail"] as? String == "net.hadess.PowerProfiles")
        #expect(dbus["events"] as? Int == 0)
        for s in sources { #expect(s["detail"] is String && s["active"] is Bool) }
    }

    @Test("status on a fixture tree lists no event sources: the live kernel's events are not about it")
    func fixtureHasNoEventSources() throws {
        guard Needs.check(Self.binary != nil, "the thermtop binary is not built (swift build)") else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary!)
        p.arguments = ["status", "--json", "--sysfs-root", Fixture.path("intel-laptop")]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readToEndRetryingEINTR()
        p.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((json["event_sources"] as? [Any])?.isEmpty == true)
        #expect(json["performance_degraded"] is NSNull)
    }
}
