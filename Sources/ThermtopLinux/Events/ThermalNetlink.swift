#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// Generic-netlink controller constants (/usr/include/linux/genetlink.h).
enum GenlConstant {
    static let controllerID: UInt16 = 0x10          // GENL_ID_CTRL
    static let cmdNewFamily: UInt8 = 1              // CTRL_CMD_NEWFAMILY (the reply)
    static let cmdGetFamily: UInt8 = 3              // CTRL_CMD_GETFAMILY
    static let attrFamilyID: UInt16 = 1             // CTRL_ATTR_FAMILY_ID
    static let attrFamilyName: UInt16 = 2           // CTRL_ATTR_FAMILY_NAME
    static let attrMulticastGroups: UInt16 = 7      // CTRL_ATTR_MCAST_GROUPS
    static let attrGroupName: UInt16 = 1            // CTRL_ATTR_MCAST_GRP_NAME
    static let attrGroupID: UInt16 = 2              // CTRL_ATTR_MCAST_GRP_ID
}

/// A generic-netlink family as the controller describes it: its message type and its
/// multicast groups by name.
package struct GenlFamily: Sendable, Equatable {
    public var id: UInt16
    public var name: String
    public var groups: [String: UInt32]

    public init(id: UInt16, name: String, groups: [String: UInt32]) {
        self.id = id
        self.name = name
        self.groups = groups
    }

    /// Why a family could not be resolved.
    public enum Failure: Error, Equatable, Sendable {
        /// The controller answered with an error: ENOENT means this kernel has no such family.
        case kernelError(Int32)
        /// The reply was not a CTRL_CMD_NEWFAMILY the parser understands.
        case malformed(String)

        public var text: String {
            switch self {
            case .kernelError(ENOENT): return "not in this kernel (needs 5.10+ with CONFIG_THERMAL_NETLINK)"
            case .kernelError(let code): return "controller: \(errnoDescription(code))"
            case .malformed(let why): return "controller reply: \(why)"
            }
        }
    }

    /// A CTRL_CMD_GETFAMILY request for `name`.
    static func request(name: String, sequence: UInt32) -> [UInt8] {
        let genl: [UInt8] = [GenlConstant.cmdGetFamily, 1, 0, 0]
        let attr = NetlinkAttribute.encode(type: GenlConstant.attrFamilyName, Array(name.utf8) + [0])
        return encodeNetlinkMessage(type: GenlConstant.controllerID, flags: NetlinkConstant.flagRequest,
                                    sequence: sequence, payload: genl + attr)
    }

    /// Parses the controller's answer to `request` (one datagram). nil when the datagram holds
    /// nothing answering `sequence` (a stray message: keep waiting).
    public static func parseReply(_ bytes: [UInt8], sequence: UInt32) -> Result<GenlFamily, Failure>? {
        // Messages and attributes taken one by one as they are found (`forEach`), no array of
        // them made: this reply is the only netlink a one-shot `status` parses.
        var answer: Result<GenlFamily, Failure>?
        NetlinkMessage.forEach(bytes) { message in
            guard message.sequence == sequence else { return true }
            if let code = message.errorCode {
                if code == 0 {
                    answer = .failure(.malformed("acknowledgement without the family"))
                } else if code < 0, code >= -4095 {
                    answer = .failure(.kernelError(-code))
                } else {
                    // The kernel sends a negative errno (-4095...-1). Anything else is not one, and
                    // is never negated: -Int32.min does not exist (a fuzzed reply trapped on it).
                    answer = .failure(.malformed("error code \(code)"))
                }
                return false
            }
            guard message.type == GenlConstant.controllerID else { return true }
            guard message.payload.count >= NetlinkConstant.genlHeaderLength,
                  message.payload[message.payload.startIndex] == GenlConstant.cmdNewFamily else {
                answer = .failure(.malformed("not CTRL_CMD_NEWFAMILY"))
                return false
            }
            var id: UInt16?, name: String?
            var groups: [String: UInt32] = [:]
            NetlinkAttribute.forEach(message.payload.dropFirst(NetlinkConstant.genlHeaderLength)) { attr in
                switch attr.type {
                case GenlConstant.attrFamilyID: id = attr.u16
                case GenlConstant.attrFamilyName: name = attr.string
                case GenlConstant.attrMulticastGroups:
                    NetlinkAttribute.forEach(attr.value) { group in
                        // Each group's first name and first id attribute, as found.
                        var groupName: String??, groupID: UInt32??
                        NetlinkAttribute.forEach(group.value) { field in
                            if field.type == GenlConstant.attrGroupName, groupName == nil { groupName = .some(field.string) }
                            if field.type == GenlConstant.attrGroupID, groupID == nil { groupID = .some(field.u32) }
                        }
                        if let n = groupName ?? nil, let g = groupID ?? nil { groups[n] = g }
                    }
                default: break
                }
            }
            if let id, let name {
                answer = .success(GenlFamily(id: id, name: name, groups: groups))
            } else {
                answer = .failure(.malformed("no family id or name"))
            }
            return false
        }
        return answer
    }
}

/// One message of the kernel's `thermal` generic-netlink family (linux/thermal.h).
package struct ThermalGenlMessage: Sendable, Equatable {
    /// `enum thermal_genl_event`.
    public enum Event: Sendable, Equatable, Hashable {
        case zoneCreate, zoneDelete, zoneDisable, zoneEnable
        case tripUp, tripDown, tripChange, tripAdd, tripDelete
        case cdevAdd, cdevDelete, cdevStateUpdate
        case governorChange, cpuCapabilityChange
        /// A command this code does not know (a newer kernel's event).
        case unknown(UInt8)

        public init(command: UInt8) {
            let known: [Event] = [.zoneCreate, .zoneDelete, .zoneDisable, .zoneEnable, .tripUp, .tripDown,
                                  .tripChange, .tripAdd, .tripDelete, .cdevAdd, .cdevDelete, .cdevStateUpdate,
                                  .governorChange, .cpuCapabilityChange]
            self = command >= 1 && Int(command) <= known.count ? known[Int(command) - 1] : .unknown(command)
        }

        /// The words the overlay shows.
        public var label: String {
            switch self {
            case .zoneCreate: "zone created"
            case .zoneDelete: "zone deleted"
            case .zoneDisable: "zone disabled"
            case .zoneEnable: "zone enabled"
            case .tripUp: "trip crossed up"
            case .tripDown: "trip crossed down"
            case .tripChange: "trip changed"
            case .tripAdd: "trip added"
            case .tripDelete: "trip deleted"
            case .cdevAdd: "cooling device added"
            case .cdevDelete: "cooling device deleted"
            case .cdevStateUpdate: "cooling device state"
            case .governorChange: "governor changed"
            case .cpuCapabilityChange: "cpu capability changed"
            case .unknown(let c): "event \(c)"
            }
        }
    }

    /// `enum thermal_genl_attr` values this parser reads.
    enum Attr {
        static let zoneID: UInt16 = 2, zoneTemp: UInt16 = 3, tripID: UInt16 = 5, tripType: UInt16 = 6
        static let tripTemp: UInt16 = 7, zoneName: UInt16 = 10, govName: UInt16 = 13
        static let cdevID: UInt16 = 15, cdevCurState: UInt16 = 16, cdevMaxState: UInt16 = 17, cdevName: UInt16 = 18
    }

    public var event: Event
    public var zoneID: Int?
    public var tripID: Int?
    /// Zone temperature in millidegrees Celsius (sent with trip crossings).
    public var temperatureMilli: Int?
    public var cdevID: Int?
    public var cdevState: Int?
    /// Zone or cooling-device name (sent on create / add), or the governor name.
    public var name: String?

    public init(event: Event, zoneID: Int? = nil, tripID: Int? = nil, temperatureMilli: Int? = nil,
                cdevID: Int? = nil, cdevState: Int? = nil, name: String? = nil) {
        self.event = event
        self.zoneID = zoneID
        self.tripID = tripID
        self.temperatureMilli = temperatureMilli
        self.cdevID = cdevID
        self.cdevState = cdevState
        self.name = name
    }

    /// The thermal messages in one datagram (nlmsghdr + genlmsghdr + nlattrs, possibly several).
    /// Messages of other types are skipped: the controller's (0x10) and netlink's own (< 0x10),
    /// and, when `familyID` is given, every type but that one.
    public static func parse(_ bytes: [UInt8], familyID: UInt16? = nil) -> [ThermalGenlMessage] {
        NetlinkMessage.split(bytes).compactMap { message in
            guard message.type > GenlConstant.controllerID, familyID == nil || message.type == familyID,
                  message.payload.count >= NetlinkConstant.genlHeaderLength else { return nil }
            var out = ThermalGenlMessage(event: Event(command: message.payload[message.payload.startIndex]))
            for attr in NetlinkAttribute.parse(message.payload.dropFirst(NetlinkConstant.genlHeaderLength)) {
                let int = attr.u32.map { Int(Int32(bitPattern: $0)) }
                switch attr.type {
                case Attr.zoneID: out.zoneID = int
                case Attr.tripID: out.tripID = int
                case Attr.zoneTemp: out.temperatureMilli = int
                case Attr.cdevID: out.cdevID = int
                case Attr.cdevCurState: out.cdevState = int
                case Attr.zoneName, Attr.cdevName, Attr.govName: out.name = attr.string
                default: break
                }
            }
            return out
        }
    }

    /// Crossings and state changes resample; zones, trips and cooling devices coming or going
    /// rediscover (trips are read at discovery). CPU capability updates (Intel HFI, up to
    /// several a second) say nothing about heat and are ignored.
    public var hint: MonitorChangeHint? {
        let why = "thermal netlink: " + description
        switch event {
        case .tripUp, .tripDown, .cdevStateUpdate, .zoneEnable, .zoneDisable, .governorChange:
            return .resample(why)
        case .zoneCreate, .zoneDelete, .tripAdd, .tripDelete, .tripChange, .cdevAdd, .cdevDelete:
            return .rediscover(why)
        case .cpuCapabilityChange, .unknown:
            return nil
        }
    }

    /// `trip crossed up zone 0 trip 1 at 85.0 °C`.
    public var description: String {
        var parts = [event.label]
        if let zoneID { parts.append("zone \(zoneID)") }
        if let tripID { parts.append("trip \(tripID)") }
        if let cdevID { parts.append("cdev \(cdevID)") }
        if let cdevState { parts.append("state \(cdevState)") }
        if let name { parts.append(name) }
        if let t = temperatureMilli { parts.append("at \(Format.fixed(Double(t) / SysfsValue.milliPerUnit, places: 1)) °C") }
        return parts.joined(separator: " ")
    }
}

/// Joins the `thermal` family's `event` group: the kernel says when a trip is crossed, a zone or
/// cooling device comes or goes, or a cooling device changes state. Joining needs no privilege.
public final class ThermalNetlinkSource: MonitorWakeSource {
    public let name = "thermal netlink"
    let socket: NetlinkSocket?
    package private(set) var family: GenlFamily?
    public private(set) var state: EventSourceState
    package private(set) var lastMessage: ThermalGenlMessage?

    /// The kernel answers the controller inside the sending call; the wait only bounds a
    /// kernel that never answers.
    static let resolveWaitMilliseconds: Int32 = 1000

    /// Join the kernel's thermal generic-netlink family and its event group (the defaults are
    /// the kernel's names); inactive, with the reason in its state, where that fails.
    public init(familyName: String = "thermal", groupName: String = "event") {
        var state = EventSourceState(name: name, active: false, detail: "")
        var joined: (NetlinkSocket, GenlFamily)?
        do {
            let s = try NetlinkSocket(type: Int32(SOCK_RAW.rawValue), protocol: NetlinkConstant.generic, groups: 0)
            switch Self.resolve(familyName, on: s) {
            case .success(let family):
                if let group = family.groups[groupName] {
                    try s.join(group: group)
                    joined = (s, family)
                    state.active = true
                    // The ids printed as Int, whose description everything else uses: the
                    // UInt16 and UInt32 ones are code of their own, run for this line alone.
                    state.detail = "family \(familyName) (\(Int(family.id))), group \(groupName) (\(Int(group)))"
                } else {
                    state.detail = "family \(familyName) has no group \(groupName); polling only"
                }
            case .failure(let failure):
                state.detail = "family \(familyName): \(failure.text); polling only"
            }
        } catch {
            state.detail = error.text + "; polling only"
        }
        self.state = state
        socket = joined?.0
        family = joined?.1
    }

    /// Asks the controller for `name` on `socket` and waits for the answer.
    static func resolve(_ name: String, on socket: NetlinkSocket) -> Result<GenlFamily, GenlFamily.Failure> {
        let sequence: UInt32 = 1
        do {
            try socket.sendToKernel(GenlFamily.request(name: name, sequence: sequence))
        } catch {
            return .failure(.malformed(error.text))
        }
        while socket.waitReadable(milliseconds: resolveWaitMilliseconds) {
            switch socket.receive() {
            case .datagram(let bytes, _):
                if let result = GenlFamily.parseReply(bytes, sequence: sequence) { return result }
            case .empty, .overrun: continue
            case .failed(let f): return .failure(.malformed(f.text))
            }
        }
        return .failure(.kernelError(ETIMEDOUT))
    }

    public var descriptor: Int32? { state.active ? socket?.fd : nil }

    public func drain() -> [MonitorChangeHint] {
        guard state.active, let socket, let family else { return [] }
        var latest: ThermalGenlMessage?
        let hints = socket.drain(&state, overrunReason: "thermal netlink overrun: events lost") { bytes in
            let messages = ThermalGenlMessage.parse(bytes, familyID: family.id)
            latest = messages.last ?? latest
            return (messages.count, messages.compactMap(\.hint))
        }
        if let latest { lastMessage = latest }
        return hints
    }
}
