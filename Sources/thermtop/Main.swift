import ArgumentParser
import Dispatch

/// The entry point. The dashboard runs synchronously on the process's main thread; only the
/// subcommands go through Swift concurrency. An `async` main on Linux parks the main thread in
/// `dispatch_main()` and runs main-actor work on a libdispatch worker, which brings a manager
/// thread that wakes once a second for nothing — a wakeup a second more for a dashboard that
/// is meant to sleep (`Benchmarks/peer-cost.sh`).
@main
enum Main {
    static func main() {
        do {
            var command = try Thermtop.parseAsRoot()
            if var dashboard = command as? Thermtop {
                try MainActor.assumeIsolated { try dashboard.runDashboard() }
                return
            }
            guard let asyncCommand = command as? AsyncParsableCommand else {
                try command.run()
                return
            }
            // What ArgumentParser's own async main does, started from here.
            nonisolated(unsafe) var pending = asyncCommand
            Task { @MainActor in
                do {
                    try await pending.run()
                    Thermtop.exit()
                } catch {
                    Thermtop.exit(withError: error)
                }
            }
            dispatchMain()
        } catch {
            Thermtop.exit(withError: error)
        }
    }
}
