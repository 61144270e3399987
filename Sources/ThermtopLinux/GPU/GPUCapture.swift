#if canImport(Glibc)
import Glibc
#endif
import ThermtopCore

extension SysfsCapture {
    /// Writes the GPUs' NVML readings (`SysfsGPUReader.storedFiles`) into the capture, where a
    /// `--sysfs-root` on it reads them back. A GPU's UUID is a serial number: left out unless
    /// `keepSerials`.
    public func store(_ files: [(path: String, text: String)]) {
        guard !files.isEmpty else { return }
        mkdir(destination + "/" + SysfsGPUReader.folder, 0o755)
        for f in files {
            let text = keepSerials ? f.text
                : f.text.split(separator: "\n").filter { !$0.hasPrefix("uuid=") }.joined(separator: "\n") + "\n"
            let fd = open(destination + "/" + f.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { continue }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
    }
}
