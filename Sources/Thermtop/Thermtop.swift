// The library's front door: `import Thermtop` gives the core, the Linux sysfs source, and the
// Foundation conveniences (Apple-named notifications) that the dashboard itself does not load.
@_exported import ThermtopCore
@_exported import ThermtopLinux
import Foundation

extension ThermalMonitor {
    /// Posted when `thermalState` changes (Apple: `ProcessInfo.thermalStateDidChangeNotification`).
    public nonisolated static let thermalStateDidChangeNotification =
        Notification.Name("NSProcessInfoThermalStateDidChangeNotification")
    /// Posted when `isLowPowerModeEnabled` changes (Apple: `.NSProcessInfoPowerStateDidChange`).
    public nonisolated static let powerStateDidChangeNotification =
        Notification.Name("NSProcessInfoPowerStateDidChangeNotification")

    /// Post the two notifications above on `center` whenever the state or low power changes,
    /// with the monitor as the object, until the returned token is cancelled or released.
    public func postNotifications(to center: NotificationCenter = .default) -> MonitorObservation {
        addObserver { [weak self] event in
            switch event {
            case .thermalStateChanged:
                center.post(name: ThermalMonitor.thermalStateDidChangeNotification, object: self)
            case .lowPowerChanged:
                center.post(name: ThermalMonitor.powerStateDidChangeNotification, object: self)
            case .tierChanged, .forecastTriggered:
                break
            }
        }
    }

    /// A running monitor of this machine: sysfs read on its own thread, woken by uevents and
    /// thermal netlink where available, posting notifications on `notificationCenter` (nil:
    /// none) for as long as the monitor lives. The Linux counterpart of
    /// `ProcessInfo.processInfo.thermalState` and `isLowPowerModeEnabled`. Returns at once (the
    /// first reading is made on the sampler thread: `await firstReading()` for it). `stop()`
    /// ends it.
    public static func live(sysfsRoot: String = "/sys", config: ThermalConfig = ThermalConfig(),
                            delay: Duration = .seconds(1), notificationCenter: NotificationCenter? = .default) -> ThermalMonitor {
        let monitor = ThermalMonitor(hub: ThermalStatusHub.live(sysfsRoot: sysfsRoot, config: config,
                                                                delay: delay))
        if let notificationCenter { monitor.retain(monitor.postNotifications(to: notificationCenter)) }
        monitor.start()
        return monitor
    }
}
