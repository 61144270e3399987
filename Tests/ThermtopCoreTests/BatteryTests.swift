import Testing
import ThermtopCore

@Suite("Battery math")
struct BatteryTests {
    /// thinkpad-lgc-45n1-2018-procfs BAT0 (values from EXPECTED.md).
    static let thinkpad = Battery(id: "BAT0", status: .discharging, capacity: 98, energyNow: 49.45, energyFull: 50.06,
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
        let e = Battery(id: "BAT0", energyNow: 36.309, energyFull: 51.87)
        #expect(approx(e.percent, 70.0))
        #expect(e.percentSource == .computed)
        let c = Battery(id: "BAT1", chargeNow: 3.498, chargeFull: 5.83)
        #expect(approx(c.percent, 60.0))
        #expect(c.percentSource == .computed)
        #expect(Battery(id: "BAT2").percent == nil)
        #expect(Battery(id: "BAT2").percentSource == nil)
        #expect(Battery(id: "BAT3", energyNow: 10, energyFull: 0).percent == nil)
    }

    @Test("a gauge reading more than full never shows more than 100 %")
    func computedPercentClamped() {
        #expect(Battery(id: "BAT0", energyNow: 60, energyFull: 50).computedPercent == 100)
    }

    @Test("health is full ÷ design, not clamped at 100 %",
          arguments: [(50.06, 47.52, 105.35), (45.07, 47.52, 94.84), (58.03, 57.0, 101.81), (51.87, 57.0, 91.0)])
    func health(_ full: Double, _ design: Double, _ expected: Double) {
        #expect(approx(Battery(id: "BAT0", energyFull: full, energyFullDesign: design).healthPercent, expected, 0.005))
    }

    @Test("health from charge when only charge is reported")
    func healthFromCharge() {
        #expect(approx(Battery(id: "BAT0", chargeFull: 1.932, chargeFullDesign: 2.1).healthPercent, 92.0, 0.005))
    }

    @Test("time to empty from energy ÷ power while discharging")
    func timeToEmptyEnergy() {
        #expect(Self.thinkpad.secondsToEmpty == 36857)
        #expect(Self.thinkpad.secondsToFull == nil)
        #expect(Self.thinkpad.timeUnknownReason == nil)
    }

    @Test("time to empty from charge ÷ current, and power from current × voltage")
    func timeToEmptyCharge() {
        let b = Battery(id: "BAT0", status: .discharging, chargeNow: 1.449, chargeFull: 1.932, currentNow: 0.412, voltageNow: 12.18)
        #expect(approx(b.watts, 5.018, 0.001))
        #expect(b.secondsToEmpty == 12661)
    }

    @Test("time to full while charging, only then")
    func timeToFull() {
        let b = Battery(id: "BAT0", status: .charging, energyNow: 26, energyFull: 52, powerNow: 26)
        #expect(b.secondsToFull == 3600)
        #expect(b.secondsToEmpty == nil)
    }

    struct RateCase: Sendable, CustomTestStringConvertible {
        let name: String
        let battery: Battery
        let reason: String
        var testDescription: String { name }
    }

    static let noTimeCases: [RateCase] = [
        RateCase(name: "power_now 0", battery: Battery(id: "B", status: .discharging, energyNow: 50, energyFull: 50, powerNow: 0),
                 reason: "rate too low"),
        RateCase(name: "a trickle of 10 mW (would be 208 days)", battery: Battery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.01),
                 reason: "rate too low"),
        RateCase(name: "more than 240 h at 60 mW", battery: Battery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.06),
                 reason: "out of range"),
        RateCase(name: "no power or current reading", battery: Battery(id: "B", status: .discharging, energyNow: 50),
                 reason: "no power or current"),
        RateCase(name: "charging more than 20 h", battery: Battery(id: "B", status: .charging, energyNow: 1, energyFull: 52, powerNow: 0.5),
                 reason: "out of range"),
        RateCase(name: "charging at 0 W", battery: Battery(id: "B", status: .charging, energyNow: 1, energyFull: 52, powerNow: 0),
                 reason: "rate too low"),
        RateCase(name: "not charging", battery: Battery(id: "B", status: .notCharging, energyNow: 40, energyFull: 52, powerNow: 5),
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
        let b = Battery(id: "B", status: .discharging, energyNow: 50, powerNow: 0.25)
        #expect(b.secondsToEmpty == 720_000)
    }

    // MARK: combined

    @Test("batteries are combined weighted by energy, not as a plain mean")
    func combinedWeighted() {
        let small = Battery(id: "BAT0", status: .discharging, capacity: 75, energyNow: 18, energyFull: 24, powerNow: 5)
        let big = Battery(id: "BAT1", status: .discharging, capacity: 60, energyNow: 43.2, energyFull: 72, powerNow: 10)
        let c = CombinedBattery([small, big])
        #expect(approx(c.percent, 63.75, 0.001))   // (75×24 + 60×72) / 96, not (75+60)/2 = 67.5
        #expect(c.watts == 15)
        #expect(c.status == .discharging)
        #expect(c.secondsToEmpty == 14688)         // 61.2 Wh at 15 W
    }

    @Test("charge-only batteries: combined by energy at one voltage per battery (two-battery-laptop)")
    func combinedChargeOnly() throws {
        let bat0 = Battery(id: "BAT0", status: .discharging, capacity: 75, chargeNow: 1.449, chargeFull: 1.932,
                           chargeFullDesign: 2.1, currentNow: 0.412, voltageNow: 12.18, voltageMinDesign: 11.4)
        let bat1 = Battery(id: "BAT1", status: .discharging, capacity: 60, chargeNow: 3.498, chargeFull: 5.83,
                           chargeFullDesign: 6.4, currentNow: 0.98, voltageNow: 11.52, voltageMinDesign: 11.25)
        let c = CombinedBattery([bat0, bat1])
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
        let c = CombinedBattery([Battery(id: "BAT0", capacity: 75), Battery(id: "BAT1", capacity: 60, energyFull: 72)])
        #expect(c.percent == nil)
    }

    @Test("a single battery is its own combination")
    func combinedSingle() {
        let c = CombinedBattery([Self.thinkpad])
        #expect(c.percent == 98)
        #expect(c.secondsToEmpty == 36857)
    }

    @Test("combined status: discharging if any discharges, charging if any charges")
    func combinedStatus() {
        #expect(CombinedBattery([Battery(id: "A", status: .full), Battery(id: "B", status: .discharging)]).status == .discharging)
        #expect(CombinedBattery([Battery(id: "A", status: .notCharging), Battery(id: "B", status: .charging)]).status == .charging)
        #expect(CombinedBattery([Battery(id: "A", status: .full), Battery(id: "B", status: .full)]).status == .full)
        #expect(CombinedBattery([]).status == nil)
    }

    @Test("combined time to full sums what is missing over the summed rate")
    func combinedTimeToFull() {
        let a = Battery(id: "A", status: .charging, energyNow: 12, energyFull: 24, powerNow: 12)
        let b = Battery(id: "B", status: .charging, energyNow: 60, energyFull: 72, powerNow: 12)
        #expect(CombinedBattery([a, b]).secondsToFull == 3600)
    }

    @Test("charge gauges need no voltage: time to full = (full − now) ÷ current, time to empty = now ÷ current")
    func chargeWithoutVoltage() {
        let charging = Battery(id: "B", status: .charging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 1.5)
        #expect(charging.watts == nil)
        #expect(charging.secondsToFull == 7200)
        #expect(charging.timeUnknownReason == nil)
        let discharging = Battery(id: "B", status: .discharging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 0.5)
        #expect(discharging.secondsToEmpty == 7200)
        // A trickle of current is no rate to divide by.
        let trickle = Battery(id: "B", status: .discharging, chargeNow: 1.0, chargeFull: 4.0, currentNow: 0.001)
        #expect(trickle.secondsToEmpty == nil && trickle.timeUnknownReason == "rate too low to estimate")
    }

    @Test("fan state: 0 RPM is stopped only with a reason to stop, and duty comes from PWM or RPM ÷ max")
    func fanStates() {
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: 0, pwm: 0).state == .stopped)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "amdgpu", rpm: 0, enabled: false).state == .stopped)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "thinkpad", rpm: 0, spinsDown: true).state == .stopped)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: 0, pwm: 90).state == .noReading)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "nct6798", rpm: nil).state == .noReading)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "x", rpm: 900, asleep: "D3cold").state == .asleep)
        #expect(Fan(id: "f", location: "hwmon1/fan1", chip: "x", rpm: 1500, maxRPM: 3000).dutyFraction == 0.5)
        #expect(FanControl(pwmEnable: 0) == .fullSpeed && FanControl(pwmEnable: 1) == .manual
                && FanControl(pwmEnable: 5) == .auto && FanControl(pwmEnable: -1) == nil)
    }

    @Test("kernel status spellings")
    func statusParsing() {
        #expect(BatteryStatus(kernel: "Discharging") == .discharging)
        #expect(BatteryStatus(kernel: "Not charging") == .notCharging)
        #expect(BatteryStatus(kernel: "Full") == .full)
        #expect(BatteryStatus(kernel: "Charging") == .charging)
        #expect(BatteryStatus(kernel: "Bogus") == .unknown)
    }
}
