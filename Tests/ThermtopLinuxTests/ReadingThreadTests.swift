import Foundation
import Synchronization
import Testing
import CLinux
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

    @Test("a step past its deadline: retired if asleep interruptibly, waited for until the uninterruptible deadline if asleep in D, never retired while runnable")
    func verdictByKernelState() {
        let d = 0.25, u = 5.0
        func v(_ now: Double, _ state: ReadingThread.KernelState) -> ReadingThread.Verdict {
            ReadingThread.verdict(started: 100, now: now, state: state, deadline: d, uninterruptibleDeadline: u)
        }
        // A FIFO with no writer, a device that never answers: hung at the deadline.
        #expect(v(100.25, .asleep) == .retire)
        // A lock, a page, the disk: looked at again every deadline, up to 5 s from the start.
        #expect(v(100.25, .uninterruptible) == .recheck(at: 100.5))
        #expect(v(104.9, .uninterruptible) == .recheck(at: 105))
        #expect(v(105, .uninterruptible) == .retire)
        // It may turn into an interruptible wait meanwhile: retired when seen so.
        #expect(v(101, .asleep) == .retire)
        // Waiting for a CPU is never a hang, however long.
        #expect(v(100.25, .runnable) == .recheck(at: 100.5))
        #expect(v(200, .runnable) == .recheck(at: 200.25))
        // The uninterruptible deadline is never shorter than the deadline.
        #expect(ReadingThread(name: "t", deadline: 1, uninterruptibleDeadline: 0.1) { _ in }.uninterruptibleDeadline == 1)
    }

    @Test("the kernel state of a reading thread: asleep in a FIFO read is interruptible, computing is runnable")
    func kernelStateOfThreads() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-kstate-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let tids = Mutex<[String: Int32]>([:])
        let stop = Mutex(false)
        startThread(name: "test-fifo") {
            tids.withLock { $0["fifo"] = thermtop_gettid() }
            let fd = open(fifo, O_RDONLY)   // blocks until a writer opens it
            if fd >= 0 { close(fd) }
        }
        startThread(name: "test-busy") {
            tids.withLock { $0["busy"] = thermtop_gettid() }
            while !stop.withLock({ $0 }) {}
        }
        defer {
            stop.withLock { $0 = true }
            let w = open(fifo, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
        }
        #expect(waitUntil(3) { tids.withLock { $0.count } == 2 })
        let fifoTid = try #require(tids.withLock { $0["fifo"] })
        let busyTid = try #require(tids.withLock { $0["busy"] })
        #expect(waitUntil(3) { ReadingThread.kernelState(fifoTid) == .asleep })
        #expect(waitUntil(3) { ReadingThread.kernelState(busyTid) == .runnable })
        #expect(ReadingThread.kernelState(0) == .asleep, "an unknown thread must count as asleep (hung), not runnable")
    }

    @Test("a reader thread with no batch for idleReaderSeconds ends, and the next batch starts one")
    func idleReaderEnds() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        var config = ThermalConfig()
        config.idleReaderSeconds = 0.1
        let root = SysfsRoot(path: copy.path, config: config)
        #expect((try? root.read("class/thermal/thermal_zone0/temp").get()) != nil)
        #expect(root.handedOffBatches == 1)
        #expect(waitUntil(5) { root.gate.readerThreads == 0 }, "the idle reader stayed")
        #expect((try? root.read("class/thermal/thermal_zone1/temp").get()) != nil)
        #expect(root.handedOffBatches == 2)
        #expect(waitUntil(5) { root.gate.readerThreads == 0 })
    }

    @Test("retirements leave the budget after inlineReadRetirementWindowSeconds: the root reads inline again and keeps no reader thread")
    func retirementBudgetRecovers() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        var config = ThermalConfig()
        config.inlineReadRetirementLimit = 1
        config.inlineReadRetirementWindowSeconds = 1
        config.idleReaderSeconds = 0.1
        let root = SysfsRoot(path: copy.path, config: config)
        let hub = try hubRetiredOnceThenHealed(copy, root)
        defer { hub.stop() }
        // Past the window: every read inline again (the once-slow file too), and the reader
        // thread the gated samples used has ended.
        #expect(waitUntil(5) {
            let batches = root.handedOffBatches, samples = hub.current.sampler.samples
            guard waitUntil(2, { hub.current.sampler.samples >= samples + 5 }) else { return false }
            return root.handedOffBatches == batches
        }, "the root still hands reads over after its retirements left the window")
        #expect(waitUntil(3) { root.gate.readerThreads == 0 }, "a reader thread stayed after the stall")
        #expect(hub.current.snapshot.zone("thermal_zone0")?.celsius == 45.0)
        #expect(hub.current.sampler.retiredSamplers == 1)
    }

    /// A started hub over `root` whose sampler a FIFO at zone 0's `temp` retires once; the file
    /// then reads 45 °C again, and the hub has shown it.
    private func hubRetiredOnceThenHealed(_ copy: FixtureCopy, _ root: SysfsRoot) throws -> ThermalStatusHub {
        let hub = startedHub(SysfsSource(root: root, ppdStatePath: nil))
        do {
            let fifo = try hang(copy, "class/thermal/thermal_zone0/temp")
            #expect(waitUntil(3) { hub.current.sampler.retiredSamplers == 1 })
            release(fifo)
            try FileManager.default.removeItem(atPath: fifo)
            try Data("45000\n".utf8).write(to: URL(fileURLWithPath: fifo))
        } catch {
            hub.stop()
            throw error
        }
        #expect(waitUntil(3) { hub.current.snapshot.zone("thermal_zone0")?.celsius == 45.0 })
        return hub
    }

    /// Replace a file of a fixture copy by a FIFO nobody writes to (its open() blocks).
    private func hang(_ copy: FixtureCopy, _ file: String) throws -> String {
        let real = copy.url(file).resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: real)
        #expect(mkfifo(real, 0o644) == 0)
        return real
    }

    /// Block (`SIG_BLOCK`) or let through (`SIG_UNBLOCK`) the read ticker's signal on this
    /// thread; the mask it had before. The test's own threads (the concurrency pool's) block
    /// most signals, the ticker's too; a process's main thread lets it through.
    @discardableResult
    private static func tickSignal(_ how: Int32) -> sigset_t {
        var tick = sigset_t(), before = sigset_t()
        sigemptyset(&tick)
        sigaddset(&tick, thermtop_read_tick_signal())
        pthread_sigmask(how, &tick, &before)
        return before
    }

    /// `body` on a thread of its own that lets the read ticker's signal through (as a process's
    /// main thread does; the test's own threads block it), its result once it is done.
    private static func onCallerThread<T: Sendable>(_ body: @escaping @Sendable () -> T) throws -> T {
        let made = Mutex<T?>(nil)
        startThread(name: "one-shot caller") {
            tickSignal(SIG_UNBLOCK)
            let value = body()
            made.withLock { $0 = value }
        }
        #expect(waitUntil(5) { made.withLock { $0 != nil } })
        return try #require(made.withLock { $0 })
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

    @Test("without start(), the first reading is made on the caller's own thread (no thread started), not file by file through reader threads")
    func oneShotReadsInline() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let source = SysfsSource(path: copy.path)
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        _ = hub.current
        #expect(source.root.readCount > 20)
        #expect(source.root.handedOffBatches == 0)
        #expect(hub.current.snapshot.batteries.first?.percent != nil)
    }

    @Test("a one-shot reads on the caller's thread under the read ticker: a hung file (a FIFO) is given up at its deadline, at most a tick late, and the rest is read")
    func oneShotGivesUpHungFileOnCaller() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        _ = try hang(copy, "class/thermal/thermal_zone0/temp")
        let path = copy.path
        let readers = Mutex<Set<UInt>>([])
        let m = try Self.onCallerThread {
            let source = SysfsSource(path: path)
            source.root.setTap { _ in readers.withLock { _ = $0.insert(UInt(pthread_self())) } }
            let start = monotonicSeconds()
            let status = ThermalStatusHub(source: source, clock: SystemClock()).current
            let elapsed = monotonicSeconds() - start
            return (status: status, elapsed: elapsed, caller: UInt(pthread_self()), batches: source.root.handedOffBatches,
                    stuck: source.root.stuckFiles, timedOut: source.root.timedOutReads)
        }
        let deadline = ThermalConfig().readDeadlineSeconds
        #expect(readers.withLock { $0 } == [m.caller], "read on another thread")
        let issue = m.status.snapshot.allIssues.first { $0.file == "class/thermal/thermal_zone0/temp" }
        #expect(issue?.reason == .timedOut)
        #expect(issue?.detail?.hasPrefix("no answer after") == true, "\(String(describing: issue))")
        // Given up at an interruption past the deadline: ticks come every quarter deadline.
        #expect(m.elapsed >= deadline && m.elapsed < deadline * 1.25 + 0.25, "took \(m.elapsed) s")
        #expect(m.status.snapshot.zone("thermal_zone1")?.celsius != nil)
        #expect(m.batches == 0)
        // Given up once (the sample did not try it again), and not left stuck: nothing is
        // blocked in it, and a later sample (a started hub's) tries the file again.
        #expect(m.timedOut == 1)
        #expect(m.stuck.isEmpty)
    }

    @Test("a file a one-shot gave up on is not left stuck: the started sampler reads it again once it answers")
    func givenUpFileIsReadAgainLater() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifo = try hang(copy, "class/thermal/thermal_zone0/temp")
        let path = copy.path
        let hub = try Self.onCallerThread {
            let hub = ThermalStatusHub(source: SysfsSource(path: path), clock: SystemClock(), delay: 0.05)
            _ = hub.current
            return hub
        }
        #expect(hub.current.snapshot.zone("thermal_zone0")?.celsius == nil)
        try FileManager.default.removeItem(atPath: fifo)
        try Data("45000\n".utf8).write(to: URL(fileURLWithPath: fifo))
        hub.start()
        defer { hub.stop() }
        #expect(waitUntil(5) { hub.current.snapshot.zone("thermal_zone0")?.celsius == 45.0 })
    }

    @Test("a program that handles the ticker's signal itself keeps its handler, and its one-shots read on a reading thread")
    func programsOwnHandlerIsKept() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let path = copy.path
        let m = try Self.onCallerThread { () -> (kept: Bool, onCaller: Bool, read: Bool) in
            let signal = thermtop_read_tick_signal()
            var ignore = sigaction(), previous = sigaction(), after = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            sigaction(signal, &ignore, &previous)
            let readers = Mutex<Set<UInt>>([])
            let source = SysfsSource(path: path)
            source.root.setTap { _ in readers.withLock { _ = $0.insert(UInt(pthread_self())) } }
            let hub = ThermalStatusHub(source: source, clock: SystemClock())
            _ = hub.current
            sigaction(signal, nil, &after)
            sigaction(signal, &previous, nil)
            let kept = unsafeBitCast(after.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            return (kept, readers.withLock { $0.contains(UInt(pthread_self())) }, hub.current.snapshot.zone("thermal_zone0")?.celsius != nil)
        }
        #expect(m.kept, "the program's handler was replaced")
        #expect(!m.onCaller, "read on the caller without a ticker")
        #expect(m.read)
    }

    @Test("a ticked caller's read interrupted before its deadline is made again: a FIFO whose writer comes after a tick is opened, not given up")
    func earlyInterruptionsAreRetried() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifo = try hang(copy, "class/thermal/thermal_zone0/temp")
        let path = copy.path
        let deadline = ThermalConfig().readDeadlineSeconds
        // The writer comes after two ticks (a quarter deadline each) and before the deadline:
        // the reader's open(2) was interrupted meanwhile. Opened, the FIFO answers pread with
        // ESPIPE at once: `read-failed`, where a read given up at an interruption says
        // `timed-out`.
        startThread(name: "late writer") {
            usleep(UInt32(deadline * 0.6 * 1e6))
            let fd = open(fifo, O_WRONLY)
            if fd >= 0 {
                usleep(UInt32(deadline * 1e6))
                close(fd)
            }
        }
        let m = try Self.onCallerThread { () -> (issue: ReadingIssue?, elapsed: Double) in
            let start = monotonicSeconds()
            let hub = ThermalStatusHub(source: SysfsSource(path: path), clock: SystemClock())
            return (hub.current.snapshot.allIssues.first { $0.file == "class/thermal/thermal_zone0/temp" },
                    monotonicSeconds() - start)
        }
        #expect(m.issue?.reason == .readFailed, "\(String(describing: m.issue))")
        #expect(m.elapsed >= deadline * 0.5 && m.elapsed < deadline, "took \(m.elapsed) s")
        #expect(!ReadingThread.givesUpInterruptedStep(), "off a ticked caller an interruption is retried")
    }

    @Test("a caller that blocks the read ticker's signal gets a reading thread instead, which the watchdog retires from a hung file")
    func blockedTickerFallsBackToAThread() throws {
        let copy = try FixtureCopy("intel-laptop")
        defer { copy.remove() }
        let fifo = try hang(copy, "class/thermal/thermal_zone0/temp")
        defer { release(fifo) }
        var before = Self.tickSignal(SIG_BLOCK)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let source = SysfsSource(path: copy.path)
        let readers = Mutex<Set<UInt>>([])
        source.root.setTap { _ in readers.withLock { _ = $0.insert(UInt(pthread_self())) } }
        let hub = ThermalStatusHub(source: source, clock: SystemClock())
        _ = hub.current
        #expect(!readers.withLock { $0 }.contains(UInt(pthread_self())), "read on the caller with its ticker blocked")
        let issue = hub.current.snapshot.allIssues.first { $0.file == "class/thermal/thermal_zone0/temp" }
        #expect(issue?.reason == .timedOut)
        #expect(hub.current.snapshot.zone("thermal_zone1")?.celsius != nil)
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
        var config = ThermalConfig()
        config.inlineReadRetirementLimit = 1
        let root = SysfsRoot(path: copy.path, config: config)
        let hub = try hubRetiredOnceThenHealed(copy, root)
        defer { hub.stop() }
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
