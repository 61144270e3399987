import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// `Tests/Fixtures/expected.json`: a copy of `../shared/real-sysfs/expected.json`, what a correct
/// reader reports for each real capture.
struct ExpectedCapture: Decodable {
    struct ThermalBattery: Decodable {
        let name: String
        let percent: Double
        let status: String
        let watts: Double
        let seconds_to_empty: Double?
        let seconds_to_full: Double?
        let health_percent: Double
        let percent_source: String
        let computed_percent: Double
    }

    struct Channel: Decodable {
        let device: String
        let chip: String
        let channel: String
        let label: String?
        let celsius: Double?
        /// Only the limits the file names: key → value (nil = "none").
        let limits: [String: Double?]

        enum Key: String, CodingKey, CaseIterable {
            case device, chip, channel, label, celsius, max, crit, min, emergency, crit_hyst
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            device = try c.decode(String.self, forKey: .device)
            chip = try c.decode(String.self, forKey: .chip)
            channel = try c.decode(String.self, forKey: .channel)
            label = try c.decodeIfPresent(String.self, forKey: .label)
            celsius = try c.decodeIfPresent(Double.self, forKey: .celsius)
            var l: [String: Double?] = [:]
            for k in [Key.max, .crit, .min, .emergency, .crit_hyst] where c.contains(k) {
                l[k.rawValue] = .some(try c.decodeIfPresent(Double.self, forKey: k))
            }
            limits = l
        }
    }

    struct Anything: Decodable { init(from decoder: any Decoder) throws {} }

    let batteries: [ThermalBattery]
    let ac_online: Bool?
    let zones: [Anything]
    let hwmon: [Channel]
    let platform_profile: String?
    let platform_profile_choices: [String]?

    static func load() throws -> [String: ExpectedCapture] {
        let url = Fixture.directory.appendingPathComponent("expected.json")
        return try JSONDecoder().decode([String: ExpectedCapture].self, from: Data(contentsOf: url))
    }
}

@Suite("Real captures agree with expected.json")
struct RealCaptureTests {
    static let captures = [
        "thinkpad-lgc-45n1-2018-procfs", "thinkpad-lgc-45n1-2019-node-exporter", "legion-go-s-couchside",
        "lenovo-lnv-5b11c73244-batterarch", "amd-ryzen-2x-nvme-telegraf", "amdgpu-rx5500xt-lact",
        "amdgpu-vangogh-steamdeck-lact", "radeon-hd7870-lact",
    ]

    @Test("expected.json covers exactly the real captures")
    func coverage() throws {
        #expect(Set(try ExpectedCapture.load().keys) == Set(Self.captures))
    }

    @Test("batteries: percent and its source, computed percent, watts, time to empty, health", arguments: captures)
    func batteries(_ name: String) throws {
        let expected = try #require(try ExpectedCapture.load()[name])
        let (_, snap) = Fixture.sample(name)
        #expect(snap.batteries.map(\.id) == expected.batteries.map(\.name))
        for e in expected.batteries {
            let b = try #require(snap.battery(e.name))
            #expect(b.percent == e.percent)
            #expect(b.percentSource?.rawValue == e.percent_source)
            #expect(near(b.computedPercent, e.computed_percent, 0.005), "computed \(b.computedPercent ?? -1)")
            #expect(b.status?.rawValue == e.status)
            #expect(near(b.watts, e.watts, 0.0005), "watts \(b.watts ?? -1)")
            #expect(b.secondsToEmpty == e.seconds_to_empty)
            #expect(b.secondsToFull == e.seconds_to_full)
            #expect(near(b.healthPercent, e.health_percent, 0.005), "health \(b.healthPercent ?? -1)")
        }
    }

    @Test("AC online, platform profile verbatim, no zones", arguments: captures)
    func powerAndProfile(_ name: String) throws {
        let expected = try #require(try ExpectedCapture.load()[name])
        let (_, snap) = Fixture.sample(name)
        #expect(snap.acOnline == expected.ac_online)
        #expect(snap.lowPower.platformProfile == expected.platform_profile)
        if let choices = expected.platform_profile_choices {
            #expect(snap.lowPower.platformProfileChoices == choices)
        }
        #expect(snap.zones.count == expected.zones.count)
        // Every capture is a machine at rest.
        let (thermal, lowPower) = Fixture.assess(snap)
        #expect(thermal.state == .nominal)
        #expect(!lowPower.enabled)
    }

    @Test("hwmon channels: values, labels, and null limits for sentinels", arguments: captures)
    func hwmon(_ name: String) throws {
        let expected = try #require(try ExpectedCapture.load()[name])
        let (_, snap) = Fixture.sample(name)
        #expect(Set(snap.hwmon.map(\.id)) == Set(expected.hwmon.map { "\($0.device)/\($0.channel)" }))
        for e in expected.hwmon {
            let c = try #require(snap.channel("\(e.device)/\(e.channel)"))
            #expect(c.chip == e.chip)
            #expect(c.label == e.label)
            #expect(near(c.celsius, e.celsius), "\(c.id) celsius \(String(describing: c.celsius))")
            for (key, value) in e.limits {
                let got: Double? = switch key {
                case "max": c.max
                case "crit": c.crit
                case "min": c.min
                case "emergency": c.emergency
                case "crit_hyst": c.critHyst
                default: nil
                }
                #expect(near(got, value), "\(c.id) \(key): got \(String(describing: got)), expected \(String(describing: value))")
            }
        }
    }

    @Test("amdgpu mem reading 0 is unknown (not implemented), not 0 °C")
    func amdgpuMem() throws {
        let (_, snap) = Fixture.sample("amdgpu-rx5500xt-lact")
        let mem = try #require(snap.channel("hwmon3/temp3"))
        #expect(mem.label == "mem")
        #expect(mem.celsius == nil)
        #expect(mem.issues.first(forFile: "temp3_input")?.reason == .implausible)
        let sensor = try #require(snap.temperatureSensors.first { $0.location == "hwmon3/temp3" })
        #expect(sensor.issue?.reason == .implausible)
    }

    @Test("radeon crit_hyst 90 °C is absolute: the critical level clears below 90")
    func radeonCritHyst() throws {
        let (_, snap) = Fixture.sample("radeon-hd7870-lact")
        let c = try #require(snap.channel("hwmon3/temp1"))
        #expect(c.critHyst == 90)
        #expect(c.label == nil)
        #expect(c.displayName == "radeon temp1")
        let th = SensorThresholds.derive(for: ThermalSensor(channel: c), config: ThermalConfig())
        // Critical sits 5 °C under the shutdown limit (hwmon crit 120 °C, docs/verdict.md); the chip's
        // own alarm clears at crit_hyst, an absolute 90 °C, and so does the level.
        #expect(th.critical.celsius == 115)
        #expect(th.critical.rule.hasPrefix("hwmon crit"))
        #expect(th.critical.clearsBelow == 90)
    }

    @Test("k10temp Tctl and Tccd1 (sparse channels) and two nvme chips kept apart")
    func ryzen() throws {
        let (_, snap) = Fixture.sample("amd-ryzen-2x-nvme-telegraf")
        #expect(snap.channel("hwmon2/temp1")?.label == "Tctl")
        #expect(snap.channel("hwmon2/temp1")?.celsius == 31.875)
        #expect(snap.channel("hwmon2/temp3")?.label == "Tccd1")
        #expect(snap.channel("hwmon2/temp3")?.celsius == 30.75)
        #expect(snap.channel("hwmon2/temp2") == nil)
        let composites = snap.hwmon.filter { $0.chip == "nvme" && $0.label == "Composite" }
        #expect(composites.map(\.device) == ["hwmon0", "hwmon1"])
        #expect(composites.map(\.celsius) == [32.85, 35.85])
        #expect(Set(snap.temperatureSensors.map(\.id)).count == snap.temperatureSensors.count)
    }

    @Test("the ThinkPad's stale uevent is never mixed with the attribute files")
    func uventNotMixed() throws {
        let (_, snap) = Fixture.sample("thinkpad-lgc-45n1-2018-procfs")
        let b = try #require(snap.battery("BAT0"))
        #expect(b.capacity == 98)
        #expect(b.energyNow == 49.45)
        #expect(b.energyFull == 50.06)
        #expect(b.powerNow == 4.83)
        #expect(b.voltageNow == 12.229)
        #expect(b.model == "LNV-45N1")
        #expect(b.manufacturer == "LGC")
    }

    @Test("legion-go-s: the USB-C port is an adapter, not a battery; platform profile custom is no low-power signal")
    func legion() throws {
        let (_, snap) = Fixture.sample("legion-go-s-couchside")
        #expect(snap.batteries.map(\.id) == ["BAT0"])
        #expect(Set(snap.adapters.map(\.id)) == ["ACAD", "ucsi-source-psy-USBC000:001"])
        #expect(snap.adapters.allSatisfy { $0.online == false })
        #expect(snap.lowPower.platformProfile == "custom")
        #expect(!Fixture.assess(snap).1.enabled)
    }
}
