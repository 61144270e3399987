import Foundation
import Testing
import ThermtopCore
@testable import ThermtopLinux

extension ThermalSnapshot {
    func fan(_ location: String) -> ThermalFan? { fans.first { $0.location == location } }
    func sensor(_ id: String) -> ThermalSensor? { temperatureSensors.first { $0.id == id } }
}

@Suite("untyped-supplies: supplies without a type file")
struct UntypedSuppliesTests {
    @Test("BAT0 typed from uevent, BAT1 from its files, ADP1 from online; each inference is an issue")
    func inferred() throws {
        let (_, snap) = Fixture.sample("untyped-supplies")
        #expect(snap.batteries.map(\.id) == ["BAT0", "BAT1"])
        #expect(snap.adapters.map(\.id) == ["ADP1"] && snap.adapters.first?.type == "Mains")
        #expect(snap.acOnline == false)
        let inferred = snap.allIssues.filter { $0.reason == .inferredType }
        #expect(Set(inferred.map(\.file)) == ["class/power_supply/BAT0/type", "class/power_supply/BAT1/type",
                                               "class/power_supply/ADP1/type"])
        #expect(inferred.first { $0.file.contains("BAT0") }?.detail?.contains("uevent") == true)
    }

    @Test("BAT0 reads fully: 62 %, 7.75 W, 14400 s to empty, health 87.72 %")
    func bat0() throws {
        let b = try #require(Fixture.sample("untyped-supplies").1.battery("BAT0"))
        #expect(b.percent == 62 && b.status == .discharging)
        #expect(near(b.watts, 7.75) && b.secondsToEmpty == 14400)
        #expect(near(b.healthPercent, 87.719, 0.001))
    }

    @Test("BAT1: charge and current without any voltage still give a time to empty (7200 s)")
    func chargeOnly() throws {
        let b = try #require(Fixture.sample("untyped-supplies").1.battery("BAT1"))
        #expect(b.voltageNow == nil && b.watts == nil)
        #expect(b.secondsToEmpty == 7200)
        #expect(b.timeUnknownReason == nil)
        #expect(near(b.healthPercent, 90.909, 0.001))
    }

    @Test("a ThinkPad fan at 0 RPM with PWM 0 under automatic control is stopped, not 'no reading'")
    func thinkpadFan() throws {
        let f = try #require(Fixture.sample("untyped-supplies").1.fan("hwmon3/fan1"))
        #expect(f.rpm == 0 && f.pwm == 0 && f.control == .auto)
        #expect(f.state == .stopped)
    }

    @Test("a supply with an unknown type is shown raw as an issue, not dropped")
    func unknownType() throws {
        let copy = try FixtureCopy("untyped-supplies")
        defer { copy.remove() }
        try copy.write("class/power_supply/ADP1/type", "Quantum\n")
        let snap = SysfsSource(path: copy.path).sample(at: 0)
        #expect(snap.adapters.isEmpty)
        #expect(snap.allIssues.contains { $0.file == "class/power_supply/ADP1" && $0.reason == .unrecognised
                                          && $0.detail?.contains("Quantum") == true })
    }
}

@Suite("sbc-axp-peripherals: vendor units and peripherals")
struct SBCPeripheralTests {
    @Test("design energy 3700× below full and a design voltage under 1 V are implausible: not shown, no health")
    func wrongUnits() throws {
        let (_, snap) = Fixture.sample("sbc-axp-peripherals")
        let b = try #require(snap.battery("axp20x-battery"))
        #expect(b.energyFullDesign == nil && b.voltageMinDesign == nil)
        #expect(b.healthPercent == nil)
        #expect(b.issues.contains { $0.file.hasSuffix("energy_full_design") && $0.reason == .implausible })
        #expect(b.issues.contains { $0.file.hasSuffix("voltage_min_design") && $0.reason == .implausible })
        // The rest is still right: 0.5 A × 3.9 V, 14.8 Wh ÷ 1.95 W.
        #expect(near(b.watts, 1.95) && b.secondsToEmpty == 27323 && b.percent == 80)
    }

    @Test("peripherals keep status and level; their issues are in allIssues; never the system battery")
    func peripherals() throws {
        let (_, snap) = Fixture.sample("sbc-axp-peripherals")
        #expect(snap.batteries.map(\.id) == ["axp20x-battery"])
        let kb = try #require(snap.peripherals.first { $0.id == "hidpp_battery_1" })
        #expect(kb.status == .discharging && kb.capacityLevel == "Normal" && kb.percent == nil && kb.model == "MX Keys")
        let pad = try #require(snap.peripherals.first { $0.id.hasPrefix("ps-controller-battery") })
        #expect(pad.percent == 60)
        var broken = snap
        broken.peripherals[0].issues = [ReadingIssue(file: "class/power_supply/hidpp_battery_1/status", reason: .ioError)]
        #expect(broken.allIssues.contains { $0.file == "class/power_supply/hidpp_battery_1/status" })
    }
}

@Suite("fans-desktop: fans")
struct FansDesktopTests {
    @Test("RPM, PWM %, control mode and the three 0-RPM meanings")
    func fans() throws {
        let (_, snap) = Fixture.sample("fans-desktop")
        #expect(snap.fans.map(\.location) == ["hwmon2/fan1", "hwmon2/fan2", "hwmon2/fan3", "hwmon2/fan4", "hwmon2/fan5"])
        let f1 = try #require(snap.fan("hwmon2/fan1"))
        #expect(f1.rpm == 1180 && f1.minRPM == 300 && f1.pwm == 102 && f1.control == .auto && f1.state == .spinning)
        #expect(near(f1.pwmPercent, 40.0, 0.01))
        #expect(snap.fan("hwmon2/fan2")?.state == .stopped)
        #expect(snap.fan("hwmon2/fan2")?.control == .manual)
        #expect(snap.fan("hwmon2/fan3")?.state == .noReading)
        #expect(snap.fan("hwmon2/fan5")?.rpm == nil && snap.fan("hwmon2/fan5")?.state == .noReading)
        #expect(f1.id == "platform-nct6775.656/nct6798/fan1")
    }

    @Test("a fan under automatic control at its normal duty (50 %) is cooling at work, not a heat level; manual fans never count")
    func fanState() throws {
        let (_, snap) = Fixture.sample("fans-desktop")
        let (thermal, _) = Fixture.assess(snap)
        // fan5 is on auto at PWM 128/255: judged by its duty, which is no heat level below
        // full speed (docs/verdict.md).
        let fan5 = try #require(thermal.fans.first { $0.fan.id == "platform-nct6775.656/nct6798/fan5" })
        #expect(fan5.fan.control == .auto && !fan5.ignored)
        #expect(fan5.fan.dutyFraction.map { $0 >= 0.5 && $0 < 1 } == true)
        #expect(fan5.level == .nominal)
        #expect(thermal.state == .nominal)
        #expect(thermal.decidedBy == nil)
        #expect(thermal.fans.first { $0.fan.location == "hwmon2/fan2" }?.ignored == true)
    }

    @Test("a fan driven to full speed by its curve is fair, never more: the curve has run out of room")
    func fullSpeed() throws {
        let copy = try FixtureCopy("fans-desktop")
        defer { copy.remove() }
        try copy.write("devices/platform/nct6775.656/hwmon/hwmon2/pwm1", "255\n")
        try copy.write("devices/platform/nct6775.656/hwmon/hwmon2/fan1_input", "2450\n")
        let (thermal, _) = Fixture.assess(SysfsSource(path: copy.path).sample(at: 0))
        #expect(thermal.state == .fair)
        #expect(thermal.decidedBy == "platform-nct6775.656/nct6798/fan1")
        #expect(thermal.reason.contains("fan1") && thermal.reason.contains("100 %"))
        // Set by hand to full speed (manual): not a response to heat.
        try copy.write("devices/platform/nct6775.656/hwmon/hwmon2/pwm1_enable", "1\n")
        try copy.write("devices/platform/nct6775.656/hwmon/hwmon2/pwm5", "60\n")
        #expect(Fixture.assess(SysfsSource(path: copy.path).sample(at: 0)).0.state == .nominal)
    }

    @Test("k10temp with Tdie: Tdie is the headline CPU, Tctl (offset) and Tccd1 fold under it")
    func tdie() throws {
        let s = Fixture.sample("fans-desktop").1.temperatureSensors
        #expect(s.filter(\.isHeadline).map(\.displayName) == ["CPU (k10temp Tdie)"])
        #expect(s.filter { $0.memberOf == "pci-0000:00:18.3/k10temp/Tdie" }.compactMap(\.label).sorted() == ["Tccd1", "Tctl"])
    }

    @Test("the real RX 5500 XT's fan at 0 RPM in zero-RPM mode (fan1_enable 0) is stopped")
    func zeroRPM() throws {
        let f = try #require(Fixture.sample("amdgpu-rx5500xt-lact").1.fan("hwmon3/fan1"))
        #expect(f.rpm == 0 && f.enabled == false && f.state == .stopped)
    }
}

@Suite("gpu-disk-workstation: GPUs, disks, sleeping devices")
struct GPUDiskTests {
    @Test("GPUs labelled by vendor and slot, thresholds from their own crit, PPT in W")
    func gpus() throws {
        let (_, snap) = Fixture.sample("gpu-disk-workstation")
        let edge = try #require(snap.sensor("pci-0000:03:00.0/amdgpu/edge"))
        #expect(edge.group == .gpu && edge.displayName == "GPU AMD 03:00.0 (amdgpu edge)")
        let th = SensorThresholds.derive(for: edge, config: ThermalConfig())
        // One margin rule under the shutdown limit (hwmon crit 100 °C, not emergency 105 °C):
        // serious 15 °C and critical 5 °C under it (docs/verdict.md).
        #expect(th.serious.celsius == 85 && th.critical.celsius == 95 && th.serious.rule.hasPrefix("hwmon crit")
                && th.critical.rule.hasPrefix("hwmon crit"))
        #expect(snap.sensor("pci-0000:06:00.0/nouveau/temp1")?.displayName == "GPU NVIDIA 06:00.0 (nouveau temp1)")
        #expect(snap.sensor("pci-0000:00:02.0/xe/pkg")?.celsius == 52)
        let ppt = try #require(snap.powerMeters.first { $0.id == "pci-0000:03:00.0/amdgpu/PPT" })
        #expect(ppt.watts == 145 && ppt.capWatts == 220 && ppt.capMaxWatts == 250)
        #expect(snap.fans.first { $0.chip == "amdgpu" }?.state == .spinning)
    }

    @Test("disks labelled by model; a D3cold NVMe and a spun-down SATA disk are not read")
    func disks() throws {
        let (source, snap) = Fixture.sample("gpu-disk-workstation")
        #expect(snap.sensor("pci-0000:04:00.0/nvme/Composite")?.displayName == "NVMe WD_BLACK SN850X 2000GB (Composite)")
        let sleepingNVMe = try #require(snap.sensor("pci-0000:05:00.0/nvme/Composite"))
        #expect(sleepingNVMe.celsius == nil && sleepingNVMe.asleep == "D3cold" && sleepingNVMe.issue?.reason == .deviceAsleep)
        let spunDown = try #require(snap.sensor("pci-0000:00:17.0/0:0:0:0/drivetemp/temp1"))
        #expect(spunDown.celsius == nil && spunDown.asleep == "suspended")
        #expect(spunDown.displayName == "Disk WDC WD40EFRX-68N (temp1)")
        #expect(snap.sensor("pci-0000:00:17.0/1:0:0:0/drivetemp/temp1")?.celsius == 36)
        // 99 °C is what the sleeping devices' files hold: seeing it means they were read.
        #expect(!snap.hwmon.contains { $0.celsius == 99.0 || $0.celsius == 99.85 })
        _ = source
    }

    @Test("a device that falls asleep keeps its last value and its age; it is re-checked each sample without being read")
    func asleepAge() throws {
        let copy = try FixtureCopy("gpu-disk-workstation")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let id = "pci-0000:00:17.0/1:0:0:0/drivetemp/temp1"
        #expect(source.sample(at: 0).sensor(id)?.celsius == 36)
        let disk = "devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0"
        try copy.write("\(disk)/power/runtime_status", "suspended\n")
        try copy.write("\(disk)/hwmon/hwmon7/temp1_input", "99000\n")
        let asleep = try #require(source.sample(at: 30).sensor(id))
        #expect(asleep.celsius == nil && asleep.asleep == "suspended")
        #expect(asleep.lastCelsius == 36 && asleep.lastReadAt == 0)
        // Awake again: read again.
        try copy.write("\(disk)/power/runtime_status", "active\n")
        #expect(source.sample(at: 60).sensor(id)?.celsius == 99)
    }
}

@Suite("status text and JSON carry the new data")
struct TruthReportTests {
    @MainActor
    static func status(_ name: String) -> MonitorStatus {
        ThermalMonitor(source: SysfsSource(path: Fixture.path(name)), clock: ManualMonitorClock()).sample()
    }

    @Test("text: headline CPU line, readable names, folded members, asleep devices, fans and power")
    @MainActor
    func text() {
        let gpu = ThermalStatusReport.text(Self.status("gpu-disk-workstation"))
        #expect(gpu.contains("CPU        k10temp Tctl: 55.1 °C"))
        #expect(gpu.contains("NVMe Samsung SSD 980 1TB (Composite)") && gpu.contains("asleep (D3cold"))
        #expect(gpu.contains("Power      amdgpu PPT (hwmon): 145 W of 220 W limit"))
        #expect(gpu.contains("Fan (amdgpu fan1)") && gpu.contains("spinning"))
        let fans = ThermalStatusReport.text(Self.status("fans-desktop"))
        #expect(fans.contains("stopped") && fans.contains("no-reading"))
        let intel = ThermalStatusReport.text(Self.status("intel-laptop"))
        #expect(intel.contains("    CPU Core 0 (coretemp)"))
        #expect(intel.contains("CPU (x86_pkg_temp) (mirror)") && intel.contains("(dummy)"))
    }

    @Test("status --json's bytes, handed over where they were written, are the document and one new line")
    @MainActor
    func jsonLine() {
        for name in ["gpu-disk-workstation", "intel-laptop", "broken"] {
            let s = Self.status(name)
            for pretty in [true, false] {
                let line = ThermalStatusReport.withJSONLine(s, version: "test", pretty: pretty) { Array($0) }
                #expect(line == ThermalStatusReport.jsonUTF8(s, version: "test", pretty: pretty) + [0x0a], "\(name)")
            }
        }
        // Past the writer's first capacity (it grows and copies): still every byte, once.
        var w = JSONWriter(pretty: true, capacity: 1)
        w.array { w in for i in 0..<2000 { w.string("value \(i)") } }
        w.endLine()
        let written = w.bytes
        #expect(written == w.bytes)
        #expect(written.count > 30_000 && written.last == 0x0a && written.dropLast().last == UInt8(ascii: "]"))
    }

    @Test("JSON: sensors carry identity and presentation, fans[] and power[] are listed, headline_cpu set")
    @MainActor
    func json() throws {
        let j = ThermalStatusReport.json(Self.status("gpu-disk-workstation"), version: "test").serialized()
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.utf8)) as? [String: Any])
        #expect(o["schema"] as? String == "thermtop.status/1")
        #expect(o["headline_cpu"] as? String == "pci-0000:00:18.3/k10temp/Tctl")
        let sensors = try #require(o["sensors"] as? [[String: Any]])
        let nvme = try #require(sensors.first { $0["id"] as? String == "pci-0000:05:00.0/nvme/Composite" })
        #expect(nvme["display_name"] as? String == "NVMe Samsung SSD 980 1TB (Composite)")
        #expect(nvme["group"] as? String == "disk" && nvme["asleep"] as? String == "D3cold")
        #expect(nvme["location"] as? String == "hwmon5/temp1")
        let fans = try #require(o["fans"] as? [[String: Any]])
        #expect(fans.first?["state"] as? String == "spinning" && fans.first?["rpm"] as? Double == 1450)
        let power = try #require(o["power"] as? [[String: Any]])
        #expect(power.first?["watts"] as? Double == 145)
    }
}

@Suite("real captures: power, and supplies stripped of their type file")
struct RealCaptureTruthTests {
    @Test("Steam Deck slowPPT/fastPPT and RX 5500 XT PPT in W, as EXPECTED.md gives them")
    func ppt() throws {
        let deck = Fixture.sample("amdgpu-vangogh-steamdeck-lact").1.powerMeters
        let slow = try #require(deck.first { $0.label == "slowPPT" })
        #expect(slow.averageWatts == 3.218 && slow.inputWatts == 4.057 && slow.capWatts == 15 && slow.capMaxWatts == 29)
        #expect(deck.first { $0.label == "fastPPT" }?.watts == 3.04)
        let rx = try #require(Fixture.sample("amdgpu-rx5500xt-lact").1.powerMeters.first)
        #expect(rx.label == "PPT" && rx.watts == 16.0 && rx.capWatts == 130)
    }

    @Test("without any `type` file, every capture still reads its batteries and AC exactly per expected.json",
          arguments: ["thinkpad-lgc-45n1-2018-procfs", "thinkpad-lgc-45n1-2019-node-exporter", "legion-go-s-couchside",
                      "lenovo-lnv-5b11c73244-batterarch"])
    func typeless(_ name: String) throws {
        let expected = try #require(try ExpectedCapture.load()[name])
        let copy = try FixtureCopy(name)
        defer { copy.remove() }
        let supplies = copy.url("class/power_supply")
        var removed = 0
        for entry in try FileManager.default.contentsOfDirectory(atPath: supplies.path) {
            let type = supplies.appendingPathComponent(entry).appendingPathComponent("type")
            if FileManager.default.fileExists(atPath: type.path) { try FileManager.default.removeItem(at: type); removed += 1 }
        }
        #expect(removed > 0)
        let snap = SysfsSource(path: copy.path).sample(at: 0)
        #expect(snap.batteries.map(\.id) == expected.batteries.map(\.name))
        for e in expected.batteries {
            let b = try #require(snap.battery(e.name))
            #expect(b.percent == e.percent && b.secondsToEmpty == e.seconds_to_empty)
            #expect(near(b.healthPercent, e.health_percent, 0.005))
        }
        #expect(snap.acOnline == expected.ac_online)
        #expect(snap.allIssues.filter { $0.reason == .inferredType }.count == removed)
    }
}

@Suite("hwmon inputs thermtop does not judge are shown, not dropped")
struct HwmonExtraTests {
    @Test("voltages in V with their labels (Steam Deck vddgfx 15 mV, vddnb 669 mV; nct6798 Vcore)")
    func voltages() throws {
        let deck = Fixture.sample("amdgpu-vangogh-steamdeck-lact").1.hwmonExtras
        #expect(deck.map(\.label) == ["vddgfx", "vddnb"])
        #expect(deck.map(\.value) == [0.015, 0.669] && deck.allSatisfy { $0.unit == "V" && $0.kind == "in" })
        let vcore = try #require(Fixture.sample("fans-desktop").1.hwmonExtras.first)
        #expect(vcore.label == "Vcore" && vcore.value == 1.032 && vcore.id == "platform-nct6775.656/nct6798/Vcore")
    }

    @Test("an input of a family without a known unit is kept raw; garbage is flagged")
    func raw() throws {
        let copy = try FixtureCopy("fans-desktop")
        defer { copy.remove() }
        let chip = "devices/platform/nct6775.656/hwmon/hwmon2"
        try copy.write("\(chip)/intrusion0_input", "1\n")
        try copy.write("\(chip)/in1_input", "12v\n")
        let extras = SysfsSource(path: copy.path).sample(at: 0).hwmonExtras
        let intrusion = try #require(extras.first { $0.kind == "intrusion" })
        #expect(intrusion.raw == "1" && intrusion.value == nil && intrusion.unit == nil)
        let bad = try #require(extras.first { $0.location == "hwmon2/in1" })
        #expect(bad.value == nil && bad.raw == "12v" && bad.issues.first?.reason == .notANumber)
    }
}

@Suite("thermal zones of sleeping devices")
struct ZoneSleepTests {
    @Test("a zone whose device is in D3hot is not read and is asleep; awake again, it is read")
    func zoneAsleep() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        #expect(source.sample(at: 0).zone("thermal_zone5")?.celsius == 52.05)
        try copy.write("devices/pci0000:00/0000:00:04.0/power_state", "D3hot\n")
        try copy.write("devices/virtual/thermal/thermal_zone5/temp", "99000\n")
        let snap = source.sample(at: 1)
        let z = try #require(snap.zone("thermal_zone5"))
        #expect(z.celsius == nil && z.asleep == "D3hot")
        #expect(snap.temperatureSensors.first { $0.location == "thermal_zone5" }?.issue?.reason == .deviceAsleep)
        // Virtual zones (no device link) are never gated.
        #expect(snap.zone("thermal_zone1")?.celsius == 53.0)
        try copy.write("devices/pci0000:00/0000:00:04.0/power_state", "D0\n")
        #expect(source.sample(at: 2).zone("thermal_zone5")?.celsius == 99.0)
    }

    @Test("only a PCI device's power_state gates a sensor: ACPI and platform folders above one are not asked")
    func powerStateIsPCIOnly() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        // thermal_zone0's device is an ACPI object, thermal_zone2's a platform device, each
        // under an ACPI or platform parent; thermal_zone5's is the PCI device 0000:00:04.0.
        for folder in ["devices/LNXSYSTM:00/LNXSYBUS:01/LNXTHERM:00", "devices/LNXSYSTM:00/LNXSYBUS:01",
                       "devices/platform/INT3400:00", "devices/pci0000:00/0000:00:04.0"] {
            try copy.write("\(folder)/power_state", "D3cold\n")
        }
        let source = SysfsSource(path: copy.path)
        let log = TapLog()
        source.root.setTap { log.append($0) }
        let snap = source.sample(at: 0)
        #expect(snap.zone("thermal_zone0")?.celsius != nil && snap.zone("thermal_zone0")?.asleep == nil)
        #expect(snap.zone("thermal_zone2")?.celsius != nil && snap.zone("thermal_zone2")?.asleep == nil)
        #expect(snap.zone("thermal_zone5")?.celsius == nil && snap.zone("thermal_zone5")?.asleep == "D3cold")
        // Looked for under PCI-named folders only (one lookup each, not one per parent).
        let asked = log.take().compactMap { a -> String? in
            if case .exists(let path, _) = a, path.hasSuffix("/power_state") { path } else { nil }
        }
        #expect(asked.contains { $0.hasPrefix("class/thermal/thermal_zone5/") })
        #expect(!asked.contains { p in
            ["thermal_zone0/", "thermal_zone2/", "LNXSYBUS", "LNXTHERM", "INT3400", "platform/"].contains { p.contains($0) }
        }, "\(asked)")
    }

    @Test("no model is looked for on PCI, platform or ACPI device folders, no runtime_status on class group folders")
    func lookupsThatNeverAnswer() throws {
        let source = SysfsSource(path: Fixture.path("intel-laptop"))
        let log = TapLog()
        source.root.setTap { log.append($0) }
        let snap = source.sample(at: 0)
        let read = log.readPaths(log.take())
        // The NVMe controller's model is read, and shown.
        #expect(read.contains("devices/pci0000:00/0000:00:1d.0/0000:02:00.0/nvme/nvme0/model"))
        #expect(snap.hwmon.contains { $0.deviceInfo?.model != nil })
        let models = read.filter { $0.hasSuffix("/model") }
        #expect(models.allSatisfy { $0.contains("/nvme0/") || $0.contains("/power_supply/") }, "\(models)")
        let statuses = read.filter { $0.hasSuffix("/power/runtime_status") }
        #expect(!statuses.isEmpty)
        for group in ["devices/virtual/power", "devices/virtual/thermal/power", "/nvme/power", "/power_supply/power"] {
            #expect(!statuses.contains { $0.hasSuffix(group + "/runtime_status") }, "\(group): \(statuses)")
        }
    }
    @Test("runtime_status is not asked of ACPI namespace objects or the platform bus root, still of the devices under them")
    func runtimeStatusSkipsACPIObjects() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        // thermal_zone2's device is the platform device INT3400:00 (asked, and it gates);
        // thermal_zone0's is the ACPI object LNXTHERM:00 under LNXSYBUS:01 and LNXSYSTM:00,
        // the battery's hwmon sits under the ACPI battery object PNP0C0A:00 and its parents.
        for folder in ["devices/platform/INT3400:00", "devices/LNXSYSTM:00", "devices/LNXSYSTM:00/LNXSYBUS:01",
                       "devices/LNXSYSTM:00/LNXSYBUS:01/LNXTHERM:00", "devices/platform"] {
            try FileManager.default.createDirectory(at: copy.url("\(folder)/power"), withIntermediateDirectories: true)
            try copy.write("\(folder)/power/runtime_status", "suspended\n")
        }
        let source = SysfsSource(path: copy.path)
        let log = TapLog()
        source.root.setTap { log.append($0) }
        let snap = source.sample(at: 0)
        #expect(snap.zone("thermal_zone2")?.asleep == "suspended")
        #expect(snap.zone("thermal_zone0")?.celsius != nil && snap.zone("thermal_zone0")?.asleep == nil)
        let statuses = log.readPaths(log.take()).filter { $0.hasSuffix("/power/runtime_status") }
        #expect(statuses.contains("class/thermal/thermal_zone2/device/power/runtime_status"), "\(statuses)")
        #expect(!statuses.contains { $0.contains("LNXSYSTM") || $0.contains("LNXTHERM") || $0.contains("PNP0") }, "\(statuses)")
        #expect(!statuses.contains { $0 == "devices/platform/power/runtime_status" }, "\(statuses)")
        #expect(!statuses.contains { $0.hasPrefix("class/thermal/thermal_zone0/") }, "\(statuses)")
    }

    @Test("an ACPI object is told by its place and name: a colon-named folder under devices/LNXSYSTM")
    func acpiObjectNames() {
        #expect(DeviceLocator.isACPIObject("devices/LNXSYSTM:00"))
        #expect(DeviceLocator.isACPIObject("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:1f"))
        #expect(!DeviceLocator.isACPIObject("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0"))
        #expect(!DeviceLocator.isACPIObject("devices/platform/INT3400:00"))
        #expect(!DeviceLocator.isACPIObject("devices/pci0000:00/0000:00:04.0"))
        #expect(DeviceLocator.neverRuntimeManaged("devices/platform"))
        #expect(!DeviceLocator.neverRuntimeManaged("devices/platform/coretemp.0"))
    }
}

@Suite("battery status words thermtop does not know")
struct UnknownStatusTests {
    @Test("an unknown status is unknown with the kernel's word kept as an unrecognised issue")
    func unknownStatus() throws {
        let copy = try FixtureCopy("untyped-supplies")
        defer { copy.remove() }
        try copy.write("class/power_supply/BAT0/status", "Balancing\n")
        let b = try #require(SysfsSource(path: copy.path).sample(at: 0).battery("BAT0"))
        #expect(b.status == .unknown)
        #expect(b.issues.contains { $0.reason == .unrecognised && $0.detail == "Balancing" })
    }
}
