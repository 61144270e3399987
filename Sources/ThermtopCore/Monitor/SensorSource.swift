import Synchronization

/// Where snapshots come from: Linux sysfs, the simulated laptop, a replay… The monitor asks
/// for a sample at a time from its clock; the source reads only what changes.
public protocol ThermalSensorSource: AnyObject {
    /// What the UI shows as the source: `live /sys`, `/path/to/fixture`, `simulated laptop`.
    var label: String { get }
    /// True for sources that invent their readings (the simulated laptop).
    var isSimulated: Bool { get }
    /// Read the changing values once.
    func sample(at time: Double) -> ThermalSnapshot
    /// Rediscover devices and reread static attributes (names, trips, design capacity).
    func rediscover()
    /// Change the simulated load by `delta` and return the new load; nil for sources whose
    /// load is real (the default).
    func adjustLoad(by delta: Double) -> Double?
    /// The simulated load, nil for real sources.
    var simulatedLoad: Double? { get }
    /// File-reading counters for the debug overlay; nil for sources that read no files.
    var readStats: SensorSourceReadStats? { get }
    /// Whether a read can block (real files: a hung driver, a FIFO); such a source bounds each
    /// of its reads by the read deadline itself. Default false.
    var readsCanBlock: Bool { get }
    /// Read on the calling thread from now on (the hub's sampler), with no hand-off to a
    /// reader thread, under a watchdog: when a read there runs past the read deadline,
    /// `replaced` is called, on another thread, with a source that goes on from this one's
    /// last state without touching the hung file, and this one reads nothing more. False (the
    /// default): reads stay as they are.
    func readOnThisThread(replaced: @escaping @Sendable (any ThermalSensorSource) -> Void) -> Bool
    /// The thread that called `readOnThisThread` stops sampling (its id may be given to
    /// another thread): reads go back to how they were.
    func endReadsOnThisThread()
}

extension ThermalSensorSource {
    /// Sources that are not simulations have no load: nil.
    public func adjustLoad(by delta: Double) -> Double? { nil }
    /// nil: no simulated load.
    public var simulatedLoad: Double? { nil }
    public var readStats: SensorSourceReadStats? { nil }
    public var readsCanBlock: Bool { false }
    public func readOnThisThread(replaced: @escaping @Sendable (any ThermalSensorSource) -> Void) -> Bool { false }
    public func endReadsOnThisThread() {}
}

/// What a file-reading source did, for the debug overlay and `status --json`.
public struct SensorSourceReadStats: Sendable, Equatable {
    /// Reads served since start.
    public var fileReads: Int
    /// Files currently kept open.
    public var openFiles: Int
    /// Files whose read is hung right now (not retried until it returns).
    public var stuckFiles: [String]
    /// Reads given up on at the deadline since start.
    public var timedOutReads: Int
    /// Reader threads left in a read the kernel has not returned from (bounded; they end
    /// when their read does).
    public var abandonedReaders: Int

    /// Counters from their parts.
    public init(fileReads: Int, openFiles: Int = 0, stuckFiles: [String] = [], timedOutReads: Int = 0,
                abandonedReaders: Int = 0) {
        self.fileReads = fileReads
        self.openFiles = openFiles
        self.stuckFiles = stuckFiles
        self.timedOutReads = timedOutReads
        self.abandonedReaders = abandonedReaders
    }
}

/// Monotonic time in seconds and a way to wait. Injected so tests never sleep.
public protocol MonitorClock: Sendable {
    /// Seconds on a monotonic clock.
    func now() -> Double
    /// Wait `seconds` on this clock (a manual clock waits until advanced).
    func sleep(seconds: Double) async throws
    /// Seconds since local midnight, to label when a sensor went silent (`12:01:07`); nil
    /// when the clock has no wall time (tests), and holds are labelled by age instead.
    func secondsSinceLocalMidnight() -> Double?
    /// Run `wake` each time the clock is moved by hand; true when it moves only that way (a
    /// thread waiting for a time on it waits for `wake`, not for time to pass).
    func onAdvance(_ wake: @escaping @Sendable () -> Void) -> Bool
}

extension MonitorClock {
    public func secondsSinceLocalMidnight() -> Double? { nil }
    public func onAdvance(_ wake: @escaping @Sendable () -> Void) -> Bool { false }
}

/// A clock tests move by hand. Safe to share across threads (the time is behind a lock).
public final class ManualMonitorClock: MonitorClock {
    private let current: Mutex<Double>
    private let observers = Mutex<[@Sendable () -> Void]>([])
    /// A clock that stands at `start` until advanced.
    public init(start: Double = 0) { current = Mutex(start) }
    /// The time it was advanced to.
    public func now() -> Double { current.withLock { $0 } }
    /// Move the clock forward by `seconds`, and wake whoever waits on it.
    public func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
        for wake in observers.withLock({ $0 }) { wake() }
    }
    /// `wake` runs after each `advance(by:)`; true: this clock moves only by hand.
    public func onAdvance(_ wake: @escaping @Sendable () -> Void) -> Bool {
        observers.withLock { $0.append(wake) }
        return true
    }
    /// Returns once the clock has been advanced past now + `seconds`.
    public func sleep(seconds: Double) async throws {
        advance(by: seconds)
        await Task.yield()
    }
}

/// Simulation overrides, as Xcode's "Simulate Thermal State" and a Low Power toggle do.
/// Anything overridden is marked simulated in every output.
public struct ThermalOverrides: Sendable, Equatable {
    /// nil = live; a state = forced (simulated).
    public var thermalState: ThermalState?
    /// nil = live; true/false = forced on/off.
    public var lowPower: Bool?

    /// Overrides forcing the given values (nil leaves a value live).
    public init(thermalState: ThermalState? = nil, lowPower: Bool? = nil) {
        self.thermalState = thermalState
        self.lowPower = lowPower
    }

    /// Nothing forced: every value live.
    public static let none = ThermalOverrides()
}
