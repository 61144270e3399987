import Foundation
import Testing
@testable import ThermtopLinux
import ThermtopCore

/// Inputs that once crashed or misbehaved (found by scripts/fuzz.sh or by fault injection),
/// kept so they never come back.
@Suite("Fuzz regressions: sysfs names and values that once crashed")
struct FuzzRegressionTests {
    @Test("natural order survives digit runs longer than any integer (once an overflow trap)")
    func longDigitRuns() {
        let huge = "thermal_zone" + String(repeating: "9", count: 40)
        #expect(naturalLess("thermal_zone1", huge))
        #expect(!naturalLess(huge, "thermal_zone1"))
        #expect(naturalLess("thermal_zone2", "thermal_zone10"))
        #expect(naturalLess("hwmon9", "hwmon10"))
        #expect(!naturalLess("hwmon10", "hwmon9"))
        #expect(naturalLess("a", "b"))
        #expect(naturalLess("a", "a1"))
        #expect(!naturalLess("a1", "a1"))
        #expect(naturalLess("zone01", "zone001") != naturalLess("zone001", "zone01"))
        // Non-ASCII digits are ordinary characters (no trap, no Int parsing of them).
        #expect(naturalLess("zone٣", "zone٤"))
    }

    @Test("natural order compared by UTF-8 bytes agrees with the rule stated by scalars, for every pair of a corpus with multi-byte names")
    func byteOrderAgreesWithScalarOrder() {
        // The rule as its comment states it, by Unicode scalars.
        func reference(_ a: String, _ b: String) -> Bool {
            let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
            func digit(_ u: Unicode.Scalar) -> Bool { u.value >= 48 && u.value <= 57 }
            var i = 0, j = 0
            while i < x.count && j < y.count {
                if digit(x[i]) && digit(y[j]) {
                    var ei = i, ej = j
                    while ei < x.count && digit(x[ei]) { ei += 1 }
                    while ej < y.count && digit(y[ej]) { ej += 1 }
                    var si = i, sj = j
                    while si < ei - 1 && x[si] == "0" { si += 1 }
                    while sj < ej - 1 && y[sj] == "0" { sj += 1 }
                    if ei - si != ej - sj { return ei - si < ej - sj }
                    for k in 0..<(ei - si) where x[si + k] != y[sj + k] { return x[si + k].value < y[sj + k].value }
                    if ei - i != ej - j { return ei - i < ej - j }
                    i = ei; j = ej
                    continue
                }
                if x[i] != y[j] { return x[i].value < y[j].value }
                i += 1; j += 1
            }
            return i == x.count && j < y.count
        }
        let corpus = ["", "a", "a1", "a01", "a10", "a9", "zone٣", "zone٤", "zoneé", "zonee", "zone\u{FFFF}",
                      "zone\u{10000}", "zone\u{1F525}2", "zone\u{1F525}10", "é1", "é01", "e\u{301}", "Ω", "ω2x",
                      "hwmon10", "hwmon9", "temp1_input", "temp10_input", "temp1_label", "\u{7F}", "\u{80}", ":", "9:"]
        for a in corpus {
            for b in corpus {
                #expect(naturalLess(a, b) == reference(a, b), "\(a.debugDescription) < \(b.debugDescription)")
            }
        }
    }

    @Test("a sysfs tree with a 40-digit zone number is read, sorted, and not a crash")
    func hugeZoneNumber() throws {
        let dir = "/tmp/thermtop-fuzzreg-\(UInt32.random(in: 0...UInt32.max))"
        let huge = "thermal_zone" + String(repeating: "9", count: 40)
        for z in [huge, "thermal_zone1"] {
            try FixtureWriter.write("\(dir)/class/thermal/\(z)/temp", "45000\n")
            try FixtureWriter.write("\(dir)/class/thermal/\(z)/type", "z\(z.count)\n")
        }
        defer { FixtureWriter.remove(dir) }
        let snap = SysfsSource(path: dir).sample(at: 0)
        #expect(snap.zones.map(\.id) == ["thermal_zone1", huge])
    }
}

/// Tiny file helpers without Foundation.
enum FixtureWriter {
    static func write(_ path: String, _ text: String) throws {
        var parts = path.split(separator: "/").map(String.init)
        parts.removeLast()
        var p = ""
        for c in parts { p += "/" + c; mkdir(p, 0o755) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ReadingIssue(file: path, reason: .readFailed) }
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
    }
    static func remove(_ path: String) { _ = system("rm -rf '\(path)'") }
}

@Suite("Fuzz regressions: values")
struct FuzzValueRegressionTests {
    @Test("a signed micro-unit value of INT_MIN is implausible, not a trap (found by scripts/fuzz.sh values)")
    func intMinCurrent() {
        let r = SysfsValue.micro("-9223372036854775808\n", file: "current_now", max: 1000, signed: true)
        #expect(r.value == nil)
        #expect(r.issue?.reason == .implausible)
        #expect(SysfsValue.micro("-1500000\n", file: "current_now", max: 1000, signed: true).value == 1.5)
        #expect(SysfsValue.micro("-1500000\n", file: "current_now", max: 1000).value == nil)
    }
}

