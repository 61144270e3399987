import Foundation
import Testing

@Suite("Embedding the library in a program")
struct EmbeddingTests {
    @Test("a program that embeds the hub, with a listener calling hub methods, installs no signal handler and gets every update in order")
    func embeddingInstallsNoSignalHandler() throws {
        let check = Thermtop.repo.appendingPathComponent(".build/debug/thermtop-embedding-check").path
        let binary = Proof.binary.hasSuffix("/thermtop")
            ? String(Proof.binary.dropLast("thermtop".count)) + "thermtop-embedding-check" : check
        let path = FileManager.default.isExecutableFile(atPath: binary) ? binary : check
        let r = TmuxE2E.run(path, [Thermtop.fixtures.appendingPathComponent("intel-laptop").path])
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("changed signals: \n"), "\(r.output)")
        #expect(r.output.contains("in order"), "\(r.output)")
    }
}
