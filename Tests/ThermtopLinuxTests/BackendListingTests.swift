import Foundation
import Glibc
import Testing
@testable import ThermtopLinux

/// `FileSystemBackend.list` against Foundation's listing: names decoded from `getdents64`
/// records in a buffer each thread reuses (a short name after a long one must not pick up the
/// long one's leftover bytes), folders needing several `getdents64` calls, names of every length
/// around the small-string limit, non-ASCII names.
@Suite("Listing folders: what the directory holds, with . and ..")
struct BackendListingTests {
    static func expected(_ path: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: path) + [".", ".."])
    }

    /// A new empty folder under the temporary directory (the caller removes it).
    static func temporaryFolder(_ prefix: String) throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: try #require(made))
    }

    @Test("every folder of every fixture lists as Foundation lists it")
    func fixtures() throws {
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path) {
            let root = Fixture.path(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue,
                  let walker = FileManager.default.enumerator(atPath: root) else { continue }
            let backend = FileSystemBackend(rootPath: root)
            #expect(Set(try #require(backend.list(""))) == (try Self.expected(root)))
            for case let relative as String in walker {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDir), isDir.boolValue,
                      (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + relative)) == nil else { continue }
                #expect(Set(try #require(backend.list(relative))) == (try Self.expected(root + "/" + relative)), "\(name): \(relative)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("long names then short ones, names around 15 bytes, non-ASCII names, a folder bigger than one getdents64 buffer")
    func awkwardNames() throws {
        let path = try Self.temporaryFolder("thermtop-list")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fm = FileManager.default
        for folder in ["long", "short", "edges", "big"] { try fm.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true) }
        for i in 0..<20 { try Data().write(to: URL(fileURLWithPath: path + "/long/" + String(repeating: "x", count: 40 + i))) }
        for n in ["a", "b1", "c", ".hidden", "..x"] { try Data().write(to: URL(fileURLWithPath: path + "/short/" + n)) }
        for length in 13...18 { try Data().write(to: URL(fileURLWithPath: path + "/edges/" + String(repeating: "e", count: length))) }
        for n in ["température", "日本語の名前", "ü"] { try Data().write(to: URL(fileURLWithPath: path + "/edges/" + n)) }
        // ~1500 records of ~64 bytes: several 16 KB reads.
        for i in 0..<1500 { try Data().write(to: URL(fileURLWithPath: path + "/big/attribute_with_a_longish_name_\(i)")) }
        let backend = FileSystemBackend(rootPath: path)
        for folder in ["long", "short", "edges", "big", "long", "edges"] {
            #expect(Set(try #require(backend.list(folder))) == (try Self.expected(path + "/" + folder)), "\(folder)")
        }
        #expect(try #require(backend.list("big")).count == 1502)
        #expect(backend.list("missing") == nil)
        #expect(backend.list("short/a") == nil)   // a file: ENOTDIR
    }

    /// Readers take names in natural order (zones, hwmon channels, trips): from a listing kept in
    /// the kernel's order (a small folder) and from a sorted one (a large folder) alike.
    @Test("names come in natural order, from one buffer and from several, and SysfsRoot keeps that order")
    func naturalOrder() throws {
        let path = try Self.temporaryFolder("thermtop-order")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fm = FileManager.default
        for folder in ["small", "big"] { try fm.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true) }
        // Made in an order that is not the natural one (tmpfs lists newest first, ext4 by hash).
        let small = ["thermal_zone10", "temp2_input", "thermal_zone2", "temp10_input", "temp1_input", "b", "a10",
                     "a9", "cooling_device0", "zone007", "zone7", "température", "Z", ".hidden", "-dash"]
        for n in small { try Data().write(to: URL(fileURLWithPath: path + "/small/" + n)) }
        // ~1500 records of ~64 bytes: more than one 16 KB buffer holds.
        for i in (0..<1500).reversed() { try Data().write(to: URL(fileURLWithPath: path + "/big/attribute_with_a_longish_name_\(i * 7919 % 1500)")) }
        let backend = FileSystemBackend(rootPath: path)
        for folder in ["small", "big"] {
            let listed = try #require(backend.list(folder))
            #expect(listed == listed.sorted(by: naturalLess), "\(folder)")
            #expect(Set(listed) == (try Self.expected(path + "/" + folder)), "\(folder)")
        }
        let root = SysfsRoot(backend: backend, path: path)
        let names = try #require(root.list("small"))
        #expect(names == small.filter { !$0.hasPrefix(".") }.sorted(by: naturalLess))
        #expect(Array(names.prefix(4)) == ["-dash", "Z", "a9", "a10"])
        #expect(try #require(root.list("big")).count == 1500)
    }
}
