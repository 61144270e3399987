import ArgumentParser
import ThermtopCore
import ThermtopLinux

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the thermal state, low power, tier, policy, sensors and batteries once.")

    @OptionGroup var source: SourceOptions

    @Flag(help: "Print a versioned JSON object (schema thermtop.status/1) instead of text.")
    var json = false

    @MainActor
    mutating func run() async throws {
        let src = source.makeSource()
        let monitor = ThermalMonitor(source: src, clock: SystemClock(), overrides: source.overrides)
        let status = monitor.sample()
        if json {
            print(StatusReport.json(status, version: ThermtopInfo.version).serialized())
        } else {
            print(StatusReport.text(status), terminator: "")
        }
    }
}
