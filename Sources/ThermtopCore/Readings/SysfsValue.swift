/// Parsers from the text of one sysfs attribute to a typed value. Pure: they see a string
/// (already read by the platform layer, trailing newline included or not) and the file name
/// used to label a failure. Units follow the kernel ABI documents
/// (Documentation/ABI/testing/sysfs-class-thermal, sysfs-class-power, hwmon/sysfs-interface.rst).
package enum SysfsValue {
    /// Plausible range for a live temperature reading, in °C.
    package static let plausibleTemperature: ClosedRange<Double> = -55...200
    /// Plausible range for a trip point or chip limit, in °C. Trips at or below 0 °C are
    /// firmware placeholders (0, −273.15, −274, −32768) and anything hotter than this is junk.
    package static let plausibleLimit: ClosedRange<Double> = 0.001...150

    /// Whether `milli` is a value the kernel and firmware print to mean "no value", in m°C. A
    /// `switch`, not a `Set<Int64>`: every limit and temperature read asks, and the set was
    /// built on first use and hashed each value.
    package static func isSentinel(_ milli: Int64) -> Bool {
        switch milli {
        case -273_150, -273_250, -274_000, -32_768_000, 65_261_850, 65_535_000, 127_000_000: true
        default: false
        }
    }

    /// The text with surrounding whitespace and the trailing newline removed: at the end
    /// newlines, spaces, tabs, carriage returns and NULs, at the start spaces, tabs and newlines.
    /// By bytes (all of them ASCII), not by Characters: every value read goes through here, and
    /// grapheme breaking is most of the cost of a Character loop. (As bytes, a trailing `\r\n`
    /// is two bytes and goes; as one Character it was neither `\r` nor `\n` and stayed.)
    /// (The bytes are read through `withUTF8` and the kept ones made a String by decoding them:
    /// the ends removed are whole ASCII scalars, so that is the same text as `raw[start..<end]`,
    /// without the String.Index walk and Substring copy that cost ~600 instructions a value.)
    package static func trimmed(_ raw: String) -> String {
        var raw = raw
        let cut = raw.withUTF8 { bytes -> String? in
            let kept = trimmedBounds(bytes)
            if kept.count == bytes.count { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[kept]), as: UTF8.self)
        }
        return cut ?? raw
    }

    /// The bytes `trimmed` keeps.
    private static func trimmedBounds(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var end = bytes.count
        while end > 0 {
            let b = bytes[end - 1]
            guard b == 0x0A || b == 0x20 || b == 0x09 || b == 0x0D || b == 0x00 else { break }
            end -= 1
        }
        var start = 0
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0A {
            start += 1
        }
        return start..<end
    }

    /// An integer attribute (`cur_state`, `capacity`, `energy_now`…).
    package static func integer(_ raw: String, file: String) -> Reading<Int64> {
        // The number read from the trimmed bytes where it is, as `Int64(trimmed(raw))` reads it
        // (an optional `+` or `-`, then ASCII digits, nil on overflow): the trimmed String and
        // the generic parse cost ~300 instructions a value, and `status` reads ~100. Anything
        // else (empty, not a number) takes the String path below, which words the issue.
        var raw = raw
        let fast = raw.withUTF8 { bytes -> Int64? in
            let kept = trimmedBounds(bytes)
            var i = kept.lowerBound
            guard i < kept.upperBound else { return nil }
            let negative = bytes[i] == UInt8(ascii: "-")
            if negative || bytes[i] == UInt8(ascii: "+") { i += 1 }
            guard i < kept.upperBound else { return nil }
            var n: Int64 = 0
            while i < kept.upperBound {
                let d = bytes[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                // Accumulated negatively when negative, so Int64.min parses and nothing else overflows.
                let (times10, o1) = n.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? times10.subtractingReportingOverflow(Int64(d))
                                          : times10.addingReportingOverflow(Int64(d))
                guard !o1, !o2 else { return nil }
                n = next
                i += 1
            }
            return n
        }
        if let fast { return .value(fast) }
        let text = trimmed(raw)
        if text.isEmpty { return .unknown(ReadingIssue(file: file, reason: .empty)) }
        guard let n = Int64(text) else {
            return .unknown(ReadingIssue(file: file, reason: .notANumber, detail: String(text.prefix(24))))
        }
        return .value(n)
    }

    /// A string attribute (`type`, `status`, `model_name`…). Empty text is unknown.
    package static func string(_ raw: String, file: String) -> Reading<String> {
        let text = trimmed(raw)
        if text.isEmpty { return .unknown(ReadingIssue(file: file, reason: .empty)) }
        return .value(text)
    }

    /// The one decimal-scaling rule: an integer attribute in kernel units (m°C, µW, µWh…) →
    /// base units (÷ `divisor`), unknown (`implausible`, the raw number kept) outside `range`.
    /// `reject` turns away raw values that mean "no value" before scaling; `magnitude` reads a
    /// signed value as its size (−Int64.min does not exist: a fuzzed current_now of INT_MIN once
    /// trapped on negation).
    package static func scaled(_ raw: String, file: String, divisor: Double, range: ClosedRange<Double>? = nil,
                               magnitude: Bool = false,
                               reject: (Int64) -> ReadingIssue? = { _ in nil }) -> Reading<Double> {
        switch integer(raw, file: file) {
        case .unknown(let issue): return .unknown(issue)
        case .value(let n):
            if let issue = reject(n) { return .unknown(issue) }
            let v = (magnitude ? Double(n.magnitude) : Double(n)) / divisor
            if let range, !range.contains(v) { return .unknown(ReadingIssue(file: file, reason: .implausible, detail: "\(n)")) }
            return .value(v)
        }
    }

    /// m°C → °C (trip points, temperatures, hysteresis, netlink events): the kernel's thermal unit.
    package static let milliPerUnit = 1000.0
    /// µ-units → base units (power_supply's µWh, µAh, µW, µA, µV).
    package static let microPerUnit = 1_000_000.0

    /// A firmware "no value" sentinel, as an issue.
    private static func sentinel(_ milli: Int64, file: String) -> ReadingIssue? {
        isSentinel(milli) ? ReadingIssue(file: file, reason: .sentinel, detail: "\(milli)") : nil
    }

    /// A live temperature in millidegrees Celsius → °C, rejecting sentinels, absurd values and
    /// the exact 0 that drivers print for a channel they do not implement (amdgpu `mem`).
    package static func temperature(_ raw: String, file: String) -> Reading<Double> {
        scaled(raw, file: file, divisor: milliPerUnit, range: plausibleTemperature) { milli in
            if milli == 0 { return ReadingIssue(file: file, reason: .implausible, detail: "0 (channel not implemented)") }
            return sentinel(milli, file: file)
        }
    }

    /// A trip point or chip limit in m°C → °C. Junk (≤ 0 °C, sentinels, implausibly high) is unknown.
    package static func limit(_ raw: String, file: String) -> Reading<Double> {
        scaled(raw, file: file, divisor: milliPerUnit, range: plausibleLimit) { sentinel($0, file: file) }
    }

    /// A trip hysteresis (a delta in m°C; the ABI text says °C but kernels print m°C).
    package static func hysteresis(_ raw: String, file: String) -> Reading<Double> {
        scaled(raw, file: file, divisor: milliPerUnit, range: 0...50)
    }

    /// A non-negative micro-unit value (µWh, µAh, µW, µA, µV) → base unit (Wh, Ah, W, A, V),
    /// bounded by `max` in base units. Signed values are accepted as magnitudes when `signed`.
    package static func micro(_ raw: String, file: String, max: Double, signed: Bool = false) -> Reading<Double> {
        scaled(raw, file: file, divisor: microPerUnit, range: 0...max, magnitude: signed)
    }

    /// A percentage 0…100.
    package static func percent(_ raw: String, file: String) -> Reading<Double> {
        switch integer(raw, file: file) {
        case .unknown(let issue): return .unknown(issue)
        case .value(let n):
            guard (0...100).contains(n) else {
                return .unknown(ReadingIssue(file: file, reason: .implausible, detail: "\(n)"))
            }
            return .value(Double(n))
        }
    }

    /// A 0/1 flag (`present`, `online`; `online` 2 = "online, programmable").
    package static func flag(_ raw: String, file: String) -> Reading<Bool> {
        switch integer(raw, file: file) {
        case .unknown(let issue): return .unknown(issue)
        case .value(let n):
            switch n {
            case 0: return .value(false)
            case 1, 2: return .value(true)
            default: return .unknown(ReadingIssue(file: file, reason: .implausible, detail: "\(n)"))
            }
        }
    }
}
