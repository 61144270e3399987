import Testing
import ThermtopCore
@testable import ThermtopUI

/// The dashboard's Throttling answer (first screen) and Power line (a sparkline per domain).
@Suite("Dashboard power and throttling")
struct PowerPanelTests {
    /// A laptop whose package draws 10, 14, 18… W each second, throttled by heat when `hot`.
    static func state(hot: Bool, samples: Int = 6) -> AppState {
        var state: AppState?
        var previous: ThermalSnapshot?
        for i in 0..<samples {
            var snap = Fixtures.intelLaptop(time: Double(i), package: hot ? 96 : 55, skin: 35)
            let uj = (0...i).reduce(Int64(0)) { $0 + Int64(10 + 4 * $1) * 1_000_000 }
            snap.energyCounters = [ThermalEnergyCounter(
                id: "rapl:package-0", name: "package-0", source: .rapl, location: "class/powercap/intel-rapl:0",
                microjoules: uj, rangeMicrojoules: 262_143_328_850, limits: [ThermalPowerLimit(constraint: "long_term", watts: 45)])]
            snap.cpuFrequencies = [ThermalCPUFrequency(id: "policy0", currentKHz: hot ? 2_100_000 : 4_600_000, maxKHz: 4_700_000)]
            snap.coolingDevices = [CoolingDevice(id: "cooling_device0", type: "Processor", currentState: hot ? 5 : 0, maxState: 10)]
            var s = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false).status
            s.power = ThermalPowerDomains.measure(snap, previous: previous)
            s.throttling = ThermalThrottling.assess(snap, previous: previous, power: s.power)
            previous = snap
            if state == nil { state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false) }
            _ = Reducer.reduce(&state!, .statusArrived(s, FeedInfo(samples: i, refreshDueAt: 99)))
        }
        return state!
    }

    @Test("the Throttling answer is on the first screen at every size where a line fits")
    func firstScreen() {
        let s = Self.state(hot: true)
        for (w, h) in [(200, 60), (120, 40), (80, 24), (40, 10)] {
            let text = Screen.render(s, width: w, height: h).text()
            #expect(text.contains("Throttling  yes"), "\(w)x\(h):\n\(text)")
        }
        let wide = Screen.render(s, width: 120, height: 40).text()
        #expect(wide.contains("Throttling  yes — thermal: CPU 2.1 of 4.7 GHz, Processor 5/10"))
        #expect(Screen.render(Self.state(hot: false), width: 80, height: 24).text().contains("Throttling  no — CPU 4.6 of 4.7 GHz"))
    }

    @Test("the Power line shows each domain's watts and limit with a sparkline that rises with the draw")
    func powerLine() throws {
        let s = Self.state(hot: false)
        let text = Screen.render(s, width: 120, height: 40).text()
        let line = try #require(text.split(separator: "\n").first { $0.contains(" Power ") }.map(String.init), "\(text)")
        #expect(line.contains("package-0 30 W of 45 W limit"), "\(line)")
        let package = line.split(separator: "·").first { $0.contains("package-0") } ?? ""
        let sparks = package.filter { "▁▂▃▄▅▆▇█".contains($0) }
        #expect(sparks.count == 5, "one point per sample with a rate: \(line)")
        #expect(Array(sparks) == Array(sparks).sorted(), "a rising draw rises: \(line)")
        #expect(!(text.split(separator: "\n").first { $0.contains("Fans ") }?.contains("package-0") ?? false))
    }
}
