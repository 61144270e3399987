import Testing
import ThermtopCore
@testable import ThermtopUI

@Suite("Overlays: help from the key map, debug trail, sensor detail")
struct OverlayTests {
    static func open(_ key: Key, on scenario: Fixtures.Scenario = .reduced, _ size: Size = .large,
                     before: [Key] = []) -> (AppState, [String]) {
        var state = scenario.state
        for k in before { state.press(k) }
        state.press(key)
        return (state, state.render(size).rows)
    }

    // MARK: - golden pictures

    @Test("each overlay matches its golden snapshot",
          arguments: [("help", Key.char("?"), Size.large), ("help", .char("?"), .standard),
                      ("debug", .char("d"), .large), ("debug", .char("d"), .standard),
                      ("detail", .enter, .large), ("detail", .enter, .compact)])
    func goldenOverlay(name: String, key: Key, size: Size) {
        let (_, rows) = Self.open(key, on: .reduced, size)
        GoldenSnapshot.check(CellBuffer.trimmed(rows), named: "overlay-\(name)-\(size.width)x\(size.height)")
    }

    @Test("the ASCII theme matches its golden snapshot")
    func goldenAscii() {
        var state = Fixtures.Scenario.reduced.state
        state.unicode = false
        GoldenSnapshot.check(state.render(.standard).text(), named: "ascii-reduced-80x24")
        state.overlay = .help
        GoldenSnapshot.check(state.render(.standard).text(), named: "ascii-overlay-help-80x24")
    }

    // MARK: - help

    @Test("help starts with the legend, then every binding's keys and help in key map order, then the rules")
    func helpListsEveryBinding() {
        let state = Fixtures.Scenario.reduced.state
        let lines = Overlays.helpLines(state, theme: Theme(unicode: true, color: true)).map(\.0)
        #expect(lines.first == "Legend")
        let keys = lines.firstIndex(of: "Keys")!
        let rules = lines.firstIndex(of: "Rules")!
        // The legend explains every mark the screen uses.
        let legend = lines[1..<keys].joined(separator: "\n")
        for mark in ["│", "▶", "?", "fair*", "8/10", "▁▂▃▄", "colours", "♥", "▲ ▼"] {
            #expect(legend.contains(mark), "the legend does not explain \(mark)")
        }
        var last = keys
        for b in KeyMap.bindings {
            let at = lines.firstIndex(of: "  " + Format.pad(b.label, 10) + b.help)
            #expect(at != nil, "help is missing \(b.label): \(b.help)")
            if let at {
                #expect(at > last, "\(b.label) out of order")
                last = at
            }
        }
        #expect(last < rules)
        let rulesText = lines[rules...].joined(separator: " ")
        #expect(rulesText.contains("cooling device") && rulesText.contains("throttle counters"),
                "the rule must say cooling devices and throttle counters decide too")
        #expect(lines.contains("  " + RenderPolicy.helpHeader))
        for tier in QualityTier.allCases { #expect(lines.contains("  " + RenderPolicy(tier: tier).helpRow)) }
        #expect(rulesText.contains("change of state, tier or low power"), "the help must say what still shows at once")
        #expect(lines.allSatisfy { $0.count <= 76 }, "help lines fit an 80-column box")
    }

    @Test("a help taller than the window scrolls with ↓ and PgDn, and says what is above and below")
    func helpScrolls() {
        var state = Fixtures.Scenario.reduced.state
        _ = Reducer.reduce(&state, .resized(width: 80, height: 24))
        let selected = state.selectedID
        state.press(.char("?"))
        var text = state.render(.standard).text()
        #expect(text.contains("Legend"))
        #expect(text.contains("more lines (↓ PgDn)"))
        state.press(.pageDown)
        state.press(.down)
        #expect(state.helpTop == 19)
        text = state.render(.standard).text()
        #expect(text.contains("▲ 19 lines above"))
        state.press(.end)
        text = state.render(.standard).text()
        #expect(text.contains("Esc or ? closes"))
        #expect(state.selectedID == selected, "scrolling the help does not move the sensor selection")
        state.press(.home)
        #expect(state.helpTop == 0)
    }

    @Test("help opened with h or F1 is the same screen as with ?", arguments: [Key.char("h"), .function(1)])
    func helpKeysAgree(key: Key) {
        #expect(Self.open(key).1 == Self.open(.char("?")).1)
    }

    @Test("closing the help with Esc or ? brings the dashboard back unchanged", arguments: [Key.escape, .char("?")])
    func helpCloses(key: Key) {
        let plain = Fixtures.Scenario.reduced.state.render(.large)
        var state = Fixtures.Scenario.reduced.state
        state.press(.char("?"))
        state.press(key)
        #expect(state.render(.large) == plain)
    }

    // MARK: - debug

    @Test("debug shows the rule trail, the deciding sensor's raw value and files, reading issues and runtime numbers")
    func debugContents() {
        let (state, rows) = Self.open(.char("d"))
        let text = rows.joined(separator: "\n")
        #expect(state.overlay == .debug)
        #expect(text.contains(" debug (d closes) "))
        #expect(text.contains("│ Rule trail"))
        for line in state.status.ruleTrail {
            #expect(text.contains("│   " + String(line.prefix(60))), "missing trail line \(line)")
        }
        #expect(text.contains("state fair ← fair: x86_pkg_temp 83.0 °C ≥ 80.0 °C"))
        #expect(text.contains("low power off ← off"))
        #expect(text.contains("tier reduced ← fair + low power off"))
        #expect(text.contains("policy: refresh 60 s, animation on, prefetch off, inference full"))
        #expect(text.contains("Deciding sensor x86_pkg_temp (thermal_zone1): raw 83000 m°C"))
        #expect(text.contains("prefetch off · inference full · animations on"), "developer terms live here")
        #expect(text.contains("serious passive trip 90.0 °C, hyst 2.0 °C"))
        #expect(text.contains("Reading issues (2)"))
        #expect(text.contains("class/thermal/thermal_zone2/temp: io-error (EIO)"))
        #expect(text.contains("class/power_supply/BAT0/voltage_min_design: missing"))
        #expect(text.contains("│ Runtime"))
        #expect(text.contains("sample 0.42 ms · render 1.50 ms · frames 1, skipped 0 · samples 24"))
        #expect(text.contains("cells redrawn: last frame 37, total 37 · next refresh in 17 s"))
        #expect(text.contains("overrides: state live, low power live · source /sys"))
        #expect(text.contains("terminal 120x40 · colours 256 · UTF-8"))
        #expect(text.contains(RenderPolicy(tier: .reduced).helpLine))
    }

    @Test("debug names the overrides and the simulated source when simulating")
    func debugShowsOverrides() {
        let (_, rows) = Self.open(.char("d"), on: .minimal)
        let text = rows.joined(separator: "\n")
        #expect(text.contains("state serious (simulated) ← nominal: every sensor below its fair threshold"))
        #expect(text.contains("overrides: state serious, low power live · source simulated laptop (simulated)"))
        #expect(text.contains(RenderPolicy(tier: .minimal).helpLine))
    }

    @Test("debug says how many reader threads are left in hung reads, and says nothing while none is")
    func debugShowsAbandonedReaders() {
        var state = Fixtures.appState([Fixtures.intelLaptop(time: 0, package: 60, skin: 40)], sourceLabel: "/sys", simulated: false)
        state.overlay = .debug
        #expect(!state.render(.large).text().contains("hung readers"))
        var status = state.status
        status.sampler.reads = SensorSourceReadStats(fileReads: 10, abandonedReaders: 2)
        _ = Reducer.reduce(&state, .statusArrived(status, FeedInfo(samples: 1, refreshDueAt: 17)))
        #expect(state.render(.large).text().contains("hung readers 2"))
        #expect(!state.render(.large).text().contains("samplers replaced"))
        status.sampler.samplerReplacements = 1
        _ = Reducer.reduce(&state, .statusArrived(status, FeedInfo(samples: 2, refreshDueAt: 17)))
        #expect(state.render(.large).text().contains("samplers replaced 1"), "a sampler left in a hung read is said in debug")
    }

    @Test("more than six reading issues are summarised with a count")
    func debugSummarisesIssues() {
        var snap = Fixtures.intelLaptop(time: 0, package: 60, skin: 40)
        snap.issues = (0..<9).map { ReadingIssue(file: "class/hwmon/hwmon\($0)/name", reason: .permissionDenied, detail: "EACCES") }
        var state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        state.overlay = .debug
        let text = state.render(.large).text()
        #expect(text.contains("Reading issues (11)"))
        #expect(text.contains("… 5 more (thermtop status lists all)"))
    }

    // MARK: - detail

    @Test("detail lists the selected zone's group, kernel id, thresholds and trips with hysteresis")
    func detailOfPackageZone() {
        // Full scenario: the CPU headline (x86_pkg_temp) first, TSKN second.
        let (state, rows) = Self.open(.enter, on: .full)
        #expect(state.overlay == .detail(state.selectedID!))
        #expect(state.selectedSensor?.sensor.id == "thermal_zone1")
        let text = rows.joined(separator: "\n")
        #expect(text.contains(" sensor detail (Enter/Esc closes) "))
        #expect(text.contains("CPU (x86_pkg_temp) · group CPU · headline"))
        #expect(text.contains("kernel name x86_pkg_temp · thermal_zone1 · kind zone"))
        #expect(text.contains("now 71.0 °C · level nominal"))
        #expect(text.contains("│ Thresholds"))
        #expect(text.contains("fair     80.0 °C    clears below 78.0 °C · serious 90.0 °C − 10.0 °C"))
        #expect(text.contains("serious  90.0 °C    clears below 88.0 °C · passive trip"))
        #expect(text.contains("critical 95.0 °C    clears below 93.0 °C · critical trip 100.0 °C − 5.0 °C"))
        #expect(text.contains("Trips (mode enabled, policy step_wise)"))
        #expect(text.contains("trip 0: passive 90.0 °C hyst 2.0 °C"))
        #expect(text.contains("trip 1: critical 100.0 °C hyst 0.0 °C"))
    }

    @Test("detail of the skin zone shows its hot trip as the critical threshold")
    func detailOfSkinZone() {
        let (_, rows) = Self.open(.enter, on: .full, before: [.char("j")])
        let text = rows.joined(separator: "\n")
        #expect(text.contains("Board (TSKN) · group board"))
        #expect(text.contains("critical 65.0 °C    clears below 63.0 °C · hot trip"))
        #expect(text.contains("Trips (mode enabled, policy user_space)"))
        #expect(text.contains("trip 0: passive 55.0 °C hyst 3.0 °C"))
        #expect(text.contains("trip 1: hot 65.0 °C hyst 2.0 °C"))
        #expect(text.contains("trip 2: critical 70.0 °C hyst 0.0 °C"))
    }

    @Test("detail shows an ignored trip as ignored, with why")
    func detailOfIgnoredTrip() {
        // Full scenario order: TSKN, x86_pkg_temp, nvme Composite, acpitz.
        let (state, rows) = Self.open(.enter, on: .full, before: [.char("j"), .char("j"), .char("j")])
        #expect(state.selectedSensor?.sensor.name == "acpitz")
        let text = rows.joined(separator: "\n")
        #expect(text.contains("trip 0: critical 119.0 °C hyst 0.0 °C"))
        #expect(text.contains("trip 1: ? — hyst — IGNORED: unrecognised weird"))
        #expect(text.contains("serious  104.0 °C   clears below 102.0 °C · critical trip 119.0 °C − 15.0 °C"))
    }

    @Test("detail of an hwmon channel shows its hwmon limits")
    func detailOfHwmon() {
        let (state, rows) = Self.open(.enter, on: .full, before: [.char("j"), .char("j")])
        #expect(state.selectedSensor?.sensor.id == "hwmon2/temp1")
        let text = rows.joined(separator: "\n")
        #expect(text.contains("NVMe (Composite) · group disk"))
        #expect(text.contains("kernel name nvme Composite · hwmon2/temp1 · kind hwmon"))
        #expect(text.contains("hwmon limits: max 81."))
        #expect(text.contains("serious  81."))
        #expect(text.contains("hwmon max"))
        #expect(!text.contains("Trips ("))
    }

    @Test("detail of an unreadable sensor says why it is unknown")
    func detailOfUnknown() {
        let (state, rows) = Self.open(.enter, on: .full, before: Array(repeating: .char("j"), count: 9))
        #expect(state.selectedSensor?.sensor.name == "iwlwifi_1")
        let text = rows.joined(separator: "\n")
        #expect(text.contains("now unknown (class/thermal/thermal_zone2/temp: io-error (EIO))"))
        #expect(text.contains("│   none"))
    }

    @Test("with no sensors Enter opens nothing and the list says why it is empty")
    func detailWithoutSensors() {
        var state = Fixtures.appState([ThermalSnapshot(time: 0)], sourceLabel: "/sys", simulated: false)
        state.press(.enter)
        #expect(state.overlay == .none)
        let text = state.render(.standard).text()
        #expect(text.contains("No temperature sensors under /sys (normal in containers and most VMs)."))
        #expect(text.contains("shows the simulated laptop."))
    }

    @Test("overlays are not drawn when the terminal is too small", arguments: [Key.char("?"), .char("d"), .enter])
    func noOverlayWhenTooSmall(key: Key) {
        let (_, rows) = Self.open(key, on: .reduced, .tiny)
        #expect(rows.joined(separator: "\n").contains("terminal too small"))
        #expect(!rows.contains { $0.contains("┌") })
    }
}

extension CellBuffer {
    /// Rows as `text()` gives them: trailing spaces removed, joined by newlines.
    static func trimmed(_ rows: [String]) -> String {
        rows.map { r -> String in
            var s = Substring(r)
            while s.last == " " { s.removeLast() }
            return String(s)
        }.joined(separator: "\n")
    }
}

@Suite("GPU detail")
struct GPUDetailTests {
    @Test("a GPU sensor's detail shows NVML's limits, power against its limit, the clock limits in words, P-state and load")
    func gpuDetailShowsNVMLFields() {
        var g = ThermalGPU(busID: "0000:00:06.0")
        g.name = "NVIDIA H200"
        g.celsius = 57
        g.limits = ThermalGPULimits(slowdown: 89, shutdown: 95, gpuMax: 87, memoryMax: 95)
        g.powerWatts = 690
        g.powerLimitWatts = 700
        g.clockReasons = 0x4
        g.performanceState = 0
        g.utilisationPercent = 100
        var snap = ThermalSnapshot(time: 0)
        snap.gpus = [g]
        var state = Fixtures.appState([snap], sourceLabel: "/sys", simulated: false)
        let id = g.id + "/nvidia/gpu"
        #expect(state.status.assessment.sensors.contains { $0.sensor.id == id })
        state.overlay = .detail(id)
        let text = state.render(.large).text()
        #expect(text.contains("NVML limits: GPU max 87.0 °C · slowdown 89.0 °C · shutdown 95.0 °C"), "\(text)")
        #expect(text.contains("power 690.0 W of 700.0 W · P0 · load 100 %"), "\(text)")
        #expect(text.contains("clocks limited by: SW power cap"), "\(text)")
    }
}
