import Foundation
import Testing
import ThermtopTestSupport

/// Bad invocations and lost output, run on the real binary: a clear message on stderr, the
/// conventional exit status (64 usage, 69 nothing readable, 74 output lost), nothing on stdout.
@Suite("Bad invocation and output errors (real binary)")
struct BadInvocationTests {
    static let fixture = Thermtop.fixtures.appendingPathComponent("intel-laptop").path

    /// Runs `sh -c script` with the binary as `$0` (for redirections the Process API cannot express).
    static func shell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let exe = try #require(Thermtop.binary, "thermtop executable not found")
        let r = try Thermtop.spawn(URL(fileURLWithPath: "/bin/sh"), ["-c", script, exe.path])
        return (r.status, r.text, r.stderr)
    }

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("status to a full device (/dev/full) fails with a message and exit 74", arguments: [false, true])
    func fullDevice(json: Bool) throws {
        let r = try Self.shell("\"$0\" status \(json ? "--json " : "")--sysfs-root '\(Self.fixture)' > /dev/full")
        #expect(r.status == 74, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("cannot write the report"), "\(r.stderr)")
        #expect(r.stderr.contains("No space left on device"), "\(r.stderr)")
    }

    @Test("status with stdout closed (>&-) fails with a message and exit 74", arguments: [false, true])
    func closedStdout(json: Bool) throws {
        let r = try Self.shell("\"$0\" status \(json ? "--json " : "")--sysfs-root '\(Self.fixture)' >&-")
        #expect(r.status == 74, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("standard output is closed"), "\(r.stderr)")
    }

    @Test("status with stdin and stderr closed still writes the whole report and exits 0")
    func closedStdinAndStderr() throws {
        let r = try Self.shell("\"$0\" status --json --sysfs-root '\(Self.fixture)' <&- 2>&-")
        #expect(r.status == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(obj?["schema"] as? String == "thermtop.status/1")
    }

    @Test("a --delay out of range, negative, NaN or infinite is refused with exit 64 and the range",
          arguments: ["0", "-1", "-0.5", "nan", "inf", "1e400", "100000", "0.1"])
    func badDelay(_ value: String) throws {
        let r = try Thermtop.run(["--delay", value, "--sysfs-root", Self.fixture])
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("--delay must be between 0.2 and 3600 seconds"), "\(r.stderr)")
        #expect(!r.stderr.contains("Missing value"))
        #expect(r.stdout.isEmpty)
    }

    @Test("a --delay that is not a number, or missing, is a usage error (64)", arguments: [["--delay", "abc"], ["--delay"]])
    func delayNotANumber(_ args: [String]) throws {
        let r = try Thermtop.run(args)
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("--delay"))
    }

    @Test("unknown flags and subcommands are usage errors (64) naming the culprit",
          arguments: [["--bogus"], ["status", "--jsn"], ["stauts"], ["status", "--simulate-state", "hot"]])
    func unknownFlag(_ args: [String]) throws {
        let r = try Thermtop.run(args)
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains(args.last!), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    struct RootCase: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (URL) throws -> String
        let message: String
        var testDescription: String { name }
    }

    @Test("escape sequences in a bad argument are echoed inert in the usage error (exit 64)",
          arguments: [["status", "--delay", "\u{1b}]0;pwned\u{7}\u{1b}[2J"], ["--sysfs-root", "/nonexistent/\u{1b}[31m\u{9b}x", "status"],
                      ["--b\u{1b}[2Jogus"]])
    func escapesInArgumentsAreInert(_ args: [String]) throws {
        let r = TmuxE2E.run(Proof.binary, args)
        #expect(r.status == 64, "exit \(r.status): \(r.output.debugDescription)")
        #expect(r.output.contains("Error"), "\(r.output.debugDescription)")
        #expect(Proof.garbage(in: r.output) == nil, "raw control bytes reached the terminal: \(Proof.garbage(in: r.output) ?? "")")
    }

    @Test("an unusable --sysfs-root is refused with exit 64 and says why", arguments: [
        RootCase(name: "missing", make: { $0.appendingPathComponent("nope").path }, message: "no such directory"),
        RootCase(name: "a file", make: { d in
            let f = d.appendingPathComponent("file"); try Data("x".utf8).write(to: f); return f.path
        }, message: "not a directory"),
        RootCase(name: "a path through a file", make: { d in
            let f = d.appendingPathComponent("file"); try Data("x".utf8).write(to: f); return f.path + "/sub"
        }, message: "not a directory"),
        RootCase(name: "a symlink loop", make: { d in
            let a = d.appendingPathComponent("a").path, b = d.appendingPathComponent("b").path
            symlink(b, a); symlink(a, b); return a
        }, message: "symbolic link loop"),
        RootCase(name: "a dangling symlink", make: { d in
            let a = d.appendingPathComponent("dangling").path
            symlink(d.appendingPathComponent("gone").path, a); return a
        }, message: "no such directory"),
        RootCase(name: "the filesystem root", make: { _ in "/" }, message: "filesystem root, not a sysfs tree"),
        RootCase(name: "the filesystem root spelled oddly", make: { _ in "/tmp/.." }, message: "filesystem root"),
        RootCase(name: "an empty string", make: { _ in "" }, message: "needs a directory"),
    ])
    func badRoot(_ c: RootCase) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = try c.make(dir)
        for args in [["status", "--sysfs-root", root], ["status", "--json", "--sysfs-root", root], ["--sysfs-root", root]] {
            let r = try Thermtop.run(args)
            #expect(r.status == 64, "\(args): stderr \(r.stderr)")
            #expect(r.stderr.contains(c.message), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("errno"), "bare errno: \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args) wrote \(r.text)")
        }
    }

    @Test("an unreadable --sysfs-root is refused for a non-root user (setpriv)", .needs(.root, .setpriv))
    func unreadableRoot() throws {
        let binary = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        chmod(dir.path, 0o700)
        let r = try Self.shell("exec /usr/bin/setpriv --reuid=64999 --regid=64999 --clear-groups \(Proof.quote(binary)) status --sysfs-root '\(dir.path)'")
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("permission denied"), "\(r.stderr)")
    }

    @Test("sensors present but none readable: the reason says so, JSON has nothing_readable, exit 69")
    func nothingReadable() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let z0 = dir.appendingPathComponent("class/thermal/thermal_zone0")
        let z1 = dir.appendingPathComponent("class/thermal/thermal_zone1")
        try FileManager.default.createDirectory(at: z0.appendingPathComponent("temp"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: z1, withIntermediateDirectories: true)
        try Data("x86_pkg_temp\n".utf8).write(to: z0.appendingPathComponent("type"))
        try Data("acpitz\n".utf8).write(to: z1.appendingPathComponent("type"))
        try Data("garbage\n".utf8).write(to: z1.appendingPathComponent("temp"))
        let text = try Thermtop.run(["status", "--sysfs-root", dir.path])
        #expect(text.status == 69, "stderr: \(text.stderr)")
        #expect(text.text.contains("nothing can be read"))
        #expect(text.text.contains("NOT MEASURED"))
        let json = try Thermtop.run(["status", "--json", "--sysfs-root", dir.path])
        #expect(json.status == 69)
        let j = try json.json()
        #expect(j["nothing_readable"] as? Bool == true)
        #expect(j["measured_thermal_state"] is NSNull)
        let sensors = (j["sensors"] as? [[String: Any]]) ?? []
        #expect(sensors.count == 2)
        #expect(sensors.allSatisfy { $0["level"] is NSNull }, "unknown sensors must have level null: \(sensors)")
    }

    @Test("status --help documents the exit codes")
    func helpDocumentsExitCodes() throws {
        let r = try Thermtop.run(["status", "--help"])
        #expect(r.status == 0)
        for code in ["64", "69", "74"] { #expect(r.text.contains(code), "status --help lacks \(code)") }
    }
}
