import Testing
@testable import ThermtopCore

/// Issue 29: the verdict people and scripts act on (docs/verdict.md).
@Suite struct VerdictTests {
    static func assess(_ snap: ThermalSnapshot, config: ThermalConfig = ThermalConfig()) -> ThermalAssessment {
        var memory = ClassifierMemory()
        return ThermalClassifier.assess(snap, config: config, memory: &memory)
    }

    static func status(_ snap: ThermalSnapshot, overrides: ThermalOverrides = .none, simulated: Bool = false) -> MonitorStatus {
        MonitorStatus(snapshot: snap, assessment: assess(snap),
                      lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                      overrides: overrides, sourceLabel: "test", sourceIsSimulated: simulated)
    }

    // MARK: unknown is never nominal to people

    @Test("nothing found at all (a --sysfs-root one level too deep) is not measured: unknown, not nominal")
    func emptyTreeIsUnknown() {
        let a = Self.assess(ThermalSnapshot(time: 0))
        #expect(a.nothingReadable)
        #expect(!a.measured)
        #expect(a.state == .nominal, "apps are still told nominal")
        #expect(a.reason.hasPrefix("unknown:"), "\(a.reason)")
    }

    @Test("every sensor failing: status text says State unknown, JSON thermal_state unknown with measured false")
    func unreadableSensorsShowUnknown() throws {
        let snap = ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: nil),
                                             zone("thermal_zone1", type: "x86_pkg_temp", celsius: nil)])
        let s = Self.status(snap)
        #expect(s.stateIsUnknown)
        let text = ThermalStatusReport.text(s)
        #expect(text.contains("State      unknown"), "\(text)")
        #expect(!text.contains("State      nominal"))
        let json = ThermalStatusReport.json(s, version: "t").serialized(pretty: false)
        #expect(json.contains("\"thermal_state\":\"unknown\""), "\(json.prefix(400))")
        #expect(json.contains("\"measured\":false"))
        let metrics = MetricsReport.prometheus(s, version: "t", readErrorsTotal: 0, unixTime: 0)
        #expect(metrics.contains("thermtop_measured 0"))
        // No measured level at all: a 0 would read as nominal on any dashboard.
        #expect(!metrics.split(separator: "\n").contains { $0.hasPrefix("thermtop_measured_thermal_state_level ") }, "\(metrics)")
        #expect(metrics.contains("thermtop_thermal_state{state=\"nominal\"} 0"), "\(metrics)")
    }

    @Test("a nominal reason never says every sensor is below fair while one could not be read: it counts them")
    func nominalCountsUnreadable() {
        let snap = ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 40),
                                             zone("thermal_zone1", type: "x86_pkg_temp", celsius: nil)])
        let a = Self.assess(snap)
        #expect(a.state == .nominal)
        #expect(!a.reason.contains("every sensor"), "\(a.reason)")
        #expect(a.reason.hasPrefix("nominal: 1 sensor unreadable, the rest below fair"), "\(a.reason)")
        var asleep = zone("thermal_zone1", type: "x86_pkg_temp", celsius: nil)
        asleep.asleep = "D3cold"
        let sleeping = Self.assess(ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 40), asleep]))
        #expect(sleeping.reason.hasPrefix("nominal: every sensor below its fair threshold"), "a sleeping device is not unreadable: \(sleeping.reason)")
        let all = Self.assess(ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 40)]))
        #expect(all.reason.hasPrefix("nominal: every sensor below its fair threshold"), "\(all.reason)")
    }

    @Test("a forced state over an unmeasured machine shows the forced state, marked simulated")
    func forcedStateOverUnknown() {
        var o = ThermalOverrides.none
        o.thermalState = .serious
        let s = Self.status(ThermalSnapshot(time: 0), overrides: o)
        #expect(!s.stateIsUnknown)
        #expect(s.shownStateName == "serious")
        #expect(s.isSimulated)
    }

    // MARK: fans

    @Test("an on/off ACPI fan (max_state 1) switched on by its active trip is not a heat level")
    func onOffFanIsNotSerious() {
        // The 2010 laptop: six on/off fans on at 45 °C (active trip 42 °C), acpitz crit 100.
        let fans = (0..<6).map { CoolingDevice(id: "cooling_device\($0)", type: "Fan", currentState: 1, maxState: 1) }
        let snap = ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 45,
                                                  trips: [(.critical, 100, nil), (.active, 42, nil)])],
                            coolingDevices: fans)
        let a = Self.assess(snap)
        #expect(a.state == .nominal, "\(a.reason)")
        #expect(a.cooling.allSatisfy { $0.level == .nominal && $0.reason.contains("on/off fan") })
    }

    @Test("a PWM fan on auto at its normal duty (65 %) is nominal; at full speed it is fair at most")
    func autoFanAtNormalDutyIsNominal() {
        var snap = ThermalSnapshot(time: 0)
        snap.fans = [ThermalFan(id: "hwmon1/fan2", location: "hwmon1/fan2", chip: "nct6792", rpm: 900, pwm: 166, pwmEnable: 5)]
        #expect(Self.assess(snap).fans.first?.level == .nominal)
        snap.fans = [ThermalFan(id: "hwmon1/fan2", location: "hwmon1/fan2", chip: "nct6792", rpm: 2000, pwm: 255, pwmEnable: 5)]
        #expect(Self.assess(snap).fans.first?.level == .fair)
    }

    // MARK: junk inputs

    @Test("an unconnected Super-I/O AUXTIN at 112 °C with no limits cannot make the machine critical: fair, flagged")
    func junkAuxtinIsFairAtMost() throws {
        let snap = ThermalSnapshot(time: 0, hwmon: [
            HwmonChannel(device: "hwmon1", chip: "nct6792", channel: "temp6", label: "AUXTIN2", celsius: 112),
            HwmonChannel(device: "hwmon1", chip: "nct6792", channel: "temp1", label: "SYSTIN", celsius: 30),
            HwmonChannel(device: "hwmon2", chip: "k10temp", channel: "temp1", label: "Tctl", celsius: 28),
        ])
        let a = Self.assess(snap)
        #expect(a.state == .fair, "\(a.reason)")
        let aux = try #require(a.sensors.first { $0.sensor.label == "AUXTIN2" })
        #expect(aux.uncorroborated)
        #expect(aux.level == .fair)
        #expect(aux.reason.contains("uncorroborated"))
        #expect(a.sensors.first { $0.sensor.label == "SYSTIN" }?.uncorroborated == false)
        let json = ThermalStatusReport.json(Self.status(snap), version: "t").serialized(pretty: false)
        #expect(json.contains("\"uncorroborated\":true"))
    }

    @Test("an unlabelled input without limits is uncorroborated; a labelled CPU, one with a limit, or a configured one is not")
    func whoIsUncorroborated() {
        let bare = hwmonSensor(chip: "it8728", label: "temp3", celsius: 120)
        #expect(SensorThresholds.isUncorroborated(SensorCatalog.annotate([bare])[0], override: nil))
        let limited = hwmonSensor(chip: "it8728", label: "temp3", celsius: 120, max: 90)
        #expect(!SensorThresholds.isUncorroborated(SensorCatalog.annotate([limited])[0], override: nil))
        let cpu = hwmonSensor(chip: "k10temp", label: "Tctl", celsius: 120)
        #expect(!SensorThresholds.isUncorroborated(SensorCatalog.annotate([cpu])[0], override: nil))
        #expect(!SensorThresholds.isUncorroborated(SensorCatalog.annotate([bare])[0], override: SensorOverride(serious: 70)))
    }

    // MARK: one margin rule

    @Test("the ThinkPad case: CPU package 97 °C under hwmon crit 100 and acpitz 96 °C under critical trip 99 get the same level")
    func oneMarginForEveryLimit() {
        let cpu = hwmonSensor(chip: "coretemp", label: "Package id 0", celsius: 97, crit: 100)
        let acpi = zoneSensor(type: "acpitz", celsius: 96, trips: [(.critical, 99, nil)])
        let cfg = ThermalConfig()
        let lc = SensorThresholds.derive(for: cpu, config: cfg).level(at: 97)
        let la = SensorThresholds.derive(for: acpi, config: cfg).level(at: 96)
        #expect(lc == la, "cpu \(lc), acpitz \(la)")
        #expect(lc == .critical)
        // The same with coretemp's usual max = crit = 100 (a max at critical warns of nothing).
        let both = hwmonSensor(chip: "coretemp", label: "Package id 0", celsius: 97, max: 100, crit: 100)
        #expect(SensorThresholds.derive(for: both, config: cfg).level(at: 97) == la)
        // Every shutdown limit, whatever its kind, puts serious and critical at the same distance.
        for s in [hwmonSensor(crit: 100), hwmonSensor(emergency: 100), zoneSensor(trips: [(.critical, 100, nil)])] {
            let th = SensorThresholds.derive(for: s, config: cfg)
            #expect(th.critical.celsius == 100 - cfg.criticalBelowLimit)
            #expect(th.serious.celsius == 100 - cfg.seriousBelowLimit)
        }
    }

    // MARK: simulations never fire real hooks

    @Test("a forced critical (key 4) never runs the on-change hook without --on-change-simulated; with it, THERMTOP_SIMULATED=1")
    func simulatedStateDoesNotFireHook() throws {
        let snap = ThermalSnapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 45, trips: [(.critical, 100, nil)])])
        let live = Self.status(snap)
        var forced = ThermalOverrides.none
        forced.thermalState = .critical
        let pressed4 = Self.status(snap, overrides: forced)

        var plain = OnChangeSchedule(minInterval: 0, initial: ChangeKey.hookView(of: live, simulatedAllowed: false)!.key)
        let view = try #require(ChangeKey.hookView(of: pressed4, simulatedAllowed: false))
        #expect(view.key.state == .nominal && !view.key.simulated)
        #expect(plain.observe(view.key, reason: view.reason, at: 1) == nil, "a stray 4 ran the hook")

        var asked = OnChangeSchedule(minInterval: 0, initial: ChangeKey.hookView(of: live, simulatedAllowed: true)!.key)
        let v2 = try #require(ChangeKey.hookView(of: pressed4, simulatedAllowed: true))
        let ran = asked.observe(v2.key, reason: v2.reason, at: 1)
        let r = try #require(ran)
        let env = Dictionary(uniqueKeysWithValues: r.environment)
        #expect(env["THERMTOP_STATE"] == "critical")
        #expect(env["THERMTOP_SIMULATED"] == "1")
        // The simulated laptop without the flag: nothing at all.
        #expect(ChangeKey.hookView(of: Self.status(snap, simulated: true), simulatedAllowed: false) == nil)
    }

    @Test("status --json (and so watch --json) and export mark any simulation")
    func simulationIsMarked() {
        var o = ThermalOverrides.none
        o.lowPower = true
        let s = Self.status(ThermalSnapshot(time: 0, zones: [zone(celsius: 50)]), overrides: o)
        let json = ThermalStatusReport.json(s, version: "t").serialized(pretty: false)
        #expect(json.contains("\"simulated\":true"))
        let metrics = MetricsReport.prometheus(s, version: "t", readErrorsTotal: 0, unixTime: 0)
        #expect(metrics.contains("thermtop_simulated 1"), "\(metrics)")
    }

    // MARK: batteries

    @Test("two batteries: the total is sum(energy_now) / sum(energy_full), not a weighted mean of the rounded capacities")
    func totalFromEnergySums() throws {
        let bat0 = ThermalBattery(id: "BAT0", status: .discharging, capacity: 80, energyNow: 15.7, energyFull: 19.6)
        let bat1 = ThermalBattery(id: "BAT1", status: .discharging, capacity: 7, energyNow: 4.1, energyFull: 63.1)
        let total = try #require(ThermalCombinedBattery([bat0, bat1]).percent)
        #expect(abs(total - 100 * 19.8 / 82.7) < 0.001, "\(total)")
        // One battery keeps its own gauge's figure.
        #expect(ThermalCombinedBattery([bat0]).percent == 80)
    }

    // MARK: rules for folded sensors

    @Test("a [[sensor]] rule matching the folded x86_pkg_temp's id applies to coretemp's package row it folds into")
    func ruleForFoldedMirrorApplies() throws {
        let snap = ThermalSnapshot(time: 0, zones: [packageZone(53)], hwmon: [
            HwmonChannel(device: "hwmon3", chip: "coretemp", channel: "temp1", label: "Package id 0", celsius: 53, max: 100, crit: 100),
        ])
        let plain = Self.assess(snap)
        let mirror = try #require(plain.sensors.first { $0.sensor.mirrorOf != nil })
        var cfg = ThermalConfig()
        cfg.rules = [SensorPatternOverride(match: SensorGlob(mirror.sensor.id), override: SensorOverride(serious: 50))]
        let a = Self.assess(snap, config: cfg)
        #expect(a.state == .serious, "\(a.reason)")
        #expect(a.decidedBy == mirror.sensor.mirrorOf)
    }
}
