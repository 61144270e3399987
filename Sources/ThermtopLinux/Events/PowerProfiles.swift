#if os(Linux)
import CSystemd
import Glibc
import ThermtopCore

/// What the power-profiles service on the system bus says now.
public struct PowerProfileReading: Sendable, Equatable {
    /// `power-saver`, `balanced`, `performance`; nil when the service did not give one.
    public var activeProfile: String?
    /// Why the performance profile is degraded (`lap-detected`, `high-operating-temperature`),
    /// nil when it is not (the service sends an empty string).
    public var performanceDegraded: String?
    /// The bus name that answered: `org.freedesktop.UPower.PowerProfiles` or `net.hadess.PowerProfiles`.
    public var service: String

    /// A reading of the daemon's active profile and PerformanceDegraded, from `service`.
    public init(activeProfile: String?, performanceDegraded: String?, service: String) {
        self.activeProfile = activeProfile
        self.performanceDegraded = performanceDegraded
        self.service = service
    }
}

extension LowPowerSignals {
    /// The signals with the D-Bus profile in place of the state file's: the bus is live and also
    /// covers tuned-ppd, which writes no state.ini. Without a reading, the state file stays.
    public func merging(_ reading: PowerProfileReading?) -> LowPowerSignals {
        guard let reading else { return self }
        var out = self
        out.powerProfilesDaemon = reading.activeProfile
        out.performanceDegraded = reading.performanceDegraded
        out.powerProfileOrigin = .dbus
        return out
    }
}

/// Follows power-profiles-daemon (or tuned-ppd) on the system bus through sd-bus (libsystemd,
/// loaded on first use; every sd-bus call is made from this file, see CSystemd/shim.h): reads
/// `ActiveProfile` and `PerformanceDegraded` once, then follows `PropertiesChanged`, and notices
/// the daemon leaving or (re)appearing. `sd_bus_open_system` honours `DBUS_SYSTEM_BUS_ADDRESS`.
///
/// Only the creating thread may use it (sd-bus connections are not thread-safe): the sampler
/// creates it, polls `descriptor` for `pollEvents` and calls `drain()`, which runs
/// `sd_bus_process` until nothing is left. Only the first read waits for the bus (bounded by
/// `timeout`), so the first sample already has the profile; every later read is asynchronous.
public final class PowerProfilesSource: MonitorWakeSource {
    /// Where a power-profiles daemon answers on the system bus.
    public struct Service: Sendable, Equatable {
        /// The bus name.
        public var name: String
        /// The object path.
        public var path: String
        /// The interface with `ActiveProfile` and `PerformanceDegraded`.
        public var interface: String
    }

    /// In order of preference: power-profiles-daemon 0.20+ and tuned-ppd own the first; most
    /// installs also keep the older name.
    public static let services = [
        Service(name: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
                interface: "org.freedesktop.UPower.PowerProfiles"),
        Service(name: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
                interface: "net.hadess.PowerProfiles"),
    ]

    public let name = "power profiles (D-Bus)"
    public private(set) var state: EventSourceState
    /// The latest values, nil while no power-profiles service is on the bus.
    public private(set) var reading: PowerProfileReading?

    private var bus: OpaquePointer?
    private var slots: [OpaquePointer] = []
    /// The unique bus name owning each service name we know of (from replies and
    /// NameOwnerChanged): a PropertiesChanged from anyone else is not believed.
    private var owners: [String: String] = [:]
    private var pending: [MonitorChangeHint] = []
    private let services: [Service]

    /// A source following `services` on the system bus, or on the bus at `address`.
    ///
    /// - Parameters:
    ///   - address: a bus address (`unix:path=…`) to use instead of the system bus; nil opens
    ///     the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket).
    ///   - timeout: how long the first read may wait for the bus (later reads never wait).
    ///   - services: the names to follow, in order of preference.
    public convenience init(address: String? = nil, timeout: Duration = .milliseconds(250),
                            services: [Service] = PowerProfilesSource.services) {
        self.init(address: address, timeout: timeout.inSeconds, chosen: services)
    }

    /// The system bus's source following `PowerProfilesSource.services`, which are made only
    /// when there is a bus to follow them on: where there is none (a container, CI, the
    /// benchmark's machine) a one-shot only reports why, and the list (an array of a type
    /// of its own, its metadata made at run time) was work for nothing.
    package convenience init(systemBusTimeout timeout: Double) {
        self.init(address: nil, timeout: timeout, chosen: nil)
    }

    /// `chosen` nil: the standard services.
    private init(address: String?, timeout: Double, chosen: [Service]?) {
        state = EventSourceState(name: name, active: false, detail: "")
        // No bus, no libsystemd: a machine without a system bus (a container, CI) does not load it.
        if address == nil, !Self.systemBusMayExist {
            services = chosen ?? []
            state.detail = "system bus: no \(Self.systemBusSocket) and no DBUS_SYSTEM_BUS_ADDRESS; state.ini fallback"
            return
        }
        let services = chosen ?? Self.services
        self.services = services
        guard thermtop_sdbus_load() == 1 else {
            state.detail = "libsystemd: \(String(cString: thermtop_sdbus_error())); state.ini fallback"
            return
        }
        var bus: OpaquePointer?
        let rc = address.map { Self.open(address: $0, &bus) } ?? tt_sd_bus_open_system(&bus)
        guard rc >= 0, let bus else {
            if let bus { tt_sd_bus_flush_close_unref(bus) }
            state.detail = "system bus: \(errnoDescription(-rc)); state.ini fallback"
            return
        }
        self.bus = bus
        _ = tt_sd_bus_set_method_call_timeout(bus, UInt64(max(timeout, 0.001) * 1_000_000))
        let me = Unmanaged.passUnretained(self).toOpaque()
        for service in services {
            // Signals are matched by path and checked against the owner in the handler: sd-bus
            // cannot match a well-known sender name locally.
            var slot: OpaquePointer?
            var r = tt_sd_bus_match_signal(bus, &slot, nil, service.path, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", { m, userdata, _ in
                PowerProfilesSource.from(userdata).propertiesChanged(m)
                return 0
            }, me)
            if r >= 0, let slot { slots.append(slot) }
            slot = nil
            let rule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service.name)'"
            if r >= 0 {
                r = tt_sd_bus_add_match(bus, &slot, rule, { m, userdata, _ in
                    PowerProfilesSource.from(userdata).nameOwnerChanged(m)
                    return 0
                }, me)
            }
            if r >= 0, let slot { slots.append(slot) }
            guard r >= 0 else {
                state.detail = "system bus: add match: \(errnoDescription(-r)); state.ini fallback"
                close()
                return
            }
        }
        // The first read waits: the first sample must already carry the profile.
        var lastError = ""
        for service in services {
            switch readAll(service) {
            case .success(let owner):
                owners[service.name] = owner
            case .failure(let why):
                if lastError.isEmpty { lastError = why.text }
            }
            if reading != nil { break }
        }
        state.active = true
        state.detail = reading.map { $0.service } ?? "no power-profiles service (\(lastError)); watching the bus"
    }

    deinit { close() }

    /// sd-bus's default system bus address when DBUS_SYSTEM_BUS_ADDRESS is not set.
    static let systemBusSocket = "/run/dbus/system_bus_socket"

    static var systemBusMayExist: Bool {
        getenv("DBUS_SYSTEM_BUS_ADDRESS") != nil || access(systemBusSocket, F_OK) == 0
    }

    /// A client connection to `address`, as `sd_bus_open_system` makes one to the system bus.
    private static func open(address: String, _ bus: inout OpaquePointer?) -> Int32 {
        var r = tt_sd_bus_new(&bus)
        if r >= 0 { r = tt_sd_bus_set_address(bus, address) }
        if r >= 0 { r = tt_sd_bus_set_bus_client(bus, 1) }
        if r >= 0 { r = tt_sd_bus_start(bus) }
        return r
    }

    private func close() {
        for slot in slots { tt_sd_bus_slot_unref(slot) }
        slots = []
        if let bus { tt_sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> PowerProfilesSource {
        Unmanaged<PowerProfilesSource>.fromOpaque(userdata!).takeUnretainedValue()
    }

    public var descriptor: Int32? {
        guard state.active, let bus else { return nil }
        let fd = tt_sd_bus_get_fd(bus)
        return fd >= 0 ? fd : nil
    }

    public var pollEvents: Int16 {
        guard let bus else { return Int16(POLLIN) }
        let e = tt_sd_bus_get_events(bus)
        return e > 0 ? Int16(e) : Int16(POLLIN)
    }

    public func drain() -> [MonitorChangeHint] {
        guard state.active, let bus else { return [] }
        while true {
            let r = tt_sd_bus_process(bus, nil)
            if r == 0 { break }
            if r < 0 {
                // The bus went away (dbus-daemon restarted): fall back to state.ini; the
                // sampler re-decides with the D-Bus values gone.
                close()
                state.active = false
                state.detail = "system bus lost: \(errnoDescription(-r)); state.ini fallback"
                if reading != nil {
                    reading = nil
                    pending.append(.resample("D-Bus: system bus lost"))
                }
                break
            }
        }
        defer { pending = [] }
        return coalesce(pending)
    }

    // MARK: - Reading

    /// GetAll on `service`, waiting for the answer (used once, at start). Returns the owner.
    private struct ReadFailure: Error { var text: String }

    private func readAll(_ service: Service) -> Result<String, ReadFailure> {
        guard let bus else { return .failure(ReadFailure(text: "no bus")) }
        guard let call = getAllCall(service) else { return .failure(ReadFailure(text: "cannot build GetAll")) }
        defer { tt_sd_bus_message_unref(call) }
        var error = sd_bus_error()
        defer { tt_sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = tt_sd_bus_call(bus, call, 0, &error, &reply)
        guard r >= 0, let reply else {
            let name = error.name.map { String(cString: $0) } ?? errnoDescription(-r)
            return .failure(ReadFailure(text: "\(service.name): \(Self.shortError(name))"))
        }
        defer { tt_sd_bus_message_unref(reply) }
        apply(reply: reply, from: service)
        return .success(tt_sd_bus_message_get_sender(reply).map { String(cString: $0) } ?? "")
    }

    /// GetAll without waiting: the answer arrives through `drain()`.
    private func requestAll(_ service: Service) {
        guard let bus, let call = getAllCall(service) else { return }
        defer { tt_sd_bus_message_unref(call) }
        let context = Unmanaged.passRetained(AsyncRead(source: self, service: service)).toOpaque()
        // A floating slot (nil): sd-bus frees it with the call; the context is released in the handler.
        let r = tt_sd_bus_call_async(bus, nil, call, { m, userdata, _ in
            let context = Unmanaged<AsyncRead>.fromOpaque(userdata!).takeRetainedValue()
            context.source?.asyncReply(m, service: context.service)
            return 0
        }, context, 0)
        if r < 0 { Unmanaged<AsyncRead>.fromOpaque(context).release() }
    }

    private final class AsyncRead {
        weak var source: PowerProfilesSource?
        let service: Service
        init(source: PowerProfilesSource, service: Service) {
            self.source = source
            self.service = service
        }
    }

    private func getAllCall(_ service: Service) -> OpaquePointer? {
        var m: OpaquePointer?
        guard tt_sd_bus_message_new_method_call(bus, &m, service.name, service.path,
                                             "org.freedesktop.DBus.Properties", "GetAll") >= 0, let m else { return nil }
        let appended = service.interface.withCString { iface in
            tt_sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), iface)
        }
        guard appended >= 0 else {
            tt_sd_bus_message_unref(m)
            return nil
        }
        return m
    }

    private func asyncReply(_ m: OpaquePointer?, service: Service) {
        guard let m, state.active else { return }
        state.events += 1
        if tt_sd_bus_message_is_method_error(m, nil) > 0 {
            // The service went away between the owner change and our call: nothing to read.
            return
        }
        if let sender = tt_sd_bus_message_get_sender(m) { owners[service.name] = String(cString: sender) }
        // A less preferred service answering late must not replace a preferred one.
        if let current = reading?.service, rank(current) < rank(service.name) { return }
        let before = reading
        apply(reply: m, from: service)
        state.detail = service.name
        if reading != before { pending.append(.resample("D-Bus \(service.name): \(summary)")) }
    }

    /// Reads the `a{sv}` of a GetAll reply into `reading`.
    private func apply(reply: OpaquePointer, from service: Service) {
        var next = reading?.service == service.name ? reading! : PowerProfileReading(activeProfile: nil, performanceDegraded: nil, service: service.name)
        _ = Self.readProperties(reply, into: &next)
        reading = next
    }

    // MARK: - Signals

    private func propertiesChanged(_ m: OpaquePointer?) {
        guard let m, let path = tt_sd_bus_message_get_path(m).map({ String(cString: $0) }),
              let service = services.first(where: { $0.path == path }) else { return }
        state.events += 1
        // Believe only the owner of the name whose values we hold.
        let sender = tt_sd_bus_message_get_sender(m).map { String(cString: $0) }
        guard reading?.service == service.name, let owner = owners[service.name], sender == owner else { return }
        guard let iface = Self.readString(m), iface == service.interface else { return }
        var next = reading!
        let invalidated = Self.readProperties(m, into: &next)
        let before = reading
        reading = next
        if invalidated { requestAll(service) }
        if reading != before { pending.append(.resample("D-Bus PropertiesChanged: \(summary)")) }
    }

    private func nameOwnerChanged(_ m: OpaquePointer?) {
        guard let m, let name = Self.readString(m) else { return }
        _ = Self.readString(m)  // old owner
        let newOwner = Self.readString(m) ?? ""
        guard let service = services.first(where: { $0.name == name }) else { return }
        state.events += 1
        owners[name] = newOwner.isEmpty ? nil : newOwner
        if newOwner.isEmpty {
            guard reading?.service == name else { return }
            // Our service left: fall back to the next one on the bus, else to state.ini.
            reading = nil
            pending.append(.resample("D-Bus \(name) left the bus"))
            state.detail = "\(name) left the bus; watching"
            if let other = services.first(where: { owners[$0.name] != nil }) { requestAll(other) }
        } else if reading == nil || rank(name) <= rank(reading!.service) {
            requestAll(service)
        }
    }

    private func rank(_ name: String) -> Int { services.firstIndex { $0.name == name } ?? Int.max }

    private var summary: String {
        guard let reading else { return "gone" }
        var s = "profile \(reading.activeProfile ?? "unknown")"
        if let d = reading.performanceDegraded { s += ", performance degraded: \(d)" }
        return s
    }

    private static func shortError(_ name: String) -> String {
        name.hasPrefix("org.freedesktop.DBus.Error.") ? String(name.dropFirst("org.freedesktop.DBus.Error.".count)) : name
    }

    // MARK: - Message parsing (sd-bus's reader; the wire format is libsystemd's business)

    private static let s = CChar(UInt8(ascii: "s"))

    static func readString(_ m: OpaquePointer) -> String? {
        var p: UnsafePointer<CChar>?
        guard tt_sd_bus_message_read_basic(m, s, &p) > 0, let p else { return nil }
        return String(cString: p)
    }

    /// Reads an `a{sv}` (and, in a PropertiesChanged, the following `as` of invalidated names)
    /// off the wire and applies it to `reading` (`PowerProfileReading.apply`, which decides what
    /// the values mean). Returns true when one of our properties was invalidated without a value.
    @discardableResult
    static func readProperties(_ m: OpaquePointer, into reading: inout PowerProfileReading) -> Bool {
        var properties: [PowerProfileProperty] = []
        var invalidated: [String] = []
        guard tt_sd_bus_message_enter_container(m, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return false }
        while tt_sd_bus_message_enter_container(m, CChar(UInt8(ascii: "e")), "sv") > 0 {
            let key = readString(m) ?? ""
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            let signature = tt_sd_bus_message_peek_type(m, &type, &contents) > 0 ? contents.map { String(cString: $0) } ?? "" : ""
            if signature == "s", tt_sd_bus_message_enter_container(m, CChar(UInt8(ascii: "v")), "s") > 0 {
                properties.append(PowerProfileProperty(name: key, signature: signature, string: readString(m)))
                _ = tt_sd_bus_message_exit_container(m)
            } else {
                properties.append(PowerProfileProperty(name: key, signature: signature, string: nil))
                _ = tt_sd_bus_message_skip(m, "v")
            }
            _ = tt_sd_bus_message_exit_container(m)
        }
        _ = tt_sd_bus_message_exit_container(m)
        if tt_sd_bus_message_enter_container(m, CChar(UInt8(ascii: "a")), "s") > 0 {
            while let name = readString(m) { invalidated.append(name) }
            _ = tt_sd_bus_message_exit_container(m)
        }
        return reading.apply(properties, invalidated: invalidated)
    }
}

/// One property of a GetAll reply or a PropertiesChanged signal as it came off the bus: its
/// name, the D-Bus signature of the variant's contents, and the text when that is a string (`s`).
public struct PowerProfileProperty: Sendable, Equatable {
    /// The property's name (`ActiveProfile`, `PerformanceDegraded`).
    public var name: String
    /// The D-Bus signature of the value (`s` for a string).
    public var signature: String
    /// The value when it is a string, else nil.
    public var string: String?

    /// A property as it came off the bus.
    public init(name: String, signature: String, string: String?) {
        self.name = name
        self.signature = signature
        self.string = string
    }
}

extension PowerProfileReading {
    /// What a reply's or signal's properties mean for the reading. Pure (no bus), so the
    /// decoding of whatever a peer on the bus sends can be tested and fuzzed: only string-typed
    /// `ActiveProfile` and `PerformanceDegraded` count (any other type or name is ignored), an
    /// empty string means none. Returns true when one of the two is named in `invalidated`
    /// (changed without a value: the caller reads them again).
    @discardableResult
    public mutating func apply(_ properties: [PowerProfileProperty], invalidated: [String]) -> Bool {
        for p in properties where p.signature == "s" {
            let value = p.string.flatMap { $0.isEmpty ? nil : $0 }
            switch p.name {
            case "ActiveProfile": activeProfile = value
            case "PerformanceDegraded": performanceDegraded = value
            default: break
            }
        }
        return invalidated.contains { $0 == "ActiveProfile" || $0 == "PerformanceDegraded" }
    }
}
#endif
