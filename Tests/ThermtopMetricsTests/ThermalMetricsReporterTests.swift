import Foundation
import Prometheus
import Testing
@testable import ThermtopCore
import ThermtopLinux
import ThermtopMetrics

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Prometheus text as `name{labels}` → value (comments and blank lines skipped).
func samples(_ text: String) -> [String: Double] {
    var out: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let v = Double(line[line.index(after: space)...]) else { continue }
        out[String(line[..<space])] = v
    }
    return out
}

@Suite("swift-metrics reporter")
struct ThermalMetricsReporterTests {
    @Test("swift-prometheus renders thermtop_thermal_state_level 2 for a serious machine, and every sample export writes, named and labelled alike")
    func prometheusRendersExportsMetrics() throws {
        let registry = PrometheusCollectorRegistry()
        let hub = ThermalStatusHub.live(sysfsRoot: Fixtures.path("intel-laptop-hot"))
        let reporter = ThermalMetricsReporter(hub: hub, factory: PrometheusMetricsFactory(registry: registry))
        reporter.start()
        let status = hub.sample().status
        #expect(status.thermalState == .serious)

        let rendered = registry.emitToString()
        let got = samples(rendered)
        #expect(got["thermtop_thermal_state_level"] == 2, "\(rendered)")
        #expect(got["thermtop_low_power"] == 1)
        #expect(got["thermtop_thermal_state{state=\"serious\"}"] == 1)
        let export = MetricsReport.prometheus(status, version: ThermtopInfo.version, readErrorsTotal: status.snapshot.allIssues.count,
                                              unixTime: 0)
        let expected = samples(export).filter { $0.key != "thermtop_last_sample_timestamp_seconds" }
        #expect(expected.count > 40, "\(export)")
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            let reported: Double? = got[name]
            #expect(reported == value, "\(name): export \(value), swift-prometheus \(String(describing: reported))")
        }
        #expect(got.keys.contains { $0.hasPrefix("thermtop_sensor_celsius{id=") })
        #expect(rendered.contains("# TYPE thermtop_read_errors_total counter"), "\(rendered)")
        reporter.stop()
        #expect(!registry.emitToString().contains("thermtop_"), "metrics left after stop()")
    }

    @Test("hostile names (escape sequences, quotes in sysfs files) reach swift-prometheus as export writes them")
    func hostileLabelsMatchExport() throws {
        let registry = PrometheusCollectorRegistry()
        let hub = ThermalStatusHub.live(sysfsRoot: Fixtures.path("broken"))
        let reporter = ThermalMetricsReporter(hub: hub, factory: PrometheusMetricsFactory(registry: registry))
        reporter.start()
        defer { reporter.stop() }
        let status = hub.sample().status
        let export = MetricsReport.prometheus(status, version: ThermtopInfo.version, readErrorsTotal: status.snapshot.allIssues.count,
                                              unixTime: 0)
        #expect(export.contains("?"), "the fixture has no control characters left to clean:\n\(export)")
        let got = samples(registry.emitToString())
        for (name, value) in samples(export) where name != "thermtop_last_sample_timestamp_seconds" {
            let reported: Double? = got[name]
            #expect(reported == value, "\(name): export \(value), swift-prometheus \(String(describing: reported))")
        }
    }

    @Test("each new status replaces the values, and a value export leaves out (the measured level of an unreadable tree) is not reported")
    func followsTheHub() throws {
        let registry = PrometheusCollectorRegistry()
        let hub = ThermalStatusHub.live(sysfsRoot: Fixtures.path("intel-laptop"))
        let reporter = ThermalMetricsReporter(hub: hub, factory: PrometheusMetricsFactory(registry: registry))
        _ = hub.sample()
        reporter.start()   // reports the latest status at once
        #expect(samples(registry.emitToString())["thermtop_thermal_state_level"] == 0)
        hub.setOverrides(ThermalOverrides(thermalState: .critical))
        var got = samples(registry.emitToString())
        #expect(got["thermtop_thermal_state_level"] == 3)
        #expect(got["thermtop_thermal_state_simulated"] == 1)
        #expect(got["thermtop_measured_thermal_state_level"] == 0)

        // Nothing measurable: export leaves the measured level out, so does the reporter.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-metrics-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let blind = ThermalStatusHub.live(sysfsRoot: empty.path)
        let registry2 = PrometheusCollectorRegistry()
        let reporter2 = ThermalMetricsReporter(hub: blind, factory: PrometheusMetricsFactory(registry: registry2))
        reporter2.start()
        _ = blind.sample()
        got = samples(registry2.emitToString())
        #expect(got["thermtop_measured"] == 0)
        #expect(got["thermtop_measured_thermal_state_level"] == nil)
        reporter.stop()
        reporter2.stop()
    }
}
