import Testing
import ThermtopConfig
import ThermtopCore

/// Config inputs found by `scripts/fuzz.sh config` (or while writing its invariants) that once
/// crashed the TOML reader or put raw control bytes on the terminal.
@Suite("Config fuzz regressions")
struct ConfigFuzzRegressionTests {
    private func problems(_ text: String) -> [ConfigProblem] {
        if case .failure(let e) = ConfigParser.parse(text, file: "t.toml") { return e.problems }
        return []
    }

    @Test("a table header with no key after [ is bad TOML on its line, not an abort in toml++",
          arguments: ["[=", "[[=x]]", "[#\n", "delay = 1\n[\n", "[ \t=", "[\r\n", "[[\t+]]", "x = 1\r\n[{a=1}]"])
    func headerWithoutKey(_ text: String) {
        let p = problems(text)
        #expect(p.count == 1 && p.first?.kind == .badTOML, "\(p)")
        let wantLine = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).firstIndex { $0.contains(UInt8(ascii: "[")) }.map { $0 + 1 }
        #expect(p.first?.line == wantLine)
    }

    @Test("headers and strings that only look like the bad pattern still parse")
    func goodHeadersStillParse() throws {
        let text = """
        on_change = \"\"\"logger
        [=not a header, inside a multi-line string
        \"\"\"
        [[ sensor ]]
        match = "a"
        [["sensor"]]
        match = "b"
        """
        guard case .success(let c) = ConfigParser.parse(text, file: "t.toml") else {
            Issue.record("\(ConfigParser.parse(text, file: "t.toml"))")
            return
        }
        #expect(c.sensors.map(\.match.pattern) == ["a", "b"])
        #expect(c.onChange?.hasPrefix("logger") == true)
    }

    @Test("escape sequences quoted from the file come out of a problem's text inert")
    func problemsAreInert() {
        let p = problems("units = \"\\u001b]0;pwned\\u0007\\u001b[2J\"\n[[sensor]]\nmatch = \"x\\u001b[31m[\"\n")
        #expect(p.count == 2)
        for problem in p {
            #expect(!problem.description.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) },
                    "\(problem.description.debugDescription)")
            #expect(problem.description.contains("pwned") || problem.key == "sensor[1].match")
        }
    }

    @Test("a display name with a C1 control character (U+0080…U+009F) is refused like a C0 one")
    func c1InName() {
        let p = problems("[[sensor]]\nmatch = \"a\"\nname = \"CPU\\u009b2J\"\n")
        #expect(p.map(\.key) == ["sensor[1].name"], "\(p)")
    }
}
