import ThermtopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the config file is, reading it, checking its rules against the sensors present, and
/// the commented example `thermtop config --print-default` prints.
package enum ConfigFile {
    /// `$XDG_CONFIG_HOME/thermtop/config.toml`, else `~/.config/thermtop/config.toml`
    /// (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says). nil with no HOME.
    public static func defaultPath(environment env: [String: String]) -> String? {
        if let x = env["XDG_CONFIG_HOME"], x.hasPrefix("/") { return "\(x)/thermtop/config.toml" }
        if let h = env["HOME"], !h.isEmpty { return "\(h)/.config/thermtop/config.toml" }
        return nil
    }

    public static func processEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        for key in ["XDG_CONFIG_HOME", "HOME"] {
            if let v = getenv(key) { env[key] = String(cString: v) }
        }
        return env
    }

    /// Turns a file's text into a config: `ConfigParser.parse` (module ThermtopConfig, TOMLKit);
    /// passed in so that this module does not depend on TOMLKit.
    public typealias Parse = (_ text: String, _ file: String) -> Result<UserConfig, ConfigError>

    /// The file at `path`, parsed. `required`: a missing file is an error (`--config FILE`);
    /// otherwise a missing default file means no config.
    public static func load(_ path: String, required: Bool, parse: Parse) -> Result<UserConfig?, ConfigError> {
        switch read(path) {
        case .missing:
            if !required { return .success(nil) }
            return .failure(ConfigError([ConfigProblem(kind: .unreadable, file: path, line: 0, key: nil,
                                                       message: "no such file", expected: "a TOML file (`thermtop config --print-default > \(path)` writes one)")]))
        case .failed(let why):
            return .failure(ConfigError([ConfigProblem(kind: .unreadable, file: path, line: 0, key: nil, message: why)]))
        case .text(let text, let st):
            return parse(text, path).map { c in
                var c = c
                c.path = path
                if c.onChange != nil, let why = unsafeForCommands(path, file: st) {
                    c.onChange = nil
                    c.onChangeRefused = why
                }
                return Optional(c)
            }
        }
    }

    /// Why a command from the file at `path` (whose `stat` is `file`) must not run: the file
    /// or its folder can be changed by someone other than this user (or root), so `on_change`
    /// could be made to run anything as us, as root for a root-run `watch`. A folder with the
    /// sticky bit (/tmp) is fine: others cannot replace a file there that is not theirs.
    static func unsafeForCommands(_ path: String, file: stat) -> ConfigProblem? {
        let me = geteuid()
        func problem(_ what: String, _ fix: String) -> ConfigProblem {
            ConfigProblem(kind: .unsafePermissions, file: path, line: 0, key: "on_change",
                          message: "\(what), so its command is not run (the rest of the file applies); fix: \(fix)")
        }
        func mode(_ m: mode_t) -> String { "0" + String(m & 0o7777, radix: 8) }
        if file.st_uid != me && file.st_uid != 0 {
            return problem("the file is owned by uid \(file.st_uid), not by this user", "chown \(me) \(path)")
        }
        if file.st_mode & 0o022 != 0 {
            return problem("the file is writable by group or others (mode \(mode(file.st_mode)))", "chmod go-w \(path)")
        }
        let dir = ConfigFile.folder(of: (try? Syscalls.realpath(path)) ?? path)
        var d = stat()
        guard stat(dir, &d) == 0 else { return nil }
        if d.st_uid != me && d.st_uid != 0 && d.st_mode & S_ISVTX == 0 {
            return problem("its folder \(dir) is owned by uid \(d.st_uid), not by this user", "chown \(me) \(dir)")
        }
        if d.st_mode & 0o022 != 0 && d.st_mode & S_ISVTX == 0 {
            return problem("its folder \(dir) is writable by group or others (mode \(mode(d.st_mode)))", "chmod go-w \(dir)")
        }
        return nil
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// The largest config file read (a config is a few hundred bytes; this stops `--config
    /// /dev/zero` or a huge file from eating memory).
    public static let maxBytes = 1 << 20

    enum ReadResult { case text(String, stat), missing, failed(String) }

    static func read(_ path: String) -> ReadResult {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let e = errno
            if e == ENOENT { return .missing }
            return .failed(String(cString: strerror(e)))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failed(String(cString: strerror(errno))) }
        let kind = st.st_mode & S_IFMT
        if kind == S_IFDIR { return .failed("is a directory") }
        if kind != S_IFREG { return .failed("not a regular file") }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { sysRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes += buf[0..<n]
            if bytes.count > maxBytes { return .failed("larger than \(maxBytes / 1024) KiB") }
        }
        guard let s = String(validating: bytes, as: UTF8.self) else { return .failed("not UTF-8 text") }
        return .text(s, st)
    }

    /// Rules whose `match` names no sensor the source has now: a typo, or a device that is
    /// unplugged. `thermtop config --check` reports them as errors; the dashboard and the other
    /// commands only warn, since a glob over hot-pluggable devices may match later.
    /// `others`: ids a rule may also name (power domains: `rapl:package-0`).
    public static func unknownSensors(_ config: UserConfig, sensors: [ThermalSensor], others: [String] = []) -> [ConfigProblem] {
        config.sensors.enumerated().compactMap { i, rule in
            if sensors.contains(where: { rule.match.matches($0.id) }) || others.contains(where: rule.match.matches) { return nil }
            let ids = sensors.map(\.id)
            let shown = ids.prefix(12).joined(separator: ", ") + (ids.count > 12 ? ", … (\(ids.count) in all)" : "")
            return ConfigProblem(
                kind: .unknownSensor, file: config.path ?? "config", line: rule.line, key: "sensor[\(i + 1)].match",
                message: "\"\(rule.match.pattern)\" matches no sensor of this machine",
                expected: ids.isEmpty ? "a sensor id (this source has no temperature sensors)" : "one of these ids or a glob over them: \(shown)")
        }
    }

    /// The commented example. It must pass `thermtop config --check` on any machine, so its
    /// rules use globs that match whatever sensors exist.
    public static let defaultText = """
        # thermtop configuration: $XDG_CONFIG_HOME/thermtop/config.toml (~/.config/thermtop/config.toml).
        # Check it with `thermtop config --check`; `thermtop --no-config` ignores it;
        # `--config FILE` reads another file. Command-line options win over this file.

        delay = 1.0                 # seconds between samples (0.2 to 3600)
        units = "celsius"           # or "fahrenheit": shown in °F, still decided in °C (key f toggles)
        color = true                # false: monochrome (NO_COLOR and --no-color also do this)
        ascii = false               # true: ASCII bars, sparklines and boxes

        # Run a command on every change of thermal state, low power or tier (no shell: the line
        # is split into words; values arrive only in THERMTOP_STATE, THERMTOP_TIER,
        # THERMTOP_LOW_POWER, THERMTOP_REASON, THERMTOP_PREVIOUS_STATE).
        # on_change = "logger -t thermtop state-changed"
        # on_change_min_interval = 10.0   # seconds between two runs; the last change is never lost
        # on_change_timeout = 30.0        # a run taking longer is stopped (SIGTERM, then SIGKILL)
        # One run at a time; changes during a run wait, and the latest runs after it. Refused
        # (with a warning) when this file or its folder can be written by group or others.

        # Who is heating it (docs/heat-sources.md): the process table to read (as --proc-root;
        # a captured table for a bug report), and how many of the top sources `export` writes
        # (as --heat-sources N, 1 to 10; off when unset: it walks /proc each sample).
        # proc_root = "/proc"
        # export_heat_sources = 3

        # [[sensor]] rules apply in order; a later rule's keys win. `match` is a sensor id
        # (`thermtop status --json | jq -r '.sensors[].id'` lists them) or a glob of ids:
        # * any text, ? one character, [abc] one of a set.
        #
        # [[sensor]]
        # match = "pci-*/nvme/*"    # hide every NVMe channel
        # hide = true
        #
        # [[sensor]]
        # match = "platform-coretemp.0/coretemp/Package id 0"
        # name = "CPU"              # shown everywhere instead of the kernel's name
        # fair = 70.0               # any of fair / serious / critical / hysteresis, in °C
        # serious = 85.0
        # critical = 95.0
        # hysteresis = 3.0          # a level clears this far below its threshold
        # pin = true                # listed first on the dashboard
        # ignore = false            # true: shown, but never decides the state

        """
}

#if canImport(Glibc)
private let sysRead = Glibc.read
#else
private let sysRead = Darwin.read
#endif
