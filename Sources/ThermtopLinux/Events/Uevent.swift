#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// One kernel uevent: `ACTION@DEVPATH\0KEY=VALUE\0…` as the kernel broadcasts it.
package struct UeventMessage: Sendable, Equatable {
    /// `add`, `remove`, `change`, `bind`, `unbind`, `online`, `offline`, `move`.
    public var action: String
    /// Under /sys, without the `/sys` prefix: `/devices/LNXSYSTM:00/…/power_supply/BAT0`.
    public var devpath: String
    /// Every `KEY=VALUE` pair in order (`ACTION`, `DEVPATH`, `SUBSYSTEM`, `SEQNUM`, `POWER_SUPPLY_*`…).
    public var properties: [(key: String, value: String)]

    public init(action: String, devpath: String, properties: [(key: String, value: String)]) {
        self.action = action
        self.devpath = devpath
        self.properties = properties
    }

    public static func == (a: UeventMessage, b: UeventMessage) -> Bool {
        a.action == b.action && a.devpath == b.devpath
            && a.properties.elementsEqual(b.properties) { $0.key == $1.key && $0.value == $1.value }
    }

    public subscript(key: String) -> String? { properties.first { $0.key == key }?.value }
    public var subsystem: String? { self["SUBSYSTEM"] }
    public var sequence: UInt64? { self["SEQNUM"].flatMap { UInt64($0) } }
    /// The device's name: `POWER_SUPPLY_NAME` when given, else the last DEVPATH component.
    public var deviceName: String {
        if let n = self["POWER_SUPPLY_NAME"], !n.isEmpty { return n }
        return devpath.split(separator: "/").last.map(String.init) ?? devpath
    }

    /// Parses one datagram. Returns nil for anything that is not a kernel uevent: udevd's
    /// `libudev` re-broadcasts (a binary header), an empty or headerless datagram, text that is
    /// not UTF-8. Pairs without `=` are skipped; a missing trailing NUL is tolerated.
    public static func parse(_ bytes: [UInt8]) -> UeventMessage? {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true)
        guard let head = fields.first, let at = head.firstIndex(of: UInt8(ascii: "@")),
              let action = validUTF8(head[head.startIndex..<at]),
              let devpath = validUTF8(head[(at + 1)...]),
              !action.isEmpty, !devpath.isEmpty, !action.hasPrefix("libudev")
        else { return nil }
        var properties: [(key: String, value: String)] = []
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: UInt8(ascii: "=")), eq > field.startIndex,
                  let key = validUTF8(field[field.startIndex..<eq]),
                  let value = validUTF8(field[(eq + 1)...])
            else { continue }
            properties.append((key, value))
        }
        // The header must agree with the ACTION the kernel also sends as a pair (a guard against
        // a datagram that merely contains an `@`).
        if let a = properties.first(where: { $0.key == "ACTION" })?.value, a != action { return nil }
        return UeventMessage(action: action, devpath: devpath, properties: properties)
    }
}

/// Which uevents wake the sampler and how. A value so tests can listen to `net` (the one
/// subsystem every machine lets root trigger) with the same rule code.
package struct UeventFilter: Sendable, Equatable {
    /// `change` in these subsystems → resample (a charger plugged, a battery's firmware update).
    public var resampleOnChange: Set<String>
    /// `add` / `remove` in these subsystems → rediscover.
    public var rediscoverOnAddRemove: Set<String>

    public init(resampleOnChange: Set<String>, rediscoverOnAddRemove: Set<String>) {
        self.resampleOnChange = resampleOnChange
        self.rediscoverOnAddRemove = rediscoverOnAddRemove
    }

    /// Power supplies re-read on every change; supplies, thermal zones, cooling devices and hwmon
    /// chips rediscovered when they come or go. Thermal zones also send `change` from some
    /// drivers (int340x, ACPI) when a trip is crossed.
    public static let thermtop = UeventFilter(
        resampleOnChange: ["power_supply", "thermal"],
        rediscoverOnAddRemove: ["power_supply", "thermal", "hwmon"])

    /// The hint a message asks for, or nil when it does not concern the sampler.
    public func hint(for message: UeventMessage) -> MonitorChangeHint? {
        guard let subsystem = message.subsystem else { return nil }
        let why = "uevent \(subsystem) \(message.action) \(message.deviceName)"
        switch message.action {
        case "change" where resampleOnChange.contains(subsystem):
            return .resample(why)
        case "add", "remove":
            return rediscoverOnAddRemove.contains(subsystem) ? .rediscover(why) : nil
        default:
            return nil
        }
    }
}

/// Listens to the kernel's uevent broadcast (`NETLINK_KOBJECT_UEVENT`, group 1). No privilege
/// is needed to listen; in a container without a network namespace of its own the socket may
/// open and simply stay silent, which is normal: the sampler keeps its clock.
public final class UeventSource: MonitorWakeSource {
    public let name = "uevent"
    package let filter: UeventFilter
    let socket: NetlinkSocket?
    public private(set) var state: EventSourceState
    /// The last message that passed the sender check, for tests and the overlay's detail.
    package private(set) var lastMessage: UeventMessage?

    package init(filter: UeventFilter = .thermtop) {
        self.filter = filter
        do {
            let s = try NetlinkSocket(type: Int32(SOCK_DGRAM.rawValue), protocol: NetlinkConstant.kobjectUevent,
                                      groups: NetlinkConstant.ueventKernelGroup)
            socket = s
            state = EventSourceState(name: name, active: true, detail: "kernel uevents (group 1)")
        } catch {
            socket = nil
            state = EventSourceState(name: name, active: false, detail: error.text + "; polling only")
        }
    }

    public var descriptor: Int32? { state.active ? socket?.fd : nil }

    public func drain() -> [MonitorChangeHint] {
        guard state.active, let socket else { return [] }
        var latest: UeventMessage?
        // Only the kernel (port 0) speaks on group 1; anything else is not a uevent.
        let hints = socket.drain(&state, overrunReason: "uevent overrun: events lost") { bytes in
            guard let message = UeventMessage.parse(bytes) else { return (1, []) }
            latest = message
            return (1, filter.hint(for: message).map { [$0] } ?? [])
        }
        if let latest { lastMessage = latest }
        return hints
    }
}

/// One hint of each kind per drain, however many messages arrived (a dock plugged in sends a
/// burst): the first one's reason, with how many more there were.
func coalesce(_ hints: [MonitorChangeHint]) -> [MonitorChangeHint] {
    var resample: [String] = [], rediscover: [String] = []
    for h in hints {
        switch h {
        case .resample(let s): resample.append(s)
        case .rediscover(let s): rediscover.append(s)
        }
    }
    func reason(_ list: [String]) -> String {
        list.count == 1 ? list[0] : "\(list[0]) (+\(list.count - 1) more)"
    }
    // Rediscovery samples too, so a resample alongside it adds nothing.
    if !rediscover.isEmpty { return [.rediscover(reason(rediscover))] }
    if !resample.isEmpty { return [.resample(reason(resample))] }
    return []
}
