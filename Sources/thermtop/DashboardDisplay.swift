import Synchronization
import ThermtopCore
import ThermtopLinux
import ThermtopTerminal
import ThermtopUI

#if canImport(Glibc)
import Glibc
#endif

/// What the dashboard's two threads share: the state, the terminal and the on-change hook,
/// behind one lock.
///
/// The run loop (the main thread) holds the lock while it handles keys, signals and its own
/// frames, and lets go of it only to sleep in `poll`. The monitor's sampler thread takes it to
/// draw each new sample the moment it is read (`sampleArrived`): a sample costs the process
/// one wakeup, the sampler's, instead of the sampler's and then the loop's. At minimal, where
/// nothing animates, the loop does not wake at all between keys.
///
/// The sampler never waits for the lock: while the loop holds it (a key, a frame, a suspend),
/// the sample is left for the loop, which is woken to take it. So no read waits on the screen
/// and no key waits on a read.
final class DashboardDisplay: @unchecked Sendable {
    // Touched only with `lock` held (Sendable for that reason).
    var app: AppState
    let terminal: Terminal
    /// The `--on-change` command, if any: it sees the measured state; simulated changes (`3`)
    /// only with `--on-change-simulated` (then marked `THERMTOP_SIMULATED=1`).
    var hook: OnChangeHook?
    /// Whether new samples arrive through `sampleArrived` (live), rather than the loop taking
    /// them (a replay's, on its own beat).
    var samplesArrive = false
    /// When the loop's `poll` times out, on the monotonic clock.
    var loopWakesAt = Double.infinity
    /// The loop has ended: nothing more is drawn.
    var closed = false
    /// The last frame rendered: the next starts from it when only time moved.
    private var lastFrame: Screen.Frame?

    private let lock = ConditionLock()
    /// A status arrived while the loop held the lock: the loop takes it.
    private let missed = Atomic<Bool>(false)
    /// Readable when the loop must look again before its timeout.
    private let wakePipe: (read: Int32, write: Int32)?
    let clock = SystemClock()

    init(app: AppState, terminal: Terminal) {
        self.app = app
        self.terminal = terminal
        wakePipe = try? Syscalls.pipe(nonBlocking: true)
    }

    deinit {
        if let wakePipe {
            close(wakePipe.read)
            close(wakePipe.write)
        }
    }

    func lockForLoop() { lock.lock() }
    func unlockForLoop() { lock.unlock() }

    /// The loop polls it: readable when a draw elsewhere needs the loop sooner, or a sample was
    /// left for it. -1 (ignored by `poll`) when no pipe could be made (out of descriptors).
    var wakeDescriptor: Int32 { wakePipe?.read ?? -1 }

    /// Whether the loop can be woken for a sample left to it; without, it keeps its own value
    /// steps (`samplesArrive` false) and takes such a sample at the next one.
    var canWakeLoop: Bool { wakePipe != nil }

    /// Empties the wake descriptor (the loop, once woken).
    func consumeWakes() {
        if let wakePipe { Syscalls.drain(wakePipe.read) }
    }

    /// Whether a status arrived that the loop must take (and forgets it).
    func takeMissed() -> Bool { missed.exchange(false, ordering: .acquiringAndReleasing) }

    private func wakeLoop() {
        if let wakePipe { Syscalls.wake(wakePipe.write) }
    }

    /// A new status was published (called on the publishing thread, with no lock of the hub's
    /// held). Drawn here at once; left to the loop when it holds the lock.
    func sampleArrived(_ newest: () -> (MonitorStatus, FeedInfo)) {
        guard lock.tryLock() else {
            missed.store(true, ordering: .releasing)
            wakeLoop()
            return
        }
        defer { lock.unlock() }
        guard !closed else { return }
        let now = clock.now()
        let wall = WallClock.now()
        _ = Reducer.reduce(&app, .tick(now: now, wallSeconds: wall.seconds))
        let (status, info) = newest()
        _ = Reducer.reduce(&app, .statusArrived(status, info))
        observeChanges()
        draw()
        // What was drawn may need the loop sooner than it planned (the tier rose and the pulse
        // starts, a held-back hook run is due).
        let wake = now + Double(wakeMilliseconds(now: now, wallFraction: wall.fraction)) / 1000
        if wake < loopWakesAt - 0.001 { wakeLoop() }
    }

    /// Milliseconds from `now` until the loop must wake on its own (lock held).
    func wakeMilliseconds(now: Double, wallFraction: Double) -> Int {
        WakeTiming.milliseconds(app, now: now, wallFraction: wallFraction, hookDue: hook?.nextDue(now: now),
                                inputDue: terminal.inputDeadline, samplesArrive: samplesArrive)
    }

    /// Hands the status to the on-change hook (and runs what its rate limit held back), and
    /// shows its counters in the debug overlay (lock held).
    func observeChanges() {
        guard let hook else { return }
        let now = clock.now()
        hook.observe(app.status, now: now)
        hook.poll(now: now)
        let r = hook.runner
        if r.runs != app.configInfo.onChangeRuns || r.failures != app.configInfo.onChangeFailures {
            _ = Reducer.reduce(&app, .onChangeCounters(runs: r.runs, failures: r.failures, lastFailure: r.lastFailure))
        }
    }

    /// Renders the state (only the rows that show time, when nothing else moved since the last
    /// frame); sends the frame only when it differs from what is on screen (lock held).
    func draw() {
        let t0 = clock.now()
        let frame = Screen.frame(app, width: app.width, height: app.height, after: lastFrame)
        lastFrame = frame
        let buffer = frame.buffer
        if terminal.isShowing(buffer) {
            _ = Reducer.reduce(&app, .renderSkipped)
            return
        }
        let cells = terminal.present(buffer)
        _ = Reducer.reduce(&app, .rendered(cells: cells, milliseconds: (clock.now() - t0) * 1000))
    }
}
