import Foundation
import Testing
import ThermtopTestSupport

/// Faults injected into a copy of a fixture, read by the real binary: every broken file is
/// unknown with its reason, never a crash, never garbage, never a made-up number.
@Suite("Faults injected into a fixture copy: status --json")
struct FaultInjectionStatusTests {
    static let zone1 = "devices/virtual/thermal/thermal_zone1"   // x86_pkg_temp, deciding on intel-laptop-hot
    static let bat = "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:1f/PNP0C09:00/PNP0C0A:00/power_supply/BAT0"

    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        /// Shell commands run in the copy's root.
        let script: String
        /// The unknown_reason thermal_zone1 must show (nil: the zone is not checked).
        let zone1Reason: String?
        var testDescription: String { name }
    }

    static func write(_ text: String, _ file: String = "\(zone1)/temp") -> String {
        "printf '%s' \(Proof.quote(text)) > '\(file)'"
    }

    static let faults: [Fault] = [
        Fault(name: "garbage", script: write("hot!\n"), zone1Reason: "not-a-number"),
        Fault(name: "empty file", script: ": > '\(zone1)/temp'", zone1Reason: "empty"),
        Fault(name: "10 MB of digits", script: "head -c 10485760 /dev/zero | tr '\\0' '9' > '\(zone1)/temp'", zone1Reason: "not-a-number"),
        Fault(name: "negative, implausible", script: write("-999999\n"), zone1Reason: "implausible"),
        Fault(name: "INT_MIN", script: write("-9223372036854775808\n"), zone1Reason: "implausible"),
        Fault(name: "huge (overflows Int64)", script: write("99999999999999999999999\n"), zone1Reason: "not-a-number"),
        Fault(name: "NaN", script: write("NaN\n"), zone1Reason: "not-a-number"),
        Fault(name: "escape sequences", script: "printf '\\033]0;pwned\\007\\033[2J\\233' > '\(zone1)/temp'", zone1Reason: "not-a-number"),
        Fault(name: "invalid UTF-8", script: "printf '\\377\\376\\300\\200' > '\(zone1)/temp'", zone1Reason: "not-a-number"),
        Fault(name: "a directory instead of the file", script: "rm '\(zone1)/temp' && mkdir '\(zone1)/temp'", zone1Reason: "not-a-file"),
        Fault(name: "a dangling symlink", script: "rm '\(zone1)/temp' && ln -s /nonexistent/temp '\(zone1)/temp'", zone1Reason: "missing"),
        Fault(name: "a symlink loop", script: "rm '\(zone1)/temp' && ln -s temp2 '\(zone1)/temp' && ln -s temp '\(zone1)/temp2'", zone1Reason: "read-failed"),
        Fault(name: "/dev/zero as the file", script: "rm '\(zone1)/temp' && ln -s /dev/zero '\(zone1)/temp'", zone1Reason: "empty"),
        Fault(name: "/dev/urandom as the file", script: "rm '\(zone1)/temp' && ln -s /dev/urandom '\(zone1)/temp'", zone1Reason: nil),
        Fault(name: "a FIFO that never answers as the temperature", script: "rm '\(zone1)/temp' && mkfifo '\(zone1)/temp'", zone1Reason: "timed-out"),
        Fault(name: "a FIFO as the zone type and a trip", script: "rm '\(zone1)/type' '\(zone1)/trip_point_0_temp' && mkfifo '\(zone1)/type' '\(zone1)/trip_point_0_temp'", zone1Reason: nil),
        Fault(name: "a FIFO as the battery capacity and status", script: "rm '\(bat)/capacity' '\(bat)/status' && mkfifo '\(bat)/capacity' '\(bat)/status'", zone1Reason: nil),
        Fault(name: "zone deleted", script: "rm -rf '\(zone1)' class/thermal/thermal_zone1", zone1Reason: nil),
        Fault(name: "hwmon chip deleted", script: "rm -rf \"$(readlink -f class/hwmon/hwmon1)\" class/hwmon/hwmon1", zone1Reason: nil),
        Fault(name: "battery deleted", script: "rm -rf '\(bat)' class/power_supply/BAT0", zone1Reason: nil),
        Fault(name: "a new zone added", script: "mkdir -p devices/virtual/thermal/thermal_zone9 && printf 'newzone\\n' > devices/virtual/thermal/thermal_zone9/type && printf '55000\\n' > devices/virtual/thermal/thermal_zone9/temp && ln -s ../../devices/virtual/thermal/thermal_zone9 class/thermal/thermal_zone9", zone1Reason: nil),
        Fault(name: "battery swapped from energy_* to charge_*", script: """
            cd '\(bat)' && rm energy_now energy_full energy_full_design power_now && \
            printf '3000000\\n' > charge_now && printf '4000000\\n' > charge_full && printf '4200000\\n' > charge_full_design && printf '1000000\\n' > current_now
            """, zone1Reason: nil),
        Fault(name: "every class folder unreadable junk", script: "rm -rf class/thermal && : > class/thermal", zone1Reason: nil),
    ]

    @Test("status --json survives each fault: valid JSON, no garbage, the reason named", arguments: faults)
    func statusSurvives(_ fault: Fault) throws {
        let root = try Proof.copyFixture("intel-laptop-hot")
        defer { Proof.discard(root) }
        let setup = Proof.sh("cd \(Proof.quote(root)) && \(fault.script)")
        try #require(setup.status == 0, "fault setup failed: \(setup.output)")
        let start = Date()
        let r = Proof.sh("timeout 10 \(Proof.quote(Proof.binary)) status --json --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(Date().timeIntervalSince(start) < 8, "status took too long")
        #expect(r.status == 0 || r.status == 69, "exit \(r.status): \(r.output.prefix(300))")
        #expect(Proof.garbage(in: r.output) == nil, "raw control bytes in JSON: \(Proof.garbage(in: r.output) ?? "")")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        let sensors = (json["sensors"] as? [[String: Any]]) ?? []
        for s in sensors where s["celsius"] is NSNull {
            #expect(s["level"] is NSNull, "unknown sensor \(s["id"] ?? "?") has a level: \(s["level"] ?? "?")")
            #expect(s["unknown_reason"] is String, "unknown sensor \(s["id"] ?? "?") has no reason")
        }
        if let want = fault.zone1Reason {
            let z = try #require(sensors.first { $0["name"] as? String == "x86_pkg_temp" }, "x86_pkg_temp (thermal_zone1) missing")
            #expect(z["unknown_reason"] as? String == want, "thermal_zone1: \(z)")
        }
        // Text status too: the same faults, no garbage.
        let text = Proof.sh("timeout 10 \(Proof.quote(Proof.binary)) status --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(text.status == 0 || text.status == 69)
        #expect(Proof.garbage(in: text.output) == nil, "garbage in text: \(Proof.garbage(in: text.output) ?? "")")
    }

    @Test("a symlink loop is named ELOOP, not a bare errno number")
    func loopIsNamed() throws {
        let root = try Proof.copyFixture("intel-laptop")
        defer { Proof.discard(root) }
        Proof.sh("cd \(Proof.quote(root)) && rm '\(Self.zone1)/temp' && ln -s temp2 '\(Self.zone1)/temp' && ln -s temp '\(Self.zone1)/temp2'")
        let r = Proof.sh("\(Proof.quote(Proof.binary)) status --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(r.output.contains("ELOOP"), "\(r.output)")
        #expect(!r.output.contains("errno 40"))
    }

    @Test("files unreadable to a non-root user (setpriv, throwaway uid) are permission-denied, the rest is read", .needs(.root, .setpriv))
    func unreadableAsNonRoot() throws {
        let binary = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let root = try Proof.copyFixture("intel-laptop-hot")
        defer { Proof.discard(root) }
        Proof.sh("chmod 755 \(Proof.quote(root)) && chmod 000 \(Proof.quote(root + "/" + Self.zone1 + "/temp")) \(Proof.quote(root + "/" + Self.bat + "/energy_now"))")
        let r = Proof.sh("/usr/bin/setpriv --reuid=64998 --regid=64998 --clear-groups \(Proof.quote(binary)) status --json --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(r.status == 0, "exit \(r.status)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        let sensors = (json["sensors"] as? [[String: Any]]) ?? []
        let z = sensors.first { $0["name"] as? String == "x86_pkg_temp" }
        #expect(z?["unknown_reason"] as? String == "permission-denied")
        #expect(z?["level"] is NSNull)
        #expect(sensors.contains { $0["celsius"] is NSNumber }, "the readable sensors must still be read")
        let issues = (json["issues"] as? [[String: Any]]) ?? []
        #expect(issues.contains { ($0["file"] as? String ?? "").hasSuffix("energy_now") && $0["reason"] as? String == "permission-denied" })
    }
}
