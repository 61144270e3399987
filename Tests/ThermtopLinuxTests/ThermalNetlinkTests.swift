import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
import ThermtopTestSupport
#endif

/// Byte builders written from the header layout, independently of the library's encoder:
/// struct nlmsghdr { u32 len; u16 type; u16 flags; u32 seq; u32 pid; }
/// struct genlmsghdr { u8 cmd; u8 version; u16 reserved; }
/// struct nlattr { u16 len; u16 type; } + value, padded to 4.
private enum Wire {
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
    static func pad(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (4 - b.count % 4) % 4) }

    static func attr(_ type: UInt16, _ value: [UInt8]) -> [UInt8] { pad(u16(UInt16(4 + value.count)) + u16(type) + value) }
    static func attrU32(_ type: UInt16, _ v: UInt32) -> [UInt8] { attr(type, u32(v)) }
    static func attrString(_ type: UInt16, _ s: String) -> [UInt8] { attr(type, Array(s.utf8) + [0]) }
    static func nested(_ type: UInt16, _ children: [[UInt8]]) -> [UInt8] { attr(type | 0x8000, children.flatMap { $0 }) }

    static func message(type: UInt16, seq: UInt32 = 0, cmd: UInt8, _ attrs: [[UInt8]]) -> [UInt8] {
        var payload: [UInt8] = [cmd, 1, 0, 0]
        for a in attrs { payload += a }
        var out: [UInt8] = u32(UInt32(16 + payload.count))
        out += u16(type)
        out += u16(0)
        out += u32(seq)
        out += u32(0)
        return out + payload
    }
}

// linux/thermal.h
private let familyID: UInt16 = 0x13
private let TZ_CREATE: UInt8 = 1, TZ_DELETE: UInt8 = 2, TZ_TRIP_UP: UInt8 = 5, TZ_TRIP_DOWN: UInt8 = 6
private let CDEV_ADD: UInt8 = 10, CDEV_STATE_UPDATE: UInt8 = 12, CPU_CAPABILITY_CHANGE: UInt8 = 14
private let ATTR_TZ_ID: UInt16 = 2, ATTR_TZ_TEMP: UInt16 = 3, ATTR_TZ_TRIP_ID: UInt16 = 5, ATTR_TZ_NAME: UInt16 = 10
private let ATTR_CDEV_ID: UInt16 = 15, ATTR_CDEV_CUR_STATE: UInt16 = 16, ATTR_CDEV_NAME: UInt16 = 18

@Suite("thermal netlink: parsing events and controller replies")
struct ThermalNetlinkParsingTests {
    @Test("a trip-up event parses zone, trip and temperature and asks for a resample")
    func tripUp() throws {
        let bytes = Wire.message(type: familyID, cmd: TZ_TRIP_UP, [
            Wire.attrU32(ATTR_TZ_ID, 3), Wire.attrU32(ATTR_TZ_TRIP_ID, 1), Wire.attrU32(ATTR_TZ_TEMP, 85_000),
        ])
        let messages = ThermalGenlMessage.parse(bytes, familyID: familyID)
        #expect(messages == [ThermalGenlMessage(event: .tripUp, zoneID: 3, tripID: 1, temperatureMilli: 85_000)])
        #expect(messages.first?.hint == .resample("thermal netlink: trip crossed up zone 3 trip 1 at 85.0 °C"))
    }

    @Test("names are read up to their NUL as UTF-8 (multi-byte kept); a name that is not UTF-8 is dropped, the event kept")
    func namesAreValidUTF8OrNothing() {
        func name(_ value: [UInt8]) -> ThermalGenlMessage? {
            ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: TZ_CREATE, [
                Wire.attrU32(ATTR_TZ_ID, 4), Wire.attr(ATTR_TZ_NAME, value),
            ]), familyID: familyID).first
        }
        #expect(name(Array("pch_cannonlake".utf8) + [0])?.name == "pch_cannonlake")
        #expect(name(Array("zone-°C-☃".utf8) + [0])?.name == "zone-°C-☃")
        #expect(name(Array("acpitz".utf8) + [0, 0x41, 0x42])?.name == "acpitz")
        #expect(name(Array("acpitz".utf8))?.name == "acpitz")
        for bad: [UInt8] in [[0x61, 0xFF, 0x62, 0], [0xC3, 0], [0xE2, 0x98], [0xED, 0xA0, 0x80, 0], [0xC0, 0xAF, 0]] {
            let m = name(bad)
            #expect(m?.event == .zoneCreate && m?.zoneID == 4, "\(bad)")
            #expect(m?.name == nil, "\(bad) decoded as \(m?.name ?? "nil")")
        }
    }

    @Test("a datagram with several messages yields each; below-zero temperatures stay negative")
    func severalMessages() {
        let bytes = Wire.message(type: familyID, cmd: TZ_TRIP_DOWN, [
            Wire.attrU32(ATTR_TZ_ID, 0), Wire.attrU32(ATTR_TZ_TRIP_ID, 0), Wire.attrU32(ATTR_TZ_TEMP, UInt32(bitPattern: -5_500)),
        ]) + Wire.message(type: familyID, cmd: CDEV_STATE_UPDATE, [
            Wire.attrU32(ATTR_CDEV_ID, 7), Wire.attrU32(ATTR_CDEV_CUR_STATE, 2),
        ])
        let messages = ThermalGenlMessage.parse(bytes)
        #expect(messages.map(\.event) == [.tripDown, .cdevStateUpdate])
        #expect(messages.first?.temperatureMilli == -5_500)
        #expect(messages.last?.cdevID == 7 && messages.last?.cdevState == 2)
        #expect(messages.last?.hint == .resample("thermal netlink: cooling device state cdev 7 state 2"))
    }

    @Test("zones and cooling devices appearing or vanishing ask for rediscovery")
    func createDeleteRediscover() {
        let create = ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: TZ_CREATE, [
            Wire.attrU32(ATTR_TZ_ID, 9), Wire.attrString(ATTR_TZ_NAME, "acpitz"),
        ]))
        #expect(create.first?.hint == .rediscover("thermal netlink: zone created zone 9 acpitz"))
        let delete = ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: TZ_DELETE, [Wire.attrU32(ATTR_TZ_ID, 9)]))
        #expect(delete.first?.hint == .rediscover("thermal netlink: zone deleted zone 9"))
        let cdev = ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: CDEV_ADD, [
            Wire.attrU32(ATTR_CDEV_ID, 4), Wire.attrString(ATTR_CDEV_NAME, "Fan"),
        ]))
        #expect(cdev.first?.hint == .rediscover("thermal netlink: cooling device added cdev 4 Fan"))
    }

    @Test("CPU capability updates and unknown future events are parsed but wake nothing")
    func ignoredEvents() {
        let hfi = ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: CPU_CAPABILITY_CHANGE, []))
        #expect(hfi.map(\.event) == [.cpuCapabilityChange])
        #expect(hfi.first?.hint == nil)
        let future = ThermalGenlMessage.parse(Wire.message(type: familyID, cmd: 42, []))
        #expect(future.map(\.event) == [.unknown(42)])
        #expect(future.first?.hint == nil)
    }

    @Test("other families, the controller and netlink's own messages are skipped")
    func otherTypesSkipped() {
        let other = Wire.message(type: 0x20, cmd: TZ_TRIP_UP, [Wire.attrU32(ATTR_TZ_ID, 1)])
        #expect(ThermalGenlMessage.parse(other, familyID: familyID).isEmpty)
        #expect(ThermalGenlMessage.parse(Wire.message(type: 0x10, cmd: 1, [])).isEmpty)
        #expect(ThermalGenlMessage.parse(Wire.message(type: 2, cmd: 0, [])).isEmpty)
    }

    @Test("truncated datagrams and attributes that overrun their message yield what is sound, never a crash")
    func truncated() {
        let good = Wire.message(type: familyID, cmd: TZ_TRIP_UP, [Wire.attrU32(ATTR_TZ_ID, 3), Wire.attrU32(ATTR_TZ_TEMP, 70_000)])
        for cut in 0..<good.count {
            let parsed = ThermalGenlMessage.parse(Array(good.prefix(cut)))
            #expect(parsed.isEmpty, "a message cut at \(cut) bytes claims more than it has")
        }
        // An attribute claiming 200 bytes inside a 28-byte message: the message parses, the attribute is dropped.
        var lying = Wire.message(type: familyID, cmd: TZ_TRIP_UP, [Wire.attrU32(ATTR_TZ_ID, 3)])
        lying[20] = 200
        #expect(ThermalGenlMessage.parse(lying) == [ThermalGenlMessage(event: .tripUp)])
        // A u32 attribute with a 2-byte value is absent, not misread.
        let short = Wire.message(type: familyID, cmd: TZ_TRIP_UP, [Wire.attr(ATTR_TZ_ID, [1, 0])])
        #expect(ThermalGenlMessage.parse(short) == [ThermalGenlMessage(event: .tripUp)])
    }

    @Test("the controller's family reply gives the id and the multicast groups by name")
    func controllerReply() throws {
        let reply = Wire.message(type: 0x10, seq: 1, cmd: 1, [
            Wire.attrString(2, "thermal"), Wire.attr(1, Wire.u16(0x13) + [0, 0]), Wire.attrU32(3, 2),
            Wire.nested(7, [
                Wire.nested(1, [Wire.attrString(1, "sampling"), Wire.attrU32(2, 2)]),
                Wire.nested(2, [Wire.attrString(1, "event"), Wire.attrU32(2, 3)]),
            ]),
        ])
        let family = try #require(try GenlFamily.parseReply(reply, sequence: 1)?.get())
        #expect(family == GenlFamily(id: 0x13, name: "thermal", groups: ["sampling": 2, "event": 3]))
        #expect(GenlFamily.parseReply(reply, sequence: 2) == nil)
    }

    @Test("the controller's ENOENT means the kernel has no such family, said in words")
    func controllerNoFamily() throws {
        let result = try #require(GenlFamily.parseReply(errorReply(-ENOENT, sequence: 5), sequence: 5))
        #expect(result == .failure(.kernelError(ENOENT)))
        if case .failure(let f) = result { #expect(f.text.contains("not in this kernel")) }
    }

    @Test("an error code that is no errno (INT_MIN, positive, below -4095) is a malformed reply, not a trap (found by scripts/fuzz.sh)")
    func controllerErrorCodeOutOfRange() throws {
        // The fuzzer's input, as the netlink target handed it to parseReply: an NLMSG_ERROR
        // whose error field is 0x80000000.
        let crash: [UInt8] = [0x2c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x02, 0x00,
                              0x08, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x10, 0x00,
                              0x00, 0x1a, 0x00, 0x00, 0x00, 0x00, 0xaf, 0x00, 0x00, 0x2e, 0x43, 0x00, 0x11, 0x67, 0x00]
        #expect(GenlFamily.parseReply(crash, sequence: 0x2c00_0000) == .failure(.malformed("error code \(Int32.min)")))
        for code: Int32 in [Int32.min, -4096, 1, Int32.max] {
            #expect(GenlFamily.parseReply(errorReply(code, sequence: 7), sequence: 7) == .failure(.malformed("error code \(code)")),
                    "code \(code)")
        }
        // The edges of the errno range are kernel errors.
        for code: Int32 in [-1, -4095] {
            #expect(GenlFamily.parseReply(errorReply(code, sequence: 7), sequence: 7) == .failure(.kernelError(-code)), "code \(code)")
        }
    }

    /// An NLMSG_ERROR answering `sequence`: `struct nlmsgerr { int error; struct nlmsghdr msg; }`.
    private func errorReply(_ code: Int32, sequence: UInt32) -> [UInt8] {
        let payload = Wire.u32(UInt32(bitPattern: code)) + [UInt8](repeating: 0, count: 16)
        return Wire.u32(UInt32(16 + payload.count)) + Wire.u16(2) + Wire.u16(0) + Wire.u32(sequence) + Wire.u32(0) + payload
    }
}

@Suite("thermal netlink: the real kernel's controller")
struct ThermalNetlinkKernelTests {
    /// `genl ctrl get name thermal` prints `ID: 0x13` and `ID-0x3  name: event`.
    static func genlSays() -> (id: UInt16, event: UInt32)? {
        guard let genl = Needs.executable("genl") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: genl)
        p.arguments = ["ctrl", "get", "name", "thermal"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readToEndRetryingEINTR(), as: UTF8.self)
        func hex(after marker: String, in line: Substring) -> UInt32? {
            guard let r = line.range(of: marker) else { return nil }
            return UInt32(line[r.upperBound...].prefix { $0.isHexDigit }, radix: 16)
        }
        let lines = text.split(separator: "\n")
        guard let id = lines.lazy.compactMap({ hex(after: "ID: 0x", in: $0) }).first,
              let event = lines.first(where: { $0.contains("name: event") }).flatMap({ hex(after: "ID-0x", in: $0) })
        else { return nil }
        return (UInt16(id), event)
    }

    @Test("family thermal resolves and its event group is joined without privileges")
    func resolvesAndJoins() throws {
        let source = ThermalNetlinkSource()
        // Kernels older than 5.10 or without CONFIG_THERMAL_NETLINK lack it: then the detail says so.
        let hasFamily = Self.genlSays() != nil || source.state.active
        guard Needs.check(hasFamily, "this kernel has no thermal generic-netlink family (`genl ctrl get name thermal`)") else { return }
        #expect(source.state.active, "\(source.state.detail)")
        #expect(source.descriptor != nil)
        let family = try #require(source.family)
        #expect(family.name == "thermal")
        #expect(family.groups["event"] != nil && family.groups["sampling"] != nil)
        if let genl = Self.genlSays() {
            #expect(family.id == genl.id)
            #expect(family.groups["event"] == genl.event)
        }
        #expect(source.state.detail == "family thermal (\(family.id)), group event (\(family.groups["event"]!))")
        // Nothing pending on a machine without thermal activity, and draining never blocks.
        let start = monotonicSeconds()
        _ = source.drain()
        #expect(monotonicSeconds() - start < 0.05)
    }

    @Test("an absent family leaves the source unavailable with the kernel's reason")
    func absentFamily() {
        let source = ThermalNetlinkSource(familyName: "thermtop_none")
        #expect(!source.state.active)
        #expect(source.descriptor == nil)
        #expect(source.state.detail == "family thermtop_none: not in this kernel (needs 5.10+ with CONFIG_THERMAL_NETLINK); polling only")
        #expect(source.drain().isEmpty)
    }

    @Test("a missing group of an existing family is reported by name")
    func absentGroup() {
        let source = ThermalNetlinkSource(groupName: "nosuchgroup")
        guard Needs.check(source.family != nil || source.state.detail.contains("has no group"), "needs the thermal family") else { return }
        #expect(!source.state.active)
        #expect(source.state.detail == "family thermal has no group nosuchgroup; polling only")
    }
}
