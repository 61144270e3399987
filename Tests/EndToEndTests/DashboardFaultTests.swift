import Foundation
import Testing
import ThermtopTestSupport

/// The real dashboard in tmux on a copy of a fixture, with faults injected while it runs:
/// it keeps running and answering keys, shows each problem with its reason, recovers, and
/// never prints anything but text and colours.
@Suite("Dashboard under faults injected while it runs (tmux)", .serialized, .needs(.tmux))
struct DashboardFaultTests {
    let zone1 = FaultInjectionStatusTests.zone1
    let zone2 = "devices/virtual/thermal/thermal_zone2"   // INT3400 Thermal
    let bat = FaultInjectionStatusTests.bat

    struct Step {
        let name: String
        let script: String
        /// The screen must show this (the sensor's problem) within a few seconds.
        let shows: String
    }

    @Test("faults one after another: each shown with its reason, keys answered, no garbage, recovery")
    func faultsWhileRunning() throws {
        let root = try Proof.copyFixture("intel-laptop-hot")
        defer { Proof.discard(root) }
        let pane = try ProofPane(arguments: ["--delay", "0.2", "--sysfs-root", root], width: 120, height: 40)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(), "no dashboard:\n\(pane.capture())")
        // The faulty zones are a mirror (x86_pkg_temp) and a dummy (INT3400): `a` lists them.
        pane.send("a")
        let q = Proof.quote
        let steps: [Step] = [
            Step(name: "garbage in the deciding zone", script: "printf 'hot!\\n' > \(zone1)/temp", shows: "HELD serious · not-a-number"),
            Step(name: "a FIFO that never answers", script: "rm \(zone2)/temp && mkfifo \(zone2)/temp", shows: "timed-out"),
            Step(name: "10 MB file", script: "head -c 10485760 /dev/zero | tr '\\0' '9' > \(zone1)/temp", shows: "HELD serious · not-a-number"),
            Step(name: "directory instead of a file", script: "rm \(zone1)/temp && mkdir \(zone1)/temp", shows: "HELD serious · not-a-file"),
            Step(name: "escape sequences as a value", script: "rmdir \(zone1)/temp && printf '\\033]0;pwn\\007\\033[2J\\n' > \(zone1)/temp", shows: "HELD serious · not-a-number"),
            Step(name: "hwmon chip removed", script: "rm -rf \"$(readlink -f class/hwmon/hwmon1)\" class/hwmon/hwmon1", shows: "vanished"),
            Step(name: "battery removed", script: "mv \(bat) /tmp/\(pane.socket)-bat && rm class/power_supply/BAT0", shows: "acpitz"),
            Step(name: "a new zone appears", script: "mkdir -p devices/virtual/thermal/thermal_zone9 && printf 'newzone\\n' > devices/virtual/thermal/thermal_zone9/type && printf '55000\\n' > devices/virtual/thermal/thermal_zone9/temp && ln -s ../../devices/virtual/thermal/thermal_zone9 class/thermal/thermal_zone9", shows: "newzone"),
            Step(name: "NaN and INT_MIN", script: "printf 'NaN\\n' > \(zone1)/temp && printf -- '-9223372036854775808\\n' > devices/virtual/thermal/thermal_zone3/temp", shows: "implausible"),
            Step(name: "dangling symlink and loop", script: "rm \(zone1)/temp && ln -s /nonexistent \(zone1)/temp && rm devices/virtual/thermal/thermal_zone3/temp && ln -s t2 devices/virtual/thermal/thermal_zone3/temp && ln -s temp devices/virtual/thermal/thermal_zone3/t2", shows: "ELOOP"),
        ]
        for step in steps {
            let r = Proof.sh("cd \(q(root)) && \(step.script)")
            try #require(r.status == 0, "\(step.name): setup failed: \(r.output)")
            // A new device may wait for the next rediscovery: `r` asks for one, as a user would.
            pane.send("r")
            let (ok, screen) = pane.wait(8) { $0.contains(step.shows) }
            #expect(ok, "\(step.name): screen never showed \(step.shows.debugDescription):\n\(screen)")
            #expect(pane.pid != nil, "\(step.name): thermtop is gone:\n\(screen)")
            #expect(pane.answersKeys(), "\(step.name): keys not answered:\n\(pane.capture())")
            let escaped = pane.capture(escapes: true)
            #expect(Proof.garbage(in: escaped, allowSGR: true) == nil, "\(step.name): \(Proof.garbage(in: escaped, allowSGR: true) ?? "")")
            // An OSC payload shown as inert text is fine; acting on it (retitling the pane) is not.
            #expect(pane.tmux("display-message -p -t p '#{pane_title}'").contains("pwn") == false, "\(step.name): the pane was retitled")
        }
        // Recovery: good values again, the held sensor reads and the hold is gone.
        let fix = Proof.sh("cd \(q(root)) && rm -f \(zone1)/temp && printf '70000\\n' > \(zone1)/temp")
        try #require(fix.status == 0)
        // A value file that went missing is not looked up again until the next rediscovery
        // (SysfsRoot: on live /sys an attribute comes back only with its device, and that is a
        // uevent and a rediscovery); a fixture tree has no uevents, so `r` asks for it. A file
        // that exists but failed (garbage, unreadable) is read again on the next sample: see
        // unreadableWhileRunningAsNonRoot, which recovers without `r`.
        pane.send("r")
        let (recovered, screen) = pane.wait(8) { s in
            s.split(separator: "\n").contains { $0.contains("x86_pkg_temp") && $0.contains("70.0") && !$0.contains("HELD") }
        }
        #expect(recovered, "x86_pkg_temp never read 70.0 again:\n\(screen)")
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }

    @Test("files made unreadable while it runs, as a non-root user (setpriv, throwaway uid): shown as permission-denied, read again when readable",
          .needs(.root, .setpriv))
    func unreadableWhileRunningAsNonRoot() throws {
        let binary = try #require(Proof.binaryForAnyUser, "could not copy the binary where any user can run it")
        let root = try Proof.copyFixture("intel-laptop-hot")
        defer { Proof.discard(root) }
        let q = Proof.quote
        // The throwaway uid reads the copy like a user reads /sys: everything readable to others.
        try #require(Proof.sh("chmod -R a+rX \(q(root))").status == 0)
        let uid = 64997
        let pane = try ProofPane(arguments: ["--delay", "0.2", "--sysfs-root", root], width: 120, height: 40,
                                 environment: "/usr/bin/setpriv --reuid=\(uid) --regid=\(uid) --clear-groups env -u NO_COLOR HOME=/nonexistent LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color", binary: binary)
        defer { pane.stop() }
        try #require(pane.waitForDashboard(), "no dashboard:\n\(pane.capture())")
        let pid = try #require(pane.pid, "no thermtop process")
        let ids = Proof.sh("awk '/^Uid:/ {print $2, $3}' /proc/\(pid)/status", stdoutOnly: true).output
        #expect(ids.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } == ["\(uid)", "\(uid)"],
                "thermtop must run as uid \(uid): \(ids)")
        pane.send("a")
        // Replaced by an unreadable copy (a running reader keeps an open file readable whatever
        // its mode, as on sysfs; a new file is opened afresh), plus a whole hwmon chip folder.
        let hide = Proof.sh("cd \(q(root)) && cp \(zone1)/temp \(zone1)/.t && chmod 000 \(zone1)/.t && mv \(zone1)/.t \(zone1)/temp && chmod 700 \"$(readlink -f class/hwmon/hwmon1)\"")
        try #require(hide.status == 0, "\(hide.output)")
        let (shown, screen) = pane.wait(8) { s in
            s.split(separator: "\n").contains { $0.contains("x86_pkg_temp") && $0.contains("permission-denied") }
        }
        #expect(shown, "x86_pkg_temp never showed permission-denied:\n\(screen)")
        #expect(pane.pid == pid, "thermtop is gone:\n\(screen)")
        #expect(pane.answersKeys(), "keys not answered:\n\(pane.capture())")
        let escaped = pane.capture(escapes: true)
        #expect(Proof.garbage(in: escaped, allowSGR: true) == nil, "\(Proof.garbage(in: escaped, allowSGR: true) ?? "")")
        // Readable again: read on the next samples, no rediscovery asked for.
        let fix = Proof.sh("cd \(q(root)) && chmod 755 \"$(readlink -f class/hwmon/hwmon1)\" && chmod 644 \(zone1)/temp && printf '70000\\n' > \(zone1)/temp")
        try #require(fix.status == 0, "\(fix.output)")
        let (recovered, after) = pane.wait(8) { s in
            s.split(separator: "\n").contains { $0.contains("x86_pkg_temp") && $0.contains("70.0") && !$0.contains("HELD") }
                && !s.contains("permission-denied")
        }
        #expect(recovered, "not read again once readable:\n\(after)")
        pane.send("q")
        #expect(pane.exitStatus() == 0)
    }
}
