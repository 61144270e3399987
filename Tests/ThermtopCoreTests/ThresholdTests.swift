import Testing
import ThermtopCore

struct ThresholdCase: Sendable, CustomTestStringConvertible {
    let name: String
    let sensor: ThermalSensor
    var config = ThermalConfig()
    let fair: Double
    let serious: Double
    let seriousRule: String
    let critical: Double
    let criticalRule: String
    var seriousHysteresis: Double? = nil
    var criticalHysteresis: Double? = nil
    var testDescription: String { name }
}

private func config(_ edit: (inout ThermalConfig) -> Void) -> ThermalConfig {
    var c = ThermalConfig()
    edit(&c)
    return c
}

@Suite("Threshold derivation")
struct ThresholdTests {
    static let cases: [ThresholdCase] = [
        // serious
        ThresholdCase(name: "serious = the passive trip",
                      sensor: zoneSensor(trips: [(.passive, 90, 2), (.critical, 105, 0)]),
                      fair: 80, serious: 90, seriousRule: "passive trip",
                      critical: 100, criticalRule: "critical trip 105.0 °C − 5.0 °C",
                      seriousHysteresis: 2),
        ThresholdCase(name: "serious = the LOWEST passive trip, whatever the trip order",
                      sensor: zoneSensor(trips: [(.passive, 95, 3), (.passive, 70, 1)]),
                      fair: 60, serious: 70, seriousRule: "passive trip",
                      critical: 80, criticalRule: "serious 70.0 °C + 10.0 °C", seriousHysteresis: 1),
        ThresholdCase(name: "a passive trip wins over hwmon max",
                      sensor: ThermalSensor(id: "s", name: "s", kind: .zone, celsius: 50,
                                                passiveTrips: [TripPoint(index: 0, kind: .passive, celsius: 75, hysteresis: 2)],
                                                max: 100),
                      fair: 65, serious: 75, seriousRule: "passive trip",
                      critical: 85, criticalRule: "serious 75.0 °C + 10.0 °C"),
        ThresholdCase(name: "serious = hwmon max when there is no passive trip",
                      sensor: hwmonSensor(max: 90, crit: 105),
                      fair: 80, serious: 90, seriousRule: "hwmon max",
                      critical: 100, criticalRule: "hwmon crit 105.0 °C − 5.0 °C", seriousHysteresis: 2),
        ThresholdCase(name: "a warning limit at the shutdown limit warns of nothing: coretemp max = crit = 100 takes the shutdown rule",
                      sensor: hwmonSensor(max: 100, crit: 100),
                      fair: 75, serious: 85, seriousRule: "hwmon crit 100.0 °C − 15.0 °C",
                      critical: 95, criticalRule: "hwmon crit 100.0 °C − 5.0 °C"),
        ThresholdCase(name: "serious = critical trip − 15 °C without passive trip or max",
                      sensor: zoneSensor(type: "acpitz", trips: [(.critical, 128, 0)]),
                      fair: 103, serious: 113, seriousRule: "critical trip 128.0 °C − 15.0 °C",
                      critical: 123, criticalRule: "critical trip 128.0 °C − 5.0 °C",
                      seriousHysteresis: 2, criticalHysteresis: 2),
        ThresholdCase(name: "serious = 85 °C default for a sensor without limits",
                      sensor: hwmonSensor(chip: "k10temp", label: "Tctl"),
                      fair: 75, serious: 85, seriousRule: "default for sensors without limits",
                      critical: 95, criticalRule: "serious 85.0 °C + 10.0 °C"),
        ThresholdCase(name: "serious = 45 °C default for a battery sensor",
                      sensor: ThermalSensor(id: "BAT0/temp", name: "BAT0", kind: .battery, celsius: 30, isBattery: true),
                      fair: 35, serious: 45, seriousRule: "default for batteries",
                      critical: 55, criticalRule: "serious 45.0 °C + 10.0 °C"),
        ThresholdCase(name: "a battery zone (type contains bat) gets the battery default",
                      sensor: zoneSensor(type: "battery", trips: []),
                      fair: 35, serious: 45, seriousRule: "default for batteries",
                      critical: 55, criticalRule: "serious 45.0 °C + 10.0 °C"),
        ThresholdCase(name: "a BAT hwmon chip gets the battery default",
                      sensor: hwmonSensor(chip: "BAT1", label: "temp1"),
                      fair: 35, serious: 45, seriousRule: "default for batteries",
                      critical: 55, criticalRule: "serious 45.0 °C + 10.0 °C"),
        ThresholdCase(name: "defaults come from the configuration",
                      sensor: hwmonSensor(chip: "k10temp", label: "Tctl"),
                      config: config { $0.defaultSerious = 70; $0.criticalAboveSerious = 20; $0.fairBelowSerious = 5 },
                      fair: 65, serious: 70, seriousRule: "default for sensors without limits",
                      critical: 90, criticalRule: "serious 70.0 °C + 20.0 °C"),
        // critical
        ThresholdCase(name: "critical = the hot trip",
                      sensor: zoneSensor(type: "SEN1", trips: [(.critical, 105, 0), (.hot, 100, 0), (.passive, 65, 2)]),
                      fair: 55, serious: 65, seriousRule: "passive trip",
                      critical: 100, criticalRule: "hot trip"),
        ThresholdCase(name: "the hot trip wins over critical trip − 5",
                      sensor: zoneSensor(trips: [(.passive, 80, 3), (.hot, 92, 2), (.critical, 98, 0)]),
                      fair: 70, serious: 80, seriousRule: "passive trip",
                      critical: 92, criticalRule: "hot trip", seriousHysteresis: 3, criticalHysteresis: 2),
        ThresholdCase(name: "critical = critical trip − 5 °C without a hot trip",
                      sensor: zoneSensor(type: "cpu-thermal", trips: [(.passive, 75, 2), (.critical, 90, 0)]),
                      fair: 65, serious: 75, seriousRule: "passive trip",
                      critical: 85, criticalRule: "critical trip 90.0 °C − 5.0 °C"),
        ThresholdCase(name: "critical trip − 5 wins over hwmon crit",
                      sensor: ThermalSensor(id: "s", name: "s", kind: .zone, celsius: 50,
                                                criticalTrip: TripPoint(index: 0, kind: .critical, celsius: 110),
                                                max: 80, crit: 100),
                      fair: 70, serious: 80, seriousRule: "hwmon max",
                      critical: 105, criticalRule: "critical trip 110.0 °C − 5.0 °C"),
        ThresholdCase(name: "a GPU with only crit/emergency: serious = hwmon crit − 15 °C, critical = hwmon crit − 5 °C",
                      sensor: hwmonSensor(chip: "amdgpu", label: "edge", crit: 110, emergency: 115),
                      fair: 85, serious: 95, seriousRule: "hwmon crit 110.0 °C − 15.0 °C",
                      critical: 105, criticalRule: "hwmon crit 110.0 °C − 5.0 °C"),
        ThresholdCase(name: "serious = hwmon emergency − 15 °C when emergency is the only limit",
                      sensor: hwmonSensor(chip: "amdgpu", label: "junction", emergency: 110),
                      fair: 85, serious: 95, seriousRule: "hwmon emergency 110.0 °C − 15.0 °C",
                      critical: 105, criticalRule: "hwmon emergency 110.0 °C − 5.0 °C"),
        ThresholdCase(name: "critical = hwmon emergency − 5 °C without crit",
                      sensor: hwmonSensor(chip: "amdgpu", label: "edge", max: 90, emergency: 105),
                      fair: 80, serious: 90, seriousRule: "hwmon max",
                      critical: 100, criticalRule: "hwmon emergency 105.0 °C − 5.0 °C"),
        ThresholdCase(name: "hwmon crit_hyst is absolute: radeon crit 120 clears below 90",
                      sensor: hwmonSensor(chip: "radeon", label: "temp1", crit: 120, critHyst: 90),
                      fair: 95, serious: 105, seriousRule: "hwmon crit 120.0 °C − 15.0 °C",
                      critical: 115, criticalRule: "hwmon crit 120.0 °C − 5.0 °C", criticalHysteresis: 25),
        ThresholdCase(name: "critical = serious + 10 °C with no hot, critical or crit limit",
                      sensor: zoneSensor(trips: [(.passive, 90, 2)]),
                      fair: 80, serious: 90, seriousRule: "passive trip",
                      critical: 100, criticalRule: "serious 90.0 °C + 10.0 °C"),
        ThresholdCase(name: "a passive trip above the hot trip warns of nothing: serious falls to the default, critical is the hot trip",
                      sensor: zoneSensor(trips: [(.passive, 110, 2), (.hot, 100, 0)]),
                      fair: 75, serious: 85, seriousRule: "default for sensors without limits",
                      critical: 100, criticalRule: "hot trip"),
        // per-sensor overrides
        ThresholdCase(name: "override by sensor id",
                      sensor: zoneSensor(trips: [(.passive, 90, 2)]),
                      config: config { $0.overrides["thermal_zone0"] = SensorOverride(serious: 70, critical: 75) },
                      fair: 60, serious: 70, seriousRule: "configured",
                      critical: 75, criticalRule: "configured"),
        ThresholdCase(name: "override by sensor name",
                      sensor: hwmonSensor(max: 100, crit: 105),
                      config: config { $0.overrides["coretemp Package id 0"] = SensorOverride(serious: 60, fairBelowSerious: 5) },
                      fair: 55, serious: 60, seriousRule: "configured",
                      critical: 100, criticalRule: "hwmon crit 105.0 °C − 5.0 °C"),
        ThresholdCase(name: "an override by id wins over one by name",
                      sensor: zoneSensor(type: "x86_pkg_temp", trips: [(.passive, 90, 2)]),
                      config: config {
                          $0.overrides["x86_pkg_temp"] = SensorOverride(serious: 60)
                          $0.overrides["thermal_zone0"] = SensorOverride(serious: 70)
                      },
                      fair: 60, serious: 70, seriousRule: "configured",
                      critical: 80, criticalRule: "serious 70.0 °C + 10.0 °C"),
        ThresholdCase(name: "an override of the hysteresis replaces the trip's",
                      sensor: zoneSensor(trips: [(.passive, 90, 2)]),
                      config: config { $0.overrides["thermal_zone0"] = SensorOverride(hysteresis: 6) },
                      fair: 80, serious: 90, seriousRule: "passive trip",
                      critical: 100, criticalRule: "serious 90.0 °C + 10.0 °C",
                      seriousHysteresis: 6, criticalHysteresis: 6),
        ThresholdCase(name: "an override for another sensor changes nothing",
                      sensor: zoneSensor(trips: [(.passive, 90, 2)]),
                      config: config { $0.overrides["thermal_zone7"] = SensorOverride(serious: 40) },
                      fair: 80, serious: 90, seriousRule: "passive trip",
                      critical: 100, criticalRule: "serious 90.0 °C + 10.0 °C"),
    ]

    @Test("thresholds follow the documented order of preference", arguments: cases)
    func derive(_ c: ThresholdCase) {
        let th = SensorThresholds.derive(for: c.sensor, config: c.config)
        #expect(th.fair.celsius == c.fair)
        #expect(th.serious.celsius == c.serious)
        #expect(th.critical.celsius == c.critical)
        #expect(th.serious.rule.contains(c.seriousRule), "serious rule was \(th.serious.rule)")
        #expect(th.critical.rule.contains(c.criticalRule), "critical rule was \(th.critical.rule)")
        if let h = c.seriousHysteresis { #expect(th.serious.hysteresis == h) }
        if let h = c.criticalHysteresis { #expect(th.critical.hysteresis == h) }
        #expect(th.fair.celsius < th.serious.celsius)
        #expect(th.serious.celsius < th.critical.celsius)
    }

    @Test("an NVMe warning limit within 5 °C of its shutdown limit: serious at max, critical halfway to crit, each rule says how")
    func nvmeLimitsClose() {
        let th = SensorThresholds.derive(for: hwmonSensor(chip: "nvme", label: "Composite", celsius: 35.85, max: 81.85, crit: 84.85),
                                         config: ThermalConfig())
        #expect(th.serious.celsius == 81.85 && th.serious.rule == "hwmon max")
        #expect(abs(th.critical.celsius - 83.35) < 1e-9, "critical \(th.critical.celsius)")
        #expect(th.critical.rule == "halfway from hwmon max 81.9 °C to hwmon crit 84.9 °C", "\(th.critical.rule)")
        #expect(th.fair.celsius < th.serious.celsius && th.serious.celsius < th.critical.celsius)
    }

    struct HystCase: Sendable, CustomTestStringConvertible {
        let tripHysteresis: Double?
        let clearsBelow: Double
        var testDescription: String { "trip hysteresis \(tripHysteresis.map { "\($0)" } ?? "absent") → clears below \(clearsBelow)" }
    }

    @Test("the trip's hysteresis is used when > 0, else 2 °C",
          arguments: [HystCase(tripHysteresis: 5, clearsBelow: 85), HystCase(tripHysteresis: 0.5, clearsBelow: 89.5),
                      HystCase(tripHysteresis: 0, clearsBelow: 88), HystCase(tripHysteresis: nil, clearsBelow: 88)])
    func tripHysteresis(_ c: HystCase) {
        let th = SensorThresholds.derive(for: zoneSensor(trips: [(.passive, 90, c.tripHysteresis)]), config: ThermalConfig())
        #expect(th.serious.clearsBelow == c.clearsBelow)
    }

    @Test("junk trips rejected by the parser are never used as thresholds")
    func junkTripsFromParser() {
        let sensor = ThermalSensor(zone: packageZone(53))
        #expect(sensor.passiveTrips.map(\.celsius) == [90])
        let th = SensorThresholds.derive(for: sensor, config: ThermalConfig())
        #expect(th.serious.celsius == 90)
    }

    @Test("trips at or below 0 °C, at −273 °C or implausibly hot never become thresholds")
    func junkTripValues() {
        // As another source (a replay, a simulation) might hand them over, without a parser's verdict.
        let sensor = zoneSensor(trips: [(.passive, 0, 0), (.passive, -273.15, 0), (.critical, -274, 0),
                                        (.hot, 200_000, 0), (.critical, 65261.85, 0)])
        #expect(sensor.passiveTrips.isEmpty)
        #expect(sensor.hotTrip == nil)
        #expect(sensor.criticalTrip == nil)
        let th = SensorThresholds.derive(for: sensor, config: ThermalConfig())
        #expect(th.serious.celsius == 85)
        #expect(th.critical.celsius == 95)
    }

    @Test("a trip with a type but no temperature, or an unknown type, is ignored")
    func incompleteTrips() {
        let z = ThermalZone(id: "thermal_zone6", type: "junk-trips", celsius: 45, trips: [
            TripPoint(index: 3, kind: .hot, celsius: nil,
                      ignored: ReadingIssue(file: "trip_point_3_temp", reason: .missing)),
            TripPoint(index: 4, kind: nil, celsius: 60,
                      ignored: ReadingIssue(file: "trip_point_4_type", reason: .unrecognised, detail: "high")),
        ])
        let sensor = ThermalSensor(zone: z)
        #expect(sensor.hotTrip == nil)
        #expect(sensor.passiveTrips.isEmpty)
        #expect(SensorThresholds.derive(for: sensor, config: ThermalConfig()).serious.celsius == 85)
    }
}
