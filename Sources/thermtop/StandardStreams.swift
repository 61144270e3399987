import ArgumentParser
import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// Exit statuses of `thermtop status` (sysexits.h names), documented in `status --help` and
/// the README. ArgumentParser already exits 64 for every usage error.
enum StatusExit {
    /// The state was measured (or no sensor exists at all: a container or VM).
    static let ok: Int32 = 0
    /// Bad invocation: unknown flag, bad value, unusable `--sysfs-root` (EX_USAGE).
    static let usage: Int32 = 64
    /// `--sysfs-root` names a folder that is not a sysfs tree: no `class/` in it (EX_NOINPUT).
    static let notSysfsTree: Int32 = 66
    /// Sensors exist but not one could be read: the state is not measured (EX_UNAVAILABLE).
    static let nothingReadable: Int32 = 69
    /// The report could not be written: stdout closed, full or broken (EX_IOERR).
    static let outputFailed: Int32 = 74
}

/// Writing the report so that a lost report is never silent: a closed, full or broken stdout
/// is an error with a message on stderr and exit 74, not exit 0 with nothing written.
enum StandardStreams {
    /// Whether `fd` is a descriptor this process was started with. With stdout closed (`>&-`)
    /// the lowest free number goes to the first descriptor the process opens (the Swift
    /// runtime's epoll, before `run()` starts), so "open" is not enough; but everything the
    /// process opens itself is close-on-exec, and nothing inherited through exec can be.
    static func isInherited(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFD)
        return flags != -1 && flags & FD_CLOEXEC == 0
    }

    /// Fails early when stdout is closed (`>&-`), before anything is read or written.
    static func requireStdout() throws {
        if !isInherited(STDOUT_FILENO) {
            fail("standard output is closed; nothing to write the report to")
        }
    }

    /// Stdin or stderr closed and still free: point them at /dev/null so no file thermtop
    /// opens later lands on descriptor 0 or 2.
    static func guardClosedDescriptors() {
        for fd in [STDIN_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 {
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd {
                dup2(null, fd)
                close(null)
            }
        }
    }

    /// Writes all of `bytes` to stdout with write(2), retrying short writes and EINTR.
    static func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        // SIGPIPE keeps its default: `thermtop status | head -1` ends quietly, as with any
        // Unix filter, with the conventional 141.
        do throws(Syscalls.WriteFailure) {
            try Syscalls.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer(bytes))
        } catch {
            fail("cannot write the report to standard output: \(String(cString: strerror(error.code)))"
                 + (error.written > 0 ? " (\(error.written) of \(bytes.count) bytes written)" : ""))
        }
    }

    static func fail(_ message: String) -> Never {
        let line = "thermtop: \(message)\n"
        // A closed stderr may now be someone else's descriptor: then stay silent.
        if isInherited(STDERR_FILENO) {
            _ = line.utf8CString.withUnsafeBufferPointer { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        }
        exit(StatusExit.outputFailed)
    }
}
