// Only test targets use this module, but SwiftPM builds every regular target, also in a
// `--static-swift-stdlib` release build, where Swift Testing is not available: there it is empty.
#if canImport(Testing)
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Something of the machine a test needs (a tool, a Python package, root) and how to get it.
///
/// A test declares its needs with the `.needs(…)` trait. On a machine that lacks one, the test is
/// skipped with a one-line reason that starts with ``MachineNeed/skipPrefix``, so every such skip
/// in a run is found with `grep 'needs:'`. Under `CI=true` a missing need is a broken CI setup:
/// the test fails with the same reason instead of being skipped, so CI can never pass silently.
public struct MachineNeed: Sendable, CustomStringConvertible {
    /// What every skip message starts with.
    public static let skipPrefix = "needs:"

    /// What is needed, as a person would name it: "tmux", "/usr/bin/python3".
    public let what: String
    /// How to get it on Debian or Ubuntu.
    public let remedy: String
    private let probe: @Sendable () -> Bool

    public init(_ what: String, remedy: String, probe: @escaping @Sendable () -> Bool) {
        self.what = what
        self.remedy = remedy
        self.probe = probe
    }

    /// A package's executable, on PATH or in the usual system folders.
    public static func tool(_ name: String, package: String? = nil) -> MachineNeed {
        MachineNeed(name, remedy: "apt-get install -y \(package ?? name)") { TestMachine.executable(name) != nil }
    }

    public var isMet: Bool { probe() }

    public var description: String { "\(what) (\(remedy))" }
}

extension MachineNeed {
    public static let tmux = tool("tmux")
    public static let bash = tool("bash")
    public static let zsh = tool("zsh")
    public static let fish = tool("fish")
    public static let setpriv = tool("setpriv", package: "util-linux")
    public static let genl = tool("genl", package: "iproute2")
    /// Debian's own interpreter: Debian's Python packages live under it, not under a `python3`
    /// that PATH may find first (pyenv, a venv).
    public static let systemPython = MachineNeed("/usr/bin/python3", remedy: "apt-get install -y python3") {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }
    public static let prometheusClient = MachineNeed("python3-prometheus-client", remedy: "apt-get install -y python3-prometheus-client") {
        hasPrometheusClient
    }
    /// Asked once per run: it starts a Python.
    private static let hasPrometheusClient = TestMachine.systemPythonImports("prometheus_client")
    /// A real `dbus-daemon` and `dbus-send`, and python3-dbusmock's power-profiles template.
    public static let dbus = MachineNeed("dbus-daemon, dbus-send and python3-dbusmock",
                                         remedy: "apt-get install -y dbus-daemon dbus-bin python3-dbusmock") {
        TestMachine.executable("dbus-daemon") != nil && TestMachine.executable("dbus-send") != nil
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/power_profiles_daemon.py")
    }
    /// A C compiler: `cc`, or the `clang` that ships beside `swift` in every Swift toolchain.
    public static let cCompiler = MachineNeed("a C compiler (cc, or the toolchain's clang)", remedy: "apt-get install -y gcc") {
        TestMachine.cCompiler != nil
    }
    /// Root, for tests that write kernel files or drop to a throwaway user.
    public static let root = MachineNeed("root", remedy: "run the tests as root, e.g. sudo swift test") { geteuid() == 0 }
}

/// Facts about the machine the tests run on.
public enum TestMachine {
    /// `CI=true` (or 1, yes), as CI runners set it.
    public static var inCI: Bool {
        let v = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
        return v == "true" || v == "1" || v == "yes"
    }

    /// The full path of `name` on PATH or in the usual system folders, nil when absent.
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        return dirs.lazy.filter { !$0.isEmpty }.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `cc` where there is one, else the `clang` in the same folder as `swift` (every Swift
    /// toolchain ships one), else nil.
    public static let cCompiler: String? = {
        if let cc = executable("cc") { return cc }
        guard let swift = executable("swift") else { return nil }
        let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
        let clang = real.deletingLastPathComponent().appendingPathComponent("clang").path
        return FileManager.default.isExecutableFile(atPath: clang) ? clang : nil
    }()

    /// Whether Debian's /usr/bin/python3 can import `module`.
    public static func systemPythonImports(_ module: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import \(module)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// A copy of the executable at `path` that any user can run, for tests that drop to a
    /// throwaway uid: the build folder may sit in a private home (Debian's /root is mode 700),
    /// which such a user cannot enter. One copy per source path, refreshed once per process
    /// (written beside and renamed over, so a run still using the old one is not disturbed),
    /// under /tmp/thermtop-anyuser/; nil when the copy fails.
    public static func copyForAnyUser(_ path: String) -> String? {
        copies.withLock { copies in
            if let done = copies[path] { return done }
            let fm = FileManager.default
            // Under its own name (tests find it with `pgrep -x`), in a folder named after the source.
            let source = URL(fileURLWithPath: path)
            let dir = "/tmp/thermtop-anyuser/" + source.deletingLastPathComponent().path.replacingOccurrences(of: "/", with: "_")
            let dest = dir + "/" + source.lastPathComponent
            let temp = dest + ".\(getpid())"
            do {
                try fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            } catch { return nil }
            // Copied by another process: a descriptor open for writing here would be inherited by
            // whatever a parallel test spawns meanwhile, and exec of the copy would then fail
            // with ETXTBSY for as long as that child lives.
            let install = Process()
            install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
            install.arguments = ["-m", "755", path, temp]
            do { try install.run() } catch { return nil }
            install.waitUntilExit()
            guard install.terminationStatus == 0, rename(temp, dest) == 0 else { return nil }
            copies[path] = dest
            return dest
        }
    }

    /// Source path → copy; tests run in parallel.
    private static let copies = Mutex<[String: String]>([:])
}

/// What a test that runs under `CI=true` without its needs fails with.
public struct MissingNeed: Error, CustomStringConvertible {
    public let description: String
}

extension Trait where Self == ConditionTrait {
    /// Runs the test (or suite) only where the machine has every one of `needs`: elsewhere it is
    /// skipped with "needs: tmux (apt-get install -y tmux)"; under `CI=true` it fails with that
    /// reason instead.
    public static func needs(_ needs: MachineNeed..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let text = "\(MachineNeed.skipPrefix) " + needs.map(\.description).joined(separator: ", ")
        return .enabled(if: try needsMet(needs, text), Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}

private func needsMet(_ needs: [MachineNeed], _ text: String) throws -> Bool {
    if needs.allSatisfy(\.isMet) { return true }
    if TestMachine.inCI { throw MissingNeed(description: "\(text): missing under CI=true, where .ci/run installs it") }
    return false
}
#endif
