import ThermtopCore

extension ThermalMonitor {
    /// A monitor reading this machine's sysfs with the system's monotonic clock: the Linux
    /// counterpart of `ProcessInfo.processInfo.thermalState` and `isLowPowerModeEnabled`.
    /// Call `sample()` (or run `run(every:)` in a task) to keep it current.
    @MainActor
    public static func live(sysfsRoot: String = "/sys", config: ThermalConfig = ThermalConfig()) -> ThermalMonitor {
        let monitor = ThermalMonitor(source: SysfsSource(path: sysfsRoot), clock: SystemClock(), config: config)
        monitor.sample()
        return monitor
    }
}
