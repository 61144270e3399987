import ArgumentParser
import ThermtopCore
import ThermtopLinux

/// Load a recording for `--replay`, or exit with a message naming the bad line.
func loadRecording(_ path: String, command: String) throws -> Recording {
    switch RecordingFile.read(path: path) {
    case .success(let r):
        if let cut = r.cutOffLine {
            printError("thermtop\(command): \(path): line \(cut) is cut off (the recording was interrupted); replaying the \(r.samples.count) samples before it")
        }
        return r
    case .failure(let e):
        printError("thermtop\(command): \(path): \(e)")
        // EX_DATAERR: the input data was incorrect.
        throw ExitCode(65)
    }
}
