/// Why a value is unknown. Every reading in thermtop is optional; when it is `nil`, one of
/// these says why, next to the file it came from, so the UI and JSON can show the reason
/// instead of a made-up number.
public enum ReadingIssueReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The file does not exist (ENOENT): the driver does not export it.
    case missing
    /// EACCES / EPERM.
    case permissionDenied = "permission-denied"
    /// EIO: the hardware did not answer (e.g. iwlwifi while the radio is off).
    case ioError = "io-error"
    /// ENODATA: the sensor has no data now (e.g. disabled channel, firmware not running).
    case noData = "no-data"
    /// EAGAIN / EBUSY: try again later.
    case busy
    /// EINVAL or another errno the kernel returned for this attribute.
    case readFailed = "read-failed"
    /// The path is a directory or otherwise not a regular attribute file (EISDIR).
    case notAFile = "not-a-file"
    /// The file was read but held nothing.
    case empty
    /// The text is not the number the kernel ABI promises.
    case notANumber = "not-a-number"
    /// A number outside the range a real sensor can report (e.g. 999999 °C).
    case implausible
    /// A documented "no value" sentinel: −273.15 °C, 65261.85 °C (nvme), −274 °C…
    case sentinel
    /// The device is in a low-power state (`device/power_state` ≠ D0); reading would wake it.
    case deviceAsleep = "device-asleep"
    /// The device disappeared between two samples (hot-unplug).
    case vanished
    /// A value the kernel printed that thermtop does not know (e.g. an unknown trip type).
    case unrecognised
    /// The read did not return within `ThermalConfig.readDeadlineSeconds` (a hung driver, a slow
    /// SMBus sensor, a FIFO); not retried while that read is still hung.
    case timedOut = "timed-out"
    /// Not read but inferred: a power supply without a `type` file, typed from `uevent`
    /// (`POWER_SUPPLY_TYPE`), from the files it holds, or from its name.
    case inferredType = "inferred-type"
}

/// One reason a value is unknown: which file, why, and the raw text or errno name when useful.
public struct ReadingIssue: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Path relative to the sysfs root (`class/thermal/thermal_zone3/temp`), or a short label.
    public var file: String
    /// Why: missing, permission-denied, io-error, timed-out…
    public var reason: ReadingIssueReason
    /// The raw value (sanitised by the UI before display) or the errno name (`EIO`).
    public var detail: String?

    /// An issue with `file`, its reason and a detail.
    public init(file: String, reason: ReadingIssueReason, detail: String? = nil) {
        self.file = file
        self.reason = reason
        self.detail = detail
    }

    /// `class/thermal/thermal_zone3/temp: read-error (EIO)`: the file first, for lists of issues.
    public var description: String {
        if let detail, !detail.isEmpty { return "\(file): \(reason.rawValue) (\(detail))" }
        return "\(file): \(reason.rawValue)"
    }

    /// Why, in the words every output uses for a value it could not show (dashboard row, status
    /// text, JSON `ignored_reason`, held-sensor reasons): the reason, then the detail if any,
    /// `read-error EIO`, `implausible -274000`, `timed-out`. One place for the wording.
    public var why: String {
        guard let detail, !detail.isEmpty else { return reason.rawValue }
        return "\(reason.rawValue) \(detail)"
    }
}

/// A value read from one file, or why it could not be.
package enum Reading<Value: Sendable & Equatable>: Sendable, Equatable {
    case value(Value)
    case unknown(ReadingIssue)

    package var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    package var issue: ReadingIssue? {
        if case .unknown(let i) = self { return i }
        return nil
    }

    /// Parse further: a value becomes whatever `f` says, an unknown stays unknown.
    package func flatMap<T: Sendable & Equatable>(_ f: (Value) -> Reading<T>) -> Reading<T> {
        switch self {
        case .value(let v): return f(v)
        case .unknown(let i): return .unknown(i)
        }
    }
}

extension Array where Element == ReadingIssue {
    /// The first issue recorded for a file whose name ends with `suffix` (e.g. `"temp"`).
    public func first(forFile suffix: String) -> ReadingIssue? {
        first { $0.file == suffix || $0.file.hasSuffix("/" + suffix) }
    }
}
