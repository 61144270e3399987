import Foundation
import Glibc
import Synchronization
import Testing
import Thermtop

/// Every signal's disposition (handler address and flags), nil where sigaction refuses the
/// number (glibc keeps 32 and 33 for itself).
private func signalDispositions() -> [Int32: (handler: Int, flags: Int32)] {
    var out: [Int32: (handler: Int, flags: Int32)] = [:]
    for signal in Int32(1)...64 {
        var now = sigaction()
        guard sigaction(signal, nil, &now) == 0 else { continue }
        out[signal] = (unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self), now.sa_flags)
    }
    return out
}

private func fixturePath(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name).path
}

@Suite("Embedding the hub in a program")
struct EmbeddingTests {
    @Test("a program embeds the hub over a sysfs tree: its listener calls hub methods, start()/stop() work, and no signal handler is installed")
    func embedWithoutSignals() async throws {
        let before = signalDispositions()
        let source = SysfsSource(path: fixturePath("intel-laptop"))
        let hub = ThermalStatusHub(source: source, clock: SystemClock(), delay: .milliseconds(20))
        #expect(!hub.hasReading, "the hub read when it was made")
        let first = await hub.firstReading()
        #expect(first.snapshot.batteries.first?.percent != nil)

        let seen = Mutex<[Int]>([])
        let token = hub.addListener { u in
            seen.withLock { $0.append(u.sequence) }
            _ = hub.current.tier
            _ = hub.forecastTriggers
            if seen.withLock({ $0.count }) == 2 { hub.setOverrides(ThermalOverrides(lowPower: true)) }
            if seen.withLock({ $0.count }) == 4 { hub.sample() }
        }
        defer { token.cancel() }
        hub.start()
        #expect(await eventually { seen.withLock { $0.count } >= 6 })
        hub.stop()
        #expect(!hub.isRunning)
        #expect(hub.current.isLowPowerModeEnabled)
        let sequences = seen.withLock { $0 }
        #expect(sequences == Array(sequences[0]...(sequences[0] + sequences.count - 1)))

        let after = signalDispositions()
        let changed = Set(before.keys).union(after.keys).filter { s in
            before[s]?.handler != after[s]?.handler || before[s]?.flags != after[s]?.flags
        }.sorted()
        let ticker = __libc_current_sigrtmin() + 2
        // Dispositions are process-wide: a test elsewhere in the same run that changed one
        // while this ran would show here too (the message gives each new handler's address).
        #expect(changed.filter { $0 != ticker } == [],
                "signal handlers installed: \(changed.map { "\($0): \(after[$0]?.handler ?? -1)" })")
        // The one-shot read ticker (ReadingThread's SIGRTMIN+2, for reads made on a thread that
        // is not a reading thread: here `firstReading()`'s) installs its handler today. Issue 27
        // §5 removes it; then drop this wrapper so the check above covers every signal.
        withKnownIssue("the reading layer's SIGRTMIN+2 read ticker (issue 27 §5)", isIntermittent: true) {
            #expect(!changed.contains(ticker), "the read ticker's handler was installed")
        }
    }
}
