// Only test targets use this module; see MachineNeed.swift for why it is empty without Testing.
#if canImport(Testing)
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// Everything up to end of file, reading again when a signal interrupts a read.
    ///
    /// Foundation's `readDataToEndOfFile()` traps on EINTR (a `try!` inside it), and in the
    /// test process a read can be interrupted by a signal handled there (another test's child
    /// exiting): one such read ended a whole `swift test` run.
    public func readToEndRetryingEINTR() -> Data {
        var data = Data()
        while true {
            let chunk = readRetryingEINTR()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one read returns (empty at end of file or on an error), reading again when a
    /// signal interrupts it: `availableData` traps on EINTR as `readDataToEndOfFile()` does.
    public func readRetryingEINTR() -> Data {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if n >= 0 { return Data(buffer[..<n]) }
            if errno != EINTR { return Data() }
        }
    }
}
#endif
