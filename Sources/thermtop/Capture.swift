import ArgumentParser
import ThermtopCore
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// `thermtop capture DIR`: the sysfs files thermtop reads, as a tree `--sysfs-root DIR` reads.
struct Capture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Copy the sysfs files thermtop reads into a folder, for a bug report.",
        discussion: """
            Copies the thermal, hwmon, power_supply and platform-profile files thermtop reads, \
            with the links and folders around them and each device's uevent, into DIR (new or \
            empty). `thermtop status --sysfs-root DIR` then reports what it reports on this \
            machine. Serial numbers are left out unless --keep-serials. Attach it with \
            `tar czf thermtop-capture.tar.gz -C DIR .`
            """)

    @Argument(help: ArgumentHelp("The folder to create (or an empty one).", valueName: "dir"))
    var directory: String

    // Only --sysfs-root applies: the simulated laptop and the overrides are not files. They
    // are not this command's options (so its help does not list them); given anyway, the
    // root command parses them and validate() refuses them.
    @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Read sensors from this sysfs tree instead of /sys.", valueName: "dir"))
    var sysfsRoot: String?

    @ParentCommand var root: Thermtop

    @Flag(name: .customLong("keep-serials"), help: "Keep serial numbers (battery, disk) in the copy.")
    var keepSerials = false

    @OptionGroup var heat: HeatSourceKeeping

    /// The window heat sources are measured over, as `status`'s default.
    static let heatWindow = 0.5

    func validate() throws {
        try root.rejectRootOptions(in: "capture")
        try root.rejectConfigOptions(in: "capture")
        if directory.isEmpty { throw ValidationError("capture needs a folder name.") }
        let r = root.source
        if r.simulate || r.simulateState != nil || r.lowPower != nil || r.ppdState != nil {
            throw ValidationError("capture reads sysfs: only --sysfs-root applies (the simulated laptop and overrides are not files).")
        }
        if let root = sysfsRoot ?? r.sysfsRoot { try SourceOptions.validateRoot(root) }
        try heat.validate(rootProcRoot: r.procRoot)
    }

    @MainActor
    mutating func run() async throws {
        let path = sysfsRoot ?? root.source.sysfsRoot ?? "/sys"
        var capture: SysfsCapture
        do {
            capture = try SysfsCapture(source: path, destination: directory, keepSerials: keepSerials)
        } catch {
            printError("thermtop capture: \(error)")
            throw ExitCode(73)
        }
        // What to copy is what the readers touch: a discovery and two samples through a tap.
        let root = SysfsRoot(path: path)
        let recorder = AccessRecorder()
        root.setTap(recorder.tap)
        let source = SysfsSource(root: root, ppdStatePath: nil)
        // Who is heating it, over half a second: measured here and kept as measured (the
        // process table's own files hold every command line, and one walk gives no rate).
        source.processes = heat.reader(rootProcRoot: self.root.source.procRoot)
        let clock = SystemClock()
        let first = source.sample(at: clock.now())
        if heat.walks { usleep(useconds_t(Self.heatWindow * 1e6)) }
        let second = source.sample(at: clock.now())
        capture.copy(recorder.take())
        var measured: ThermalHeatSources?
        if heat.walks {
            let power = ThermalPowerDomains.measure(second, previous: first, config: ThermalConfig())
            measured = ThermalHeatSources.measure(second.processes, previous: first.processes, seconds: second.time - first.time, power: power)
            if let measured { RecordedHeatSources.store(measured, commandLines: heat.commandLines, destination: directory) }
        }
        // NVML's readings are no sysfs files: stored beside the tree, where --sysfs-root reads them.
        capture.store(source.gpus.storedFiles)
        let r = capture.report
        var lines = ["thermtop capture: \(r.files) files (\(r.bytes) bytes), \(r.links) links, \(r.directories) folders from \(path) into \(directory)"]
        if let measured {
            let top = measured.sources.prefix(3).map { "\($0.label) (\($0.figures))" }.joined(separator: ", ")
            lines.append("  heat sources: \(measured.reason ?? (top.isEmpty ? "none used CPU" : top))\(measured.unreadable > 0 ? " · \(measured.unreadable) processes unreadable" : "")\(heat.commandLines ? "" : " (command lines left out; --command-lines keeps them)")")
        }
        if r.serialsRemoved > 0 { lines.append("  \(r.serialsRemoved) serial numbers left out (--keep-serials keeps them)") }
        if !r.unreadable.isEmpty {
            lines.append("  \(r.unreadable.count) files could not be copied (they will read as missing):")
            for (f, why) in r.unreadable.sorted(by: { $0.key < $1.key }) { lines.append("    \(f): \(why)") }
        }
        lines.append("  check it: thermtop status --sysfs-root \(directory)")
        lines.append("  attach it: tar czf thermtop-capture.tar.gz -C \(directory) .")
        print(lines.joined(separator: "\n"))
    }
}
