import Foundation
import Synchronization
import Testing
@testable import ThermtopCore
@testable import ThermtopLinux

/// The sampler reads on its own thread (no reader-thread hand-off per sample), and a read that
/// hangs past the deadline retires it: a successor publishes without the hung file, and that
/// file never retires another thread.
@Suite("Reading threads: reads on the sampler itself, retired by the watchdog when one hangs", .serialized)
struct ReadingThreadTests {
    final class RecordingOwner: BlockingStepOwner {
        let overran = Mutex<[String]>([])
        let late = Mutex<[String]>([])
        func stepOverran(_ label: String, started: Double, on thread: ReadingThread) { overran.withLock { $0.append(label) } }
        func stepReturnedLate(_ label: String) { late.withLock { $0.append(label) } }
    }

    @Test("the watchdog retires a reading thread asleep in a step past its deadline, never one that is only busy or waiting for a CPU")
    func onlyBlockedStepsAreHung() {
        let owner = RecordingOwner()
        let retired = Mutex<[String]>([])
        let busyDone = Mutex(false)
        // Runnable throughout (computing, or preempted on a loaded machine): not hung.
        let busy = ReadingThread(name: "test-busy", deadline: 0.05) { t in retired.withLock { $0.append(t.name) } }
        busy.start {
            busy.guarded {
                busy.step("busy", owner: owner) {
                    let end = monotonicSeconds() + 0.3
                    while monotonicSeconds() < end {}
                }
            }
            busyDone.withLock { $0 = true }
        }
        #expect(waitUntil(3) { busyDone.withLock { $0 } })
        #expect(retired.withLock { $0 }.isEmpty)
        #expect(owner.overran.withLock { $0 }.isEmpty)
        // Asleep in the step (as in a read that does not return): retired at the deadline; it
        // reports coming back when the sleep ends, and then parks.
        let sleeper = ReadingThread(name: "test-sleeper", deadline: 0.05) { t in retired.withLock { $0.append(t.name) } }
        sleeper.start { sleeper.guarded { sleeper.step("sleep", owner: owner) { usleep(300_000) } } }
        #expect(waitUntil(3) { retired.withLock { $0 } == ["test-sleeper"] })
        #expect(owner.overran.withLock { $0 } == ["sleep"])
        #expect(waitUntil(3) { owner.late.withLock { $0 } == ["sleep"] })
        #expect(sleeper.isRetired && !busy.isRetired)
    }

    /// Replace a file of a fixture copy by a FIFO nobody writes to (its open() blocks).
    private func hang(_ copy: FixtureCopy, _ file: String) throws -> String {
        let real = copy.url(file).resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: real)
        #expect(mkfifo(real, 0o644) == 0)
        return real
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

    @Test("a started hub reads on its sampler thread: no batch is handed to reader threads in steady state")
    func steadyStateReadsInline() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let hub = startedHub(source)
        defer { hub.stop() }
        let batches = source.root.handedOffBatches
        let samples = hub.current.sampler.samples
        #expect(waitUntil(5) { hub.current.sampler.samples >= samples + 10 })
        #expect(source.root.handedOffBatches == batches, "reads were handed to reader threads")
        #expect(hub.current.snapshot.zones.contains { $0.celsius != nil })
        #expect(hub.current.sampler.retiredSamplers == 0)
    }

    @Test("without start(), the first reading is made on one reading thread, not file by file through reader threads")
    func oneShotReadsInline() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        #expect(source.root.readCount > 20)
        #expect(source.root.handedOffBatches == 0)
        #expect(hub.current.snapshot.batteries.first?.percent != nil)
    }

    @Test("a file that hangs under a running sampler: the thread is retired, a successor publishes it timed-out within about a deadline, and it never retires another")
    func hungFileRetiresSamplerOnce() throws {
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
        // outside sysfs, and the reopen blocks on the FIFO.
        #expect(waitUntil(3) {
            hub.current.snapshot.zone("thermal_zone0")?.issues.contains { $0.reason == .timedOut } == true
        }, "\(String(describing: hub.current.snapshot.zone("thermal_zone0")?.issues))")
        let latency = monotonicSeconds() - t0
        #expect(latency < 1.0, "timed-out shown \(latency) s after the file hung")
        #expect(hub.current.sampler.retiredSamplers == 1)
        #expect(source.root.stuckFiles.contains(file))
        // Sampling goes on, the other sensors still read, and the stuck file costs nothing.
        let samples = hub.current.sampler.samples
        #expect(waitUntil(3) { hub.current.sampler.samples >= samples + 5 })
        #expect(hub.current.snapshot.zone("thermal_zone1")?.celsius != nil)
        #expect(hub.current.sampler.retiredSamplers == 1)

        // The read comes back (a writer appears and goes): the file is no longer stuck. A new
        // FIFO in its place hangs its next read, through a reader thread now: it times out
        // again and retires nobody.
        release(fifo)
        #expect(waitUntil(3) { !source.root.stuckFiles.contains(file) })
        try FileManager.default.removeItem(atPath: fifo)
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(waitUntil(3) {
            hub.current.snapshot.zone("thermal_zone0")?.issues.contains { $0.reason == .timedOut } == true
                && source.root.timedOutReads >= 2
        }, "the FIFO hung again but no new timeout was seen")
        #expect(hub.current.sampler.retiredSamplers == 1, "a file that overran once retired a second thread")
        // Its reader comes back once the FIFO has had a writer; a real value is then read.
        release(fifo)
        #expect(waitUntil(3) { !source.root.stuckFiles.contains(file) })
        try FileManager.default.removeItem(atPath: fifo)
        try Data("47000\n".utf8).write(to: URL(fileURLWithPath: fifo))
        #expect(waitUntil(4) { hub.current.snapshot.zone("thermal_zone0")?.celsius == 47.0 },
                "\(String(describing: hub.current.snapshot.zone("thermal_zone0")))")
    }

    @Test("after inlineReadRetirementLimit retirements a root reads through reader threads only, also once the file is fine again")
    func retirementLimit() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let root = SysfsRoot(path: copy.path, retirementLimit: 1)
        let source = SysfsSource(root: root, ppdStatePath: nil)
        let hub = startedHub(source)
        defer { hub.stop() }
        let fifo = try hang(copy, "class/thermal/thermal_zone0/temp")
        #expect(waitUntil(3) { hub.current.sampler.retiredSamplers == 1 })
        release(fifo)
        try FileManager.default.removeItem(atPath: fifo)
        try Data("45000\n".utf8).write(to: URL(fileURLWithPath: fifo))
        #expect(waitUntil(3) { hub.current.snapshot.zone("thermal_zone0")?.celsius == 45.0 })
        // Clean passes from here on, yet every sample still hands its reads over.
        let batches = root.handedOffBatches, samples = hub.current.sampler.samples
        #expect(waitUntil(3) { hub.current.sampler.samples >= samples + 5 })
        #expect(root.handedOffBatches >= batches + 5, "the root read inline again after its limit")
        #expect(hub.current.sampler.retiredSamplers == 1)
    }

    @Test("a sampler retired inside a discovery pass: its successor rediscovers and every other device is there")
    func retiredDuringDiscovery() throws {
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
}
