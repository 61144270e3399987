import ArgumentParser
import ThermtopCore

struct Dashboard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard", abstract: "The live full-screen dashboard (the default).")

    @OptionGroup var source: SourceOptions

    @MainActor
    mutating func run() async throws {
        print("dashboard: not yet")
    }
}
