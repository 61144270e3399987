import ThermtopCore

#if canImport(Glibc)
import Glibc
#endif

/// Parses config text in the `thermtop-toml` helper process (TOMLKit lives there, not in this
/// binary: linked here it would add Foundation and ~4 MB of resident memory to every dashboard,
/// config file or not). Only runs when a config file exists. The helper is looked up next to
/// this executable, then on PATH.
enum TOMLHelper {
    static let name = "thermtop-toml"

    static var path: String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        if n > 0 {
            let exe = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") {
                let candidate = String(exe[..<slash]) + "/" + name
                if access(candidate, X_OK) == 0 { return candidate }
            }
        }
        return name
    }

    static func parse(_ text: String, file: String) -> Result<UserConfig, ConfigError> {
        func failure(_ why: String) -> Result<UserConfig, ConfigError> {
            .failure(ConfigError([ConfigProblem(kind: .unreadable, file: file, line: 0, key: nil, message: why,
                                                expected: "\(name) (thermtop's TOML reader) installed next to thermtop or on PATH; or --no-config")]))
        }
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { return failure("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            return failure("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        for fd in [toChild[0], toChild[1], fromChild[0], fromChild[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        // A helper that crashes on some input (toml++ asserts; see TOMLGuard) must not spill an
        // assertion and a backtrace onto the user's terminal: its failure is reported below.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let helper = path
        let rc = withCStrings([helper, file]) { argv in
            posix_spawnp(&pid, helper, &actions, nil, argv, environ)
        }
        close(toChild[0]); close(fromChild[1])
        if rc != 0 {
            close(toChild[1]); close(fromChild[0])
            return failure("cannot run \(helper): \(String(cString: strerror(rc)))")
        }
        // A writer that ignores SIGPIPE for the moment: a helper that dies early must not kill us.
        let old = signal(SIGPIPE, SIG_IGN)
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(toChild[1], $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            off += n
        }
        close(toChild[1])
        signal(SIGPIPE, old)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fromChild[0], $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            out += buf[0..<n]
        }
        close(fromChild[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status != 0 {
            let how = status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)"
            return failure("\(helper) failed on this file (\(how))")
        }
        guard let result = ConfigTransfer.decode(String(decoding: out, as: UTF8.self), file: file) else {
            return failure("\(helper) answered in an unknown format")
        }
        return result
    }
}
