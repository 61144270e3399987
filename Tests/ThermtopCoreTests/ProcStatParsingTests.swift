import Testing
@testable import ThermtopCore

/// `/proc/[pid]/stat` as the kernel writes it, read field by field in place (a walk parses
/// one per process per sample).
@Suite("Parsing /proc/[pid]/stat")
struct ProcStatParsingTests {
    /// A stat line with `comm` and the fields after it (3 on) as given, the rest zeros.
    static func line(pid: Int = 42, comm: String, state: String = "S", flags: String = "4194304", utime: String = "150",
                     stime: String = "50", start: String = "9000", fieldsAfterStart: Int = 30) -> String {
        var fields = [state] + Array(repeating: "0", count: 5) + [flags] + Array(repeating: "0", count: 4)
        fields += [utime, stime] + Array(repeating: "0", count: 6) + [start]
        fields += Array(repeating: "0", count: fieldsAfterStart)
        return "\(pid) (\(comm)) " + fields.joined(separator: " ") + "\n"
    }

    @Test("state, flags, CPU ticks (utime + stime) and start time come from fields 3, 9, 14, 15 and 22")
    func fields() throws {
        let s = try #require(ProcFiles.stat(Self.line(comm: "cc1plus", state: "R")))
        #expect(s == ProcFiles.Stat(command: "cc1plus", state: "R", isKernelThread: false, cpuTicks: 200, startTicks: 9000))
    }

    @Test("the command runs from the first ( to the last ), spaces and parentheses included")
    func commandToTheLastParenthesis() throws {
        #expect(try #require(ProcFiles.stat(Self.line(comm: "a) (b"))).command == "a) (b")
        #expect(try #require(ProcFiles.stat(Self.line(comm: "sd-pam"))).command == "sd-pam")
    }

    @Test("a kernel thread (PF_KTHREAD in the flags) is grouped by the name before its slash")
    func kernelThread() throws {
        let s = try #require(ProcFiles.stat(Self.line(comm: "kworker/3:1-events", flags: "\(0x0020_0040)")))
        #expect(s.isKernelThread)
        #expect(s.command == "kworker")
    }

    @Test("a line cut short before the start time, a field that is not a number, or ticks past UInt64 is nothing")
    func malformed() {
        #expect(ProcFiles.stat("42 (x) S 1 2 3") == nil)
        let full = Self.line(comm: "x")
        #expect(ProcFiles.stat(String(full.prefix(full.count / 3))) == nil)
        // Ending at the start time is enough; the kernel's newline after a last field is not a digit.
        #expect(ProcFiles.stat(String(Self.line(comm: "x", fieldsAfterStart: 0).dropLast())) != nil)
        #expect(ProcFiles.stat(Self.line(comm: "x", fieldsAfterStart: 0)) == nil)
        #expect(ProcFiles.stat(Self.line(comm: "x", utime: "1x")) == nil)
        #expect(ProcFiles.stat(Self.line(comm: "x", start: "-1")) == nil)
        #expect(ProcFiles.stat(Self.line(comm: "x", utime: "\(UInt64.max)", stime: "1")) == nil)
        #expect(ProcFiles.stat(Self.line(comm: "x", utime: "99999999999999999999999")) == nil)
        #expect(ProcFiles.stat("42 x S") == nil)
        #expect(ProcFiles.stat("") == nil)
    }
}
