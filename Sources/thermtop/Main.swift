import ArgumentParser
import Dispatch
import ThermtopCore
import ThermtopConfig

#if canImport(Glibc)
import Glibc
#endif

/// The entry point. The dashboard runs synchronously on the process's main thread; only the
/// subcommands go through Swift concurrency. An `async` main on Linux parks the main thread in
/// `dispatch_main()` and runs main-actor work on a libdispatch worker, which brings a manager
/// thread that wakes once a second for nothing — a wakeup a second more for a dashboard that
/// is meant to sleep (`Benchmarks/peer-cost.sh`).
@main
enum Main {
    static func main() {
        do {
            let command = try Thermtop.parseAsRoot()
            if var dashboard = command as? Thermtop {
                try MainActor.assumeIsolated { try dashboard.runDashboard() }
                return
            }
            // `status` awaits nothing: it runs on this thread and exits.
            if let status = command as? Status {
                try MainActor.assumeIsolated { try status.report() }
            }
            guard let asyncCommand = command as? AsyncParsableCommand else {
                var command = command
                try command.run()
                return
            }
            runAsync(asyncCommand)
        } catch {
            if let word = unknownCommand() {
                let names = Thermtop.configuration.subcommands.map { $0.configuration.commandName ?? "" }
                printError("thermtop: unknown command '\(Format.clean(word))'\(ConfigParser.suggestion(word, names)). Commands: \(names.joined(separator: ", ")); `thermtop --help` says more.")
                Glibc.exit(ExitCode.validationFailure.rawValue)
            }
            fail(error)
        }
    }

    /// The first argument when it is a word (no dash) that names no command: the dashboard
    /// takes no words, so it was meant as a command (`thermtop statuss`).
    static func unknownCommand() -> String? {
        guard CommandLine.arguments.count > 1 else { return nil }
        let word = CommandLine.arguments[1]
        guard !word.isEmpty, !word.hasPrefix("-") else { return nil }
        let names = Thermtop.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        return names.contains(word) ? nil : word
    }

    /// What ArgumentParser's own async main does, started from here.
    static func runAsync(_ command: any AsyncParsableCommand) -> Never {
        nonisolated(unsafe) var pending = command
        Task { @MainActor in
            do {
                try await pending.run()
                Thermtop.exit()
            } catch {
                fail(error)
            }
        }
        dispatchMain()
    }

    /// ArgumentParser's exit, except for how an error is printed: its messages quote the command
    /// line (`Error: The value '…' is invalid for '--delay <seconds>'`), and control characters
    /// in an argument must come out inert there, not drive the terminal. Help and --version
    /// (exit 0, on stdout) are printed as they are.
    static func fail(_ error: any Error) -> Never {
        let code = Thermtop.exitCode(for: error)
        let message = Thermtop.fullMessage(for: error)
        if !message.isEmpty {
            if code == .success {
                print(message)
            } else {
                printError(message.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { Format.clean(String($0)) }.joined(separator: "\n"))
            }
        }
        Glibc.exit(code.rawValue)
    }
}
