import Synchronization
import Testing
import ThermtopCore
@testable import ThermtopLinux

/// A recorded backend that counts the reads it serves, by path.
final class CountingBackend: SysfsBackend {
    let files: [String: String]
    let readsCanBlock: Bool
    private let counts = Mutex<[String: Int]>([:])
    private let order = Mutex<[String]>([])
    /// `canBlock`: the root then reads it as it reads files that can hang (through reader
    /// threads, off a reading thread).
    init(_ files: [String: String], canBlock: Bool = false) {
        self.files = files
        readsCanBlock = canBlock
    }
    func read(_ relative: String, keepOpen: Bool) -> Result<String, ReadingIssue> {
        counts.withLock { $0[relative, default: 0] += 1 }
        order.withLock { $0.append(relative) }
        return files[relative].map { .success($0) } ?? .failure(ReadingIssue(file: relative, reason: .missing, detail: "ENOENT"))
    }
    func list(_ relative: String) -> [String]? { nil }
    func exists(_ relative: String) -> Bool { files[relative] != nil }
    func isDirectory(_ relative: String) -> Bool { false }
    func resolved(_ relative: String) -> String? { relative }
    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    func takeOrder() -> [String] { order.withLock { let o = $0; $0 = []; return o } }
}

@Suite("Reading layer: a pass's table of files")
struct PassTableTests {
    @Test("within a sample pass each file reaches the backend once and every reader gets the same answer; outside a pass every read does")
    func oneBackendReadPerFilePerPass() {
        let backend = CountingBackend(["a/temp": "41000\n", "b/temp": "42000\n"])
        let root = SysfsRoot(backend: backend, path: "counted")
        let answers = root.withPass(.sample) { [root.read("a/temp"), root.read("b/temp"), root.read("a/temp"), root.read("a/temp")] }
        #expect(backend.count("a/temp") == 1)
        #expect(backend.count("b/temp") == 1)
        #expect(answers.map { try? $0.get() } == ["41000\n", "42000\n", "41000\n", "41000\n"])
        // A missing file is asked once a pass too, and stays missing for its readers.
        let missing = root.withPass(.sample) { [root.read("c/temp"), root.read("c/temp")] }
        #expect(backend.count("c/temp") == 1)
        #expect(missing.allSatisfy { if case .failure(let i) = $0 { i.reason == .missing } else { false } })
        // (The second sample read the first one's files up front: a/temp twice so far.)
        #expect(backend.count("a/temp") == 2)
        _ = root.read("a/temp")
        _ = root.read("a/temp")
        #expect(backend.count("a/temp") == 4, "outside a pass nothing is remembered")
    }

    @Test("a pass reads up front, in order, the files the last pass of its kind asked for, and serves them from there")
    func profileReadUpFront() {
        let backend = CountingBackend(["z/type": "acpitz\n", "z/temp": "40000\n", "y/temp": "30000\n"])
        let root = SysfsRoot(backend: backend, path: "counted")
        root.withPass(.sample) {
            _ = root.read("z/temp")
            _ = root.read("y/temp")
            _ = root.read("z/temp")
        }
        #expect(backend.takeOrder() == ["z/temp", "y/temp"])
        // The next sample: both read up front (before the body asks), then served from the table;
        // a new file is read when asked; a discovery pass has its own profile.
        let seen = root.withPass(.sample) { () -> [String] in
            let upFront = backend.takeOrder()
            _ = root.read("y/temp")
            _ = root.read("z/temp")
            _ = root.read("z/type")
            return upFront
        }
        #expect(seen == ["z/temp", "y/temp"])
        #expect(backend.takeOrder() == ["z/type"])
        root.withPass(.discovery) {}
        #expect(backend.takeOrder().isEmpty, "no discovery has asked for anything yet")
        // The profile follows what readers asked for last time, in their order.
        let next = root.withPass(.sample) { backend.takeOrder() }
        #expect(next == ["y/temp", "z/temp", "z/type"])
    }
}
