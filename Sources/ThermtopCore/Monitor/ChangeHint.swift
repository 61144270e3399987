/// What an event source (a kernel uevent, a thermal-netlink message, a D-Bus signal) tells the
/// sampler to do. Sources only hint; the sampler decides what to read, so every value still
/// comes through the one reading layer.
public enum MonitorChangeHint: Sendable, Equatable, Hashable {
    /// Something changed in values the sampler already reads: sample again now.
    /// The string says why (`uevent power_supply change BAT0`), for the debug overlay.
    case resample(String)
    /// Devices appeared or vanished: rediscover, then sample.
    case rediscover(String)
}

/// How one event source is doing, as the debug overlay and `status --json` show it.
public struct EventSourceState: Sendable, Equatable, Hashable {
    /// `uevent`, `thermal netlink`, `power profiles (D-Bus)`.
    public var name: String
    /// True while the source is connected and listening.
    public var active: Bool
    /// Why it is unavailable (`socket: EPERM`, `family thermal not found`, `no system bus`), or
    /// what it listens to when active (`group event`, `org.freedesktop.UPower.PowerProfiles`).
    public var detail: String
    /// Messages received since start (including ones that were ignored after filtering).
    public var events: Int

    /// A state from its parts.
    public init(name: String, active: Bool, detail: String, events: Int = 0) {
        self.name = name
        self.active = active
        self.detail = detail
        self.events = events
    }
}
