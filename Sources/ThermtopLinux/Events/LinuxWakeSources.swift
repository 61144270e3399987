import ThermtopCore

/// The event sources of a live Linux machine, made together because they must live together:
/// one thread creates them, polls them and drains them (sd-bus connections are not
/// thread-safe, and none of them is `Sendable`).
public final class LinuxWakeSources {
    /// Every source, available or not (the unavailable ones have a nil descriptor and say why).
    public let all: [any MonitorWakeSource]
    /// The D-Bus power-profiles source, whose reading the sysfs source merges into each sample.
    public let powerProfiles: PowerProfilesSource?

    /// The live machine's event sources: uevents, thermal netlink and, unless left out, the
    /// power-profiles daemon on the system bus.
    ///
    /// - Parameters:
    ///   - config: `readDeadlineSeconds` bounds the one D-Bus read that waits (at creation).
    ///   - powerProfiles: false leaves D-Bus out (when the user named a state.ini to read).
    public convenience init(config: ThermalConfig = ThermalConfig(), powerProfiles: Bool = true) {
        self.init(powerProfiles: powerProfiles ? Self.powerProfiles(config: config) : nil)
    }

    /// The D-Bus power-profiles source alone, made first when the sysfs source needs it before
    /// the others exist (`status` opens the kernel's sources while its first reading is made).
    package static func powerProfiles(config: ThermalConfig) -> PowerProfilesSource {
        PowerProfilesSource(systemBusTimeout: config.readDeadlineSeconds)
    }

    /// The kernel's sources, with `powerProfiles` (made by `powerProfiles(config:)`) if any.
    package init(powerProfiles ppd: PowerProfilesSource?) {
        self.powerProfiles = ppd
        all = [UeventSource(), ThermalNetlinkSource()] + (ppd.map { [$0] } ?? [])
    }

    /// Whether a sysfs root is the live machine's, the only one its kernel and desktop events
    /// are about (a fixture or recorded tree gets no event sources).
    public static func apply(toRoot path: String) -> Bool { path == "/sys" }

    /// What the debug overlay and `status --json` list.
    public var states: [EventSourceState] { all.map(\.state) }
}
