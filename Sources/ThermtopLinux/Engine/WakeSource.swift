#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

/// Something besides the clock that can wake the sampler: a kernel uevent socket, the thermal
/// generic-netlink family, the D-Bus power-profiles service.
///
/// Used only on the sampler thread (it is not `Sendable`): the sampler puts `descriptor` in its
/// `poll()` set with `pollEvents`, and when poll reports it ready calls `drain()`, which reads
/// every pending message without blocking and turns them into hints. The sampler then decides
/// what to read; a source never reads sysfs itself.
public protocol MonitorWakeSource: AnyObject {
    /// `uevent`, `thermal netlink`, `power profiles (D-Bus)`.
    var name: String { get }
    /// The descriptor to poll, or nil when the source is unavailable (then `state.detail` says
    /// why, and the sampler keeps polling files on its clock).
    var descriptor: Int32? { get }
    /// The `poll()` events to wait for on `descriptor` (POLLIN unless the source says otherwise:
    /// sd-bus may also need POLLOUT while it has output queued).
    var pollEvents: Int16 { get }
    /// Connected or not, why, and how many messages arrived; for the debug overlay and JSON.
    var state: EventSourceState { get }
    /// Read every pending message (non-blocking, never waits) and return what they ask for.
    /// Returns [] when nothing relevant arrived. After an unrecoverable error the source closes
    /// itself: `descriptor` becomes nil and `state` says why.
    func drain() -> [MonitorChangeHint]
}

extension MonitorWakeSource {
    public var pollEvents: Int16 { Int16(POLLIN) }
}
