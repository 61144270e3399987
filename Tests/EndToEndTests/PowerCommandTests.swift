import Foundation
import Glibc
import Testing
import ThermtopTestSupport

/// Power and throttling through the real binary: `status` (text, JSON, `--window`), `export`,
/// an unprivileged run on root-only counters, and the udev rule that opens them to a group.
@Suite("power and throttling in the commands")
struct PowerCommandTests {
    static let zones = ["intel-rapl/intel-rapl:0", "intel-rapl/intel-rapl:0/intel-rapl:0:0",
                        "intel-rapl/intel-rapl:0/intel-rapl:0:1", "intel-rapl/intel-rapl:1", "intel-rapl-mmio/intel-rapl-mmio:0"]

    static func domain(_ json: [String: Any], _ id: String) -> [String: Any]? {
        ((json["power"] as? [[String: Any]]) ?? []).first { $0["domain"] as? String == id }
    }

    @Test("status answers Throttling yes on the throttled laptop and no on the cool one, and prints the watts against the limit")
    func text() throws {
        let hot = try Thermtop.status("rapl-laptop-throttled")
        #expect(hot.text.contains("\nThrottling  yes — thermal: CPU 2.1 of 4.7 GHz, Processor 5/10\n"), "\(hot.text)")
        let cool = try Thermtop.status("rapl-laptop")
        #expect(cool.status == 0, "\(cool.stderr)")
        #expect(cool.text.contains("\nThrottling  no — CPU 4.6 of 4.7 GHz\n"), "\(cool.text)")
        // Counters that did not move within the window: 0 W, known.
        #expect(cool.text.contains("Power      package-0 (rapl): 0.0 W of 28 W limit"), "\(cool.text)")
        #expect(!cool.text.contains("mmio"))
    }

    @Test("status --json carries power domains and throttling; --window 0 says rates need two samples")
    func json() throws {
        let j = try Thermtop.status("rapl-laptop", ["--json"]).json()
        let pkg = try #require(Self.domain(j, "rapl:package-0"), "\(j["power"] ?? "")")
        #expect(pkg["source"] as? String == "rapl" && (pkg["watts"] as? NSNumber)?.doubleValue == 0)
        #expect(((pkg["limits"] as? [[String: Any]]) ?? []).contains { $0["constraint"] as? String == "long_term" && ($0["watts"] as? NSNumber)?.doubleValue == 28 })
        #expect(((j["power"] as? [[String: Any]]) ?? []).count == 4, "mmio's package counted once")
        let t = try #require(j["throttling"] as? [String: Any])
        #expect(t["active"] as? Bool == false && (t["causes"] as? [String]) == [])
        let hot = try #require(try Thermtop.status("rapl-laptop-throttled", ["--json"]).json()["throttling"] as? [String: Any])
        #expect(hot["active"] as? Bool == true && (hot["causes"] as? [String]) == ["thermal"])
        let instant = try Thermtop.status("rapl-laptop", ["--json", "--window", "0"]).json()
        #expect(Self.domain(instant, "rapl:package-0")?["watts"] is NSNull)
        #expect(Self.domain(instant, "rapl:package-0")?["reason"] as? String == "needs two samples")
        #expect(try Thermtop.status("rapl-laptop", ["--window", "-1"]).status == 64)
    }

    @Test("a one-shot export measures over a window too: watts, limits, throttling and clocks with the agreed names and labels")
    func export() throws {
        let out = "/tmp/thermtop-power-\(UUID().uuidString.prefix(8)).prom"
        defer { unlink(out) }
        let r = try Thermtop.run(["export", "--textfile", out, "--sysfs-root", Thermtop.fixtures.appendingPathComponent("rapl-laptop-throttled").path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        for line in [
            #"thermtop_power_watts{domain="rapl:package-0",name="package-0",source="rapl"} 0"#,
            #"thermtop_power_up{domain="rapl:package-0",name="package-0",source="rapl"} 1"#,
            #"thermtop_power_limit_watts{domain="rapl:package-0",name="package-0",source="rapl",constraint="long_term"} 28"#,
            "thermtop_throttling_active 1",
            #"thermtop_throttling_cause{cause="thermal"} 1"#,
            #"thermtop_cpu_frequency_hertz{policy="policy0"} 2100000000"#,
            #"thermtop_cpu_max_frequency_hertz{policy="policy0"} 4700000000"#,
        ] {
            #expect(text.contains("\n" + line + "\n"), "missing \(line) in:\n\(text)")
        }
        #expect(text.contains("# TYPE thermtop_power_watts gauge"))
        // mmio's repeat of the package is not a domain of its own.
        #expect(text.components(separatedBy: "\nthermtop_power_up{").count - 1 == 4)
    }

    @Test("the config file renames and hides power domains by their ids, and config --check knows those ids")
    func config() throws {
        let cfg = "/tmp/thermtop-power-\(UUID().uuidString.prefix(8)).toml"
        defer { unlink(cfg) }
        try """
            [[sensor]]
            match = "rapl:package-0"
            name = "CPU package"

            [[sensor]]
            match = "rapl:psys"
            hide = true
            """.write(toFile: cfg, atomically: true, encoding: .utf8)
        let r = try Thermtop.status("rapl-laptop", ["--config", cfg])
        #expect(r.text.contains("Power      CPU package (rapl): 0.0 W of 28 W limit"), "\(r.text)")
        #expect(!r.text.contains("psys"))
        #expect(!r.stderr.contains("matches no sensor"), "\(r.stderr)")
        let check = try Thermtop.run(["config", "--check", "--config", cfg, "--sysfs-root", Thermtop.fixtures.appendingPathComponent("rapl-laptop").path])
        #expect(check.status == 0, "\(check.text) \(check.stderr)")
    }

    @Test("watch --json lines carry power domains and the throttling answer; after the first sample the watts are known")
    func watchJSON() throws {
        let root = try Proof.copyFixture("rapl-laptop")
        defer { Proof.discard(root) }
        let w = try LiveProcess(["watch", "--json", "--delay", "0.2", "--sysfs-root", root])
        defer { w.stop() }
        #expect(w.wait { w.lines.count >= 1 }, "\(w.stderr)")
        let first = try #require(try JSONSerialization.jsonObject(with: Data(w.lines[0].utf8)) as? [String: Any])
        #expect((first["throttling"] as? [String: Any])?["active"] as? Bool == false, "\(w.lines[0])")
        #expect(Self.domain(first, "rapl:package-0")?["reason"] as? String == "needs two samples")
        // A state change makes the next line: by then the package drew 28 W per sample gap.
        Thread.sleep(forTimeInterval: 0.5)
        Proof.sh("echo 99000 > \(Proof.quote(root + "/devices/virtual/thermal/thermal_zone0/temp"))")
        #expect(w.wait { w.lines.count >= 2 }, "\(w.stderr)")
        let next = try #require(try JSONSerialization.jsonObject(with: Data(w.lines[1].utf8)) as? [String: Any])
        #expect((Self.domain(next, "rapl:package-0")?["watts"] as? NSNumber)?.doubleValue == 0, "\(w.lines[1])")
        #expect(next["window_seconds"] is NSNumber)
    }

    /// A copy of the cool laptop whose energy counters are root-only, as since Linux 5.10.
    static func rootOnlyCopy() throws -> String {
        let root = try Proof.copyFixture("rapl-laptop")
        let files = zones.map { Proof.quote("\(root)/devices/virtual/powercap/\($0)/energy_uj") }.joined(separator: " ")
        Proof.sh("chmod -R a+rX \(Proof.quote(root)) && chown root:root \(files) && chmod 0400 \(files)")
        return root
    }

    @Test("as an ordinary user on root-only counters, power is unknown with the reason and the fix, and nothing crashes",
          .needs(.root, .setpriv))
    func unprivileged() throws {
        let bin = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let root = try Self.rootOnlyCopy()
        defer { Proof.discard(root) }
        let as_ = "/usr/bin/setpriv --reuid=64998 --regid=64998 --clear-groups \(Proof.quote(bin))"
        let r = Proof.sh("\(as_) status --json --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(r.status == 0, "exit \(r.status): \(r.output.prefix(300))")
        let j = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        for id in ["rapl:package-0", "rapl:package-0:core", "rapl:package-0:uncore", "rapl:psys"] {
            let d = try #require(Self.domain(j, id), "\(id) missing")
            #expect(d["watts"] is NSNull, "\(id): \(d)")
            #expect(d["reason"] as? String == "needs root, or the udev rule in contrib/", "\(id): \(d)")
        }
        // The clocks need no root: the throttling answer still comes.
        #expect((j["throttling"] as? [String: Any])?["active"] as? Bool == false)
        let text = Proof.sh("\(as_) status --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
        #expect(text.output.contains("package-0 (rapl): unknown (needs root, or the udev rule in contrib/)"), "\(text.output)")
    }

    /// contrib/udev's rule, its RUN commands as udev would run them for each zone (`%p` the
    /// zone's devpath, `/sys` the tree's root), with its group given by number so the test
    /// needs no group on this machine.
    @Test("the udev rule opens energy_uj to its group only: members read watts, everyone else still cannot",
          .needs(.root, .setpriv))
    func udevRule() throws {
        let rule = try String(contentsOf: Thermtop.repo.appendingPathComponent("contrib/udev/70-thermtop-power.rules"), encoding: .utf8)
        let lines = rule.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        try #require(lines.count == 1, "one rule line: \(lines)")
        let line = String(lines[0])
        #expect(line.contains(#"SUBSYSTEM=="powercap""#) && line.contains(#"ACTION=="add""#))
        #expect(!line.contains("o+") && !line.contains("a+") && !line.contains("0444") && !line.contains("0644"), "never everyone: \(line)")
        let runs = line.components(separatedBy: #"RUN+=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(runs == ["/bin/chgrp thermtop-power /sys%p/energy_uj", "/bin/chmod 0440 /sys%p/energy_uj"])

        let bin = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let root = try Self.rootOnlyCopy()
        defer { Proof.discard(root) }
        for zone in Self.zones {
            for cmd in runs {
                let real = cmd.replacingOccurrences(of: "thermtop-power", with: "64997")
                    .replacingOccurrences(of: "/sys%p", with: "\(root)/devices/virtual/powercap/\(zone)")
                let r = Proof.sh(real)
                try #require(r.status == 0, "\(real): \(r.output)")
            }
        }
        func status(gid: Int) throws -> [String: Any] {
            let r = Proof.sh("/usr/bin/setpriv --reuid=64998 --regid=\(gid) --clear-groups \(Proof.quote(bin)) status --json --sysfs-root \(Proof.quote(root))", stdoutOnly: true)
            return try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "not JSON: \(r.output.prefix(300))")
        }
        let member = try status(gid: 64997)
        #expect((Self.domain(member, "rapl:package-0")?["watts"] as? NSNumber)?.doubleValue == 0, "\(member["power"] ?? "")")
        let other = try status(gid: 64998)
        #expect(Self.domain(other, "rapl:package-0")?["reason"] as? String == "needs root, or the udev rule in contrib/")
    }
}
