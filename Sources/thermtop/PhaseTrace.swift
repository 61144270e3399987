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
    enum Phase: Int, CaseIterable {
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

        var name: String {
            switch self {
            case .main: "main"
            case .config: "config"
            case .sources: "sources"
            case .reading: "reading"
            case .written: "written"
            }
        }
    }

    /// Set once per phase on the main thread, read there before exit.
    nonisolated(unsafe) private static var marks: [Double] = []

    static func mark(_ phase: Phase) {
        let now = monotonicSeconds()
        if marks.isEmpty { marks = Array(repeating: 0, count: Phase.allCases.count) }
        marks[phase.rawValue] = now
    }

    /// The line, when `THERMTOP_TRACE_PHASES` is set.
    static func report() {
        guard getenv("THERMTOP_TRACE_PHASES") != nil, !marks.isEmpty else { return }
        var line = "thermtop-phases"
        for phase in Phase.allCases { line += " \(phase.name)=\(marks[phase.rawValue])" }
        printError(line)
    }
}
