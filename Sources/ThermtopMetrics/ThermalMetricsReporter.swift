#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Metrics
import Synchronization
import ThermtopCore
import ThermtopLinux

/// Reports a ``/ThermtopLinux/ThermalStatusHub``'s status through swift-metrics, so a server's
/// existing `/metrics` (swift-prometheus, swift-otel, or any other backend) gains thermtop's
/// metrics.
///
/// The metrics are those `thermtop export` writes, with the same names and labels, built by
/// the same code: the thermal state (`thermtop_thermal_state_level`, the one-hot
/// `thermtop_thermal_state{state}`, `thermtop_measured`), the tier, low power, each sensor's
/// temperature, level and thresholds (`thermtop_sensor_celsius{id,name,kind}`…), cooling
/// devices, fans, the battery and adapter, power domains, GPUs, throttling counters and read
/// issues. Gauges are swift-metrics `Gauge`s; the `_total` families are `FloatingPointCounter`s
/// that grow by what the status adds. A sample that is no longer in the status (a sensor
/// unplugged, a state measured no more) is destroyed, so the backend stops exporting it rather
/// than repeat a stale value. The export file's own health (`thermtop_export_*`) is not
/// reported: the server has no file.
///
/// The reporter does not start the hub: it reports each status the hub publishes, from
/// ``start()`` to ``stop()``, on the thread that publishes it.
///
/// ```swift
/// import Metrics
/// import Thermtop
/// import ThermtopMetrics
///
/// let hub = ThermalStatusHub.live()
/// hub.start()
/// let reporter = ThermalMetricsReporter(hub: hub)   // MetricsSystem.factory's backend
/// reporter.start()
/// // … serve; at shutdown:
/// reporter.stop()
/// hub.stop()
/// ```
public final class ThermalMetricsReporter: Sendable {
    /// The hub whose statuses are reported.
    public let hub: ThermalStatusHub
    private let factory: (any MetricsFactory)?
    private let state = Mutex<Reported>(Reported())

    /// What is registered with the backend, by family name and labels.
    private struct Reported: ~Copyable {
        var listener: MonitorObservation?
        var gauges: [Key: Gauge] = [:]
        var counters: [Key: (counter: FloatingPointCounter, value: Double)] = [:]
        /// Values that could not be read, summed over the statuses reported.
        var readErrorsTotal = 0
        var lastSequence = 0
    }

    private struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    /// A reporter of `hub`'s statuses; it reports nothing until ``start()``.
    ///
    /// - Parameters:
    ///   - hub: the hub to report (started or not: the reporter never starts it).
    ///   - factory: the backend; nil uses `MetricsSystem.factory` (what
    ///     `MetricsSystem.bootstrap(_:)` set).
    public init(hub: ThermalStatusHub, factory: (any MetricsFactory)? = nil) {
        self.hub = hub
        self.factory = factory
    }

    /// Whether statuses are being reported.
    public var isReporting: Bool { state.withLock { $0.listener != nil } }

    /// Report every status the hub publishes from now on, and its latest one at once when it
    /// has a reading. Calling it again while reporting does nothing.
    public func start() {
        let began = state.withLock { s -> Bool in
            guard s.listener == nil else { return false }
            s.listener = hub.addListener { [weak self] update in self?.report(update.status, sequence: update.sequence) }
            return true
        }
        if began, hub.hasReading { report(hub.latest, sequence: 0) }
    }

    /// Stop reporting and destroy the metrics this reporter made (the backend stops exporting
    /// them).
    public func stop() {
        let (listener, gauges, counters) = state.withLock { s in
            defer { s.listener = nil; s.gauges = [:]; s.counters = [:] }
            return (s.listener, Array(s.gauges.values), s.counters.values.map(\.counter))
        }
        listener?.cancel()
        for g in gauges { g.destroy() }
        for c in counters { c.destroy() }
    }

    /// Report one status (the listener's work; also callable for a status of your own).
    func report(_ status: MonitorStatus, sequence: Int) {
        state.withLock { s in
            guard s.listener != nil else { return }
            // The latest status reported by `start()` may also reach the listener.
            if sequence > 0 {
                guard sequence > s.lastSequence else { return }
                s.lastSequence = sequence
            }
            s.readErrorsTotal += status.snapshot.allIssues.count
            let metrics = MetricsReport.families(status, version: ThermtopInfo.version, readErrorsTotal: s.readErrorsTotal,
                                                 unixTime: Self.unixTime())
            var seen = Set<Key>()
            for family in metrics.families {
                for sample in family.samples {
                    let key = Key(name: family.name, labels: sample.labels.flatMap { [$0.0, $0.1] })
                    seen.insert(key)
                    switch family.kind {
                    case .gauge:
                        let gauge = s.gauges[key] ?? makeGauge(family.name, sample.labels)
                        s.gauges[key] = gauge
                        gauge.record(sample.value)
                    case .counter:
                        var entry = s.counters[key] ?? (makeCounter(family.name, sample.labels), 0)
                        if sample.value < entry.value {
                            // The count restarted (a CPU counter after resume): so does ours.
                            entry.counter.reset()
                            entry.value = 0
                        }
                        if sample.value > entry.value { entry.counter.increment(by: sample.value - entry.value) }
                        entry.value = sample.value
                        s.counters[key] = entry
                    }
                }
            }
            for (key, gauge) in s.gauges where !seen.contains(key) {
                gauge.destroy()
                s.gauges[key] = nil
            }
            for (key, entry) in s.counters where !seen.contains(key) {
                entry.counter.destroy()
                s.counters[key] = nil
            }
        }
    }

    private func makeGauge(_ name: String, _ labels: [(String, String)]) -> Gauge {
        factory.map { Gauge(label: name, dimensions: labels, factory: $0) } ?? Gauge(label: name, dimensions: labels)
    }

    private func makeCounter(_ name: String, _ labels: [(String, String)]) -> FloatingPointCounter {
        factory.map { FloatingPointCounter(label: name, dimensions: labels, factory: $0) }
            ?? FloatingPointCounter(label: name, dimensions: labels)
    }

    private static func unixTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
