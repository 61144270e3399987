import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a spawned program's standard error goes.
enum StderrRoute { case merged, discarded, separate }

/// Runs a program to completion with `posix_spawn` and a blocking `waitpid`, stdin from
/// /dev/null, and returns its exit status (128 + signal when killed) and output.
///
/// Not Foundation's `Process`, for two reasons seen on this toolchain: it learns that a child
/// exited from SIGCHLD, so a test runner started with SIGCHLD blocked (some CI and sandbox
/// launchers do that) waits forever; and its `run()` intermittently crashes the whole test
/// process with a SIGSEGV in `memcpy` (an over-read of `/proc/self/fd` entries,
/// swift-corelibs-foundation PR #5472), which took a full suite down here once. The child gets an
/// empty signal mask and default signal actions, so tmux and thermtop never inherit oddities.
func spawnToCompletion(_ executable: String, _ arguments: [String], environment: [String: String],
                       stderr route: StderrRoute) -> (status: Int32, stdout: [UInt8], stderr: [UInt8], failure: String?) {
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // Close-on-exec from the start (pipe2), so children spawned at the same time by other
    // tests do not inherit our pipes and hold them open: a pipe made first and flagged after
    // leaked its write end to a long-lived child once, and this call waited two minutes for
    // its EOF. The child's own 1 and 2 are dup2'ed, which clears the flag.
    func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        fds.withUnsafeMutableBufferPointer { thermtop_pipe2($0.baseAddress, O_CLOEXEC) } == 0
    }
    var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
    guard closeOnExecPipe(&out) else { return (-1, [], [], "pipe failed: errno \(errno)") }
    if route == .separate {
        guard closeOnExecPipe(&err) else {
            close(out[0]); close(out[1])
            return (-1, [], [], "pipe failed: errno \(errno)")
        }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, out[1], 1)
    switch route {
    case .merged: posix_spawn_file_actions_adddup2(&actions, out[1], 2)
    case .discarded: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    case .separate: posix_spawn_file_actions_adddup2(&actions, err[1], 2)
    }
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attr, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGPIPE, SIGCHLD, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP] { sigaddset(&defaults, sig) }
    posix_spawnattr_setsigdefault(&attr, &defaults)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
    close(out[1])
    if err[1] >= 0 { close(err[1]) }
    guard rc == 0 else {
        close(out[0])
        if err[0] >= 0 { close(err[0]) }
        return (-1, [], [], "cannot run \(executable): \(String(cString: strerror(rc)))")
    }
    // Drain both pipes together, so a child filling one while we block on the other cannot stall.
    var stdout = [UInt8](), stderr = [UInt8]()
    var open = [out[0]] + (err[0] >= 0 ? [err[0]] : [])
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        if poll(&fds, nfds_t(fds.count), -1) < 0 {
            if errno == EINTR { continue }
            break
        }
        for p in fds where p.revents != 0 {
            let n = buffer.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if p.fd == out[0] { stdout.append(contentsOf: buffer[0..<n]) } else { stderr.append(contentsOf: buffer[0..<n]) }
            } else if n == 0 || errno != EINTR {
                close(p.fd)
                open.removeAll { $0 == p.fd }
            }
        }
    }
    for fd in open { close(fd) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS by hand (they are macros).
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, stdout, stderr, nil)
}
