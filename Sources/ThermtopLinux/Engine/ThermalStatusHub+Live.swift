import ThermtopCore

extension ThermalStatusHub {
    /// A hub over this machine's sysfs (or a tree laid out like it) with the system clock, woken
    /// by the live machine's kernel and D-Bus events when `sysfsRoot` is `/sys`. Reads nothing
    /// and is not started: call ``start()``, or `await` ``firstReading()``.
    ///
    /// ```swift
    /// import Thermtop
    ///
    /// let hub = ThermalStatusHub.live()
    /// hub.start()
    /// let first = await hub.firstReading()
    /// if first.tier == .minimal { print("shedding optional work") }
    /// hub.stop()
    /// ```
    ///
    /// - Parameters:
    ///   - sysfsRoot: the tree to read: `/sys`, or a host's `/sys` mounted elsewhere, or a
    ///     fixture laid out like it (no event sources then: this machine's events say nothing
    ///     about it).
    ///   - config: thresholds, margins and the read deadline.
    ///   - overrides: a forced state or low power (marked simulated everywhere).
    ///   - delay: the time between samples once started (at least 50 ms).
    ///   - heatSources: walk the process table each sample for `MonitorStatus.heatSources`;
    ///     opt-in, since a walk costs a read per process.
    ///   - procRoot: the process table to walk: `/proc`, or a tree laid out like it.
    public static func live(sysfsRoot: String = "/sys", config: ThermalConfig = ThermalConfig(),
                            overrides: ThermalOverrides = .none, delay: Duration = .seconds(1),
                            heatSources: Bool = false, procRoot: String = "/proc") -> ThermalStatusHub {
        let source = SysfsSource(path: sysfsRoot, config: config)
        if heatSources { source.processes = ThermalProcessTableReader(path: procRoot, config: config) }
        return ThermalStatusHub(source: source, clock: SystemClock(), config: config,
                                overrides: overrides, delay: delay, wakeSources: SysfsSource.wakeSources(forRoot: sysfsRoot))
    }
}
