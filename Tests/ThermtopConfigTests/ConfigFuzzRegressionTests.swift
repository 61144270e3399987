import Testing
@testable import ThermtopConfig
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

    @Test("a dotted key of tens of thousands of parts is bad TOML on its line, not a stack overflow in toml++",
          arguments: [String(repeating: "a.", count: 28_000) + "b = 1",
                      "delay = 1\n[" + String(repeating: "a.", count: 28_000) + "b]",
                      "x = { " + String(repeating: "\"q\" . ", count: 28_000) + "b = 1 }"])
    func overlongDottedKey(_ text: String) {
        let p = problems(text)
        #expect(p.count == 1 && p.first?.kind == .badTOML, "\(p.map(\.message))")
        #expect(p.first?.message.contains("dotted key of more than") == true, "\(p.map(\.message))")
        #expect(p.first?.line == (text.hasPrefix("delay") ? 2 : 1))
    }

    @Test("floats, dates, dotted strings and short dotted keys are not taken for an overlong dotted key")
    func shortDotsStillParse() {
        let text = """
        delay = 1.5 # a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n
        on_change = "\(String(repeating: "a.", count: 100))"
        [[sensor]]
        match = "x"
        fair = 70.5
        """
        #expect(TOMLGuard.overlongDottedKey(text) == nil)
        #expect(TOMLGuard.overlongDottedKey(String(repeating: "a.", count: 63) + "b = 1") == nil)
        #expect(TOMLGuard.overlongDottedKey(String(repeating: "a.", count: 64) + "b = 1") == 1)
    }

    @Test("a line starting with [ inside an array or inline table spanning lines is a value, not a header without a name (toml-test's valid files)",
          arguments: ["nest = [\n\t[\n\t\t[\"a\"],\n\t\t[1, 2, [3]]\n\t]\n]\n",
                      "arr-tbl-2 = [\n\t[\n\t\t{\n\t\t\t\"\" = 2,\n\t\t},\n\t],\n]\n"])
    func bracketsInsideValuesAreNotHeaders(_ text: String) {
        #expect(TOMLGuard.headerWithoutKey(text) == nil)
    }

    @Test("brackets inside strings and comments do not hide a header without a name after them")
    func bracketsInStringsDoNotHideHeaders() {
        #expect(TOMLGuard.headerWithoutKey("x = [ '[' ]\n[=") == 2)
        #expect(TOMLGuard.headerWithoutKey("x = [ \"\\\"[\" ] # [\n[=") == 2)
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
