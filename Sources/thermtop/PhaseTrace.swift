import ThermtopCore
#if canImport(Glibc)
import Glibc
#endif

/// When each step of a one-shot `status` ended, for measuring where its wall time goes
/// (`Benchmarks/oneshot-phases.py`). With `THERMTOP_TRACE_PHASES` set in the environment,
/// `status` prints one line on standard error before it exits:
///
///     thermtop-phases main=… config=… sources=… reading=… written=…
///
/// each a CLOCK_MONOTONIC time in seconds, so a parent that noted the clock before starting the
/// process and after reaping it can tell the exec and the exit apart from the steps between.
/// Unset (always, in normal use), the marks cost a clock read each (vDSO) and nothing is printed.
enum PhaseTrace {
    enum Phase {
        /// `Main.main` entered: exec, the C and Swift runtimes' start are before it.
        case main
        /// Arguments parsed and the config file (if any) loaded.
        case config
        /// The sensor source and the D-Bus source made.
        case sources
        /// The engine's first reading done: discovery, one sample, the decision (the event
        /// sources are opened meanwhile, on the calling thread).
        case reading
        /// The report written to standard output.
        case written
    }

    /// Set once per phase on the main thread, read there before exit. A tuple, not an array:
    /// the marks are taken on every run, and an array of them was a generic type instantiated
    /// at the first (~10 k instructions) for a line almost never printed.
    nonisolated(unsafe) private static var marks: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)

    static func mark(_ phase: Phase) {
        let now = monotonicSeconds()
        switch phase {
        case .main: marks.0 = now
        case .config: marks.1 = now
        case .sources: marks.2 = now
        case .reading: marks.3 = now
        case .written: marks.4 = now
        }
    }

    /// The line, when `THERMTOP_TRACE_PHASES` is set. A step the run did not go through (the
    /// sources and the reading, with `--replay`) reads 0.
    static func report() {
        guard getenv("THERMTOP_TRACE_PHASES") != nil else { return }
        let m = marks
        printError("thermtop-phases main=\(m.0) config=\(m.1) sources=\(m.2) reading=\(m.3) written=\(m.4)")
    }
}
