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
    /// By scalars, so a trailing `\r\n` (one Character) goes too.
    package static func trimmed(_ raw: String) -> String {
        let u = Array(raw.unicodeScalars)
        var end = u.count
        while end > 0, "\n \t\r\0".unicodeScalars.contains(u[end - 1]) { end -= 1 }
        var start = 0
        while start < end, " \t\n".unicodeScalars.contains(u[start]) { start += 1 }
        if start == 0 && end == u.count { return raw }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: u[start..<end])
        return String(kept)
    }

    /// An integer attribute (`cur_state`, `capacity`, `energy_now`…): an optional sign and
    /// ASCII digits, as `Int64(_:)` reads them (nil on overflow).
    package static func integer(_ raw: String, file: String) -> Reading<Int64> {
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
