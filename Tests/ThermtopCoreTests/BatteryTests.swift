import Testing
import ThermtopCore

@Suite("Battery math")
struct BatteryTests {
    /// thinkpad-lgc-45n1-2018-procfs BAT0 (values from EXPECTED.md).
    static let thinkpad = ThermalBattery(id: "BAT0", status: .discharging, capacity: 98, energyNow: 49.45, energyFull: 50.06,
                                  energyFullDesign: 47.52, powerNow: 4.83, voltageNow: 12.229)

    @Test("the kernel's capacity is preferred over the computed percentage")
    func capacityPreferred() {
        let b = Self.thinkpad
        #expect(b.percent == 98)
        #expect(b.percentSource == .capacity)
        #expect(approx(b.computedPercent, 98.78, 0.005))
    }

    @Test("without capacity the percentage is energy now ÷ full, else charge now ÷ full")
    func computedPercent() {
        let e = ThermalBattery(id: "BAT0", energyNow: 36.309, energyFull: 51.87)
        #expect(approx(e.percent, 70.0))
        #expect(e.percentSource == .computed)
        let c = ThermalBattery(id: "BAT1", chargeNow: 3.498, chargeFull: 5.83)
        #expect(approx(c.percent, 60.0))
        #expect(c.percentSource == .computed)
        #expect(ThermalBattery(id: "BAT2").percent == nil)
        #expect(ThermalBattery(id: "BAT2").percentSource == nil)
        #expect(ThermalBattery(id: "BAT3", energyNow: 10, energyFull: 0).percent == nil)
    }

    @Test("a gauge reading more than full never shows more than 100 %")
    func computedPercentClamped() {
        #expect(ThermalBattery(id: "BAT0", energyNow: 60, energyFull: 50).computedPercent == 100)
    }

    @Test("health is full ÷ design, not clamped at 100 %",
          arguments: [(50.06, 47.52, 105.35), (45.07, 47.52, 94.84), (58.03, 57.0, 101.81), (51.87, 57.0, 91.0)])
    func health(_ full: Double, _ design: Double, _ expected: Double) {
        #expect(approx(ThermalBattery(id: "BAT0", energyFull: full, energyFullDesign: design).healthPercent, expected, 0.005))
    }

    @Test("health from charge when only charge is reported")
    func healthFromCharge() {
        #expect(approx(ThermalBattery(id: "BAT0", chargeFull: 1.932, chargeFullDesign: 2.1).healthPercent, 92.0, 0.005))
    }

    @Test("time to empty from energy ÷ power while discharging")
    func timeToEmptyEnergy() {
        #expect(Self.thinkpad.secondsToEmpty == 36857)
        #expect(Self.thinkpad.secondsToFull == nil)
        #expect(Self.thinkpad.timeUnknownReason == nil)
    }

    @Test("time to empty from charge ÷ current, and power from current × voltage")
    func timeToEmptyCharge() {
        let b = ThermalBattery(id: "BAT0", status: .discharging, chargeNow: 1.449, chargeFull: 1.932, currentNow: 0.412, voltageNow: 12.18)
        #expect(approx(b.watts, 5.018, 0.001))
        #expect(b.secondsToEmpty == 12661)
    }

    @Test("time to full while charging, only then")
    func timeToFull() {
        let b = ThermalBattery(id: "BAT0", status: .charging, energyNow: 26, energyFull: 52, powerNow: 26)
        #expect(b.secondsToFull == 3600)
        #expect(b.secondsToEmpty == nil)
    }

    struct RateCase: Sendable, CustomTestStringConvertible {
        let name: String
        let battery: ThermalBattery
        let reason: String
        var testDescription: String { name }
    }

    static let noTimeCases: [RateCase] = [
        RateCase(name: "power_now 0", battery: ThermalBattery(id: "B", status: .discharging, energyNow: 50, energyFull: 50, powerNow: 0),
                 reason: "rate too low"),
        RateCase(name: "a trickle of 10 mW (would be 208 days)", battery: ThermalBattery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.01),
                 reason: "rate too low"),
        RateCase(name: "more than 240 h at 60 mW", battery: ThermalBattery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.06),
                 reason: "out of range"),
        RateCase(name: "no power or current reading", battery: ThermalBattery(id: "B", status: .discharging, energyNow: 50),
                 reason: "no power or current"),
        RateCase(name: "charging more than 20 h", battery: ThermalBattery(id: "B", status: .charging, energyNow: 1, energyFull: 52, powerNow: 0.5),
                 reason: "out of range"),
        RateCase(name: "charging at 0 W", battery: ThermalBattery(id: "B", status: .charging, energyNow: 1, energyFull: 52, powerNow: 0),
                 reason: "rate too low"),
        RateCase(name: "not charging", battery: ThermalBattery(id: "B", status: .notCharging, energyNow: 40, energyFull: 52, powerNow: 5),
                 reason: "not charging or discharging"),
    ]

    @Test("no time to empty or full without a meaningful rate, and never an absurd one", arguments: noTimeCases)
    func noAbsurdTimes(_ c: RateCase) {
        #expect(c.battery.secondsToEmpty == nil)
        #expect(c.battery.secondsToFull == nil)
        #expect(c.battery.timeUnknownReason?.contains(c.reason) == true, "reason: \(c.battery.timeUnknownReason ?? "nil")")
    }

    @Test("a long but possible time to empty (200 h at 250 mW) is still reported")
    func longTime() {
        let b = ThermalBattery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.25)
        #expect(b.secondsToEmpty == 720_000)
    }

    // MARK: combined

    @Test("batteries are combined weighted by energy, not as a plain mean")
    func combinedWeighted() {
        let small = ThermalBattery(id: "BAT0", status: .discharging, capacity: 75, energyNow: 18, energyFull: 24, powerNow: 5)
        let big = ThermalBattery(id: "BAT1", status: .discharging, capacity: 60, energyNow: 43.2, energyFull: 72, powerNow: 10)
        let c = ThermalCombinedBattery([small, big])
        #expect(approx(c.percent, 63.75, 0.001))   // (75×24 + 60×72) / 96, not (75+60)/2 = 67.5
        #expect(c.watts == 15)
        #expect(c.status == .discharging)
        #expect(c.secondsToEmpty == 14688)         // 61.2 Wh at 15 W
    }

    @Test("charge-only batteries: combined by energy at one voltage per battery (two-battery-laptop)")
    func combinedChargeOnly() throws {
        let bat0 = ThermalBattery(id: "BAT0", status: .discharging, capacity: 75, chargeNow: 1.449, chargeFull: 1.932,
                           chargeFullDesign: 2.1, currentNow: 0.412, voltageNow: 12.18, voltageMinDesign: 11.4)
        let bat1 = ThermalBattery(id: "BAT1", status: .discharging, capacity: 60, chargeNow: 3.498, chargeFull: 5.83,
                           chargeFullDesign: 6.4, currentNow: 0.98, voltageNow: 11.52, voltageMinDesign: 11.25)
        let c = ThermalCombinedBattery([bat0, bat1])
        // README: 63.89 % via voltage_now, 63.77 % upower style; never 67.5.
        let pct = try #require(c.percent)
        #expect(pct > 63.7 && pct < 63.9, "combined \(pct)")
        #expect(approx(c.watts, 16.308, 0.001))
        // README: 12791 s via voltage_now, 12793 s upower style. The energy and the rate must be
        // converted with the same voltage: mixing them gives 12333 s.
        let t = try #require(c.secondsToEmpty)
        #expect([12791, 12793].contains(t), "combined time to empty \(t)")
    }

    @Test("a battery without energy or charge makes the combined percentage unknown, not a plain mean")
    func combinedUnknownWeights() {
        let c = ThermalCombinedBattery([ThermalBattery(id: "BAT0", capacity: 75), ThermalBattery(id: "BAT1", capacity: 60, energyFull: 72)])
        #expect(c.percent == nil)
    }

    @Test("a single battery is its own combination")
    func combinedSingle() {
        let c = ThermalCombinedBattery([Self.thinkpad])
        #expect(c.percent == 98)
        #expect(c.secondsToEmpty == 36857)
    }

    @Test("combined status: discharging if any discharges, charging if any charges")
    func combinedStatus() {
        #expect(ThermalCombinedBattery([ThermalBattery(id: "A", status: .full), ThermalBattery(id: "B", status: .discharging)]).status == .discharging)
        #expect(ThermalCombinedBattery([ThermalBattery(id: "A", status: .notCharging), ThermalBattery(id: "B", status: .charging)]).status == .charging)
        #expect(ThermalCombinedBattery([ThermalBattery(id: "A", status: .full), ThermalBattery(id: "B", status: .full)]).status == .full)
        #expect(ThermalCombinedBattery([]).status == nil)
    }

    @Test("combined time to full sums what is missing over the summed rate")
    func combinedTimeToFull() {
        let a = ThermalBattery(id: "A", status: .charging, energyNow: 12, energyFull: 24, powerNow: 12)
        let b = ThermalBattery(id: "B", status: .charging, energyNow: 60, energyFull: 72, powerNow: 12)
        #expect(ThermalCombinedBattery([a, b]).secondsToFull == 3600)
    }

    @Test("charge gauges need no voltage: time to full = (full − now) ÷ current, time to empty = now ÷ current")
    func chargeWithoutVoltage() {
        let charging = ThermalBattery(id: "B", status: .charging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 1.5)
        #expect(charging.watts == nil)
        #expect(charging.secondsToFull == 7200)
        #expect(charging.timeUnknownReason == nil)
        let discharging = ThermalBattery(id: "B", status: .discharging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 0.5)
        #expect(discharging.secondsToEmpty == 7200)
        // A trickle of current is no rate to divide by.
        let trickle = ThermalBattery(id: "B", status: .discharging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 0.001)
        #expect(trickle.secondsToEmpty == nil && trickle.timeUnknownReason == "rate too low to estimate")
    }

    @Test("fan state: 0 RPM is stopped only with a reason to stop, and duty comes from PWM or RPM ÷ max")
    func fanStates() {
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: 0, pwm: 0).state == .stopped)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "amdgpu", rpm: 0, enabled: false).state == .stopped)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "thinkpad", rpm: 0, spinsDown: true).state == .stopped)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: 0, pwm: 90).state == .noReading)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: nil).state == .noReading)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "x", rpm: 900, asleep: "D3cold").state == .asleep)
        #expect(ThermalFan(id: "f", location: "hwmon1/fan1", chip: "x", rpm: 1500, maxRPM: 3000).dutyFraction == 0.5)
        #expect(ThermalFanControl(pwmEnable: 0) == .fullSpeed && ThermalFanControl(pwmEnable: 1) == .manual
                && ThermalFanControl(pwmEnable: 5) == .auto && ThermalFanControl(pwmEnable: -1) == nil)
    }

    @Test("kernel status spellings")
    func statusParsing() {
        #expect(ThermalBatteryStatus(kernel: "Discharging") == .discharging)
        #expect(ThermalBatteryStatus(kernel: "Not charging") == .notCharging)
        #expect(ThermalBatteryStatus(kernel: "Full") == .full)
        #expect(ThermalBatteryStatus(kernel: "Charging") == .charging)
        #expect(ThermalBatteryStatus(kernel: "Bogus") == .unknown)
    }
}
