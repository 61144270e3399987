import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

@Suite("SysfsSource: hot-plug, cheap samples, power-profiles-daemon")
struct SysfsSourceBehaviourTests {
    @Test("a battery and a zone unplugged between samples disappear, and come back when replugged")
    func hotPlug() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fm = FileManager.default
        let source = SysfsSource(path: copy.path)
        let first = source.sample(at: 0)
        #expect(first.battery("BAT0") != nil)
        #expect(first.zone("thermal_zone3")?.celsius == 41.05)

        // Unplug as the kernel does: the class entry and the device folder go together.
        let batLink = "class/power_supply/BAT0", zoneLink = "class/thermal/thermal_zone3"
        let batTarget = try fm.destinationOfSymbolicLink(atPath: copy.url(batLink).path)
        let zoneTarget = try fm.destinationOfSymbolicLink(atPath: copy.url(zoneLink).path)
        let batDir = copy.url(batLink).deletingLastPathComponent().appendingPathComponent(batTarget).standardizedFileURL
        let zoneDir = copy.url(zoneLink).deletingLastPathComponent().appendingPathComponent(zoneTarget).standardizedFileURL
        let parking = copy.root.deletingLastPathComponent()
        try fm.removeItem(at: copy.url(batLink))
        try fm.moveItem(at: batDir, to: parking.appendingPathComponent("BAT0"))
        try fm.removeItem(at: copy.url(zoneLink))
        try fm.moveItem(at: zoneDir, to: parking.appendingPathComponent("thermal_zone3"))

        let gone = source.sample(at: 1)
        #expect(gone.batteries.isEmpty)
        #expect(gone.zone("thermal_zone3") == nil)
        #expect(gone.zones.count == 5)
        #expect(gone.zone("thermal_zone1")?.celsius == 53.0)
        #expect(gone.acOnline == false)
        #expect(!LowPowerAssessment.assess(gone, config: ThermalConfig()).enabled)

        // Plug back in.
        try fm.moveItem(at: parking.appendingPathComponent("BAT0"), to: batDir)
        try fm.createSymbolicLink(atPath: copy.url(batLink).path, withDestinationPath: batTarget)
        try fm.moveItem(at: parking.appendingPathComponent("thermal_zone3"), to: zoneDir)
        try fm.createSymbolicLink(atPath: copy.url(zoneLink).path, withDestinationPath: zoneTarget)

        // Devices that appear are found by a rediscovery (a uevent hint or the refresh), not by
        // listing the class folders every sample.
        #expect(source.sample(at: 2).batteries.isEmpty)
        source.rediscover()
        let back = source.sample(at: 2)
        #expect(back.battery("BAT0")?.percent == 70)
        #expect(back.zone("thermal_zone3")?.celsius == 41.05)
        #expect(back.zones.count == 6)
    }

    @Test("a device folder that vanishes behind its class link is never shown with a stale value, and is dropped")
    func danglingAfterDiscovery() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        #expect(source.sample(at: 0).zone("thermal_zone3")?.celsius == 41.05)
        try FileManager.default.removeItem(at: copy.url("devices/virtual/thermal/thermal_zone3"))
        let next = source.sample(at: 1)
        #expect(next.zone("thermal_zone3")?.celsius == nil)
        let later = source.sample(at: 2)
        #expect(later.zone("thermal_zone3") == nil)
        #expect(later.issues.contains { $0.file == "class/thermal/thermal_zone3" && $0.reason == .vanished })
        #expect(later.zone("thermal_zone1")?.celsius == 53.0)
    }

    @Test("a new zone appearing later is found by the next rediscovery, not by listing folders every sample")
    func appears() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        #expect(source.sample(at: 0).zones.count == 2)
        let fm = FileManager.default
        let dir = copy.url("devices/virtual/thermal/thermal_zone2")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("ddr-thermal\n".utf8).write(to: dir.appendingPathComponent("type"))
        try Data("61250\n".utf8).write(to: dir.appendingPathComponent("temp"))
        try fm.createSymbolicLink(atPath: copy.url("class/thermal/thermal_zone2").path,
                                  withDestinationPath: "../../devices/virtual/thermal/thermal_zone2")
        #expect(source.sample(at: 1).zones.count == 2)
        source.rediscover()
        let snap = source.sample(at: 1)
        #expect(snap.zone("thermal_zone2")?.type == "ddr-thermal")
        #expect(snap.zone("thermal_zone2")?.celsius == 61.25)
    }

    @Test("a sample reads fewer files than a rediscovery, and no more on the second sample")
    func samplesAreCheap() {
        for name in ["intel-laptop", "two-battery-laptop", "arm-board", "amd-desktop"] {
            let source = SysfsSource(path: Fixture.path(name))
            #expect(source.root.readCount == 0, "\(name): making a source reads nothing; its first sample discovers")
            source.rediscover()
            let a = source.root.readCount
            _ = source.sample(at: 0)
            let b = source.root.readCount
            source.rediscover()
            let c = source.root.readCount
            _ = source.sample(at: 1)
            let d = source.root.readCount
            let sampleReads = b - a, discoveryReads = c - b
            #expect(sampleReads > 0, "\(name)")
            #expect(sampleReads < discoveryReads, "\(name): sample \(sampleReads) reads, discovery \(discoveryReads)")
            #expect(d - c == sampleReads, "\(name)")
            #expect(source.discoveryCount == 2, "\(name): a sample rediscovered")
        }
    }

    @Test("trip temperatures and design capacity are read once per rediscovery; temperatures every sample")
    func staticAttributesNotReread() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let first = source.sample(at: 0)
        #expect(first.zone("thermal_zone1")?.trips.first?.celsius == 90)
        #expect(near(first.battery("BAT0")?.healthPercent, 91.0, 0.005))

        let zone1 = "devices/virtual/thermal/thermal_zone1"
        try copy.write("\(zone1)/trip_point_0_temp", "70000\n")
        try copy.write("\(zone1)/temp", "60000\n")
        let batDir = try FileManager.default.destinationOfSymbolicLink(atPath: copy.url("class/power_supply/BAT0").path)
        try copy.write("class/power_supply/\(batDir)/energy_full_design", "51870000\n")

        let second = source.sample(at: 1)
        #expect(second.zone("thermal_zone1")?.celsius == 60)          // changing value: reread
        #expect(second.zone("thermal_zone1")?.trips.first?.celsius == 90)   // static: not reread
        #expect(near(second.battery("BAT0")?.healthPercent, 91.0, 0.005))

        source.rediscover()
        let third = source.sample(at: 2)
        #expect(third.zone("thermal_zone1")?.trips.first?.celsius == 70)
        #expect(near(third.battery("BAT0")?.healthPercent, 100.0, 0.005))
    }

    @Test("power-profiles-daemon's power-saver profile is read from its state file and means low power")
    func powerProfilesDaemon() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-ppd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ini = dir.appendingPathComponent("state.ini")
        try Data("[State]\nDriver=amd_pstate\nProfile=power-saver\n\n[Profiles]\nbalanced=1\n".utf8).write(to: ini)
        let source = SysfsSource(root: SysfsRoot(path: Fixture.path("legion-go-s-couchside")), ppdStatePath: ini.path)
        let snap = source.sample(at: 0)
        #expect(snap.lowPower.powerProfilesDaemon == "power-saver")
        let lp = LowPowerAssessment.assess(snap, config: ThermalConfig())
        #expect(lp.enabled)
        #expect(lp.reasons == ["power-profiles-daemon profile is power-saver"])

        try Data("[State]\nProfile=balanced\n".utf8).write(to: ini)
        #expect(source.sample(at: 1).lowPower.powerProfilesDaemon == "balanced")
        // A fixture root never reads the live machine's daemon state by default.
        #expect(SysfsSource(path: Fixture.path("legion-go-s-couchside")).sample(at: 0).lowPower.powerProfilesDaemon == nil)
    }

    @Test("power-profiles-daemon's state file costs no read where its folder does not exist, and one a sample where it does")
    func powerProfilesStateFileReadOnlyWhereItCanBe() throws {
        let fixture = Fixture.path("legion-go-s-couchside")
        func readsPerSample(_ ppd: String?) -> Int {
            let source = SysfsSource(root: SysfsRoot(path: fixture), ppdStatePath: ppd)
            _ = source.sample(at: 0)
            let before = source.readStats?.fileReads ?? -1
            _ = source.sample(at: 1)
            return (source.readStats?.fileReads ?? -1) - before
        }
        let none = readsPerSample(nil)
        #expect(readsPerSample("/nonexistent-thermtop-ppd/state.ini") == none)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-ppd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("[State]\nProfile=balanced\n".utf8).write(to: dir.appendingPathComponent("state.ini"))
        #expect(readsPerSample(dir.appendingPathComponent("state.ini").path) == none + 1)
    }

    @Test("a root that does not exist or is empty gives an empty snapshot, no crash")
    func emptyRoots() throws {
        #expect(SysfsSource(path: "/nonexistent-thermtop-root").sample(at: 0).isEmpty)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let snap = SysfsSource(path: dir.path).sample(at: 0)
        #expect(snap.isEmpty)
        #expect(snap.allIssues.isEmpty)
    }

    @Test("every fixture samples without crashing and twice in a row gives the same readings",
          arguments: ["thinkpad-lgc-45n1-2018-procfs", "thinkpad-lgc-45n1-2019-node-exporter", "legion-go-s-couchside",
                      "lenovo-lnv-5b11c73244-batterarch", "amd-ryzen-2x-nvme-telegraf", "amdgpu-rx5500xt-lact",
                      "amdgpu-vangogh-steamdeck-lact", "radeon-hd7870-lact", "intel-laptop", "intel-laptop-hot",
                      "amd-desktop", "arm-board", "two-battery-laptop", "broken"])
    func stable(_ name: String) {
        let source = SysfsSource(path: Fixture.path(name))
        var a = source.sample(at: 0)
        let b = source.sample(at: 0)
        a.time = b.time
        #expect(a == b)
        #expect(!a.isEmpty)
        #expect(source.label == Fixture.path(name))
    }
}
