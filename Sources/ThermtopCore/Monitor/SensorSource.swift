/// Where snapshots come from: Linux sysfs, the simulated laptop, a replay… The monitor asks
/// for a sample at a time from its clock; the source reads only what changes.
public protocol SensorSource: AnyObject {
    /// What the UI shows as the source: `live /sys`, `/path/to/fixture`, `simulated laptop`.
    var label: String { get }
    /// True for sources that invent their readings (the simulated laptop).
    var isSimulated: Bool { get }
    /// Read the changing values once.
    func sample(at time: Double) -> Snapshot
    /// Rediscover devices and reread static attributes (names, trips, design capacity).
    func rediscover()
}

/// Monotonic time in seconds and a way to wait. Injected so tests never sleep.
public protocol MonitorClock: Sendable {
    func now() -> Double
    func sleep(seconds: Double) async throws
    /// Seconds since local midnight, to label when a sensor went silent (`12:01:07`); nil
    /// when the clock has no wall time (tests), and holds are labelled by age instead.
    func secondsSinceLocalMidnight() -> Double?
}

extension MonitorClock {
    public func secondsSinceLocalMidnight() -> Double? { nil }
}

/// A clock tests move by hand.
public final class ManualClock: MonitorClock, @unchecked Sendable {
    private var current: Double
    public init(start: Double = 0) { current = start }
    public func now() -> Double { current }
    public func advance(by seconds: Double) { current += seconds }
    public func sleep(seconds: Double) async throws {
        current += seconds
        await Task.yield()
    }
}

/// Simulation overrides, as Xcode's "Simulate Thermal State" and a Low Power toggle do.
/// Anything overridden is marked simulated in every output.
public struct Overrides: Sendable, Equatable {
    public var thermalState: ThermalState?
    /// nil = live; true/false = forced on/off.
    public var lowPower: Bool?

    public init(thermalState: ThermalState? = nil, lowPower: Bool? = nil) {
        self.thermalState = thermalState
        self.lowPower = lowPower
    }

    public var isActive: Bool { thermalState != nil || lowPower != nil }
    public static let none = Overrides()
}
