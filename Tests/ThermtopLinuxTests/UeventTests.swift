import Foundation
import Testing
import ThermtopTestSupport
import ThermtopCore
@testable import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// A datagram as the kernel sends it: `ACTION@DEVPATH`, then `KEY=VALUE` pairs, each NUL-ended.
private func datagram(_ head: String, _ pairs: [String]) -> [UInt8] {
    ([head] + pairs).flatMap { Array($0.utf8) + [0] }
}

private let acPlugged = datagram("change@/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC", [
    "ACTION=change", "DEVPATH=/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC",
    "SUBSYSTEM=power_supply", "POWER_SUPPLY_NAME=AC", "POWER_SUPPLY_TYPE=Mains", "POWER_SUPPLY_ONLINE=1",
    "SEQNUM=4711",
])

@Suite("uevent: parsing the kernel's datagrams and choosing hints")
struct UeventParsingTests {
    @Test("a power-supply change datagram parses into action, devpath, subsystem, sequence and properties")
    func parsesKernelDatagram() throws {
        let m = try #require(UeventMessage.parse(acPlugged))
        #expect(m.action == "change")
        #expect(m.devpath == "/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC")
        #expect(m.subsystem == "power_supply")
        #expect(m.sequence == 4711)
        #expect(m["POWER_SUPPLY_ONLINE"] == "1")
        #expect(m.deviceName == "AC")
        #expect(m.properties.map(\.key) == ["ACTION", "DEVPATH", "SUBSYSTEM", "POWER_SUPPLY_NAME",
                                            "POWER_SUPPLY_TYPE", "POWER_SUPPLY_ONLINE", "SEQNUM"])
    }

    @Test("a value may contain '=' and '@'; only the first '=' splits")
    func valuesKeepSeparators() throws {
        let m = try #require(UeventMessage.parse(datagram("add@/devices/x/hwmon/hwmon3", [
            "ACTION=add", "SUBSYSTEM=hwmon", "MODALIAS=of:Nfan@0T=pwm",
        ])))
        #expect(m["MODALIAS"] == "of:Nfan@0T=pwm")
        #expect(m.deviceName == "hwmon3")
    }

    @Test("udevd's libudev re-broadcast, empty datagrams, headers without '@' and bad UTF-8 are not uevents")
    func rejectsNonKernelDatagrams() {
        // libudev's monitor header: magic "libudev\0", then a binary struct.
        let libudev: [UInt8] = Array("libudev".utf8) + [0, 0xFE, 0xED, 0xCA, 0xFE, 40, 0, 0, 0, 0x28, 0, 0, 0]
            + datagram("change@/devices/x", ["ACTION=change", "SUBSYSTEM=power_supply"])
        #expect(UeventMessage.parse(libudev) == nil)
        #expect(UeventMessage.parse([]) == nil)
        #expect(UeventMessage.parse([0, 0, 0]) == nil)
        #expect(UeventMessage.parse(datagram("change", ["SUBSYSTEM=power_supply"])) == nil)
        #expect(UeventMessage.parse(datagram("@/devices/x", ["SUBSYSTEM=power_supply"])) == nil)
        #expect(UeventMessage.parse([0x63, 0x40, 0xFF, 0xFE, 0]) == nil)
    }

    @Test("a header whose action disagrees with its ACTION pair is rejected")
    func rejectsInconsistentAction() {
        #expect(UeventMessage.parse(datagram("change@/devices/x", ["ACTION=remove", "SUBSYSTEM=power_supply"])) == nil)
    }

    @Test("malformed pairs are skipped and a missing final NUL is tolerated")
    func toleratesSloppyPairs() throws {
        var bytes = datagram("change@/devices/x/power_supply/BAT0", ["garbage", "=novalue", "SUBSYSTEM=power_supply"])
        bytes.removeLast()
        let m = try #require(UeventMessage.parse(bytes))
        #expect(m.properties.map(\.key) == ["SUBSYSTEM"])
        #expect(m.subsystem == "power_supply")
    }

    @Test("power_supply change resamples; add/remove of supplies, zones and hwmon chips rediscovers; others are ignored")
    func thermtopFilter() throws {
        func hint(_ action: String, _ subsystem: String, _ dev: String = "BAT0") -> MonitorChangeHint? {
            UeventFilter.thermtop.hint(for: UeventMessage.parse(datagram("\(action)@/devices/x/\(dev)", [
                "ACTION=\(action)", "SUBSYSTEM=\(subsystem)",
            ]))!)
        }
        #expect(UeventFilter.thermtop.hint(for: UeventMessage.parse(acPlugged)!) == .resample("uevent power_supply change AC"))
        #expect(hint("add", "power_supply") == .rediscover("uevent power_supply add BAT0"))
        #expect(hint("remove", "power_supply") == .rediscover("uevent power_supply remove BAT0"))
        #expect(hint("add", "thermal", "thermal_zone4") == .rediscover("uevent thermal add thermal_zone4"))
        #expect(hint("remove", "hwmon", "hwmon2") == .rediscover("uevent hwmon remove hwmon2"))
        #expect(hint("change", "thermal", "thermal_zone4") == .resample("uevent thermal change thermal_zone4"))
        #expect(hint("change", "hwmon", "hwmon2") == nil)
        #expect(hint("bind", "power_supply") == nil)
        #expect(hint("change", "net", "lo") == nil)
        #expect(hint("add", "pci", "0000:00:1f.0") == nil)
        let noSubsystem = UeventMessage.parse(datagram("change@/devices/x", ["ACTION=change"]))!
        #expect(UeventFilter.thermtop.hint(for: noSubsystem) == nil)
    }
}

@Suite("netlink socket: the receive buffer")
struct NetlinkSocketBufferTests {
    /// The port id the kernel gave a bound netlink socket (`nl_pid` of `getsockname`).
    private func port(of socket: NetlinkSocket) -> UInt32? {
        var address = [UInt8](repeating: 0, count: 12)
        var length = socklen_t(address.count)
        let rc = address.withUnsafeMutableBytes {
            getsockname(socket.fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        return rc == 0 ? readU32(address, 4) : nil
    }

    @Test("a datagram of several pages arrives whole and exact in the buffer made at the first receive")
    func receivesLargeDatagram() throws {
        let receiver = try NetlinkSocket(type: Int32(SOCK_RAW.rawValue), protocol: NetlinkConstant.generic, groups: 0)
        let sender = try NetlinkSocket(type: Int32(SOCK_RAW.rawValue), protocol: NetlinkConstant.generic, groups: 0)
        #expect(!receiver.hasReceiveBuffer)
        guard case .empty = receiver.receive() else { Issue.record("a new socket has nothing pending"); return }
        #expect(receiver.hasReceiveBuffer)
        let to = try #require(port(of: receiver)), from = try #require(port(of: sender))
        // Unicast from one user socket to another (no privilege needed): 12 KiB of a pattern
        // that no zero-filled or stale buffer would show.
        let payload = (0..<(12 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        var destination = le16(UInt16(AF_NETLINK)) + le16(0) + le32(to) + le32(0)
        let sent = payload.withUnsafeBytes { data in
            destination.withUnsafeMutableBytes { addr in
                sendto(sender.fd, data.baseAddress, data.count, 0,
                       addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count))
            }
        }
        try #require(sent == payload.count, "sendto: \(String(cString: strerror(errno)))")
        #expect(receiver.waitReadable(milliseconds: 1000))
        guard case .datagram(let bytes, let senderPort) = receiver.receive() else {
            Issue.record("no datagram")
            return
        }
        #expect(bytes == payload)
        #expect(senderPort == from)
        guard case .empty = receiver.receive() else { Issue.record("one datagram, received once"); return }
    }
}

@Suite("uevent: a real kernel socket")
struct UeventKernelTests {
    @Test("the socket opens and the source says it is listening")
    func opens() {
        let source = UeventSource()
        #expect(source.state.active, "\(source.state.detail)")
        #expect(source.descriptor != nil)
        #expect(source.state.detail == "kernel uevents (group 1)")
        // The receive buffer comes with the first receive (a one-shot never makes it), and the
        // source reports and drains the same either way.
        #expect(source.socket?.hasReceiveBuffer == false)
        _ = source.drain()
        #expect(source.socket?.hasReceiveBuffer == true)
        #expect(source.state.active)
        #expect(source.state.detail == "kernel uevents (group 1)")
    }

    @Test("a burst of hints drains as one: rediscovery wins, the count of the rest is kept")
    func coalescesBursts() {
        #expect(coalesce([.resample("a"), .resample("b"), .resample("c")]) == [.resample("a (+2 more)")])
        #expect(coalesce([.resample("a"), .rediscover("b"), .rediscover("c")]) == [.rediscover("b (+1 more)")])
        #expect(coalesce([.resample("a")]) == [.resample("a")])
        #expect(coalesce([]) == [])
    }

    /// Writing `change UUID KEY=VALUE` to a device's `uevent` file makes the kernel broadcast a
    /// synthetic uevent carrying `SYNTH_UUID` and `SYNTH_ARG_KEY`; `lo` exists everywhere and
    /// nothing acts on its change events. The test listens to `net` with the production filter
    /// code, and checks the hint arrives within 100 ms of the write.
    @Test("a synthetic uevent from the kernel reaches drain() as a hint within 100 ms",
          .needs(.root, .writableLoopbackUevent))
    func kernelDeliversSyntheticChange() throws {
        // One synthetic loopback uevent at a time across suites (see `loopbackUevent`).
        try loopbackUevent.withLock { _ in try kernelDeliversSyntheticChangeAlone() }
    }

    private func kernelDeliversSyntheticChangeAlone() throws {
        let filter = UeventFilter(resampleOnChange: ["net"], rediscoverOnAddRemove: [])
        let source = UeventSource(filter: filter)
        guard Needs.check(source.state.active, "uevent socket: \(source.state.detail)") else { return }
        _ = source.drain()  // anything already queued by other activity
        let uuid = UUID().uuidString.lowercased()
        let before = source.state.events

        let start = monotonicSeconds()
        let fd = open("/sys/class/net/lo/uevent", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0, "open: \(String(cString: strerror(errno)))")
        let command = "change \(uuid) THERMTOP=test"
        let written = write(fd, command, command.utf8.count)
        close(fd)
        try #require(written == command.utf8.count, "write: \(String(cString: strerror(errno)))")

        // Other `net` events may arrive too; wait for ours.
        var found: (hint: MonitorChangeHint, seconds: Double)?
        var message: UeventMessage?
        while found == nil, monotonicSeconds() - start < 2 {
            guard let got = waitForHint(source, since: start, timeout: 2, matching: { _ in true }) else { break }
            if source.lastMessage?["SYNTH_UUID"] == uuid {
                found = got
                message = source.lastMessage
            }
        }
        let hit = try #require(found, "no uevent with SYNTH_UUID \(uuid) within 2 s")
        #expect(hit.hint == .resample("uevent net change lo"))
        #expect(hit.seconds < eventDrivenBound, "hint after \(hit.seconds) s")
        #expect(message?.action == "change")
        #expect(message?.devpath == "/devices/virtual/net/lo")
        #expect(message?.subsystem == "net")
        #expect(message?["SYNTH_ARG_THERMTOP"] == "test")
        #expect(message?.sequence != nil)
        #expect(source.state.events > before)
        print("uevent latency: write → hint \(Int((hit.seconds * 1e6).rounded())) µs")
    }

    @Test("the production filter ignores the same synthetic net event (no hint, but it is counted)",
          .needs(.root, .writableLoopbackUevent))
    func productionFilterIgnoresNet() throws {
        // One synthetic loopback uevent at a time across suites (see `loopbackUevent`).
        try loopbackUevent.withLock { _ in try productionFilterIgnoresNetAlone() }
    }

    private func productionFilterIgnoresNetAlone() throws {
        let source = UeventSource()
        guard Needs.check(source.state.active, "uevent socket: \(source.state.detail)") else { return }
        _ = source.drain()
        let uuid = UUID().uuidString.lowercased()
        let fd = open("/sys/class/net/lo/uevent", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let command = "change \(uuid)"
        _ = write(fd, command, command.utf8.count)
        close(fd)
        let start = monotonicSeconds()
        var hints: [MonitorChangeHint] = []
        while source.lastMessage?["SYNTH_UUID"] != uuid, monotonicSeconds() - start < 2 {
            guard let fd = source.descriptor, waitReadable(fd, timeout: 2) != nil else { break }
            hints += source.drain()
        }
        #expect(source.lastMessage?["SYNTH_UUID"] == uuid)
        #expect(!hints.contains { if case .resample(let s) = $0 { s.contains(" net ") } else { false } })
        #expect(source.state.events >= 1)
    }
}
