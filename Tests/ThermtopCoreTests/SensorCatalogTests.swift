import Testing
import ThermtopCore

/// An hwmon channel as the Linux reader builds it: stable id from the device key.
private func chan(_ chip: String, _ label: String?, _ n: Int, _ celsius: Double? = 50, key: String,
                  slot: String? = nil, vendor: String? = nil, model: String? = nil,
                  max: Double? = nil, crit: Double? = nil) -> HwmonChannel {
    let info = ThermalDeviceInfo(key: key, pciSlot: slot, pciVendor: vendor, model: model)
    return HwmonChannel(device: "hwmon\(n)", chip: chip, channel: "temp\(n)", label: label, celsius: celsius,
                        max: max, crit: crit,
                        stableID: SensorIDs.make(device: info, middle: chip, channel: label ?? "temp\(n)"),
                        deviceInfo: info)
}

private func zoneOf(_ id: String, _ type: String, _ celsius: Double? = 50, key: String = "virtual",
                    trips: [TripPoint] = []) -> ThermalZone {
    ThermalZone(id: id, type: type, celsius: celsius, trips: trips,
                stableID: SensorIDs.make(device: ThermalDeviceInfo(key: key), middle: "thermal", channel: type),
                deviceInfo: ThermalDeviceInfo(key: key))
}

@Suite("Sensor catalog: groups, names, headline CPU, folding, dummies")
struct SensorCatalogTests {
    @Test("device paths split the same by bytes (ASCII) as by Characters: empty parts dropped, non-ASCII kept whole")
    func devicePathParts() {
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices//platform//coretemp.0/").key == "platform-coretemp.0")
        #expect(ThermalDeviceInfo.key(forDevicePath: "/devices/pci0000:00/0000:00:18.3").key == "pci-0000:00:18.3")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/pci0000:00/0000:00:18.3/capteur-é").key == "pci-0000:00:18.3/capteur-é")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/platform/é\u{301}/x").key == "platform-é\u{301}/x")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/i2c-0/0-004c").key == "i-0-004c")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/ésb-1/dev").key == "ésb-dev")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices").key == "virtual")
        #expect(ThermalDeviceInfo.key(forDevicePath: "").key == "unlinked")
    }

    @Test("groups go by the chip name lowercased with - as _, ASCII or not")
    func groupNamesNormalised() {
        func group(_ chip: String) -> ThermalSensorGroup {
            SensorCatalog.group(of: ThermalSensor(id: chip, name: chip, kind: .hwmon, celsius: 40, chip: chip))
        }
        #expect(group("CoreTemp") == .cpu)
        #expect(group("X86-PKG-TEMP") == .cpu)
        #expect(group("GPU-Thermal") == .gpu)
        #expect(group("PCH-CometLake") == .board)
        #expect(group("INT3400 Thermal") == .board)
        #expect(group("Ätherm") == .other)
        #expect(group("ÄCPITZ") == .other)
        #expect(group("iwlwifi_1") == .wifi)
        #expect(group("Battery-é") == .battery)
    }

    @Test("device keys from resolved sysfs device paths drop probe-numbered class folders")
    func deviceKeys() {
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/pci0000:00/0000:00:18.3").key == "pci-0000:00:18.3")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/pci0000:00/0000:00:01.2/0000:02:00.0/nvme/nvme0").key
                == "pci-0000:02:00.0")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/platform/coretemp.0").key == "platform-coretemp.0")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/LNXSYSTM:00/LNXSYBUS:01/LNXTHERM:00").key == "acpi-LNXTHERM:00")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/virtual/thermal/thermal_zone3").key == "virtual")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0").key
                == "pci-0000:00:17.0/0:0:0:0")
        #expect(ThermalDeviceInfo.key(forDevicePath: "class/hwmon/hwmon0").key == "unlinked")
        #expect(ThermalDeviceInfo.key(forDevicePath: "devices/pci0000:00/0000:00:18.3").pciSlot == "0000:00:18.3")
        #expect(!ThermalDeviceInfo.isPCIAddress("0000:00:18") && ThermalDeviceInfo.isPCIAddress("0000:0a:1f.7"))
    }

    @Test("coretemp: Package id 0 is the headline; Core N fold under it; the x86_pkg_temp zone mirrors it and lends its trips")
    func coretemp() throws {
        let snap = ThermalSnapshot(time: 0, zones: [
            zoneOf("thermal_zone1", "x86_pkg_temp", 91, trips: [TripPoint(index: 0, kind: .passive, celsius: 90, hysteresis: 2)]),
        ], hwmon: [
            chan("coretemp", "Package id 0", 1, 91, key: "platform-coretemp.0", max: 100, crit: 100),
            chan("coretemp", "Core 0", 2, 89, key: "platform-coretemp.0", max: 100, crit: 100),
        ])
        let s = snap.temperatureSensors
        let pkg = try #require(s.first { $0.label == "Package id 0" })
        let core = try #require(s.first { $0.label == "Core 0" })
        let zone = try #require(s.first { $0.kind == .zone })
        #expect(pkg.isHeadline && pkg.group == .cpu && pkg.displayName == "CPU (coretemp Package id 0)")
        #expect(core.memberOf == pkg.id && !core.isHeadline && core.displayName == "CPU Core 0 (coretemp)")
        #expect(zone.mirrorOf == pkg.id && !zone.isHeadline)
        // One level: the coretemp row carries the zone's passive trip; the mirror never decides.
        // (Core 0 at 89 °C is serious too: coretemp's max = crit = 100 °C gives serious at
        // crit − 15 °C, issue 29's one margin rule, and it is further past its threshold.)
        var memory = ClassifierMemory()
        let a = ThermalClassifier.assess(snap, config: ThermalConfig(), memory: &memory)
        #expect(a.decidedBy != zone.id)
        #expect(a.sensors.first { $0.sensor.id == pkg.id }?.thresholds.serious.rule == "x86_pkg_temp passive trip")
        #expect(a.state == .serious)
    }

    @Test("x86_pkg_temp alone (no coretemp loaded) is the headline")
    func pkgTempAlone() {
        let s = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone0", "acpitz"), zoneOf("thermal_zone1", "x86_pkg_temp")])
            .temperatureSensors
        #expect(s.filter(\.isHeadline).map(\.name) == ["x86_pkg_temp"])
        #expect(s.first { $0.name == "acpitz" }?.isHeadline == false)
    }

    @Test("k10temp: Tctl is the headline, Tccd1..N fold under it; Tdie wins where present")
    func k10temp() {
        let key = "pci-0000:00:18.3"
        let s = ThermalSnapshot(time: 0, hwmon: [chan("k10temp", "Tctl", 1, key: key), chan("k10temp", "Tccd1", 3, key: key),
                                          chan("k10temp", "Tccd2", 4, key: key)]).temperatureSensors
        #expect(s.filter(\.isHeadline).map(\.id) == ["pci-0000:00:18.3/k10temp/Tctl"])
        #expect(s.first { $0.isHeadline }?.displayName == "CPU (k10temp Tctl)")
        #expect(s.filter { $0.memberOf == "pci-0000:00:18.3/k10temp/Tctl" }.map { $0.label } == ["Tccd1", "Tccd2"])
        let withTdie = ThermalSnapshot(time: 0, hwmon: [chan("k10temp", "Tdie", 2, key: key), chan("k10temp", "Tctl", 1, key: key)])
            .temperatureSensors
        #expect(withTdie.filter(\.isHeadline).map(\.label) == ["Tdie"])
        #expect(withTdie.first { $0.label == "Tctl" }?.memberOf == "pci-0000:00:18.3/k10temp/Tdie")
    }

    @Test("zenpower behaves like k10temp")
    func zenpower() {
        let s = ThermalSnapshot(time: 0, hwmon: [chan("zenpower", "Tdie", 1, key: "pci-0000:00:18.3"),
                                          chan("zenpower", "Tccd1", 2, key: "pci-0000:00:18.3")]).temperatureSensors
        #expect(s.filter(\.isHeadline).map(\.name) == ["zenpower Tdie"])
    }

    @Test("two sockets: one headline per package, numbered")
    func twoPackages() {
        let s = ThermalSnapshot(time: 0, hwmon: [
            chan("coretemp", "Package id 0", 1, key: "platform-coretemp.0"),
            chan("coretemp", "Core 0", 2, key: "platform-coretemp.0"),
            chan("coretemp", "Package id 1", 1, key: "platform-coretemp.1"),
            chan("coretemp", "Core 0", 2, key: "platform-coretemp.1"),
        ]).temperatureSensors
        #expect(s.filter(\.isHeadline).map(\.displayName) == ["CPU 0 (coretemp Package id 0)", "CPU 1 (coretemp Package id 1)"])
        #expect(s.first { $0.id == "platform-coretemp.1/coretemp/Core 0" }?.memberOf == "platform-coretemp.1/coretemp/Package id 1")
    }

    @Test("ARM: cpu-thermal is the headline; acpitz only when nothing else names the CPU")
    func armAndFallback() {
        let arm = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone0", "cpu-thermal"), zoneOf("thermal_zone1", "gpu-thermal")])
            .temperatureSensors
        #expect(arm.filter(\.isHeadline).map(\.name) == ["cpu-thermal"])
        #expect(arm.first { $0.name == "gpu-thermal" }?.group == .gpu)
        let big = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone0", "cpu0-thermal"), zoneOf("thermal_zone1", "cpu1-thermal")])
            .temperatureSensors
        #expect(big.filter(\.isHeadline).map(\.name) == ["cpu0-thermal"])
        #expect(big.first { $0.name == "cpu1-thermal" }?.memberOf == big.first { $0.name == "cpu0-thermal" }?.id)
        let acpi = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone0", "acpitz", key: "acpi-LNXTHERM:00")]).temperatureSensors
        #expect(acpi.first?.isHeadline == true && acpi.first?.isFallbackHeadline == true)
        #expect(acpi.first?.group == .board)
    }

    @Test("INT3400's fixed 20 °C is a flagged dummy that never decides the state")
    func int3400() throws {
        let snap = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone2", "INT3400 Thermal", 20, key: "platform-INT3400:00")])
        let s = try #require(snap.temperatureSensors.first)
        #expect(s.dummyReason != nil && s.isFolded)
        var m = ClassifierMemory()
        var cfg = ThermalConfig()
        cfg.defaultSerious = 15    // even hot by its thresholds, a dummy does not decide
        #expect(ThermalClassifier.assess(snap, config: cfg, memory: &m).state == .nominal)
    }

    @Test("readable names by device: NVMe model, GPU by vendor and slot when there are two, Wi-Fi, battery")
    func names() {
        let s = ThermalSnapshot(time: 0, zones: [zoneOf("thermal_zone4", "iwlwifi_1")], hwmon: [
            chan("nvme", "Composite", 1, key: "pci-0000:02:00.0", slot: "0000:02:00.0", model: "Samsung SSD 980 1TB"),
            chan("amdgpu", "edge", 1, key: "pci-0000:03:00.0", slot: "0000:03:00.0", vendor: "0x1002"),
            chan("amdgpu", "edge", 1, key: "pci-0000:10:00.0", slot: "0000:10:00.0", vendor: "0x1002"),
            chan("drivetemp", nil, 1, key: "pci-0000:00:17.0/0:0:0:0", model: "WDC WD40EFRX-68N"),
        ], batteries: [ThermalBattery(id: "BAT0", celsius: 30)]).temperatureSensors
        let names = Set(s.map(\.displayName))
        #expect(names.contains("NVMe Samsung SSD 980 1TB (Composite)"))
        #expect(names.contains("GPU AMD 03:00.0 (amdgpu edge)") && names.contains("GPU AMD 10:00.0 (amdgpu edge)"))
        #expect(names.contains("Disk WDC WD40EFRX-68N (temp1)"))
        #expect(names.contains("Wi-Fi (iwlwifi_1)"))
        #expect(names.contains("Battery BAT0"))
        #expect(s.first { $0.chip == "drivetemp" }?.group == .disk)
        // Raw names are kept.
        #expect(s.first { $0.chip == "nvme" }?.name == "nvme Composite")
    }

    @Test("identical names without a device to tell them apart get an order tag")
    func duplicates() {
        let s = ThermalSnapshot(time: 0, hwmon: [chan("nvme", "Composite", 1, key: "unlinked"),
                                          chan("nvme", "Composite", 1, key: "unlinked")]).temperatureSensors
        #expect(s.map(\.displayName) == ["NVMe (Composite) [#1]", "NVMe (Composite) [#2]"])
    }

    @Test("ids are made unique in order")
    func disambiguate() {
        #expect(SensorIDs.disambiguate(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"])
    }
}
