import Foundation
import Synchronization
import Testing
@testable import ThermtopCore
@testable import ThermtopLinux

/// Reads that hang past the deadline: answered timed-out, their reader threads abandoned (left
/// to finish on their own, never reused) and bounded in number.
@Suite("Reading threads: hung reads abandoned, within a bound", .serialized)
struct ReadingThreadTests {
    @Test("at most abandonLimit readers are left in hung reads; past it the files are timed-out without starting more, and reading resumes once they return")
    func abandonedReadersAreBounded() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifos = ["class/thermal/thermal_zone0/temp", "class/thermal/thermal_zone1/temp", "class/thermal/thermal_zone2/temp",
                     "class/power_supply/BAT0/energy_now", "class/power_supply/AC/online"]
        let paths = try fifos.map { try hang(copy, $0) }
        defer { paths.forEach(release) }
        let root = SysfsRoot(path: copy.path, config: ThermalConfig(), abandonLimit: 2)
        let source = SysfsSource(root: root, ppdStatePath: nil)
        let t0 = monotonicSeconds()
        let snap = source.sample(at: 0)
        #expect(monotonicSeconds() - t0 < 1.25)
        let timedOut = Set(snap.allIssues.filter { $0.reason == .timedOut }.map(\.file))
        for f in fifos { #expect(timedOut.contains(f), "\(f) not timed-out: \(timedOut)") }
        #expect(root.abandonedReaders == 2, "\(root.abandonedReaders) readers left in hung reads")
        #expect(snap.allIssues.contains { ($0.detail ?? "").contains("reads still hung") },
                "no file was answered without a reader once the bound was reached")
        // The hung reads return: their threads end, and the healthy files are read again.
        for p in paths {
            release(p)
            try FileManager.default.removeItem(atPath: p)
            try Data("45000\n".utf8).write(to: URL(fileURLWithPath: p))
        }
        #expect(waitUntil(3) { root.abandonedReaders == 0 })
        source.rediscover()
        let again = source.sample(at: 1)
        #expect(again.zone("thermal_zone3")?.celsius != nil)
        #expect(again.zone("thermal_zone0")?.celsius == 45.0)
    }

    @Test("a file that hangs under a running sampler is published timed-out within about a deadline while the other files keep updating, and its reader is abandoned until the read returns")
    func hungFileUnderSampler() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let hub = startedHub(source)
        defer { hub.stop() }
        let file = "class/thermal/thermal_zone0/temp"
        let fifo = try hang(copy, file)
        defer { release(fifo) }
        let t0 = monotonicSeconds()
        // The value file is kept open: replacing it is seen by the per-read identity check
        // outside sysfs, and the read of the FIFO waits for a writer.
        #expect(waitUntil(3) {
            hub.current.snapshot.zone("thermal_zone0")?.issues.contains { $0.reason == .timedOut } == true
        }, "\(String(describing: hub.current.snapshot.zone("thermal_zone0")?.issues))")
        let latency = monotonicSeconds() - t0
        #expect(latency < 1.0, "timed-out shown \(latency) s after the file hung")
        #expect(source.root.stuckFiles.contains(file))
        #expect(source.root.abandonedReaders == 1)
        // The sampler read on its own thread: the hung read left that thread in the kernel and
        // a new sampler, on a fork of the root, published the timeout.
        #expect(hub.current.sampler.samplerReplacements == 1)
        // Sampling goes on, the other sensors still read, and the stuck file costs nothing.
        let samples = hub.current.sampler.samples
        #expect(waitUntil(3) { hub.current.sampler.samples >= samples + 5 })
        #expect(hub.current.snapshot.zone("thermal_zone1")?.celsius != nil)

        // The read comes back (a writer appears and goes): the file is no longer stuck and its
        // reader has ended. A new FIFO in its place hangs its next read: it times out again.
        // The new FIFO is moved in while the old one has its writer, so no read can open the
        // old one again in between (and hang on it for good once its writer is gone).
        try replace(fifo) { #expect(mkfifo($0, 0o644) == 0) }
        #expect(waitUntil(3) { !source.root.stuckFiles.contains(file) && source.root.abandonedReaders == 0 })
        #expect(waitUntil(3) {
            hub.current.snapshot.zone("thermal_zone0")?.issues.contains { $0.reason == .timedOut } == true
                && source.root.timedOutReads >= 2
        }, "the FIFO hung again but no new timeout was seen")
        // Its reader comes back once the FIFO has had a writer; a real value is then read.
        try replace(fifo) { try Data("47000\n".utf8).write(to: URL(fileURLWithPath: $0)) }
        #expect(waitUntil(3) { !source.root.stuckFiles.contains(file) })
        #expect(waitUntil(4) { hub.current.snapshot.zone("thermal_zone0")?.celsius == 47.0 },
                "\(String(describing: hub.current.snapshot.zone("thermal_zone0")))")
    }

    @Test("an attribute that hangs during discovery is timed-out and every other device is there")
    func hungDuringDiscovery() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifo = try hang(copy, "class/thermal/thermal_zone1/type")
        defer { release(fifo) }
        let t0 = monotonicSeconds()
        let source = SysfsSource(path: copy.path)
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        #expect(monotonicSeconds() - t0 < 1.25)
        let zones = hub.current.snapshot.zones.map(\.id)
        #expect(zones.contains("thermal_zone0") && zones.contains("thermal_zone2"), "\(zones)")
        #expect(hub.current.snapshot.batteries.first?.percent != nil)
        #expect(hub.current.snapshot.allIssues.contains { $0.file == "class/thermal/thermal_zone1/type" && $0.reason == .timedOut })
    }

    /// Replace a file of a fixture copy by a FIFO nobody writes to (its read waits for one).
    @Test("a running sampler reads its files on its own thread: no batch is handed to a reader thread, and the watchdog does not wake while reads answer in time")
    func samplerReadsOnItsOwnThread() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        // Read by the caller (no sampler): batches go to a reader thread, under the deadline.
        let direct = SysfsSource(path: copy.path)
        _ = direct.sample(at: 0)
        _ = direct.sample(at: 1)
        #expect(direct.root.handedOffBatches > 0)

        let source = SysfsSource(path: copy.path)
        let hub = startedHub(source)
        defer { hub.stop() }
        let wakes = { Self.voluntarySwitches(ofThreadNamed: "thermtop-watch") }
        let before = wakes()
        // The first reading is the sampler's too (`firstReadingAfterStartIsTheSamplers`).
        let handedOff = source.root.handedOffBatches
        #expect(handedOff == 0)
        let samples = hub.current.sampler.samples
        #expect(waitUntil(5) { hub.current.sampler.samples >= samples + 10 })
        #expect(source.root.handedOffBatches == handedOff, "\(source.root.handedOffBatches - handedOff) batches handed off")
        #expect(hub.current.snapshot.zone("thermal_zone0")?.celsius != nil)
        #expect(hub.current.sampler.samplerReplacements == 0)
        #expect(before != nil, "no watchdog thread")
        #expect(wakes() == before, "the watchdog woke while every read answered in time")
    }

    @Test("once the hub is started, its first reading is the sampler's: a caller asking at once waits for it, and discovery hands no file to a reader thread")
    func firstReadingAfterStartIsTheSamplers() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        for _ in 0..<5 {
            let source = SysfsSource(path: copy.path)
            let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: 60)
            hub.start()
            let first = hub.current
            hub.stop()
            #expect(first.snapshot.zone("thermal_zone0")?.celsius != nil)
            #expect(first.sampler.samples == 1)
            // Taken by the caller, discovery would have handed its files to a reader thread.
            #expect(source.root.handedOffBatches == 0, "\(source.root.handedOffBatches) batches handed off")
        }
    }

    @Test("a claim to read on a thread ends with that thread's sampling: the hub ends it when its sampler stops, and the root then hands that thread's batches off again")
    func claimEndsWithTheSampler() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        // A thread id is reused once its thread is gone: a claim left behind would make some
        // later thread read as the sampler, and a slow read there retire the root for good.
        let source = SysfsSource(path: copy.path)
        _ = source.sample(at: 0)
        let handedOff = { source.root.handedOffBatches }
        #expect(source.readOnThisThread { _ in })
        var before = handedOff()
        _ = source.sample(at: 1)
        #expect(handedOff() == before, "read on the claiming thread")
        source.endReadsOnThisThread()
        before = handedOff()
        _ = source.sample(at: 2)
        #expect(handedOff() > before, "handed off again once the claim ended")

        let claims = ClaimCounter()
        let hub = ThermalStatusHub(source: claims, clock: SystemClock(), delay: 0.05)
        hub.start()
        #expect(waitUntil(5) { hub.current.sampler.samples >= 2 })
        hub.stop()
        #expect(claims.counts == (1, 1), "claims and ends: \(claims.counts)")
    }

    /// The voluntary context switches of this process's thread named `name`, nil if none.
    static func voluntarySwitches(ofThreadNamed name: String) -> Int? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for t in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let status = try? String(contentsOfFile: "/proc/self/task/\(t)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
            else { continue }
            return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private func hang(_ copy: FixtureCopy, _ file: String) throws -> String {
        let real = copy.url(file).resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: real)
        #expect(mkfifo(real, 0o644) == 0)
        return real
    }

    /// Put what `make` makes (given a path beside it) in `fifo`'s place, the FIFO having a
    /// writer meanwhile, so a read blocked on it returns and none opens it after.
    private func replace(_ fifo: String, _ make: (String) throws -> Void) throws {
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        defer { if writer >= 0 { close(writer) } }
        let next = fifo + ".next"
        try make(next)
        #expect(rename(next, fifo) == 0)
    }

    /// Give a FIFO a writer for a moment, so a read blocked on it returns.
    private func release(_ fifo: String) {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    /// A hub sampling `source` every 50 ms, started and past its first samples (stop it).
    private func startedHub(_ source: SysfsSource) -> ThermalStatusHub {
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: 0.05)
        hub.start()
        #expect(waitUntil(5) { hub.current.sampler.samples >= 3 })
        return hub
    }
}

/// A source whose first sample waits for a signal from the hub's caller.
private final class WaitingSource: ThermalSensorSource, @unchecked Sendable {
    let label = "waiting"
    let isSimulated = false
    var readsCanBlock: Bool { true }
    let signalled = Mutex(false)
    let sawSignal = Mutex<Bool?>(nil)
    func sample(at time: Double) -> ThermalSnapshot {
        let until = monotonicSeconds() + 2
        while !signalled.withLock({ $0 }) && monotonicSeconds() < until { usleep(1000) }
        sawSignal.withLock { $0 = signalled.withLock { $0 } }
        return ThermalSnapshot(time: time)
    }
    func rediscover() {}
}

@Suite("The hub's first reading and its caller")
struct FirstReadingTests {
    @Test("whileReading runs on the caller's thread while the first reading is made on a reading thread, and before the reading returns")
    func whileReadingOverlapsTheFirstReading() {
        let source = WaitingSource()
        let caller = pthread_self()
        var ranOn: pthread_t?
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        _ = hub.current(whileReading: {
            ranOn = pthread_self()
            source.signalled.withLock { $0 = true }
        })
        // The source's sample waited for the signal: it was under way while whileReading ran.
        #expect(source.sawSignal.withLock { $0 } == true)
        #expect(ranOn.map { pthread_equal($0, caller) != 0 } == true)
        #expect(hub.current.snapshot.zones.isEmpty)
    }
}

/// A source that counts the hub's claims to read on its sampler thread, and their ends.
final class ClaimCounter: ThermalSensorSource, @unchecked Sendable {   // counts under `lock`
    let label = "claims"
    let isSimulated = true
    private let lock = NSLock()
    private var claims = 0
    private var ends = 0
    var counts: (Int, Int) { lock.withLock { (claims, ends) } }
    func sample(at time: Double) -> ThermalSnapshot { ThermalSnapshot(time: time) }
    func rediscover() {}
    func readOnThisThread(replaced: @escaping @Sendable (any ThermalSensorSource) -> Void) -> Bool {
        lock.withLock { claims += 1 }
        return true
    }
    func endReadsOnThisThread() { lock.withLock { ends += 1 } }
}
