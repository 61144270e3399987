import Testing
@testable import ThermtopLinux

/// `SysfsPath` builds an interpolated path in a stack buffer; it must give what `String`'s own
/// interpolation gives, for every piece it takes, on both sides of the buffer's end.
@Suite("A path built by SysfsPath reads as String interpolation does")
struct SysfsPathTests {
    static let dirs = ["", "class/hwmon/hwmon2", "devices/pci0000:00/0000:00:1d.0/0000:02:00.0/nvme/nvme0/hwmon2",
                       "é/ünï/名前", String(repeating: "long/", count: 40), String(repeating: "x", count: 191)]
    static let numbers = [0, 1, 9, 10, 42, 1_000_000, -1, -274000, Int.max, Int.min]

    @Test("every kind of piece, short and past the 192-byte buffer", arguments: dirs)
    func matchesInterpolation(dir: String) {
        for n in Self.numbers {
            for name in ["", "temp", "trip_point_", "ç"] {
                let built = SysfsPath("\(dir)/\(name)\(n)_input").string
                #expect(built == "\(dir)/\(name)\(n)_input", "\(dir) \(name) \(n)")
                #expect(path("\(dir)/\(name)\(n)") == "\(dir)/\(name)\(n)")
            }
        }
        #expect(SysfsPath("\(dir)").string == dir)
        #expect(SysfsPath(stringLiteral: "class/thermal").string == "class/thermal")
    }
}
