// thermtop-embedding-check: a program that embeds the library as an app or a server would,
// so EndToEndTests can check from outside what it did to the process: every signal's
// disposition is compared before and after, in a process of its own (dispositions are
// process-wide, so a check inside the test runner would see other tests' handlers).
//
//   thermtop-embedding-check SYSFS-ROOT
//
// Prints `changed signals: …` (empty when none) and `updates: N in order`; exit 0 when no
// disposition changed and the listener saw its updates in sequence, 1 otherwise.
import Glibc
import Synchronization
import Thermtop

func dispositions() -> [Int32: (handler: Int, flags: Int32)] {
    var out: [Int32: (handler: Int, flags: Int32)] = [:]
    for signal in Int32(1)...64 {
        var now = sigaction()
        guard sigaction(signal, nil, &now) == 0 else { continue }
        out[signal] = (unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self), now.sa_flags)
    }
    return out
}

guard CommandLine.arguments.count == 2 else {
    print("usage: thermtop-embedding-check SYSFS-ROOT")
    exit(64)
}
let before = dispositions()
let hub = ThermalStatusHub(source: SysfsSource(path: CommandLine.arguments[1]), clock: SystemClock(),
                           delay: .milliseconds(20))
let seen = Mutex<[Int]>([])
let done = Mutex(false)
// A listener that calls back into the hub: read, override, sample.
let token = hub.addListener { update in
    let count = seen.withLock { $0.append(update.sequence); return $0.count }
    _ = hub.current.tier
    _ = hub.forecastTriggers
    if count == 2 { hub.setOverrides(ThermalOverrides(lowPower: true)) }
    if count == 4 { hub.sample() }
    if count >= 6 { done.withLock { $0 = true } }
}
let first = await hub.firstReading()
hub.start()
let start = monotonicNow()
while !done.withLock({ $0 }) && monotonicNow() - start < 10 { usleep(10_000) }
hub.stop()
token.cancel()

let after = dispositions()
let changed = Set(before.keys).union(after.keys).filter { s in
    before[s]?.handler != after[s]?.handler || before[s]?.flags != after[s]?.flags
}.sorted()
let sequences = seen.withLock { $0 }
let inOrder = sequences.count >= 6 && sequences == Array(sequences[0]..<(sequences[0] + sequences.count))
print("first reading: \(first.thermalState.name), \(first.snapshot.temperatureSensors.count) sensors")
print("changed signals: \(changed.map(String.init).joined(separator: " "))")
print("updates: \(sequences.count) \(inOrder ? "in order" : "OUT OF ORDER: \(sequences)")")
print("low power after the listener's override: \(hub.current.isLowPowerModeEnabled)")
exit(changed.isEmpty && inOrder && hub.current.isLowPowerModeEnabled ? 0 : 1)

func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
