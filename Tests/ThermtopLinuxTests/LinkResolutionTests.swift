import Foundation
import Glibc
import Testing
@testable import ThermtopLinux

/// `FileSystemBackend.resolved` against realpath(3) on trees made to be awkward: links to
/// links, absolute targets, `..` after a link, dangling links, links to files, loops, chains of
/// 40 and 41 links, the root given through a link or relative to the working directory.
@Suite("Resolving links: what realpath(3) answers, on awkward trees")
struct LinkResolutionTests {
    /// A temporary tree:
    ///
    ///     devices/a/b/{file, c/}
    ///     class/x -> ../devices/a/b          class/abs -> <tree>/devices/a (absolute)
    ///     class/linklink -> x                class/twice -> linklink
    ///     class/dangling -> ../devices/none  class/tofile -> ../devices/a/b/file
    ///     class/up -> ..                     class/out -> / (outside the root)
    ///     class/deep -> x/c                  class/viaup -> ../class/x/../b
    ///     loop1 -> loop2 -> loop1            self -> self
    ///     chain/l0 -> l1 -> … -> l40 -> ../devices   (41 links from l0, 40 from l1)
    ///     rootlink -> . (the root seen through a link)
    final class Tree {
        let path: String
        init() throws {
            var template = Array((FileManager.default.temporaryDirectory.path + "/thermtop-links-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            path = String(cString: try #require(made))
            let fm = FileManager.default
            try fm.createDirectory(atPath: path + "/devices/a/b/c", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: path + "/class", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: path + "/chain", withIntermediateDirectories: true)
            try Data("1\n".utf8).write(to: URL(fileURLWithPath: path + "/devices/a/b/file"))
            let links: [(String, String)] = [
                ("class/x", "../devices/a/b"), ("class/abs", path + "/devices/a"), ("class/linklink", "x"),
                ("class/twice", "linklink"), ("class/dangling", "../devices/none"), ("class/tofile", "../devices/a/b/file"),
                ("class/up", ".."), ("class/out", "/"), ("class/deep", "x/c"), ("class/viaup", "../class/x/../b"),
                ("loop1", "loop2"), ("loop2", "loop1"), ("self", "self"), ("rootlink", "."),
            ] + (0..<40).map { ("chain/l\($0)", "l\($0 + 1)") } + [("chain/l40", "../devices")]
            for (link, target) in links {
                try fm.createSymbolicLink(atPath: path + "/" + link, withDestinationPath: target)
            }
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The paths looked up: every link, in ways a path can go on from it.
    static let paths: [String] = {
        let heads = ["class/x", "class/abs", "class/linklink", "class/twice", "class/dangling", "class/tofile",
                     "class/up", "class/out", "class/deep", "class/viaup", "loop1", "self", "rootlink",
                     "chain/l0", "chain/l1", "chain/l39", "chain/l40", "devices/a", "class", ""]
        let tails = ["", "/c", "/file", "/file/x", "/nonexistent", "/..", "/../..", "/./c/..", "/c/../../b",
                     "/a/b", "/class/x/c", "//c", "/rootlink/class/x"]
        var seen = Set<String>()
        return heads.flatMap { h in tails.map { h + $0 } }.map { $0.hasPrefix("/") ? String($0.dropFirst()) : $0 }
            .filter { !$0.hasSuffix("/..") || !$0.contains("file") }   // realpath refuses `file/..`, see `resolved`
            .filter { seen.insert($0).inserted }
    }()

    /// realpath(3) of `root/relative`, relative to realpath(3) of the root, as `resolved` answers.
    static func realpathRelative(_ root: String, _ relative: String) -> String? {
        guard let r = realpath(relative.isEmpty ? root : root + "/" + relative, nil) else { return nil }
        defer { free(r) }
        let full = String(cString: r)
        guard let rr = realpath(root, nil) else { return full }
        defer { free(rr) }
        let rootReal = String(cString: rr)
        if full == rootReal { return "" }
        return full.hasPrefix(rootReal + "/") ? String(full.dropFirst(rootReal.count + 1)) : full
    }

    /// `absolute` as a path relative to the working directory (`../../tmp/…`).
    static func relativeToWorkingDirectory(_ absolute: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath.split(separator: "/")
        return String(repeating: "../", count: cwd.count) + absolute.drop { $0 == "/" }
    }

    @Test("every path answers what realpath does, in one discovery and each in a fresh one, in either order, its root given absolute, relative, or through a link")
    func awkwardTreeMatchesRealpath() throws {
        let tree = try Tree()
        for rootPath in [tree.path, Self.relativeToWorkingDirectory(tree.path), tree.path + "/rootlink", tree.path + "/"] {
            for order in [Self.paths, Self.paths.reversed()] {
                let shared = FileSystemBackend(rootPath: rootPath)
                for p in order {
                    let expected = Self.realpathRelative(rootPath, p)
                    #expect(shared.resolved(p) == expected, "\(rootPath): \(p)")
                    // Asked again: the remembered answer.
                    #expect(shared.resolved(p) == expected, "\(rootPath): \(p), again")
                    let fresh = FileSystemBackend(rootPath: rootPath)
                    #expect(fresh.resolved(p) == expected, "\(rootPath): \(p), fresh")
                }
            }
        }
        // What the tree was made to show.
        let b = FileSystemBackend(rootPath: tree.path)
        #expect(b.resolved("class/twice") == "devices/a/b")
        #expect(b.resolved("class/x/..") == "devices/a")   // `..` of where the link leads
        #expect(b.resolved("class/abs/b/c") == "devices/a/b/c")
        #expect(b.resolved("class/out") == "/")
        #expect(b.resolved("class/dangling") == nil)
        #expect(b.resolved("class/tofile/x") == nil)
        #expect(b.resolved("loop1") == nil)
        #expect(b.resolved("self") == nil)
        #expect(b.resolved("chain/l0") == nil)       // 41 links
        #expect(b.resolved("chain/l1") == "devices")  // 40, after l0 failed
    }

    @Test("a root of / answers whole paths, as realpath prefixes compare")
    func rootOfSlash() throws {
        let tree = try Tree()
        let backend = FileSystemBackend(rootPath: "/")
        let inside = String(tree.path.dropFirst())
        for p in ["", inside, inside + "/class/x", inside + "/class/up/..", inside + "/loop1", inside + "/class/x/c/../../.."] {
            #expect(backend.resolved(p) == Self.realpathRelative("/", p), "\(p)")
        }
        #expect(backend.resolved("") == "")
    }
}
