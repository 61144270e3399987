import Foundation
import Testing
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real, private `dbus-daemon` and python3-dbusmock services on it, for the power-profiles
/// tests. The daemon runs with the session configuration (anyone may own a name), on its own
/// socket; clients reach it by address, exactly as they would the system bus through
/// `DBUS_SYSTEM_BUS_ADDRESS`. Everything started is killed on `stop()` / deinit.
final class DBusPeer {
    static let daemonPath = Needs.executable("dbus-daemon")
    static let dbusSendPath = Needs.executable("dbus-send")
    /// Debian's python packages live under /usr/bin/python3, not the `python3` on PATH.
    static let python = "/usr/bin/python3"

    let address: String
    private let daemon: Process
    private var mocks: [String: Process] = [:]

    init() throws {
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: Self.daemonPath ?? "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let out = Pipe()
        daemon.standardOutput = out
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        self.daemon = daemon
        var text = ""
        let deadline = monotonicSeconds() + 5
        while !text.contains("\n"), monotonicSeconds() < deadline {
            let chunk = out.fileHandleForReading.readRetryingEINTR()
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        address = text.split(separator: "\n").first.map(String.init) ?? ""
        if address.isEmpty {
            Self.kill(daemon)
            throw PeerError("dbus-daemon printed no address")
        }
    }

    deinit { stop() }

    func stop() {
        for name in Array(mocks.keys) { stopMock(name) }
        Self.kill(daemon)
    }

    /// SIGKILL, not `terminate()`: children of the test runner's threads inherit a signal mask
    /// that blocks SIGTERM, so dbus-daemon would never see it.
    private static func kill(_ p: Process) {
        guard p.isRunning else { return }
        _ = Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    struct PeerError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        return env
    }

    /// python3-dbusmock's `power_profiles_daemon` template (the `net.hadess.PowerProfiles` name).
    func startPowerProfilesTemplate(activeProfile: String = "balanced", performanceDegraded: String = "") throws {
        let params = "{\"ActiveProfile\": \"\(activeProfile)\", \"PerformanceDegraded\": \"\(performanceDegraded)\"}"
        try startMock(key: "net.hadess.PowerProfiles",
                      ["-m", "dbusmock", "--system", "--template", "power_profiles_daemon", "--parameters", params])
        try waitFor(service: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles", interface: "net.hadess.PowerProfiles")
    }

    /// A plain dbusmock object standing for power-profiles-daemon 0.20+ / tuned-ppd under the
    /// new name, with the two properties thermtop reads.
    func startUPowerPowerProfiles(activeProfile: String, performanceDegraded: String = "") throws {
        let name = "org.freedesktop.UPower.PowerProfiles", path = "/org/freedesktop/UPower/PowerProfiles"
        try startMock(key: name, ["-m", "dbusmock", "--system", name, path, name])
        // The bare mock has no properties yet: add them through its control interface.
        try waitForName(name)
        for (prop, value) in [("ActiveProfile", activeProfile), ("PerformanceDegraded", performanceDegraded)] {
            try dbusSend(["--print-reply", "--dest=\(name)", path, "org.freedesktop.DBus.Mock.AddProperty",
                          "string:\(name)", "string:\(prop)", "variant:string:\(value)"])
        }
        try waitFor(service: name, path: path, interface: name)
    }

    private func startMock(key: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python)
        p.arguments = arguments
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        mocks[key] = p
    }

    func stopMock(_ key: String) {
        guard let p = mocks.removeValue(forKey: key) else { return }
        Self.kill(p)
    }

    /// Sets a property through `org.freedesktop.DBus.Properties.Set`; dbusmock emits
    /// PropertiesChanged for it.
    func set(service: String, path: String, interface: String, _ property: String, _ value: String) throws {
        try dbusSend(["--print-reply", "--dest=\(service)", path, "org.freedesktop.DBus.Properties.Set",
                      "string:\(interface)", "string:\(property)", "variant:string:\(value)"])
    }

    func setTemplate(_ property: String, _ value: String) throws {
        try set(service: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
                interface: "net.hadess.PowerProfiles", property, value)
    }

    /// Runs python with `dbus` against this bus (for signals dbus-send cannot build).
    func python(_ script: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python)
        p.arguments = ["-c", script]
        p.environment = environment
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw PeerError("python script failed (\(p.terminationStatus))") }
    }

    @discardableResult
    func dbusSend(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.dbusSendPath ?? "/usr/bin/dbus-send")
        p.arguments = ["--bus=\(address)"] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readToEndRetryingEINTR()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw PeerError("dbus-send \(arguments) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    private func waitForName(_ name: String) throws {
        let deadline = monotonicSeconds() + 10
        while monotonicSeconds() < deadline {
            let out = try? dbusSend(["--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus.NameHasOwner", "string:\(name)"])
            if out?.contains("boolean true") == true { return }
            usleep(20_000)
        }
        throw PeerError("\(name) did not appear on the bus within 10 s")
    }

    private func waitFor(service: String, path: String, interface: String) throws {
        let deadline = monotonicSeconds() + 10
        while monotonicSeconds() < deadline {
            if (try? dbusSend(["--print-reply", "--dest=\(service)", path, "org.freedesktop.DBus.Properties.Get",
                               "string:\(interface)", "string:ActiveProfile"])) != nil { return }
            usleep(20_000)
        }
        throw PeerError("\(service) did not answer within 10 s")
    }
}
