import Testing
@testable import ThermtopCore

/// Rules written once (issue 7, "also fix"): each output must follow the one definition.
@Suite struct OnePlaceRulesTests {
    static func status(_ snap: ThermalSnapshot) -> MonitorStatus {
        var memory = ClassifierMemory()
        return MonitorStatus(snapshot: snap, assessment: ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory),
                             lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                             overrides: .none, sourceLabel: "test", sourceIsSimulated: false)
    }

    @Test("AC online: any adapter online → true, all reporting offline → false, none reporting → nil; JSON and metrics agree",
          arguments: [
            ([Bool?](), nil), ([nil], nil), ([false, nil], false), ([false, true], true), ([true], true),
          ] as [([Bool?], Bool?)])
    func acOnline(_ online: [Bool?], _ expected: Bool?) {
        let adapters = online.enumerated().map { ThermalPowerAdapter(id: "AC\($0.offset)", type: "Mains", online: $0.element) }
        let snap = ThermalSnapshot(time: 0, adapters: adapters)
        #expect(snap.acOnline == expected)
        let json = ThermalStatusReport.jsonText(Self.status(snap), version: "t", pretty: false)
        #expect(json.contains("\"ac_online\":\(expected.map { "\($0)" } ?? "null")"), "\(json)")
        let metrics = MetricsReport.prometheus(Self.status(snap), version: "t", readErrorsTotal: 0, unixTime: 0)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("thermtop_ac_online ") }
        #expect(line.map(String.init) == expected.map { "thermtop_ac_online \($0 ? 1 : 0)" })
    }

    @Test("an issue reads the same everywhere: reason then detail")
    func issueWording() {
        #expect(ReadingIssue(file: "f", reason: .ioError, detail: "EIO").why == "io-error EIO")
        #expect(ReadingIssue(file: "f", reason: .timedOut).why == "timed-out")
        #expect(ReadingIssue(file: "f", reason: .empty, detail: "").why == "empty")
        // A zone whose temp cannot be read, and a trip thermtop ignores.
        let bad = ReadingIssue(file: "class/thermal/thermal_zone0/temp", reason: .ioError, detail: "EIO")
        let junk = ReadingIssue(file: "class/thermal/thermal_zone0/trip_point_0_temp", reason: .sentinel, detail: "-274000")
        var zone = ThermalZone(id: "thermal_zone0", type: "acpitz", celsius: nil)
        zone.issues = [bad]
        zone.trips = [TripPoint(index: 0, kind: .critical, celsius: nil, hysteresis: nil, ignored: junk)]
        let status = Self.status(ThermalSnapshot(time: 0, zones: [zone]))
        #expect(ThermalStatusReport.text(status).contains(bad.why), "\(ThermalStatusReport.text(status))")
        #expect(ThermalStatusReport.jsonText(status, version: "t", pretty: false).contains("\"ignored_reason\":\"\(junk.why)\""))
    }

    @Test("one decimal-scaling rule: divide, range-check with the raw number kept, reject sentinels first")
    func scaling() {
        #expect(SysfsValue.scaled("45500\n", file: "t", divisor: 1000, range: 0...100).value == 45.5)
        #expect(SysfsValue.scaled("-12\n", file: "t", divisor: 1, range: 0...10).issue
                == ReadingIssue(file: "t", reason: .implausible, detail: "-12"))
        #expect(SysfsValue.scaled("-2500000", file: "t", divisor: 1e6, range: 0...5, magnitude: true).value == 2.5)
        #expect(SysfsValue.scaled("7", file: "t", divisor: 1, range: 0...10) { _ in
            ReadingIssue(file: "t", reason: .sentinel) }.issue?.reason == .sentinel)
        #expect(SysfsValue.scaled("x1", file: "t", divisor: 1, range: 0...10).issue?.reason == .notANumber)
        // The named parsers are this rule with their units.
        #expect(SysfsValue.temperature("45500", file: "t").value == 45.5)
        #expect(SysfsValue.temperature("300000", file: "t").issue?.reason == .implausible)
        #expect(SysfsValue.micro("2500000", file: "t", max: 10).value == 2.5)
    }

    @Test("the sort headroom spans ThermalConfig.sortHeadroomSpan below serious: 0 there, 1 at serious")
    func sortHeadroom() throws {
        var memory = ClassifierMemory()
        func headroom(_ c: Double) throws -> Double? {
            let snap = ThermalSnapshot(time: 0, zones: [ThermalZone(id: "thermal_zone0", type: "acpitz", celsius: c)])
            let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
            return try #require(a.sensors.first).headroom
        }
        let serious = ThermalConfig().defaultSerious   // acpitz without trips: the default
        #expect(abs(try headroom(serious - ThermalConfig.sortHeadroomSpan) ?? .nan) < 1e-9)
        #expect(abs((try headroom(serious) ?? .nan) - 1) < 1e-9)
    }
}
