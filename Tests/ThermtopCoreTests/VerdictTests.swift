import Testing
@testable import ThermtopCore

/// Issue 29: the verdict people and scripts act on (docs/verdict.md).
@Suite struct VerdictTests {
    static func assess(_ snap: Snapshot, config: ThermalConfig = ThermalConfig()) -> ThermalAssessment {
        var memory = ClassifierMemory()
        return Classifier.assess(snap, config: config, memory: &memory)
    }

    static func status(_ snap: Snapshot, overrides: ThermalOverrides = .none, simulated: Bool = false) -> MonitorStatus {
        MonitorStatus(snapshot: snap, assessment: assess(snap),
                      lowPowerAssessment: LowPowerAssessment.assess(snap, config: ThermalConfig()),
                      overrides: overrides, sourceLabel: "test", sourceIsSimulated: simulated)
    }

    // MARK: unknown is never nominal to people

    @Test("nothing found at all (a --sysfs-root one level too deep) is not measured: unknown, not nominal")
    func emptyTreeIsUnknown() {
        let a = Self.assess(Snapshot(time: 0))
        #expect(a.nothingReadable)
        #expect(!a.measured)
        #expect(a.state == .nominal, "apps are still told nominal")
        #expect(a.reason.hasPrefix("unknown:"), "\(a.reason)")
    }

    @Test("every sensor failing: status text says State unknown, JSON thermal_state unknown with measured false")
    func unreadableSensorsShowUnknown() throws {
        let snap = Snapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: nil),
                                             zone("thermal_zone1", type: "x86_pkg_temp", celsius: nil)])
        let s = Self.status(snap)
        #expect(s.stateIsUnknown)
        let text = StatusReport.text(s)
        #expect(text.contains("State      unknown"), "\(text)")
        #expect(!text.contains("State      nominal"))
        let json = StatusReport.json(s, version: "t").serialized(pretty: false)
        #expect(json.contains("\"thermal_state\":\"unknown\""), "\(json.prefix(400))")
        #expect(json.contains("\"measured\":false"))
        let metrics = MetricsReport.prometheus(s, version: "t", readErrorsTotal: 0, unixTime: 0)
        #expect(metrics.contains("thermtop_measured 0"))
        #expect(metrics.contains("thermtop_thermal_state{state=\"nominal\"} 0"), "\(metrics)")
    }

    @Test("a forced state over an unmeasured machine shows the forced state, marked simulated")
    func forcedStateOverUnknown() {
        var o = ThermalOverrides.none
        o.thermalState = .serious
        let s = Self.status(Snapshot(time: 0), overrides: o)
        #expect(!s.stateIsUnknown)
        #expect(s.shownStateName == "serious")
        #expect(s.isSimulated)
    }

    // MARK: fans

    @Test("an on/off ACPI fan (max_state 1) switched on by its active trip is not a heat level")
    func onOffFanIsNotSerious() {
        // The 2010 laptop: six on/off fans on at 45 °C (active trip 42 °C), acpitz crit 100.
        let fans = (0..<6).map { CoolingDevice(id: "cooling_device\($0)", type: "Fan", currentState: 1, maxState: 1) }
        let snap = Snapshot(time: 0, zones: [zone("thermal_zone0", type: "acpitz", celsius: 45,
                                                  trips: [(.critical, 100, nil), (.active, 42, nil)])],
                            coolingDevices: fans)
        let a = Self.assess(snap)
        #expect(a.state == .nominal, "\(a.reason)")
        #expect(a.cooling.allSatisfy { $0.level == .nominal && $0.reason.contains("on/off fan") })
    }

    @Test("a PWM fan on auto at its normal duty (65 %) is nominal; at full speed it is fair at most")
    func autoFanAtNormalDutyIsNominal() {
        var snap = Snapshot(time: 0)
        snap.fans = [ThermalFan(id: "hwmon1/fan2", location: "hwmon1/fan2", chip: "nct6792", rpm: 900, pwm: 166, pwmEnable: 5)]
        #expect(Self.assess(snap).fans.first?.level == .nominal)
        snap.fans = [ThermalFan(id: "hwmon1/fan2", location: "hwmon1/fan2", chip: "nct6792", rpm: 2000, pwm: 255, pwmEnable: 5)]
        #expect(Self.assess(snap).fans.first?.level == .fair)
    }

    // MARK: junk inputs

    @Test("an unconnected Super-I/O AUXTIN at 112 °C with no limits cannot make the machine critical: fair, flagged")
    func junkAuxtinIsFairAtMost() throws {
        let snap = Snapshot(time: 0, hwmon: [
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
        let json = StatusReport.json(Self.status(snap), version: "t").serialized(pretty: false)
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
        // Every shutdown limit, whatever its kind, puts serious and critical at the same distance.
        for s in [hwmonSensor(crit: 100), hwmonSensor(emergency: 100), zoneSensor(trips: [(.critical, 100, nil)])] {
            let th = SensorThresholds.derive(for: s, config: cfg)
            #expect(th.critical.celsius == 100 - cfg.criticalBelowLimit)
            #expect(th.serious.celsius == 100 - cfg.seriousBelowLimit)
        }
    }
}
