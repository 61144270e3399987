import Foundation
import Testing

/// Issue 9: the root command's dashboard options (`--delay`, `--no-color`, `--ascii`,
/// `--on-change…`) are also parsed after a subcommand's name; a subcommand that does not use
/// one refuses it with exit 64 instead of silently ignoring it.
@Suite("Root options given to subcommands that do not use them")
struct RootOptionsTests {
    static let fixture = Thermtop.fixtures.appendingPathComponent("intel-laptop").path

    @Test("refused with exit 64, naming the option and where it applies", arguments: [
        (["status", "--delay", "5"], "--delay"),
        (["status", "--json", "--no-color"], "--no-color"),
        (["status", "--on-change", "true"], "--on-change"),
        (["export", "--textfile", "/tmp/thermtop-never-written.prom", "--delay", "2"], "--delay"),
        (["watch", "--ascii"], "--ascii"),
        (["config", "--print-default", "--no-color"], "--no-color"),
    ] as [([String], String)])
    func refused(_ args: [String], _ flag: String) throws {
        let r = try Thermtop.run(args + (args[0] == "config" ? [] : ["--sysfs-root", Self.fixture]))
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("does not use \(flag)"), "\(r.stderr)")
        #expect(r.stderr.contains("\(flag) is for the dashboard"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("every root-only option is refused by a command that uses none, with where it applies", arguments: [
        (["--delay", "5"], "--delay is for the dashboard, watch and record; export repeats with --every"),
        (["--no-color"], "--no-color is for the dashboard"),
        (["--ascii"], "--ascii is for the dashboard"),
        (["--on-change", "true"], "--on-change is for the dashboard and watch"),
        (["--on-change-min-interval", "5"], "--on-change-min-interval is for the dashboard and watch"),
        (["--on-change-timeout", "5"], "--on-change-timeout is for the dashboard and watch"),
        (["--on-change-simulated"], "--on-change-simulated is for the dashboard and watch"),
    ] as [([String], String)])
    func everyRootOnlyOptionRefused(_ option: [String], _ message: String) throws {
        let r = try Thermtop.run(["capture", "/tmp/thermtop-never-written-capture"] + option + ["--sysfs-root", Self.fixture])
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("`thermtop capture` does not use \(option[0]) (\(message)).\n"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/thermtop-never-written-capture"))
    }

    @Test("record and capture read no config file: --config and --no-config are refused with 64, even a missing file, not ignored",
          arguments: [["record", "/tmp/thermtop-never-written.jsonl", "--seconds", "0", "--config", "/nonexistent.toml"],
                      ["capture", "/tmp/thermtop-never-written-capture", "--no-config"],
                      ["--no-config", "record", "/tmp/thermtop-never-written.jsonl", "--seconds", "0"]])
    func configOptionsRefusedWhereNoConfigIsRead(_ args: [String]) throws {
        let r = try Thermtop.run(args + ["--sysfs-root", Self.fixture])
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("reads no config file, so it does not use --"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/thermtop-never-written.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/thermtop-never-written-capture"))
    }

    @Test("the options a subcommand uses still work: watch --delay and --on-change")
    func watchKeepsItsOwn() throws {
        let r = try Thermtop.run(["watch", "--delay", "0.5", "--on-change", "true", "--sysfs-root", "/nonexistent"])
        // Rejected for the missing root, not for --delay/--on-change.
        #expect(r.status == 64)
        #expect(!r.stderr.contains("does not use"), "\(r.stderr)")
        #expect(r.stderr.contains("no such directory"), "\(r.stderr)")
    }

    @Test("status --help describes the forcing options for a one-shot command")
    func statusHelpWording() throws {
        let r = try Thermtop.run(["status", "--help"])
        #expect(r.status == 0)
        #expect(!r.text.contains("Start with"), "\(r.text)")
        #expect(r.text.contains("Force the thermal state"))
        #expect(r.text.contains("Force low power on or off"))
    }
}
