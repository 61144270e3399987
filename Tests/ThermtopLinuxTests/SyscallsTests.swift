import Foundation
import Synchronization
import Testing
@testable import ThermtopLinux

#if canImport(Glibc)
import Glibc
#endif

/// fcntl's F_SETPIPE_SZ (<linux/fcntl.h>, which Glibc's module does not carry).
private let setPipeSize: Int32 = 1024 + 7

/// Signals delivered to the writer in the write-all test (its handler only counts).
private let interruptions = Atomic<Int>(0)

@Suite("the system-call funnel")
struct SyscallsTests {
    private func tempDir() throws -> String {
        var template = Array("/tmp/thermtop-syscalls-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    @Test("write-all delivers every byte through a small pipe while signals interrupt it and the reader is slow")
    func writeAllSurvivesEINTRAndShortWrites() throws {
        // Blocking, so a signal that lands while the pipe is full is EINTR (nothing written
        // yet) or a short write (part written): both must continue where they stopped.
        let (r, w) = try Syscalls.pipe(nonBlocking: false)
        _ = fcntl(w, setPipeSize, 4096)
        // No SA_RESTART: the kernel must hand the interruption to the caller.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(SIGURG, &action, &previous)
        defer { sigaction(SIGURG, &previous, nil) }
        interruptions.store(0, ordering: .relaxed)

        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let writer = Mutex<pthread_t?>(nil)
        let finished = Atomic<Bool>(false)
        let signallerDone = Atomic<Bool>(false)
        let failure = Mutex<Syscalls.WriteFailure?>(nil)
        let writing = Thread {
            // A thread may start with signals blocked: this one must take SIGURG.
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            writer.withLock { $0 = pthread_self() }
            do throws(Syscalls.WriteFailure) { try Syscalls.writeAll(w, payload) } catch { failure.withLock { $0 = error } }
            finished.store(true, ordering: .releasing)
            // This thread stays alive until no more signals are aimed at it.
            while !signallerDone.load(ordering: .acquiring) { usleep(100) }
            close(w)
        }
        writing.start()
        let signalling = Thread {
            while !finished.load(ordering: .acquiring) {
                if let t = writer.withLock({ $0 }) { pthread_kill(t, SIGURG) }
                usleep(200)
            }
            signallerDone.store(true, ordering: .releasing)
        }
        signalling.start()

        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1000)
        while true {
            let n = chunk.withUnsafeMutableBytes { b in Syscalls.retryingEINTR { read(r, b.baseAddress, b.count) } }
            if n <= 0 { break }
            received += chunk[..<n]
            if received.count % 50_000 < 1000 { usleep(100) }
        }
        close(r)
        #expect(failure.withLock { $0 } == nil)
        #expect(received.count == payload.count)
        // A Bool, not the arrays: a failed comparison of two 1 MiB arrays is diffed for minutes.
        let intact = received == payload
        #expect(intact, "the bytes that arrived differ from those written")
        #expect(interruptions.load(ordering: .relaxed) > 0, "the writer was never interrupted: the test proved nothing")
    }

    @Test("write-all waits on a full non-blocking descriptor (EAGAIN) instead of failing")
    func writeAllWaitsOnEAGAIN() throws {
        let (r, w) = try Syscalls.pipe(nonBlocking: true)
        _ = fcntl(w, setPipeSize, 4096)
        let payload = [UInt8](repeating: 0x5A, count: 200_000)
        let writing = Thread {
            try? Syscalls.writeAll(w, payload)
            close(w)
        }
        writing.start()
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        var p = pollfd(fd: r, events: Int16(POLLIN), revents: 0)
        while true {
            _ = Syscalls.retryingEINTR { poll(&p, 1, -1) }
            let n = chunk.withUnsafeMutableBytes { read(r, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n > 0 { total += n }
        }
        close(r)
        #expect(total == payload.count)
    }

    @Test("write-all to a pipe whose reader left says EPIPE and how much went out")
    func writeAllReportsEPIPE() throws {
        let old = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, old) }
        let (r, w) = try Syscalls.pipe(nonBlocking: false)
        close(r)
        defer { close(w) }
        #expect(throws: Syscalls.WriteFailure(code: EPIPE, written: 0)) { try Syscalls.writeAll(w, [1, 2, 3]) }
    }

    @Test("pipes are close-on-exec, and non-blocking only when asked")
    func pipeFlags() throws {
        let a = try Syscalls.pipe(nonBlocking: true)
        let b = try Syscalls.pipe(nonBlocking: false)
        defer { for fd in [a.read, a.write, b.read, b.write] { close(fd) } }
        for fd in [a.read, a.write, b.read, b.write] { #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0) }
        #expect(fcntl(a.read, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(a.write, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(b.read, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test("realpath follows a chain of relative and absolute links to the file")
    func realpathOfALinkChain() throws {
        let dir = try Syscalls.realpath(tempDir())
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        mkdir(dir + "/real", 0o755)
        #expect(creat(dir + "/real/file", 0o644) >= 0)
        symlink("real/file", dir + "/one")
        symlink(dir + "/one", dir + "/two")
        symlink("./two", dir + "/three")
        #expect(try Syscalls.realpath(dir + "/three") == dir + "/real/file")
        #expect(try Syscalls.realpath(dir + "/real/../three") == dir + "/real/file")
    }

    @Test("realpath of a missing path, a dangling link or a loop is a typed error with its errno")
    func realpathOfWhatIsNotThere() throws {
        let dir = try tempDir()
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        symlink(dir + "/nowhere", dir + "/dangling")
        symlink("loop", dir + "/loop")
        #expect(throws: Syscalls.Failure(code: ENOENT)) { try Syscalls.realpath(dir + "/missing") }
        #expect(throws: Syscalls.Failure(code: ENOENT)) { try Syscalls.realpath(dir + "/dangling") }
        #expect(throws: Syscalls.Failure(code: ELOOP)) { try Syscalls.realpath(dir + "/loop") }
        #expect(Syscalls.Failure(code: ENOENT).name == "ENOENT")
    }

    @Test("a listing is sorted, without . and .., links and hidden names included")
    func listingIsSorted() throws {
        let dir = try tempDir()
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        for name in ["zone10", "b", "zone2", "A", ".hidden", "a"] { #expect(creat(dir + "/" + name, 0o644) >= 0) }
        mkdir(dir + "/sub", 0o755)
        symlink("nowhere", dir + "/link")
        #expect(try Syscalls.listDirectory(dir) == [".hidden", "A", "a", "b", "link", "sub", "zone10", "zone2"])
        #expect(try Syscalls.listDirectory(dir + "/sub") == [])
        #expect(throws: Syscalls.Failure(code: ENOENT)) { try Syscalls.listDirectory(dir + "/missing") }
        #expect(throws: Syscalls.Failure(code: ENOTDIR)) { try Syscalls.listDirectory(dir + "/a") }
    }

    @Test("a self-pipe: wake makes it readable however often it is called, drain empties it whole")
    func selfPipeWakeAndDrain() throws {
        let p = try Syscalls.pipe(nonBlocking: true)
        defer { close(p.read); close(p.write) }
        func readable() -> Bool {
            var fd = pollfd(fd: p.read, events: Int16(POLLIN), revents: 0)
            return poll(&fd, 1, 0) == 1
        }
        #expect(!readable())
        for _ in 0..<100 { Syscalls.wake(p.write) }
        #expect(readable())
        Syscalls.drain(p.read)
        #expect(!readable(), "bytes left after drain")
        // A full pipe takes no more, and stays readable.
        for _ in 0..<70_000 { Syscalls.wake(p.write) }
        #expect(readable())
        Syscalls.drain(p.read)
        #expect(!readable())
    }
}
