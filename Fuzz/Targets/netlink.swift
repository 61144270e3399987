// Fuzz target `netlink`: what the kernel (or anyone able to send to the socket) hands the
// event sources: uevent datagrams (NETLINK_KOBJECT_UEVENT), thermal generic-netlink
// datagrams, and the generic-netlink controller's family reply. The first input byte picks
// the parser; the hint and labels built from a message must be printable once cleaned.
import ThermtopCore
import ThermtopLinux

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetlink(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    guard count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    switch data[0] % 3 {
    case 0:
        if let m = UeventMessage.parse(bytes) {
            _ = m.sequence
            requireInert(Format.clean(m.deviceName), "uevent device name")
            if let hint = UeventFilter.thermtop.hint(for: m) { requireInert(Format.clean("\(hint)"), "uevent hint") }
        }
    case 1:
        let family: UInt16? = count > 1 && data[1] & 1 == 1 ? UInt16(data[1]) : nil
        for m in ThermalGenlMessage.parse(bytes, familyID: family) {
            requireInert(Format.clean(m.event.label), "genl label")
            if let n = m.name { requireInert(Format.clean(n), "genl name") }
        }
    default:
        let seq = count >= 5 ? UInt32(data[1]) << 24 | UInt32(data[2]) << 16 | UInt32(data[3]) << 8 | UInt32(data[4]) : 0
        _ = GenlFamily.parseReply(bytes, sequence: seq)
    }
    return 0
}
