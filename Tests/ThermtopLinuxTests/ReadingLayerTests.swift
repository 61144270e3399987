import Foundation
import Glibc
import Synchronization
import Testing
import ThermtopCore
@testable import ThermtopLinux

/// Collects what a `SysfsRoot` tap sees.
final class TapLog: Sendable {
    private let accesses = Mutex<[SysfsAccess]>([])
    func append(_ a: SysfsAccess) { accesses.withLock { $0.append(a) } }
    func take() -> [SysfsAccess] { accesses.withLock { let a = $0; $0 = []; return a } }
    func readPaths(_ list: [SysfsAccess]) -> [String] {
        list.compactMap { if case .read(let p, _) = $0 { p } else { nil } }
    }
}

/// A backend serving recorded file contents (what a replay does), no filesystem involved.
struct RecordedBackend: SysfsBackend {
    var files: [String: Result<String, ReadingIssue>]
    var dirs: [String: [String]]
    var links: [String: String] = [:]
    func resolved(_ relative: String) -> String? { links[relative] }
    func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue> {
        files[relative] ?? .failure(ReadingIssue(file: relative, reason: .missing, detail: "ENOENT"))
    }
    func list(_ relative: String) -> [String]? { dirs[relative] }
    func exists(_ relative: String) -> Bool { files[relative] != nil || dirs[relative] != nil }
    func isDirectory(_ relative: String) -> Bool { dirs[relative] != nil }
}

@Suite("Reading layer: one pread per value file, deadlines, taps and backends")
struct ReadingLayerTests {
    @Test("steady state: one pread per value file per sample, no open or close", arguments: [
        "intel-laptop", "two-battery-laptop", "arm-board", "amd-desktop", "legion-go-s-couchside",
    ])
    func onePreadPerValueFile(name: String) throws {
        // Missing files are retried only every `missingFileRetrySamples` (its own test below).
        var config = ThermalConfig()
        config.missingFileRetrySamples = 1000
        let source = SysfsSource(path: Fixture.path(name), config: config)
        let log = TapLog()
        _ = source.sample(at: 0)   // discovery, and the value files read through its folders
        _ = source.sample(at: 1)   // opens the value files it keeps
        source.root.setTap { log.append($0) }
        let before = try #require(source.root.ioStats)
        let samples = 5
        var files: Set<Int> = []
        for t in 0..<samples {
            _ = source.sample(at: Double(2 + t))
            files.insert(Set(log.readPaths(log.take())).count)
        }
        let after = try #require(source.root.ioStats)
        let perSample = try #require(files.first)
        #expect(files.count == 1, "\(name): the same files every sample")
        #expect(perSample > 0)
        #expect(after.reads - before.reads == samples * perSample, "\(name): \(after.reads - before.reads) preads for \(samples)×\(perSample) files")
        #expect(after.opens == before.opens, "\(name): opened files in steady state")
        #expect(after.failedOpens == before.failedOpens, "\(name): looked up missing files in steady state")
        #expect(after.closes == before.closes, "\(name): closed files in steady state")
        #expect(after.openFiles <= perSample)
    }

    @Test("a value file that went missing is looked up again after missingFileRetrySamples samples, without a rediscovery, and not before")
    func missingFileIsRetried() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        var config = ThermalConfig()
        config.missingFileRetrySamples = 3
        let source = SysfsSource(path: copy.path, config: config)
        let zone = try #require(source.sample(at: 0).zones.first)
        let temp = "class/thermal/\(zone.id)/temp"
        _ = source.sample(at: 1)
        try FileManager.default.removeItem(at: copy.url(temp))
        #expect(source.sample(at: 2).zone(zone.id)?.celsius == nil)
        try copy.write(temp, "61000\n")
        let before = try #require(source.root.ioStats)
        // The next two samples still hold the file as missing (no lookup: no failed or new open) …
        #expect(source.sample(at: 3).zone(zone.id)?.celsius == nil)
        #expect(source.sample(at: 4).zone(zone.id)?.celsius == nil)
        #expect(try #require(source.root.ioStats).opens == before.opens)
        // … the third looks it up again and reads it.
        #expect(source.sample(at: 5).zone(zone.id)?.celsius == 61.0)
        #expect(try #require(source.root.ioStats).opens == before.opens + 1)
    }

    @Test("a value file moved away and replaced is read afresh within a few samples")
    func movedAwayAndReplaced() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let zone = try #require(source.sample(at: 0).zones.first)
        let temp = "class/thermal/\(zone.id)/temp"
        _ = source.sample(at: 1)
        // The open file keeps a name (temp.old), so only a look at the path can tell.
        #expect(rename(copy.url(temp).path, copy.url(temp + ".old").path) == 0)
        try copy.write(temp, "64000\n")
        var seen: Int?
        for k in 0..<5 where seen == nil {
            if source.sample(at: Double(2 + k)).zone(zone.id)?.celsius == 64.0 { seen = k + 1 }
        }
        #expect(seen != nil, "still reading the moved-away file after \(5) samples")
    }

    @Test("a value file replaced by rename() is read afresh, never stale")
    func renamedOver() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let zone = try #require(source.sample(at: 0).zones.first)
        let temp = "class/thermal/\(zone.id)/temp"
        _ = source.sample(at: 1)
        // What the benchmark's fixture writer does: write a new file, rename it over the old.
        try copy.write(temp + ".new", "77125\n")
        #expect(rename(copy.url(temp + ".new").path, copy.url(temp).path) == 0)
        #expect(source.sample(at: 2).zone(zone.id)?.celsius == 77.125)
        try copy.write(temp + ".new", "33000\n")
        #expect(rename(copy.url(temp + ".new").path, copy.url(temp).path) == 0)
        #expect(source.sample(at: 3).zone(zone.id)?.celsius == 33.0)
        // Writing in place is seen too (the descriptor is read at offset 0 each time).
        try copy.write(temp, "41000\n")
        #expect(source.sample(at: 4).zone(zone.id)?.celsius == 41.0)
    }

    @Test("a value file that is a FIFO with data is read as a stream (an offset read fails there), first and kept open")
    func fifoWithDataIsRead() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let zone = try #require(SysfsSource(path: copy.path).sample(at: 0).zones.first)
        let temp = copy.url("class/thermal/\(zone.id)/temp").resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: temp)
        #expect(mkfifo(temp, 0o644) == 0)
        // Read and write ends in one: the FIFO never sees its writer leave, so each read
        // returns what was written before it.
        let writer = open(temp, O_RDWR | O_NONBLOCK)
        try #require(writer >= 0)
        defer { close(writer) }
        func put(_ text: String) { _ = text.withCString { write(writer, $0, strlen($0)) } }
        put("52000\n")
        let source = SysfsSource(path: copy.path)
        #expect(source.sample(at: 1).zone(zone.id)?.celsius == 52.0)
        put("53500\n")
        #expect(source.sample(at: 2).zone(zone.id)?.celsius == 53.5)
        #expect(try #require(source.root.ioStats).openFiles > 0)
    }

    @Test("hung files (FIFOs) are timed-out within the deadline, the rest is read, and they are not retried while stuck")
    func fifoDeadline() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifos = [
            "class/thermal/thermal_zone0/temp", "class/thermal/thermal_zone1/temp",
            "class/power_supply/BAT0/energy_now", "class/power_supply/AC/online",
            "class/thermal/cooling_device0/cur_state",
        ]
        let reference = SysfsSource(path: copy.path).sample(at: 0)
        for f in fifos {
            try FileManager.default.removeItem(at: copy.url(f).resolvingSymlinksInPath())
            #expect(mkfifo(copy.url(f).resolvingSymlinksInPath().path, 0o644) == 0)
        }
        defer {
            // Give the stuck readers a writer so their threads finish.
            for f in fifos {
                let fd = open(copy.url(f).resolvingSymlinksInPath().path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
        }
        let start = monotonic()
        let source = SysfsSource(path: copy.path)
        let snap = source.sample(at: 1)
        let first = monotonic() - start
        #expect(first < 1.25, "discovery + first sample took \(first) s")
        let timedOut = Set(snap.allIssues.filter { $0.reason == .timedOut }.map(\.file))
        for f in fifos { #expect(timedOut.contains(f), "\(f) not reported timed-out: \(timedOut)") }
        #expect(snap.zone("thermal_zone0")?.celsius == nil)
        #expect(snap.zone("thermal_zone3")?.celsius == reference.zone("thermal_zone3")?.celsius)
        #expect(snap.zone("thermal_zone3")?.celsius != nil)
        #expect(Set(source.root.stuckFiles).isSuperset(of: fifos))

        // The next sample does not wait on them again.
        let again = monotonic()
        let second = source.sample(at: 2)
        let secondTime = monotonic() - again
        #expect(secondTime < ThermalConfig().readDeadlineSeconds, "second sample waited on the hung files again: it took \(secondTime) s")
        let retried = second.allIssues.filter { $0.reason == .timedOut && ($0.detail ?? "").contains("not retried") }
        #expect(Set(retried.map(\.file)).isSuperset(of: fifos))
        #expect(source.root.timedOutReads == fifos.count)
    }

    @Test("a hung read that comes back is no longer stuck and is read again")
    func stuckThenRecovers() throws {
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let zone = try #require(source.sample(at: 0).zones.first)
        let temp = copy.url("class/thermal/\(zone.id)/temp").resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: temp)
        #expect(mkfifo(temp, 0o644) == 0)
        source.rediscover()
        #expect(source.sample(at: 1).zone(zone.id)?.issues.contains { $0.reason == .timedOut } == true)
        #expect(source.root.stuckFiles.contains("class/thermal/\(zone.id)/temp"))
        // A writer appears and leaves: the stuck open() returns, the reader thread leaves.
        let w = open(temp, O_WRONLY | O_NONBLOCK)
        #expect(w >= 0)
        close(w)
        var waited = 0.0
        while !source.root.stuckFiles.isEmpty && waited < 2 { usleep(10_000); waited += 0.01 }
        #expect(source.root.stuckFiles.isEmpty)
        try FileManager.default.removeItem(atPath: temp)
        try Data("52000\n".utf8).write(to: URL(fileURLWithPath: temp))
        #expect(source.sample(at: 2).zone(zone.id)?.celsius == 52.0)
    }

    @Test("a tap sees every read with its raw text, and a recorded backend reproduces the snapshot")
    func tapAndReplay() throws {
        let root = SysfsRoot(path: Fixture.path("intel-laptop"))
        let log = TapLog()
        root.setTap { log.append($0) }
        let live = SysfsSource(root: root, ppdStatePath: nil)
        let snap = live.sample(at: 5)
        var files: [String: Result<String, ReadingIssue>] = [:]
        var dirs: [String: [String]] = [:]
        var existing: Set<String> = []
        var links: [String: String] = [:]
        for a in log.take() {
            switch a {
            case .read(let p, let r): files[p] = r
            case .list(let p, let names): if let names { dirs[p] = names }
            case .isDirectory(let p, true): dirs[p] = dirs[p] ?? []
            case .exists(let p, true): existing.insert(p)
            case .resolved(let p, let r?): links[p] = r
            default: break
            }
        }
        #expect(files["class/thermal/thermal_zone3/temp"] == .success("41050\n"))
        for p in existing where files[p] == nil && dirs[p] == nil { files[p] = .success("") }
        let replay = SysfsSource(root: SysfsRoot(backend: RecordedBackend(files: files, dirs: dirs, links: links), path: "recorded"),
                                 ppdStatePath: nil)
        #expect(replay.sample(at: 5) == snap)
        #expect(replay.root.ioStats == nil)
    }

    @Test("resolving links answers what realpath(3) does, for every class entry and device link of every fixture, its root given absolute or relative to the working directory, and sees links change after a rediscovery")
    func resolvedMatchesRealpath() throws {
        // The same folder as a path relative to the working directory (`../../work/…`).
        func relativeToWorkingDirectory(_ absolute: String) -> String {
            let cwd = FileManager.default.currentDirectoryPath.split(separator: "/")
            return String(repeating: "../", count: cwd.count) + absolute.drop { $0 == "/" }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path)
            .filter { FileManager.default.fileExists(atPath: Fixture.path($0) + "/class") }
        #expect(names.count >= 4)
        var checked = 0
        for name in names {
            for rootPath in [Fixture.path(name), relativeToWorkingDirectory(Fixture.path(name))] {
                let root = SysfsRoot(path: rootPath)
                #expect(root.resolved("class") == "class", "\(rootPath)")
                for cls in root.list("class") ?? [] {
                    for entry in root.list("class/\(cls)") ?? [] {
                        for p in ["class/\(cls)/\(entry)", "class/\(cls)/\(entry)/device", "class/\(cls)/\(entry)/device/..",
                                  "class/\(cls)/\(entry)/nonexistent", "class/\(cls)/./\(entry)/../\(entry)"] {
                            #expect(root.resolved(p) == LinkResolutionTests.realpathRelative(root.path, p), "\(name): \(p)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 200)
        // A link repointed: seen after the next discovery starts.
        let copy = try FixtureCopy("arm-board")
        defer { copy.remove() }
        let root = SysfsRoot(path: copy.path)
        let zone = try #require(root.list("class/thermal")?.first { $0.hasPrefix("thermal_zone") })
        let link = "class/thermal/\(zone)"
        let before = try #require(root.resolved(link))
        try FileManager.default.removeItem(atPath: copy.url(link).path)
        try FileManager.default.createSymbolicLink(atPath: copy.url(link).path, withDestinationPath: "../../devices")
        root.withPass(.discovery) {}
        #expect(root.resolved(link) == "devices")
        #expect(before != "devices")
        // A loop resolves to nothing, as realpath says ELOOP.
        try FileManager.default.createSymbolicLink(atPath: copy.url("loop-a").path, withDestinationPath: "loop-b")
        try FileManager.default.createSymbolicLink(atPath: copy.url("loop-b").path, withDestinationPath: "loop-a")
        #expect(root.resolved("loop-a") == nil)
    }

    @Test("files on the real sysfs are told apart from a fixture's (only the latter get a per-read stat)")
    func sysfsIsRecognised() throws {
        let real = open("/sys/kernel/uevent_seqnum", O_RDONLY | O_CLOEXEC)
        try #require(real >= 0, "this machine has no /sys")
        defer { close(real) }
        #expect(FileSystemBackend.isOnSysfs(real))
        let fixture = open(Fixture.path("intel-laptop") + "/class/thermal/thermal_zone0/temp", O_RDONLY | O_CLOEXEC)
        try #require(fixture >= 0)
        defer { close(fixture) }
        #expect(!FileSystemBackend.isOnSysfs(fixture))
    }

    @Test("discovery opens an optional hwmon or zone attribute only when its folder lists it", arguments: [
        "intel-laptop", "two-battery-laptop", "arm-board", "amd-desktop", "fans-desktop", "gpu-disk-workstation",
        "broken",
    ])
    func optionalAttributesOnlyWhenListed(name: String) throws {
        let root = SysfsRoot(path: Fixture.path(name))
        let log = TapLog()
        root.setTap { log.append($0) }
        let source = SysfsSource(root: root, ppdStatePath: nil)
        _ = source.sample(at: 0)
        var listings: [String: Set<String>] = [:]
        var tried: [(folder: String, file: String)] = []
        for a in log.take() {
            switch a {
            case .list(let p, let names?): listings[p] = Set(names)
            case .read(let p, _):
                guard let slash = p.lastIndex(of: "/") else { break }
                tried.append((String(p[..<slash]), String(p[p.index(after: slash)...])))
            default: break
            }
        }
        let optionalNames = ["_label", "_max", "_min", "_crit", "_crit_hyst", "_emergency", "_hyst"]
        let unlisted = tried.filter { t in
            guard let listed = listings[t.folder], t.folder.hasPrefix("class/hwmon/") || t.folder.hasPrefix("class/thermal/thermal_zone")
            else { return false }
            let optional = t.file == "policy" || optionalNames.contains { t.file.hasSuffix($0) }
            return optional && !listed.contains(t.file)
        }
        #expect(unlisted.isEmpty, "\(name): tried \(unlisted.map { "\($0.folder)/\($0.file)" })")
        // And every listed one of a channel or trip that exists is still read (no limit or label lost).
        let triedSet = Set(tried.map { "\($0.folder)/\($0.file)" })
        var expected = 0
        for (folder, names) in listings where folder.hasPrefix("class/hwmon/") || folder.hasPrefix("class/thermal/thermal_zone") {
            for file in names {
                let parts = file.split(separator: "_", maxSplits: 1).map(String.init)
                guard parts.count == 2 else {
                    if file == "policy", folder.hasPrefix("class/thermal/") { expected += 1; #expect(triedSet.contains("\(folder)/policy")) }
                    continue
                }
                let owner: [String]
                if parts[0].hasPrefix("temp"), ["label", "max", "min", "crit", "crit_hyst", "emergency"].contains(parts[1]) {
                    owner = ["\(parts[0])_input"]
                } else if file.hasPrefix("trip_point_"), file.hasSuffix("_hyst") {
                    let stem = String(file.dropLast("_hyst".count))
                    owner = ["\(stem)_type", "\(stem)_temp"]
                } else { continue }
                // Only the folder the channels are read from (an hwmon entry may defer to device/).
                guard owner.contains(where: names.contains),
                      triedSet.contains(where: { $0.hasPrefix(folder + "/") && owner.contains(String($0.dropFirst(folder.count + 1))) })
                      || folder.hasPrefix("class/thermal/") else { continue }
                expected += 1
                #expect(triedSet.contains("\(folder)/\(file)"), "\(name): \(folder)/\(file) listed but not read")
            }
        }
        #expect(expected > 0, "\(name): no optional attribute to check")
    }

    @Test("a device folder shared by several devices (an ancestor, a PCI device) is looked at once per discovery", arguments: [
        "intel-laptop", "amd-desktop", "gpu-disk-workstation",
    ])
    func sharedDeviceFoldersOncePerDiscovery(name: String) throws {
        let source = SysfsSource(path: Fixture.path(name))
        let log = TapLog()
        source.root.setTap { log.append($0) }
        func lookups() -> [String] {
            log.take().compactMap { a -> String? in
                switch a {
                case .exists(let p, _): return "exists \(p)"
                case .read(let p, _) where p.hasSuffix("/power/runtime_status") || p.hasSuffix("/vendor") || p.hasSuffix("/model"):
                    return "read \(p)"
                default: return nil
                }
            }
        }
        source.rediscover()
        let first = lookups()
        var seen: [String: Int] = [:]
        for l in first { seen[l, default: 0] += 1 }
        #expect(!first.isEmpty)
        #expect(seen.filter { $0.value > 1 }.isEmpty, "\(name): looked up again: \(seen.filter { $0.value > 1 }.keys.sorted())")
        // Remembered for one discovery only: the next one looks again.
        source.rediscover()
        #expect(Set(lookups()) == Set(first))
    }

    @Test("static attributes read at discovery are not kept open")
    func staticsClosed() throws {
        let source = SysfsSource(path: Fixture.path("intel-laptop"))
        let afterDiscovery = try #require(source.root.ioStats)
        #expect(afterDiscovery.openFiles == 0)
        #expect(afterDiscovery.opens == afterDiscovery.closes, "every static file opened was closed")
        _ = source.sample(at: 0)
        _ = source.sample(at: 1)
        let afterSample = try #require(source.root.ioStats)
        #expect(afterSample.openFiles > 0)
        source.rediscover()
        _ = source.sample(at: 2)
        #expect(source.root.ioStats?.openFiles == afterSample.openFiles)
    }
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
