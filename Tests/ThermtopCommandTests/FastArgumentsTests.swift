import ArgumentParser
import Testing
@testable import thermtop

/// `FastArguments` may only ever say what ArgumentParser says: whenever it accepts an argument
/// vector, the command it returns is ArgumentParser's parse of the same vector, field for field
/// (the property wrappers' descriptions print every parsed value, and an unset one prints
/// "*definition*"); whatever it does not fully understand, it declines.
@Suite("Fast argument path")
struct FastArgumentsTests {
    /// Plain words, flags, values, and the tricky ones: `=` forms, abbreviations, short names,
    /// help, the terminator, completion requests, values that are bad or look like options.
    static let tokens = [
        "status", "--json", "--simulate", "--no-config", "--no-color", "--ascii", "--version",
        "-h", "--help", "help", "--", "-", "--json=x", "--js", "-j", "--sysfs-root", "/tmp", "",
        "--simulate-state", "serious", "bogus", "--low-power", "on", "maybe", "--delay", "2", "-1",
        "nan", "0.1", "--config", "f.toml", "--ppd-state", "watch", "--simulate=true",
        "--generate-completion-script", "bash", "STATUS", "--replay", "--at", "--on-change", "/",
    ]

    /// What ArgumentParser makes of `arguments`: the command's full description, or, for
    /// `--version` and other clean exits, the text it prints; nil for an error.
    static func reference(_ arguments: [String]) -> String? {
        do {
            let command = try Thermtop.parseAsRoot(arguments)
            // The fast path gives `status` as plain values: the parsed command's, compared.
            if let status = command as? Status { return "StatusRun: \(StatusRun(status))" }
            return "\(type(of: command)): \(command)"
        } catch {
            guard Thermtop.exitCode(for: error) == .success else { return nil }
            return "exit 0: " + Thermtop.fullMessage(for: error)
        }
    }

    static func fast(_ arguments: [String]) -> String? {
        switch FastArguments.parse(arguments) {
        case .version(let text)?: return "exit 0: " + text
        case .status(let run)?: return "StatusRun: \(run)"
        case .command(let command)?: return "\(type(of: command)): \(command)"
        case nil: return nil
        }
    }

    /// Checks one vector; true when the fast path accepted it.
    @discardableResult
    static func check(_ arguments: [String]) -> Bool {
        guard let fast = fast(arguments) else { return false }
        let reference = reference(arguments)
        #expect(fast == reference, "\(arguments)")
        #expect(!fast.contains("*definition*"), "\(arguments): a field was left unset")
        return true
    }

    @Test("the everyday invocations take the fast path and equal ArgumentParser's parse", arguments: [
        [], ["--version"], ["status"], ["status", "--json"], ["status", "--json", "--no-config"],
        ["status", "--no-config", "--json"], ["--simulate"], ["--no-color", "--ascii"],
        ["--simulate-state", "serious"], ["status", "--sysfs-root", "/tmp", "--json"],
        ["--delay", "2", "--low-power", "on", "--no-config"], ["status", "--simulate", "--simulate-state", "fair"],
    ] as [[String]])
    func everydayInvocationsAreFast(_ arguments: [String]) {
        #expect(Self.check(arguments), "\(arguments) should take the fast path")
    }

    @Test("anything not fully understood falls back to ArgumentParser", arguments: [
        ["--json=x"], ["status", "--json=x"], ["status", "--json", "--json"], ["status", "--js"],
        ["status", "-j"], ["-h"], ["--help"], ["status", "--help"], ["help"], ["status", "--"],
        ["--", "status"], ["--version", "--version"], ["status", "--version"], ["--simulate=true"],
        ["--generate-completion-script", "bash"], ["STATUS"], ["watch"], ["status", "--at", "1"],
        ["--sysfs-root", ""], ["--sysfs-root", "-"], ["--sysfs-root"], ["--simulate-state", "bogus"],
        ["--low-power", "maybe"], ["--delay", "-1"], ["--delay", "nan"], ["--delay", "0.1"],
        ["status", "--delay", "2"], ["status", "--no-color"], ["--json"], ["--no-config", "status"],
        ["--sysfs-root", "/tmp", "--simulate"], ["--sysfs-root", "/"], ["--replay", "f"],
    ] as [[String]])
    func unusualInvocationsFallBack(_ arguments: [String]) {
        #expect(FastArguments.parse(arguments) == nil, "\(arguments) must be left to ArgumentParser")
    }

    @Test("every vector of up to two tokens: the fast path equals ArgumentParser or declines")
    func allShortVectors() {
        var accepted = 0
        var vectors: [[String]] = [[]] + Self.tokens.map { [$0] }
        for a in Self.tokens { for b in Self.tokens { vectors.append([a, b]) } }
        for v in vectors where Self.check(v) { accepted += 1 }
        // The corpus really exercises the fast path, not only its refusals.
        #expect(accepted >= 20, "accepted \(accepted) of \(vectors.count)")
    }

    @Test("random command lines of one to four options: the fast path equals ArgumentParser or declines")
    func randomLongerVectors() {
        // A fixed-seed generator: the same corpus on every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        // Built like real command lines (an optional subcommand, then flags and options with
        // their values), with one token in four drawn from the tricky list instead.
        let units = [["--json"], ["--simulate"], ["--no-config"], ["--no-color"], ["--ascii"],
                     ["--sysfs-root", "/tmp"], ["--simulate-state", "serious"], ["--low-power", "off"],
                     ["--delay", "5"], ["--config", "f.toml"], ["--ppd-state", "state.ini"]]
        var accepted = 0
        for _ in 0..<150 {
            var v = next(2) == 0 ? ["status"] : []
            for _ in 0..<(1 + next(4)) {
                v += next(4) == 0 ? [Self.tokens[next(Self.tokens.count)]] : units[next(units.count)]
            }
            if Self.check(v) { accepted += 1 }
        }
        #expect(accepted >= 15, "accepted \(accepted) of 150")
    }
}
