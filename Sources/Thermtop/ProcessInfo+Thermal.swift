#if os(Linux)
import Foundation
import Synchronization

// Apple's API on Linux: the same spellings as Foundation on Apple platforms, so code written
// for them compiles here unchanged with `import Thermtop`. On Apple platforms this file is
// empty and the real ones are used.

extension ProcessInfo {
    /// The thermal state of the machine, with the cases and raw values of Apple's
    /// `ProcessInfo.ThermalState`.
    ///
    /// thermtop's own ``/ThermtopCore/ThermalState`` has the same cases and adds
    /// ordering and names; this type has only what Apple's has, so code written against it
    /// builds on both.
    public enum ThermalState: Int, Sendable, Hashable {
        /// Nothing to do.
        case nominal = 0
        /// Fans may be audible; defer work the person does not need now.
        case fair = 1
        /// Performance is impacted; cut CPU, GPU and I/O, frame rate and animation.
        case serious = 2
        /// Cool down; do only the minimum needed to respond to the person.
        case critical = 3
    }

    /// The machine's thermal state, read from the kernel by the process-wide
    /// ``ThermalProcessMonitor``.
    ///
    /// The first read in a process starts the monitor and returns its first measurement, made
    /// within the read deadline; later reads return the latest one without reading anything.
    /// When nothing could be measured the state is `.nominal`, as on Apple platforms;
    /// ``ThermalProcessMonitor/isMeasured`` and ``ThermalProcessMonitor/reason`` say so.
    public var thermalState: ProcessInfo.ThermalState { ThermalProcessMonitor.shared.thermalState }

    /// Whether the machine saves power: a power-saver profile (platform profile,
    /// power-profiles-daemon) or a low, discharging battery. From the process-wide
    /// ``ThermalProcessMonitor``, like ``thermalState``.
    public var isLowPowerModeEnabled: Bool { ThermalProcessMonitor.shared.isLowPowerModeEnabled }

    /// Posted on `NotificationCenter.default`, with `ProcessInfo.processInfo` as the object,
    /// when ``thermalState`` changes. Apple's name (`NSProcessInfoThermalStateDidChangeNotification`).
    public static let thermalStateDidChangeNotification = ThermalMonitor.thermalStateDidChangeNotification
}

extension Notification.Name {
    /// Posted on `NotificationCenter.default`, with `ProcessInfo.processInfo` as the object,
    /// when ``FoundationEssentials/ProcessInfo/isLowPowerModeEnabled`` changes. Apple's name
    /// (`NSProcessInfoPowerStateDidChangeNotification`).
    public static let NSProcessInfoPowerStateDidChange = ThermalMonitor.powerStateDidChangeNotification
}

extension ProcessInfo.ThermalState {
    /// The same stage as thermtop's ``/ThermtopCore/ThermalState``.
    public init(_ state: ThermalState) {
        switch state {
        case .nominal: self = .nominal
        case .fair: self = .fair
        case .serious: self = .serious
        case .critical: self = .critical
        }
    }
}

/// The process-wide monitor behind `ProcessInfo.processInfo.thermalState`,
/// `isLowPowerModeEnabled` and their notifications on Linux.
///
/// It is made and started on first use (the first read of either property, or of ``shared``)
/// and then lives for the process. It is a ``/ThermtopLinux/ThermalStatusHub`` over the sysfs tree at
/// `THERMTOP_SYSFS_ROOT` (default `/sys`):
///
/// - **One thread.** The hub's sampler thread (`thermtop-sample`) does all the reading; file
///   reads that may block go through the reading thread (`thermtop-read`) so that none waits
///   past the read deadline (`ThermalConfig.readDeadlineSeconds`, 0.25 s). No signal handler is
///   installed and no signal is sent.
/// - **What it reads.** Thermal zones and their trip points, cooling devices, hwmon
///   temperatures (CPU, NVMe, GPU), power supplies, the platform profile, the CPUs' throttle
///   counters; on the live `/sys` also power-profiles-daemon (D-Bus) and NVIDIA GPUs (NVML,
///   when installed).
/// - **How often.** Every second (``delay``), at once when the kernel reports a change
///   (uevents, thermal netlink; live `/sys` only), and a full device rediscovery at the
///   tier's pace (30, 60 or 180 s).
/// - **How to stop it.** ``stop()`` ends the thread; later reads return the last
///   measurement and no notification is posted until ``start()``.
///
/// Every member may be called from any thread. When the value of either property changes, the
/// monitor posts `ProcessInfo.thermalStateDidChangeNotification` or
/// `.NSProcessInfoPowerStateDidChange` on `NotificationCenter.default`, with
/// `ProcessInfo.processInfo` as the object, on its own thread, after the new value is readable.
///
/// Unknown is nominal to apps, as on Apple platforms: when no sensor gives a reading the state
/// is `.nominal` and ``isMeasured`` is false, with the reason in ``reason``.
///
/// ```swift
/// import Thermtop
///
/// if !ThermalProcessMonitor.shared.isMeasured {
///     print("thermal state unknown:", ThermalProcessMonitor.shared.reason)
/// }
/// // Simulate a hot machine, as Xcode's "Simulate Thermal State" does:
/// ThermalProcessMonitor.shared.hub.setOverrides(ThermalOverrides(thermalState: .serious))
/// ```
public final class ThermalProcessMonitor: Sendable {
    /// The environment variable naming the sysfs tree to read instead of `/sys` (a host's
    /// `/sys` mounted elsewhere in a container, as node_exporter's `--path.sysfs`; a test tree).
    public static let sysfsRootVariable = "THERMTOP_SYSFS_ROOT"

    /// The time between samples.
    public static let delay: Duration = .seconds(1)

    /// The monitor, made and started on first use.
    public static let shared = ThermalProcessMonitor(
        sysfsRoot: ProcessInfo.processInfo.environment[sysfsRootVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "/sys")

    /// The sysfs tree read (`THERMTOP_SYSFS_ROOT`, else `/sys`).
    public let sysfsRoot: String

    /// The engine underneath: its status, streams and commands (overrides simulate a state).
    public let hub: ThermalStatusHub

    /// The values last posted about, so a notification goes out only when one changes.
    private let posted = Mutex<(state: ProcessInfo.ThermalState, lowPower: Bool)?>(nil)
    private let listener = Mutex<MonitorObservation?>(nil)

    /// A monitor of its own over `sysfsRoot`, started (tests; apps use ``shared``).
    package init(sysfsRoot: String) {
        self.sysfsRoot = sysfsRoot
        hub = ThermalStatusHub.live(sysfsRoot: sysfsRoot, delay: Self.delay)
        listener.withLock { $0 = hub.addListener { [weak self] update in self?.post(for: update.status) } }
        hub.start()
    }

    /// The latest status (the first read waits for the first measurement).
    public var status: MonitorStatus { hub.current }

    /// `ProcessInfo.processInfo.thermalState`.
    public var thermalState: ProcessInfo.ThermalState { ProcessInfo.ThermalState(status.thermalState) }

    /// `ProcessInfo.processInfo.isLowPowerModeEnabled`.
    public var isLowPowerModeEnabled: Bool { status.isLowPowerModeEnabled }

    /// False when nothing could be measured (then ``thermalState`` is `.nominal`).
    public var isMeasured: Bool { status.assessment.measured }

    /// Why the state is what it is: `serious: x86_pkg_temp 91.0 °C ≥ passive trip 90.0 °C …`,
    /// or why nothing could be measured.
    public var reason: String { status.reason }

    /// Why low power is on or off.
    public var lowPowerReason: String { status.lowPowerReason }

    /// Whether the sampler thread runs.
    public var isRunning: Bool { hub.isRunning }

    /// Run the sampler thread again after ``stop()`` (it runs from first use otherwise).
    public func start() { hub.start() }

    /// End the sampler thread; returns once it has left. Reads keep the last measurement.
    public func stop() { hub.stop() }

    private func post(for status: MonitorStatus) {
        let now = (state: ProcessInfo.ThermalState(status.thermalState), lowPower: status.isLowPowerModeEnabled)
        let before = posted.withLock { p in
            defer { p = now }
            return p
        }
        // The first measurement is the starting value, not a change.
        guard let before else { return }
        if before.state != now.state {
            NotificationCenter.default.post(name: ProcessInfo.thermalStateDidChangeNotification, object: ProcessInfo.processInfo)
        }
        if before.lowPower != now.lowPower {
            NotificationCenter.default.post(name: .NSProcessInfoPowerStateDidChange, object: ProcessInfo.processInfo)
        }
    }
}
#endif
