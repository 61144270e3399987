import ThermtopCore

/// A thermal zone with the given trips (kind, °C, hysteresis), as a reader would build it.
func zone(_ id: String = "thermal_zone1", type: String = "x86_pkg_temp", celsius: Double?,
          trips: [(TripKind, Double, Double?)] = []) -> ThermalZone {
    ThermalZone(id: id, type: type, celsius: celsius, mode: "enabled", policy: "step_wise",
                trips: trips.enumerated().map { i, t in
                    TripPoint(index: i, kind: t.0, celsius: t.1, hysteresis: t.2)
                })
}

/// The sensor the classifier judges for a zone.
func zoneSensor(type: String = "zone", celsius: Double? = 50, trips: [(TripKind, Double, Double?)]) -> ThermalSensor {
    ThermalSensor(zone: zone("thermal_zone0", type: type, celsius: celsius, trips: trips))
}

/// An hwmon channel sensor with the given limits.
func hwmonSensor(chip: String = "coretemp", label: String = "Package id 0", celsius: Double? = 50,
                 max: Double? = nil, crit: Double? = nil, critHyst: Double? = nil,
                 emergency: Double? = nil) -> ThermalSensor {
    ThermalSensor(channel: HwmonChannel(device: "hwmon1", chip: chip, channel: "temp1", label: label,
                                            celsius: celsius, max: max, crit: crit, critHyst: critHyst,
                                            emergency: emergency))
}

/// x86_pkg_temp with a passive trip at 90 °C (hysteresis 2) and a junk passive trip at 0 that the
/// parser rejected, as on the intel-laptop fixture.
func packageZone(_ celsius: Double?, passiveHyst: Double? = 2) -> ThermalZone {
    let junk = SysfsValue.limit("0\n", file: "class/thermal/thermal_zone1/trip_point_1_temp")
    return ThermalZone(id: "thermal_zone1", type: "x86_pkg_temp", celsius: celsius, mode: "enabled",
                       trips: [
                           TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: passiveHyst),
                           TripPoint(index: 1, kind: .passive, celsius: junk.value, hysteresis: 0, ignored: junk.issue),
                       ])
}

func approx(_ a: Double?, _ b: Double, _ tolerance: Double = 0.0005) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// How soon an event-driven wake must show, in tests. The monitors under test sample every 60 s,
/// so a status published within this bound can only have been woken by the event; the latency
/// itself (about a millisecond here) is printed by each test and is a figure, not a pass mark:
/// a shared, loaded machine must not turn a 100 ms budget into a flaky test.
let eventDrivenBound = 1.0
