#if canImport(Glibc)
import Glibc
import ThermtopCore
#endif

/// Netlink wire constants from /usr/include/linux/netlink.h and genetlink.h, written here so the
/// library needs no C shim (Glibc's module map does not carry linux/netlink.h).
enum NetlinkConstant {
    static let kobjectUevent: Int32 = 15        // NETLINK_KOBJECT_UEVENT
    static let generic: Int32 = 16              // NETLINK_GENERIC
    static let solNetlink: Int32 = 270          // SOL_NETLINK
    static let addMembership: Int32 = 1         // NETLINK_ADD_MEMBERSHIP
    /// The uevent socket's kernel broadcast group (udevd re-broadcasts on group 2).
    static let ueventKernelGroup: UInt32 = 1

    static let headerLength = 16                // sizeof(struct nlmsghdr)
    static let genlHeaderLength = 4             // sizeof(struct genlmsghdr)
    static let attrHeaderLength = 4             // sizeof(struct nlattr)

    static let typeNoop: UInt16 = 1             // NLMSG_NOOP
    static let typeError: UInt16 = 2            // NLMSG_ERROR
    static let typeDone: UInt16 = 3             // NLMSG_DONE
    static let typeOverrun: UInt16 = 4          // NLMSG_OVERRUN
    static let flagRequest: UInt16 = 1          // NLM_F_REQUEST
    /// NLA_F_NESTED | NLA_F_NET_BYTEORDER: flag bits on an attribute's type.
    static let attrTypeMask: UInt16 = 0x3FFF
}

/// `NLMSG_ALIGN`: netlink messages and attributes start on 4-byte boundaries.
@inline(__always) func netlinkAlign(_ n: Int) -> Int { (n + 3) & ~3 }

/// One message of a netlink datagram: the `nlmsghdr` fields and the bytes after it.
struct NetlinkMessage: Equatable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    var portID: UInt32
    var payload: ArraySlice<UInt8>

    /// Splits a datagram into its messages. Stops at the first header whose length is shorter
    /// than a header or runs past the end (a truncated or hostile datagram): what came before it
    /// is kept, nothing past it is trusted.
    static func split(_ bytes: [UInt8]) -> [NetlinkMessage] {
        var out: [NetlinkMessage] = []
        forEach(bytes) { out.append($0); return true }
        return out
    }

    /// `split`'s messages handed to `body` one by one, until it answers false: no array made
    /// (a one-shot's only datagram, the family reply, was a generic array type of its own).
    static func forEach(_ bytes: [UInt8], _ body: (NetlinkMessage) -> Bool) {
        var at = 0
        while bytes.count - at >= NetlinkConstant.headerLength {
            let length = Int(readU32(bytes, at))
            guard length >= NetlinkConstant.headerLength, length <= bytes.count - at else { break }
            let message = NetlinkMessage(
                type: readU16(bytes, at + 4), flags: readU16(bytes, at + 6),
                sequence: readU32(bytes, at + 8), portID: readU32(bytes, at + 12),
                payload: bytes[(at + NetlinkConstant.headerLength)..<(at + length)])
            guard body(message) else { return }
            at += netlinkAlign(length)
        }
    }

    /// The errno of an `NLMSG_ERROR` message (0 is an acknowledgement), nil for other types or a
    /// payload too short to hold one.
    var errorCode: Int32? {
        guard type == NetlinkConstant.typeError, payload.count >= 4 else { return nil }
        return Int32(bitPattern: readU32(payload, payload.startIndex))
    }
}

/// One `nlattr`: its type (flag bits removed) and value bytes.
struct NetlinkAttribute: Equatable {
    var type: UInt16
    var value: ArraySlice<UInt8>

    /// The attributes in `bytes`, stopping at the first malformed one.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [NetlinkAttribute] {
        var out: [NetlinkAttribute] = []
        forEach(bytes) { out.append($0) }
        return out
    }

    /// `parse`'s attributes handed to `body` one by one: no array made.
    static func forEach(_ bytes: ArraySlice<UInt8>, _ body: (NetlinkAttribute) -> Void) {
        var at = bytes.startIndex
        while bytes.endIndex - at >= NetlinkConstant.attrHeaderLength {
            let length = Int(readU16(bytes, at))
            guard length >= NetlinkConstant.attrHeaderLength, length <= bytes.endIndex - at else { break }
            body(NetlinkAttribute(
                type: readU16(bytes, at + 2) & NetlinkConstant.attrTypeMask,
                value: bytes[(at + NetlinkConstant.attrHeaderLength)..<(at + length)]))
            // The last attribute may omit its padding.
            at += min(netlinkAlign(length), bytes.endIndex - at)
        }
    }

    var u32: UInt32? { value.count >= 4 ? readU32(value, value.startIndex) : nil }
    var u16: UInt16? { value.count >= 2 ? readU16(value, value.startIndex) : nil }
    /// A NUL-terminated string (the NUL and anything after it dropped); nil unless valid UTF-8.
    var string: String? { validUTF8(value.prefix { $0 != 0 }) }
    var nested: [NetlinkAttribute] { NetlinkAttribute.parse(value) }

    /// Encodes an attribute with its padding.
    static func encode(type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let length = NetlinkConstant.attrHeaderLength + value.count
        var out = le16(UInt16(length)) + le16(type) + value
        out += [UInt8](repeating: 0, count: netlinkAlign(length) - length)
        return out
    }
}

/// `bytes` as a String, nil unless they are valid UTF-8: what `String(validating:as:)` answers,
/// without its generic path, which looks up associated types at run time on first use (a scan
/// of every protocol-conformance record of the static binary, paid by `status` when the thermal
/// family is resolved). Decoding from a buffer is the standard library's direct UTF-8 path; a
/// decoding that had to repair anything differs from the input.
func validUTF8(_ bytes: ArraySlice<UInt8>) -> String? {
    bytes.withUnsafeBufferPointer { buffer in
        let text = String(decoding: buffer, as: UTF8.self)
        return text.utf8.elementsEqual(buffer) ? text : nil
    }
}

// Netlink is host byte order; every Linux target Swift supports is little-endian.
@inline(__always) func readU16<C: RandomAccessCollection>(_ b: C, _ i: C.Index) -> UInt16 where C.Element == UInt8, C.Index == Int {
    UInt16(b[i]) | UInt16(b[i + 1]) << 8
}
@inline(__always) func readU32<C: RandomAccessCollection>(_ b: C, _ i: C.Index) -> UInt32 where C.Element == UInt8, C.Index == Int {
    UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
}
func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

/// Encodes one netlink message (header + payload, padded).
func encodeNetlinkMessage(type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32 = 0, payload: [UInt8]) -> [UInt8] {
    let length = NetlinkConstant.headerLength + payload.count
    var out = le32(UInt32(length)) + le16(type) + le16(flags) + le32(sequence) + le32(portID) + payload
    out += [UInt8](repeating: 0, count: netlinkAlign(length) - length)
    return out
}

/// A non-blocking netlink socket: the thin shell under the uevent and thermal sources.
/// Owns its descriptor and closes it on deinit.
final class NetlinkSocket {
    let fd: Int32
    /// One datagram's buffer, reused: uevents are at most 8 KiB (UEVENT_BUFFER_SIZE is 2 KiB of
    /// environment plus headers) and generic-netlink events far smaller.
    static let bufferSize = 16 * 1024
    /// `bufferSize` bytes, allocated at the first `receive` and never filled in: `recvfrom`
    /// writes the bytes that are read. A one-shot (`thermtop status`) opens both netlink sources
    /// only to report their state and receives once at most (the thermal family's reply, well
    /// under a page); zero-filling 16 KiB per socket at creation touched ~4 fresh heap pages
    /// each (a page fault apiece) for bytes nothing read.
    private var buffer: UnsafeMutableRawBufferPointer?
    /// Whether the receive buffer exists yet (tests).
    var hasReceiveBuffer: Bool { buffer != nil }

    /// What went wrong opening or joining, as `socket: EPERM (Operation not permitted)`.
    struct Failure: Error, Equatable {
        var step: String
        var code: Int32
        var text: String { "\(step): \(errnoDescription(code))" }
    }

    /// Opens and binds a socket of `protocol` (`NETLINK_KOBJECT_UEVENT`, `NETLINK_GENERIC`),
    /// joining the broadcast `groups` bitmask at bind time.
    init(type: Int32, protocol proto: Int32, groups: UInt32) throws(Failure) {
        let fd = socket(AF_NETLINK, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), proto)
        guard fd >= 0 else { throw Failure(step: "socket", code: errno) }
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        var address = le16(UInt16(AF_NETLINK)) + le16(0) + le32(0) + le32(groups)
        let rc = address.withUnsafeMutableBytes {
            bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw Failure(step: "bind", code: code)
        }
        self.fd = fd
    }

    deinit {
        close(fd)
        buffer?.deallocate()
    }

    /// Joins a multicast group by id (generic-netlink groups are numbered past 32).
    func join(group: UInt32) throws(Failure) {
        var id = group
        guard setsockopt(fd, NetlinkConstant.solNetlink, NetlinkConstant.addMembership, &id,
                         socklen_t(MemoryLayout<UInt32>.size)) == 0 else {
            throw Failure(step: "join group \(group)", code: errno)
        }
    }

    /// Sends one datagram to the kernel (port 0).
    func sendToKernel(_ bytes: [UInt8]) throws(Failure) {
        var kernel = le16(UInt16(AF_NETLINK)) + le16(0) + le32(0) + le32(0)
        let sent = bytes.withUnsafeBytes { data in
            kernel.withUnsafeMutableBytes { addr in
                sendto(fd, data.baseAddress, data.count, 0,
                       addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count))
            }
        }
        guard sent == bytes.count else { throw Failure(step: "send", code: sent < 0 ? errno : EMSGSIZE) }
    }

    enum Received {
        /// A datagram and the port id of its sender (0 = the kernel).
        case datagram([UInt8], senderPort: UInt32)
        /// Nothing pending.
        case empty
        /// The kernel dropped messages because the receive buffer was full (ENOBUFS): the
        /// listener must assume it missed something.
        case overrun
        case failed(Failure)
    }

    /// Receives one datagram without blocking.
    func receive() -> Received {
        var sender = [UInt8](repeating: 0, count: 12)
        var senderLength = socklen_t(sender.count)
        let data = buffer ?? {
            let made = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
            buffer = made
            return made
        }()
        let n = sender.withUnsafeMutableBytes { addr in
            recvfrom(fd, data.baseAddress, data.count, Int32(MSG_DONTWAIT),
                     addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), &senderLength)
        }
        if n < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK: return .empty
            case EINTR: return receive()
            case ENOBUFS: return .overrun
            case let code: return .failed(Failure(step: "recv", code: code))
            }
        }
        return .datagram(Array(UnsafeRawBufferPointer(rebasing: data[0..<n])), senderPort: readU32(sender, 4))
    }

    /// Reads every pending datagram without blocking and turns the kernel's (sender port 0) into
    /// hints with `kernelDatagram`, which returns the hints and how many events the datagram
    /// carried. An overrun becomes a rediscovery (events were lost); a failure turns the source
    /// off (`state.active` false, the reason in `state.detail`) and leaves it to polling. The
    /// hints come back coalesced. The one drain loop of every netlink wake source.
    func drain(_ state: inout EventSourceState, overrunReason: String,
               kernelDatagram: ([UInt8]) -> (events: Int, hints: [MonitorChangeHint])) -> [MonitorChangeHint] {
        var hints: [MonitorChangeHint] = []
        while true {
            switch receive() {
            case .empty:
                return coalesce(hints)
            case .overrun:
                state.events += 1
                hints.append(.rediscover(overrunReason))
            case .failed(let failure):
                state.active = false
                state.detail = failure.text + "; polling only"
                return coalesce(hints)
            case .datagram(let bytes, let sender):
                guard sender == 0 else { continue }
                let (events, more) = kernelDatagram(bytes)
                state.events += events
                hints += more
            }
        }
    }

    /// Waits up to `milliseconds` for the socket to become readable (used only while resolving
    /// a family, before the source is handed to the sampler's poll loop).
    func waitReadable(milliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, milliseconds) == 1
    }
}

/// `EPERM (Operation not permitted)`: the symbolic name users search for (from the one table,
/// `SysfsRoot.errnoName`), and the C library's text.
func errnoDescription(_ code: Int32) -> String {
    let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    return "\(SysfsRoot.errnoName(code)) (\(text))"
}
