import ArgumentParser
import ThermtopLinux
import ThermtopCore

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the thermal state, low power, tier, policy, sensors and batteries once.",
        discussion: """
            Exit status: 0 the state was measured (also when no sensor exists at all, as in \
            containers); 64 bad invocation (unknown flag, bad value, unusable --sysfs-root); \
            69 sensors exist but none could be read, so the state is not measured (the \
            reason and "nothing_readable" in the JSON say so); 74 the report could not be \
            written (standard output closed or full).
            """)

    @OptionGroup var source: SourceOptions
    @OptionGroup var config: ConfigOptions

    @Flag(help: "Print a versioned JSON object (schema thermtop.status/1) instead of text.")
    var json = false

    @MainActor
    mutating func run() async throws {
        StandardStreams.guardClosedDescriptors()
        try StandardStreams.requireStdout()
        let cfg = try config.load()
        // The same engine the dashboard and the library run: its first reading (discovery and
        // one sample, each read bounded by the read deadline) is the report. Not started, so
        // this thread is the one that makes and reads the event sources.
        let wake = source.makeWakeSources()
        let hub = ThermalStatusHub(source: source.makeSource(powerProfiles: wake?.powerProfiles),
                                   clock: SystemClock(), config: cfg.applied(), overrides: source.overrides)
        var status = hub.current
        status.eventSources = wake?.states ?? []
        for w in ConfigOptions.warnings(cfg, status: status) { printError("thermtop: warning: \(w)") }
        let report = json
            ? StatusReport.json(status, version: ThermtopInfo.version).serialized() + "\n"
            : StatusReport.text(status)
        try StandardStreams.write(report)
        if status.assessment.nothingReadable { throw ExitCode(StatusExit.nothingReadable) }
    }
}
