import ThermtopCore

/// The event sources of a live Linux machine, made together because they must live together:
/// one thread creates them, polls them and drains them (sd-bus connections are not
/// thread-safe, and none of them is `Sendable`).
public final class LinuxWakeSources {
    /// Every source, available or not (the unavailable ones have a nil descriptor and say why).
    public let all: [any MonitorWakeSource]
    /// The D-Bus power-profiles source, whose reading the sysfs source merges into each sample.
    public let powerProfiles: PowerProfilesSource?

    /// - Parameters:
    ///   - config: `readDeadlineSeconds` bounds the one D-Bus read that waits (at creation).
    ///   - powerProfiles: false leaves D-Bus out (when the user named a state.ini to read).
    public init(config: ThermalConfig = ThermalConfig(), powerProfiles: Bool = true) {
        let ppd = powerProfiles ? PowerProfilesSource(systemBusTimeout: config.readDeadlineSeconds) : nil
        self.powerProfiles = ppd
        all = [UeventSource(), ThermalNetlinkSource()] + (ppd.map { [$0] } ?? [])
    }

    /// Whether a sysfs root is the live machine's, the only one its kernel and desktop events
    /// are about (a fixture or recorded tree gets no event sources).
    public static func apply(toRoot path: String) -> Bool { path == "/sys" }

    /// What the debug overlay and `status --json` list.
    public var states: [EventSourceState] { all.map(\.state) }
}
