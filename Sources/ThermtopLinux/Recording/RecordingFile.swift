#if canImport(Glibc)
import Glibc
#endif
import CZlib
import ThermtopCore

/// Writes a recording line by line. Each line goes to the kernel in one `write(2)` as soon as
/// it is complete (gzip: compressed and sync-flushed per line), so a recording cut by Ctrl-C
/// or a crash is readable up to its last whole line.
package final class RecordingWriter {
    public let path: String
    private var fd: Int32 = -1
    private var gz: gzFile?
    public private(set) var bytesWritten = 0
    public private(set) var lines = 0

    /// True when `path` asks for gzip (`.gz`).
    public static func isGzip(_ path: String) -> Bool { path.hasSuffix(".gz") }

    public init(path: String) throws(RecordingIOError) {
        self.path = path
        if Self.isGzip(path) {
            // Open with open(2) first for a clear errno, then hand the descriptor to zlib.
            let d = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard d >= 0 else { throw RecordingIOError(path: path, errno: errno, doing: "create") }
            guard let g = gzdopen(d, "wb6") else {
                Glibc.close(d)
                throw RecordingIOError(path: path, message: "zlib could not start a gzip stream")
            }
            gz = g
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw RecordingIOError(path: path, errno: errno, doing: "create") }
        }
    }

    deinit { close() }

    /// Write one line (a newline is added).
    public func write(line: String) throws(RecordingIOError) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        if let gz {
            let n = bytes.withUnsafeBytes { gzwrite(gz, $0.baseAddress, UInt32($0.count)) }
            guard n == Int32(bytes.count), gzflush(gz, Z_SYNC_FLUSH) == Z_OK else {
                throw RecordingIOError(path: path, message: "gzip write failed")
            }
        } else {
            do throws(Syscalls.WriteFailure) {
                try Syscalls.writeAll(fd, bytes)
            } catch {
                throw RecordingIOError(path: path, errno: error.code, doing: "write")
            }
        }
        bytesWritten += bytes.count
        lines += 1
    }

    public func close() {
        if let g = gz { gzclose(g); gz = nil }
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}

/// A recording file that could not be opened, read or written.
package struct RecordingIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    init(path: String, errno code: Int32, doing: String) {
        self.path = path
        let why: String
        switch code {
        case ENOENT: why = "no such file or directory"
        case EACCES, EPERM: why = "permission denied"
        case EISDIR: why = "is a directory"
        case ENOSPC: why = "no space left on the device"
        case EROFS: why = "read-only file system"
        default: why = SysfsRoot.errnoName(code)
        }
        message = "cannot \(doing): \(why)"
    }

    public var description: String { "\(path): \(message)" }
}

package enum RecordingFile {
    /// Read and decode a recording (plain or gzip, told apart by its content), streaming it in
    /// chunks: a line longer than `RecordingFormat.maxLineBytes` stops the read with an error
    /// naming it, without reading the rest of that line.
    /// Its errors do not name the file: the caller does, once (`FILE: line 3: …`).
    public static func read(path: String) -> Result<Recording, RecordingError> {
        var st = stat()
        guard stat(path, &st) == 0 else {
            return .failure(RecordingError(line: 0, RecordingIOError(path: path, errno: errno, doing: "open").message))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            return .failure(RecordingError(line: 0, "is a directory, not a recording"))
        }
        let d = open(path, O_RDONLY | O_CLOEXEC)
        guard d >= 0 else {
            return .failure(RecordingError(line: 0, RecordingIOError(path: path, errno: errno, doing: "open").message))
        }
        // gzread reads plain files through unchanged, so one path serves both.
        guard let gz = gzdopen(d, "rb") else {
            close(d)
            return .failure(RecordingError(line: 0, "cannot open"))
        }
        defer { gzclose(gz) }
        gzbuffer(gz, 1 << 16)

        var decoder = RecordingDecoder()
        var line: [UInt8] = []
        var number = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var streamCut = false
        do throws(RecordingError) {
            while true {
                let n = chunk.withUnsafeMutableBytes { gzread(gz, $0.baseAddress, UInt32($0.count)) }
                if n < 0 {
                    // A gzip stream cut short (the recorder was killed mid-block): keep what
                    // decoded; the partial last line is dropped below.
                    streamCut = true
                    break
                }
                if n == 0 { break }
                var start = 0
                for i in 0..<Int(n) where chunk[i] == 0x0A {
                    number += 1
                    if line.isEmpty {
                        try decoder.feed(chunk[start..<i], line: number)
                    } else {
                        line.append(contentsOf: chunk[start..<i])
                        try decoder.feed(line, line: number)
                        line.removeAll(keepingCapacity: true)
                    }
                    start = i + 1
                }
                line.append(contentsOf: chunk[start..<Int(n)])
                if line.count > RecordingFormat.maxLineBytes {
                    throw RecordingError(line: number + 1, "longer than \(RecordingFormat.maxLineBytes >> 20) MiB: not a thermtop recording line")
                }
            }
            if !line.isEmpty || streamCut {
                number += 1
                try decoder.feedLast(line, line: number)
            }
        } catch {
            return .failure(error)
        }
        return decoder.finish()
    }
}
