import ThermtopCore

/// Low-power signals: the ACPI platform profile (legacy file and the 6.14+ class),
/// power-profiles-daemon's stored profile, and Intel throttle counters.
struct LowPowerReader: Sendable {
    var hasLegacyProfile: Bool
    var classProfiles: [(dir: String, name: String)]
    var choices: [String]
    /// power-profiles-daemon keeps its profile in `state.ini` (world-readable, no root needed),
    /// read through a funnel rooted at its folder.
    var ppdState: (root: SysfsRoot, file: String)?

    /// The funnel for power-profiles-daemon's state file, rooted at its folder: made once per
    /// source (each root owns a reader thread), not at every rediscovery.
    static func stateFile(_ path: String) -> (root: SysfsRoot, file: String) {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        return (SysfsRoot(path: dir), String(path[path.index(after: slash)...]))
    }

    static func discover(_ root: SysfsRoot, ppdState: (root: SysfsRoot, file: String)?) -> LowPowerReader {
        let legacy = root.exists("firmware/acpi/platform_profile")
        let choices = root.value("firmware/acpi/platform_profile_choices", Parse.string).value?
            .split(separator: " ").map(String.init) ?? []
        var classes: [(String, String)] = []
        for entry in root.list("class/platform-profile") ?? [] {
            let dir = "class/platform-profile/\(entry)"
            classes.append((dir, root.value("\(dir)/name", Parse.string).value ?? entry))
        }
        // Without its folder there is no state file to read each sample (no daemon installed);
        // the next rediscovery looks again.
        let state = ppdState.flatMap { $0.root.isUsable ? $0 : nil }
        return LowPowerReader(hasLegacyProfile: legacy, classProfiles: classes, choices: choices, ppdState: state)
    }

    /// `readStateFile`: false while the daemon's D-Bus reading replaces the state file's
    /// profile (`merging`), so the file is not read for nothing.
    func sample(_ root: SysfsRoot, readStateFile: Bool = true) -> LowPowerSignals {
        var issues: [ReadingIssue] = []
        let profile = hasLegacyProfile
            ? root.take("firmware/acpi/platform_profile", Parse.string, into: &issues) : nil
        let classes = classProfiles.map {
            LowPowerSignals.NamedProfile(name: $0.name, profile: root.take("\($0.dir)/profile", Parse.string, into: &issues))
        }
        var ppd: String?
        if readStateFile, let (ppdRoot, file) = ppdState, case .success(let text) = ppdRoot.read(file) {
            ppd = Self.ppdProfile(fromStateINI: text)
        }
        return LowPowerSignals(platformProfile: profile, platformProfileChoices: choices,
                               classProfiles: classes, powerProfilesDaemon: ppd,
                               powerProfileOrigin: ppd == nil ? nil : .stateFile, issues: issues)
    }

    /// `Profile=` in the `[State]` section of power-profiles-daemon's state.ini.
    static func ppdProfile(fromStateINI text: String) -> String? {
        var inState = false
        for line in text.split(whereSeparator: \.isNewline) {
            let l = SysfsValue.trimmed(String(line))
            if l.hasPrefix("[") { inState = l == "[State]"; continue }
            if inState, l.hasPrefix("Profile=") {
                let v = String(l.dropFirst("Profile=".count))
                return v.isEmpty ? nil : v
            }
        }
        return nil
    }
}

/// `devices/system/cpu/cpuN/thermal_throttle/*_throttle_count` (Intel; absent on AMD and VMs).
struct ThrottleReader: Sendable {
    var cpuDirs: [String]
    /// One CPU per physical package: package counters repeat on every CPU of a package.
    var packageDirs: [String]

    static func discover(_ root: SysfsRoot) -> ThrottleReader {
        var cpus: [String] = []
        // The first CPU seen of each package: a machine has one package or a few, so two
        // arrays searched in order (a `[String: String]` was a generic type of its own to make
        // at first use, for a handful of entries).
        var packages: [String] = [], firstCPUs: [String] = []
        for name in root.list("devices/system/cpu") ?? [] where name.hasPrefix("cpu") && Int(name.dropFirst(3)) != nil {
            let dir = "devices/system/cpu/\(name)/thermal_throttle"
            guard root.exists("\(dir)/core_throttle_count") || root.exists("\(dir)/package_throttle_count") else { continue }
            cpus.append(dir)
            let pkg = root.value("devices/system/cpu/\(name)/topology/physical_package_id", Parse.string).value ?? "0"
            if !packages.contains(pkg) {
                packages.append(pkg)
                firstCPUs.append(dir)
            }
        }
        return ThrottleReader(cpuDirs: cpus, packageDirs: firstCPUs.sorted())
    }

    func sample(_ root: SysfsRoot) -> ThrottleCounters? {
        guard !cpuDirs.isEmpty else { return nil }
        var core: Int64 = 0, package: Int64 = 0
        for d in cpuDirs { core += root.value("\(d)/core_throttle_count", Parse.integer).value ?? 0 }
        for d in packageDirs { package += root.value("\(d)/package_throttle_count", Parse.integer).value ?? 0 }
        return ThrottleCounters(core: core, package: package, cpus: cpuDirs.count)
    }
}
