#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux

/// The system calls thermtop makes outside the sysfs reading path, each in one place with its
/// retries and its error: pipes, writing all of a buffer, `realpath(3)`, listing a directory,
/// and the EINTR retry every call shares. A signal handler (the terminal's, `WatchStop`'s)
/// may interrupt any call, and a descriptor a parent left non-blocking may refuse a write, so
/// the callers leave both to this.
package enum Syscalls {
    /// A failed call: the errno it left.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var code: Int32
        package init(code: Int32) { self.code = code }
        /// `ENOENT`, `EACCES` …, as the readings name their failures.
        package var name: String { SysfsRoot.errnoName(code) }
        /// strerror(3): "No such file or directory".
        package var description: String { String(cString: strerror(code)) }
    }

    /// A write that stopped before the end: why, and how many bytes had gone out.
    package struct WriteFailure: Error, Sendable, Equatable {
        package var code: Int32
        package var written: Int
    }

    /// Name the calling thread (the kernel keeps the first 15 bytes): what htop, `top -H` and
    /// `/proc/PID/task/*/comm` show, so a person can see which of thermtop's threads wakes.
    package static func setThreadName(_ name: String) {
        _ = thermtop_set_thread_name(name)
    }

    /// `call` made again while a signal interrupts it (EINTR).
    @inline(__always)
    package static func retryingEINTR<R: BinaryInteger>(_ call: () -> R) -> R {
        while true {
            let r = call()
            if r >= 0 || errno != EINTR { return r }
        }
    }

    /// A pipe (`pipe2(2)`), close-on-exec unless asked otherwise, so no hook or other child
    /// inherits it; non-blocking for a self-pipe a signal handler writes to.
    package static func pipe(nonBlocking: Bool, closeOnExec: Bool = true) throws(Failure) -> (read: Int32, write: Int32) {
        var fds: (Int32, Int32) = (-1, -1)
        let flags = (nonBlocking ? O_NONBLOCK : 0) | (closeOnExec ? O_CLOEXEC : 0)
        let r = withUnsafeMutablePointer(to: &fds) {
            $0.withMemoryRebound(to: Int32.self, capacity: 2) { thermtop_pipe2($0, Int32(flags)) }
        }
        guard r == 0 else { throw Failure(code: errno) }
        return fds
    }

    /// Makes a self-pipe's read end readable: one byte to its non-blocking write end (a full
    /// pipe is readable already, so a failed write loses nothing).
    package static func wake(_ writeEnd: Int32) {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Empties a self-pipe's non-blocking read end.
    package static func drain(_ readEnd: Int32) {
        var buffer = (0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64)
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Writes all of `bytes` to `fd`: short writes continue where they stopped, EINTR is
    /// retried, and a non-blocking descriptor that is full (EAGAIN) is waited on until it
    /// takes more.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(WriteFailure) {
        var off = 0
        while off < bytes.count {
            let n = write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n > 0 {
                off += n
                continue
            }
            let code = n == 0 ? EIO : errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = retryingEINTR { poll(&p, 1, -1) }
            default:
                throw WriteFailure(code: code, written: off)
            }
        }
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(WriteFailure) {
        // withUnsafeBytes rethrows untyped: the failure comes out as a value.
        let failure = bytes.withUnsafeBytes { b -> WriteFailure? in
            do throws(WriteFailure) { try writeAll(fd, b) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// `realpath(3)`: the canonical absolute path, every link followed.
    package static func realpath(_ path: String) throws(Failure) -> String {
        guard let p = Glibc.realpath(path, nil) else { throw Failure(code: errno) }
        defer { free(p) }
        return String(cString: p)
    }

    /// The names in a directory but `.` and `..`, sorted, so whatever lists it
    /// does not depend on the order the filesystem keeps them in.
    package static func listDirectory(_ path: String) throws(Failure) -> [String] {
        guard let dir = opendir(path) else { throw Failure(code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Failure(code: errno) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
