import Foundation
import Testing
import Thermtop

// docs/library-examples.md, compiled: the code between the markers below is the text of its
// examples (their `import` lines aside), and the test at the end checks that it still is.
// The stand-ins are the few shapes of Hummingbird 2 and swift-service-lifecycle 2 (and
// swift-log) the examples use, with the same names and signatures; they do nothing.

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

// BEGIN EXAMPLES
struct Feed: ResponseEncodable {
    var items: [String]
    var recommendations: [String] = []
}

func serve() async throws {
    let thermal = ThermalStatusHub.live()           // this machine's /sys; reads nothing yet
    thermal.start()                                 // samples on its own thread
    defer { thermal.stop() }
    _ = await thermal.firstReading()                // so the first request never waits for it

    let router = Router()
    router.get("/feed") { _, _ -> Feed in
        var feed = Feed(items: try await loadItems())        // what the user asked for: always served
        if thermal.current.tier > .minimal {                 // full > reduced > minimal
            feed.recommendations = try await recommend(for: feed.items)
        }
        return feed
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
    try await app.runService()
}

struct ThermalGate: Service {
    let hub: ThermalStatusHub
    let queue: BatchQueue

    func run() async throws {
        hub.start()
        defer { hub.stop() }
        for await status in hub.statuses().cancelOnGracefulShutdown() {
            await queue.setPaused(status.tier == .minimal)   // resume at reduced or better
        }
    }
}

func runServices(server: any Service, queue: BatchQueue) async throws {
    let gate = ThermalGate(hub: .live(), queue: queue)
    let group = ServiceGroup(services: [server, gate], gracefulShutdownSignals: [.sigterm],
                             logger: Logger(label: "server"))
    try await group.run()
}
// END EXAMPLES

@Suite("Library examples")
struct LibraryExamplesTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The ```swift blocks of a Markdown file, without their `import` lines.
    private static func swiftBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line == "```swift" { current = [] }
            } else if line == "```" {
                blocks.append(current!.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
                current = nil
            } else if !line.hasPrefix("import ") {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test("docs/library-examples.md's Hummingbird and swift-service-lifecycle examples are the code this file compiles")
    func examplesAreCompiled() throws {
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/library-examples.md"), encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let compiled = try #require(source.components(separatedBy: "// BEGIN EXAMPLES\n").last?
            .components(separatedBy: "// END EXAMPLES").first)
        let blocks = Self.swiftBlocks(docs)
        #expect(blocks.count == 2)
        #expect(blocks.joined(separator: "\n\n") == compiled.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
