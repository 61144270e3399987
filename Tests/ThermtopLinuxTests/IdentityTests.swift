import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// A copy of a fixture in which the kernel numbered devices differently (another boot, a
/// resume): every path component and symlink target component named in `renumber` is renamed
/// (`hwmon1` ↔ `hwmon2`, `thermal_zone0` ↔ `thermal_zone1`), in class folders and device folders
/// alike, as the kernel would have created them.
struct RenumberedCopy {
    let root: URL
    var path: String { root.path }

    init(_ name: String, renumber: [String: String]) throws {
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("thermtop-renumbered-\(UUID().uuidString)")
        let source = Fixture.directory.appendingPathComponent(name)
        func mapped(_ relative: String) -> String {
            relative.split(separator: "/", omittingEmptySubsequences: false)
                .map { renumber[String($0)] ?? String($0) }.joined(separator: "/")
        }
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        let items = try #require(fm.enumerator(atPath: source.path)).compactMap { $0 as? String }
        for rel in items.sorted() {
            let from = source.appendingPathComponent(rel)
            let to = root.appendingPathComponent(mapped(rel))
            let attrs = try fm.attributesOfItem(atPath: from.path)
            switch attrs[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                let target = try fm.destinationOfSymbolicLink(atPath: from.path)
                try fm.createSymbolicLink(atPath: to.path, withDestinationPath: mapped(target))
            case .typeDirectory?:
                try fm.createDirectory(at: to, withIntermediateDirectories: true)
            default:
                try fm.copyItem(at: from, to: to)
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite("Stable sensor identity")
struct IdentityTests {
    /// id → celsius for everything with an id: temperature sensors, fans, cooling devices.
    static func idMap(_ snap: ThermalSnapshot) -> [String: String] {
        var m: [String: String] = [:]
        for s in snap.temperatureSensors { m[s.id] = "\(s.celsius.map { "\($0)" } ?? "nil") \(s.displayName)" }
        for f in snap.fans { m[f.id] = "fan \(f.rpm.map { "\($0)" } ?? "nil") \(f.pwm ?? -1)" }
        for c in snap.coolingDevices { m[c.stableID ?? c.id] = "cdev \(c.type ?? "") \(c.currentState ?? -1)" }
        return m
    }

    @Test("two boots that number hwmon and thermal zones differently give the same ids, names and values",
          arguments: [
              ("intel-laptop", ["hwmon1": "hwmon2", "hwmon2": "hwmon1", "thermal_zone0": "thermal_zone1",
                                "thermal_zone1": "thermal_zone0", "cooling_device0": "cooling_device3",
                                "cooling_device3": "cooling_device0", "nvme0": "nvme1"]),
              ("amd-desktop", ["hwmon0": "hwmon3", "hwmon3": "hwmon0", "hwmon1": "hwmon2", "hwmon2": "hwmon1",
                               "nvme0": "nvme2"]),
              ("arm-board", ["thermal_zone0": "thermal_zone1", "thermal_zone1": "thermal_zone0",
                             "hwmon0": "hwmon2", "hwmon2": "hwmon0"]),
          ])
    func swappedNumbering(_ name: String, _ renumber: [String: String]) throws {
        let copy = try RenumberedCopy(name, renumber: renumber)
        defer { copy.remove() }
        let original = SysfsSource(path: Fixture.path(name)).sample(at: 0)
        let renumbered = SysfsSource(path: copy.path).sample(at: 0)
        // The renumbering really moved sensors…
        let before = Dictionary(uniqueKeysWithValues: original.temperatureSensors.map { ($0.id, $0.location) })
        let after = Dictionary(uniqueKeysWithValues: renumbered.temperatureSensors.map { ($0.id, $0.location) })
        #expect(before != after, "the copy did not renumber anything")
        // …and every id still names the same sensor with the same value and name.
        #expect(Self.idMap(original) == Self.idMap(renumbered))
        #expect(!Self.idMap(original).isEmpty)
        // Nothing fell back to a numbered id.
        for id in Self.idMap(original).keys {
            #expect(!id.contains("hwmon") && !id.contains("thermal_zone") && !id.contains("cooling_device"), "\(id)")
        }
    }

    @Test("ids name the device path and the label")
    func idShapes() throws {
        let intel = Set(Fixture.sample("intel-laptop").1.temperatureSensors.map(\.id))
        #expect(intel.contains("platform-coretemp.0/coretemp/Package id 0"))
        #expect(intel.contains("platform-coretemp.0/coretemp/Core 3"))
        #expect(intel.contains("acpi-LNXTHERM:00/thermal/acpitz"))
        #expect(intel.contains("virtual/thermal/x86_pkg_temp"))
        #expect(intel.contains("pci-0000:02:00.0/nvme/Composite"))
        let amd = Set(Fixture.sample("amd-desktop").1.temperatureSensors.map(\.id))
        #expect(amd.contains("pci-0000:00:18.3/k10temp/Tctl"))
        // Two amdgpu chips apart by PCI slot.
        #expect(amd.contains("pci-0000:01:00.0/amdgpu/edge") && amd.contains("pci-0000:10:00.0/amdgpu/edge"))
    }

    @Test("a tree without device links (a capture) still gets unique ids, in class order")
    func unlinked() throws {
        let ids = Fixture.sample("amd-ryzen-2x-nvme-telegraf").1.temperatureSensors.map(\.id)
        #expect(ids.contains("unlinked/nvme/Composite") && ids.contains("unlinked/nvme/Composite#2"))
        #expect(Set(ids).count == ids.count)
    }

    @Test("the classifier's memory follows the sensor, not its number: hysteresis survives renumbering")
    func hysteresisAcrossRenumbering() throws {
        let copy = try RenumberedCopy("intel-laptop-hot", renumber: ["hwmon1": "hwmon2", "hwmon2": "hwmon1",
                                                                     "thermal_zone0": "thermal_zone1",
                                                                     "thermal_zone1": "thermal_zone0"])
        defer { copy.remove() }
        var memory = ClassifierMemory()
        let hot = ThermalClassifier.assess(SysfsSource(path: Fixture.path("intel-laptop-hot")).sample(at: 0),
                                    config: ThermalConfig(), memory: &memory)
        #expect(hot.state == .serious)
        // The package row, serious at x86_pkg_temp's passive trip (90 °C, clears below 88 °C).
        let id = "platform-coretemp.0/coretemp/Package id 0"
        #expect(hot.sensors.first { $0.sensor.id == id }?.level == .serious)
        // Same machine after a reboot that renumbered it, package 2 °C cooler, below the 90 °C trip: still
        // inside the hysteresis band, so still serious for the same sensor. The cores (serious at hwmon
        // crit − 15 °C = 85 °C) cool to 80 °C, clear of their band, so only the held package can decide.
        let chip = copy.root.appendingPathComponent("devices/platform/coretemp.0/hwmon/hwmon2")
        try Data("89000\n".utf8).write(to: chip.appendingPathComponent("temp1_input"))
        for core in 2...5 { try Data("80000\n".utf8).write(to: chip.appendingPathComponent("temp\(core)_input")) }
        try Data("89000\n".utf8).write(to: copy.root.appendingPathComponent("devices/virtual/thermal/thermal_zone0/temp"))
        let again = ThermalClassifier.assess(SysfsSource(path: copy.path).sample(at: 1), config: ThermalConfig(), memory: &memory)
        #expect(again.decidedBy == id)
        #expect(again.state == .serious)
        #expect(again.sensors.first { $0.sensor.id == id }?.heldByHysteresis == true)
    }
}
