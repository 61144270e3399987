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
    /// with the monitor as the object. Returns the observer token (see `removeObserver`).
    @discardableResult
    public func postNotifications(to center: NotificationCenter = .default) -> Int {
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

    /// A monitor reading this machine's sysfs with the system's monotonic clock, posting
    /// notifications on `notificationCenter` (nil: none): the Linux counterpart of
    /// `ProcessInfo.processInfo.thermalState` and `isLowPowerModeEnabled`. Samples once; call
    /// `sample()` or run `run(every:)` in a task to keep it current.
    public static func live(sysfsRoot: String = "/sys", config: ThermalConfig = ThermalConfig(),
                            notificationCenter: NotificationCenter? = .default) -> ThermalMonitor {
        let monitor = ThermalMonitor(source: SysfsSource(path: sysfsRoot), clock: SystemClock(), config: config)
        if let notificationCenter { monitor.postNotifications(to: notificationCenter) }
        monitor.sample()
        return monitor
    }
}
