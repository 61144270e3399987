import Foundation
import Testing
import Thermtop
import ThermtopTestSupport

// Every ```swift block of the docs (docs/*.md, the DocC articles in Sources/*/*.docc) and of the
// doc comments in Sources is compiled by the test at the end, each block on its own, outside
// the package (as a user's code: `package` declarations are invisible) against the built
// modules. The stand-ins between the markers below are compiled with each block: the few
// shapes of Hummingbird 2 and swift-service-lifecycle 2 (and swift-log) the examples use, with
// the same names and signatures, and the application's own functions they call; they do
// nothing. They are compiled here too, so they stay valid Swift.

// BEGIN STAND-INS
// MARK: Stand-ins for Hummingbird

protocol ResponseEncodable: Encodable {}
struct Request {}
struct BasicRequestContext {}

final class Router {
    init() {}
    @discardableResult
    func get(_ path: String = "",
             use handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseEncodable) -> Self {
        self
    }
}

struct BindAddress {
    static func hostname(_ host: String = "127.0.0.1", port: Int = 8080) -> Self { Self() }
}

struct ApplicationConfiguration {
    init(address: BindAddress = .hostname()) {}
}

struct Application: Service {
    init(router: Router, configuration: ApplicationConfiguration = ApplicationConfiguration()) {}
    func runService() async throws {}
    func run() async throws {}
}

// MARK: Stand-ins for swift-service-lifecycle and swift-log

protocol Service: Sendable {
    func run() async throws
}

struct UnixSignal: Sendable {
    static let sigterm = UnixSignal()
}

struct Logger {
    init(label: String) {}
}

struct ServiceGroup {
    init(services: [any Service], gracefulShutdownSignals: [UnixSignal] = [], cancellationSignals: [UnixSignal] = [],
         logger: Logger) {}
    func run() async throws {}
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    func cancelOnGracefulShutdown() -> Self { self }
}

// MARK: The application's own code the examples call

func loadItems() async throws -> [String] { [] }
func recommend(for items: [String]) async throws -> [String] { [] }

actor BatchQueue {
    func setPaused(_ paused: Bool) {}
}

func prefetchThumbnails() {}
func startPulseAnimation() {}
func pauseEncoding() {}
func backOffEarly(_ trigger: ForecastTrigger) {}
// END STAND-INS


@Suite("Library examples")
struct LibraryExamplesTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Modules a block may import that the build does not have: the stand-ins play them.
    private static let standInModules: Set<String> = ["Hummingbird", "ServiceLifecycle", "Logging"]

    /// The ```swift blocks of a Markdown text (or of doc comments, `///` taken off), with the
    /// line each starts on.
    static func swiftBlocks(_ text: String, docComments: Bool = false) -> [(line: Int, code: String)] {
        var blocks: [(Int, String)] = []
        var current: [Substring]?
        var start = 0
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw
            if docComments {
                let t = raw.drop { $0 == " " }
                guard t.hasPrefix("///") else { current = nil; continue }
                line = t.dropFirst(3)
                if line.hasPrefix(" ") { line = line.dropFirst() }
            }
            if current == nil {
                if line == "```swift" { current = []; start = n + 2 }
            } else if line == "```" {
                blocks.append((start, current!.joined(separator: "\n")))
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    /// Every file whose blocks are compiled, relative to the repository.
    static func documentedFiles() throws -> [String] {
        let fm = FileManager.default
        var files = try fm.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for sub in try fm.subpathsOfDirectory(atPath: root.appendingPathComponent("Sources").path) {
            if (sub.contains(".docc/") && sub.hasSuffix(".md")) || sub.hasSuffix(".swift") { files.append("Sources/" + sub) }
        }
        return files.sorted()
    }

    /// The built modules (`Modules/` beside the test binary) and the module maps of the C
    /// modules they import.
    static func compilerFlags() throws -> [String] {
        let fm = FileManager.default
        let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [binDir, root.appendingPathComponent(".build/debug")]
        let dir = try #require(candidates.first { fm.fileExists(atPath: $0.appendingPathComponent("Modules/Thermtop.swiftmodule").path) },
                               "built modules not found beside \(binDir.path)")
        var flags = ["-I", dir.appendingPathComponent("Modules").path]
        var maps = try fm.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path).filter { $0.hasPrefix("C") }
            .map { root.appendingPathComponent("Sources/\($0)/module.modulemap").path }
        maps += (try fm.contentsOfDirectory(atPath: dir.path)).filter { $0.hasSuffix(".build") }
            .map { dir.appendingPathComponent("\($0)/module.modulemap").path }
        // C modules of the dependencies (swift-atomics' shims, which Prometheus loads).
        let checkouts = root.appendingPathComponent(".build/checkouts")
        for package in (try? fm.contentsOfDirectory(atPath: checkouts.path)) ?? [] {
            let sources = checkouts.appendingPathComponent("\(package)/Sources")
            for target in (try? fm.contentsOfDirectory(atPath: sources.path)) ?? [] {
                maps.append(sources.appendingPathComponent("\(target)/include/module.modulemap").path)
            }
        }
        for m in maps where fm.fileExists(atPath: m) { flags += ["-Xcc", "-fmodule-map-file=" + m] }
        return flags
    }

    @Test("every ```swift block in docs/, the DocC articles and the doc comments compiles outside the package against the built library")
    func everySwiftBlockCompiles() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let standIns = try #require(source.components(separatedBy: "// BEGIN STAND-INS\n").last?
            .components(separatedBy: "// END STAND-INS").first)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("thermtop-docs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let prelude = work.appendingPathComponent("StandIns.swift")
        try ("import Foundation\nimport Thermtop\n" + standIns).write(to: prelude, atomically: true, encoding: .utf8)
        let flags = try Self.compilerFlags()

        var compiled = 0
        for file in try Self.documentedFiles() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for block in Self.swiftBlocks(text, docComments: file.hasSuffix(".swift")) {
                let code = block.code.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                    !(line.hasPrefix("import ") && Self.standInModules.contains(String(line.dropFirst(7))))
                }.joined(separator: "\n")
                let dir = work.appendingPathComponent("\(compiled)")
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                let main = dir.appendingPathComponent("main.swift")
                try code.write(to: main, atomically: true, encoding: .utf8)
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                p.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-module-name", "DocExample"] + flags
                    + [prelude.path, main.path]
                let err = Pipe()
                p.standardError = err
                p.standardOutput = FileHandle.nullDevice
                try p.run()
                let diagnostics = String(decoding: err.fileHandleForReading.readToEndRetryingEINTR(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 0, "\(file):\(block.line): the block does not compile:\n\(diagnostics)")
                compiled += 1
            }
        }
        // The DocC articles' (In a server's three, Apple code on Linux's two…) and the hub's own at least.
        #expect(compiled >= 8, "only \(compiled) blocks found")
    }
}
