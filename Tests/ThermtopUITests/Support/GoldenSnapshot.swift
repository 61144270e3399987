import Foundation
import Testing

/// Golden text snapshots in `Tests/ThermtopUITests/Snapshots/NAME.txt`.
///
/// Compare by default. With `THERMTOP_RECORD_SNAPSHOTS=1` in the environment the file is
/// (re)written instead and the test FAILS, so a recording run can never pass for a checking
/// one: record, read the files (`git diff`), then run again without the variable.
enum GoldenSnapshot {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Support
        .deletingLastPathComponent()   // ThermtopUITests
        .appendingPathComponent("Snapshots", isDirectory: true)

    static var recording: Bool { ProcessInfo.processInfo.environment["THERMTOP_RECORD_SNAPSHOTS"] == "1" }

    static func url(_ name: String) -> URL { directory.appendingPathComponent("\(name).txt") }

    /// Checks `text` against the golden file `name` (or records it).
    static func check(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = url(name)
        let contents = text + "\n"
        if recording {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try contents.write(to: file, atomically: true, encoding: .utf8)
                Issue.record("recorded snapshot \(file.lastPathComponent): record mode always fails; check the file and run again without THERMTOP_RECORD_SNAPSHOTS",
                             sourceLocation: sourceLocation)
            } catch {
                Issue.record("could not record snapshot \(file.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let golden = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("""
                no golden snapshot at \(file.path); run with THERMTOP_RECORD_SNAPSHOTS=1 to record it. Rendered:
                \(contents)
                """, sourceLocation: sourceLocation)
            return
        }
        guard golden != contents else { return }
        let a = golden.split(separator: "\n", omittingEmptySubsequences: false)
        let b = contents.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let expected = line < a.count ? String(a[line]) : "<end of file>"
        let actual = line < b.count ? String(b[line]) : "<end of file>"
        Issue.record("""
            snapshot \(name) differs from \(file.lastPathComponent) first at line \(line + 1):
              golden:   \(expected.debugDescription)
              rendered: \(actual.debugDescription)
            (re-record with THERMTOP_RECORD_SNAPSHOTS=1 if the change is intended) Rendered screen:
            \(contents)
            """, sourceLocation: sourceLocation)
    }
}
