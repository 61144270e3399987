import Foundation
import Synchronization
import Testing
import ThermtopCore
import ThermtopLinux
import ThermtopTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// How soon an event-driven wake must show, in tests. The monitors under test sample every 60 s,
/// so a status published within this bound can only have been woken by the event; the latency
/// itself (about a millisecond here) is printed by each test and is a figure, not a pass mark:
/// a shared, loaded machine must not turn a 100 ms budget into a flaky test.
let eventDrivenBound = 1.0

/// Writes to `/sys/class/net/lo/uevent` from tests running in parallel would mix their synthetic
/// events; each test that triggers one holds this lock while it writes and waits.
let loopbackUevent = Mutex(())

/// Checks inside a test that runs: what the `.needs(…)` trait (ThermtopTestSupport) cannot know
/// before the test starts, such as whether the kernel opened a socket.
enum Needs {
    /// Records a failure naming what is missing; returns true when the test can go on.
    static func check(_ available: Bool, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if !available { Issue.record("\(what) (CI=\(TestMachine.inCI))", sourceLocation: sourceLocation) }
        return available
    }

    static func executable(_ name: String) -> String? { TestMachine.executable(name) }
}

extension MachineNeed {
    /// `/sys/class/net/lo/uevent` writable: root, outside a container whose /sys is read-only.
    static let writableLoopbackUevent = MachineNeed("a writable /sys/class/net/lo/uevent",
                                                    remedy: "run as root, outside a container with a read-only /sys") {
        access("/sys/class/net/lo/uevent", W_OK) == 0
    }
}

/// Waits until `fd` is readable or `timeout` seconds pass; returns the seconds waited, nil on
/// timeout. The sampler's poll loop does the same with every source's descriptor.
func waitReadable(_ fd: Int32, events: Int16 = Int16(POLLIN), timeout: Double) -> Double? {
    let start = monotonicSeconds()
    var p = pollfd(fd: fd, events: events, revents: 0)
    while true {
        let left = timeout - (monotonicSeconds() - start)
        if left <= 0 { return nil }
        let rc = poll(&p, 1, Int32((left * 1000).rounded(.up)))
        if rc == 1 { return monotonicSeconds() - start }
        if rc < 0 && errno != EINTR { return nil }
    }
}

/// Check `condition` every 2 ms until it holds or `seconds` pass; whether it held.
func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = monotonicSeconds() + seconds
    while monotonicSeconds() < end {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Polls and drains `source` until `matching` returns true for a hint or `timeout` passes.
/// Returns the hint and the seconds from `start` until drain returned it.
func waitForHint(_ source: any MonitorWakeSource, since start: Double, timeout: Double,
                 matching: (MonitorChangeHint) -> Bool) -> (hint: MonitorChangeHint, seconds: Double)? {
    while monotonicSeconds() - start < timeout {
        guard let fd = source.descriptor else { return nil }
        guard waitReadable(fd, events: source.pollEvents, timeout: timeout - (monotonicSeconds() - start)) != nil else { return nil }
        for hint in source.drain() where matching(hint) {
            return (hint, monotonicSeconds() - start)
        }
    }
    return nil
}
