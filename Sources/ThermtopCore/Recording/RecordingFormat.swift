/// `thermtop.recording/1`: what the reading layer saw, sample by sample, as newline-delimited
/// JSON (one object per line, UTF-8):
///
/// 1. a header: `{"schema":"thermtop.recording/1","thermtop_version":…,"host":…,"kernel":…,
///    "start_time":"2026-11-23T12:00:00Z","delay_seconds":1,"root":"/sys"}`;
/// 2. one full frame: `{"t":0,"frame":true,"read":{path: value},"list":{path: [names] | null},
///    "exists":{path: bool},"is_dir":{path: bool},"resolved":{path: canonical path | null}}`
///    with every access of the first sample (and
///    the discovery before it);
/// 3. one line per later sample with only what changed since the line before (a path seen for
///    the first time counts as changed), `{"t":1.002,"read":{…}}`; a sample that changed
///    nothing is `{"t":2.001}`.
///
/// `t` is seconds since the start on the monotonic clock, never decreasing. A read value is the
/// file's raw text (`"45000\n"`) or, when the read failed, `{"issue":"io-error","detail":"EIO"}`.
/// Paths are relative to the sysfs root. A recording made with heat sources says so in its
/// header (`"heat_sources":true`) and each sample line carries what was measured
/// (`"heat_sources":{…}`, `RecordedHeatSources`). Unknown fields are ignored (fields may be added within
/// a version). A last line without its newline is a recording cut short (Ctrl-C, a crash): it
/// is dropped with a note, the rest replays.
package enum RecordingFormat {
    public static let schema = "thermtop.recording/1"
    /// The longest line a reader accepts (a full frame of a big machine is well under 1 MiB).
    public static let maxLineBytes = 64 << 20
    /// The latest sample time a recording may hold, in seconds from its start (about 31
    /// years): times past it are refused when read, and so is `status --at` past it.
    public static let maxSeconds = 1e9
}

/// The outcome of one file read, as recorded.
package enum RecordedRead: Sendable, Equatable {
    case text(String)
    case failed(reason: ReadingIssueReason, detail: String?)
}

/// Accesses of one sample (or, in a replay, the state they add up to).
package struct RecordedAccesses: Sendable, Equatable {
    public var reads: [String: RecordedRead] = [:]
    /// nil entries: the directory could not be listed.
    public var lists: [String: [String]?] = [:]
    public var exists: [String: Bool] = [:]
    public var isDirectory: [String: Bool] = [:]
    /// Canonical paths (`class/hwmon/hwmon1/device` → `devices/platform/coretemp.0`); nil
    /// entries did not resolve.
    public var resolved: [String: String?] = [:]

    public init() {}

    public var isEmpty: Bool { reads.isEmpty && lists.isEmpty && exists.isEmpty && isDirectory.isEmpty && resolved.isEmpty }
    public var count: Int { reads.count + lists.count + exists.count + isDirectory.count + resolved.count }

    /// Apply later changes over this state.
    public mutating func apply(_ c: RecordedAccesses) {
        reads.merge(c.reads) { $1 }
        lists.merge(c.lists) { $1 }
        exists.merge(c.exists) { $1 }
        isDirectory.merge(c.isDirectory) { $1 }
        resolved.merge(c.resolved) { $1 }
    }

    /// What in `new` differs from `self` (entries only in `new`, or with another value).
    public func changes(to new: RecordedAccesses) -> RecordedAccesses {
        var d = RecordedAccesses()
        for (k, v) in new.reads where reads[k] != v { d.reads[k] = v }
        for (k, v) in new.lists where lists[k] == nil || lists[k]! != v { d.lists[k] = v }
        for (k, v) in new.exists where exists[k] != v { d.exists[k] = v }
        for (k, v) in new.isDirectory where isDirectory[k] != v { d.isDirectory[k] = v }
        for (k, v) in new.resolved where resolved[k] == nil || resolved[k]! != v { d.resolved[k] = v }
        return d
    }
}

package struct RecordingHeader: Sendable, Equatable {
    public var thermtopVersion: String
    public var host: String
    /// `uname -srvm`.
    public var kernel: String
    /// Wall-clock time of the start, ISO 8601 UTC.
    public var startTime: String
    public var delaySeconds: Double
    /// The sysfs root that was recorded (`/sys`).
    public var root: String
    /// Whether each sample carries its heat sources (false: a replay says they are unknown).
    public var heatSources = false

    public init(thermtopVersion: String, host: String, kernel: String, startTime: String, delaySeconds: Double, root: String,
                heatSources: Bool = false) {
        self.heatSources = heatSources
        self.thermtopVersion = thermtopVersion
        self.host = host
        self.kernel = kernel
        self.startTime = startTime
        self.delaySeconds = delaySeconds
        self.root = root
    }
}

package struct RecordedSample: Sendable, Equatable {
    /// Seconds since the start of the recording.
    public var time: Double
    public var changes: RecordedAccesses
    /// The heat sources measured at this sample, nil when not recorded.
    public var heatSources: ThermalHeatSources?
    public init(time: Double, changes: RecordedAccesses, heatSources: ThermalHeatSources? = nil) {
        self.time = time
        self.changes = changes
        self.heatSources = heatSources
    }
}

/// A bad recording: which line, and what is wrong with it.
package struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number (0 when the problem is the file as a whole).
    public var line: Int
    public var message: String
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}

/// A whole recording, decoded.
package struct Recording: Sendable, Equatable {
    public var header: RecordingHeader
    /// The first sample is the full frame.
    public var samples: [RecordedSample]
    /// Set when the last line was cut off (no newline, not valid JSON) and dropped.
    public var cutOffLine: Int?

    /// Seconds from the first sample to the last.
    public var duration: Double { (samples.last?.time ?? 0) - (samples.first?.time ?? 0) }

    /// Parse a recording held in memory. Pure: bytes in, recording or the first bad line out.
    public static func parse<C: Collection>(_ bytes: C) -> Result<Recording, RecordingError> where C.Element == UInt8 {
        var decoder = RecordingDecoder()
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        var number = 0
        do throws(RecordingError) {
            while index != bytes.endIndex {
                if bytes[index] == 0x0A {
                    number += 1
                    try decoder.feed(bytes[lineStart..<index], line: number)
                    lineStart = bytes.index(after: index)
                }
                index = bytes.index(after: index)
            }
            if lineStart != bytes.endIndex {
                number += 1
                try decoder.feedLast(bytes[lineStart..<bytes.endIndex], line: number)
            }
            return decoder.finish()
        } catch {
            return .failure(error)
        }
    }
}

/// Decodes a recording line by line (the file reader streams lines into it, so a long
/// recording is never held as text). Pure.
package struct RecordingDecoder: Sendable {
    public private(set) var header: RecordingHeader?
    public private(set) var samples: [RecordedSample] = []
    public private(set) var cutOffLine: Int?
    private var lines = 0

    public init() {}

    /// Decode one whole line (without its newline).
    public mutating func feed<C: Collection>(_ bytes: C, line: Int) throws(RecordingError) where C.Element == UInt8 {
        lines = line
        guard bytes.count <= RecordingFormat.maxLineBytes else {
            throw RecordingError(line: line, "longer than \(RecordingFormat.maxLineBytes >> 20) MiB: not a thermtop recording line")
        }
        // Tolerate CRLF (a recording passed through a Windows editor).
        var body = Array(bytes)
        if body.last == 0x0D { body.removeLast() }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
            throw RecordingError(line: line, "empty line")
        }
        let value: JSONValue
        switch JSONParser.parse(body) {
        case .success(let v): value = v
        case .failure(let f): throw RecordingError(line: line, "not JSON (\(f))")
        }
        guard case .object = value else { throw RecordingError(line: line, "not a JSON object") }
        if header == nil {
            header = try Self.header(value, line: line)
            return
        }
        let sample = try Self.sample(value, line: line, first: samples.isEmpty)
        if let last = samples.last, sample.time < last.time {
            throw RecordingError(line: line, "time \(Self.seconds(sample.time)) goes backwards (the line before is at \(Self.seconds(last.time)))")
        }
        samples.append(sample)
    }

    /// The last line of the file when it has no newline: decoded if whole, else noted as cut off.
    public mutating func feedLast<C: Collection>(_ bytes: C, line: Int) throws(RecordingError) where C.Element == UInt8 {
        do {
            try feed(bytes, line: line)
        } catch {
            // Only a sample line can be cut off harmlessly; a cut header is no recording, and
            // a cut first frame leaves no sample to replay.
            guard header != nil else { throw error }
            guard !samples.isEmpty else {
                throw RecordingError(line: line, "the full frame is cut off (the recording was interrupted, by a full disk say, before its first sample was complete): nothing to replay")
            }
            cutOffLine = line
        }
    }

    public func finish() -> Result<Recording, RecordingError> {
        guard let header else { return .failure(RecordingError(line: 0, "empty file: no thermtop.recording/1 header")) }
        guard !samples.isEmpty else {
            return .failure(RecordingError(line: lines + 1, "no samples after the header (the recording stopped before its first sample)"))
        }
        return .success(Recording(header: header, samples: samples, cutOffLine: cutOffLine))
    }

    static func seconds(_ t: Double) -> String { Format.fixed(t, places: 3) + " s" }

    static func header(_ v: JSONValue, line: Int) throws(RecordingError) -> RecordingHeader {
        guard let schema = v["schema"]?.stringValue else {
            throw RecordingError(line: line, "no \"schema\": not a thermtop recording")
        }
        guard schema == RecordingFormat.schema else {
            if schema.hasPrefix("thermtop.recording/") {
                throw RecordingError(line: line, "schema \(schema) is not \(RecordingFormat.schema) (recorded by another thermtop version)")
            }
            throw RecordingError(line: line, "schema \"\(schema)\" is not \(RecordingFormat.schema): not a thermtop recording")
        }
        let delay = v["delay_seconds"]?.numberValue ?? 1
        guard delay > 0 else { throw RecordingError(line: line, "delay_seconds must be positive") }
        return RecordingHeader(
            thermtopVersion: v["thermtop_version"]?.stringValue ?? "?", host: v["host"]?.stringValue ?? "?",
            kernel: v["kernel"]?.stringValue ?? "?", startTime: v["start_time"]?.stringValue ?? "?",
            delaySeconds: delay, root: v["root"]?.stringValue ?? "/sys", heatSources: v["heat_sources"]?.boolValue ?? false)
    }

    static func sample(_ v: JSONValue, line: Int, first: Bool) throws(RecordingError) -> RecordedSample {
        guard let t = v["t"]?.numberValue else { throw RecordingError(line: line, "no time \"t\"") }
        guard t >= 0, t < RecordingFormat.maxSeconds else { throw RecordingError(line: line, "time \(t) out of range") }
        let isFrame = v["frame"]?.boolValue ?? false
        if first && !isFrame { throw RecordingError(line: line, "expected the full frame (\"frame\":true) after the header") }
        if !first && isFrame { throw RecordingError(line: line, "a second full frame") }
        var a = RecordedAccesses()
        func fields(_ key: String) throws(RecordingError) -> [(String, JSONValue)] {
            guard let f = v[key] else { return [] }
            guard case .object(let pairs) = f else { throw RecordingError(line: line, "\"\(key)\" is not an object") }
            return pairs
        }
        for (path, value) in try fields("read") {
            switch value {
            case .string(let text): a.reads[path] = .text(text)
            case .object:
                guard let r = value["issue"]?.stringValue, let reason = ReadingIssueReason(rawValue: r) else {
                    throw RecordingError(line: line, "read \(path): unknown issue \(value["issue"]?.stringValue ?? "(none)")")
                }
                a.reads[path] = .failed(reason: reason, detail: value["detail"]?.stringValue)
            default: throw RecordingError(line: line, "read \(path): expected text or an issue")
            }
        }
        for (path, value) in try fields("list") {
            switch value {
            case .null: a.lists[path] = .some(nil)
            case .array(let items):
                var names: [String] = []
                for item in items {
                    guard let s = item.stringValue else { throw RecordingError(line: line, "list \(path): an entry is not a string") }
                    names.append(s)
                }
                a.lists[path] = names
            default: throw RecordingError(line: line, "list \(path): expected names or null")
            }
        }
        for (path, value) in try fields("exists") {
            guard let b = value.boolValue else { throw RecordingError(line: line, "exists \(path): expected true or false") }
            a.exists[path] = b
        }
        for (path, value) in try fields("is_dir") {
            guard let b = value.boolValue else { throw RecordingError(line: line, "is_dir \(path): expected true or false") }
            a.isDirectory[path] = b
        }
        for (path, value) in try fields("resolved") {
            switch value {
            case .null: a.resolved[path] = .some(nil)
            case .string(let s): a.resolved[path] = s
            default: throw RecordingError(line: line, "resolved \(path): expected a path or null")
            }
        }
        var heat: ThermalHeatSources?
        if let h = v["heat_sources"] {
            guard let parsed = RecordedHeatSources.parse(h) else { throw RecordingError(line: line, "\"heat_sources\" is not a list of heat sources") }
            heat = parsed
        }
        return RecordedSample(time: t, changes: a, heatSources: heat)
    }
}

extension RecordingFormat {
    /// The header line (without its newline).
    public static func headerLine(_ h: RecordingHeader) -> String {
        JSONValue.object([
            ("schema", .string(schema)),
            ("thermtop_version", .string(h.thermtopVersion)),
            ("host", .string(h.host)),
            ("kernel", .string(h.kernel)),
            ("start_time", .string(h.startTime)),
            ("delay_seconds", .number(h.delaySeconds)),
            ("root", .string(h.root)),
        ] + (h.heatSources ? [("heat_sources", .bool(true))] : [])).serialized(pretty: false)
    }

    /// A sample line (without its newline); `frame` marks the first, full one. Paths are sorted
    /// so the same accesses always give the same bytes.
    public static func sampleLine(_ s: RecordedSample, frame: Bool, commandLines: Bool = false) -> String {
        var fields: [(String, JSONValue)] = [("t", .num(s.time, places: 3))]
        if frame { fields.append(("frame", .bool(true))) }
        let c = s.changes
        if !c.reads.isEmpty {
            fields.append(("read", .object(c.reads.sorted { $0.key < $1.key }.map { k, v in
                switch v {
                case .text(let t): (k, .string(t))
                case .failed(let r, let d): (k, .object([("issue", .string(r.rawValue)), ("detail", .str(d))]))
                }
            })))
        }
        if !c.lists.isEmpty {
            fields.append(("list", .object(c.lists.sorted { $0.key < $1.key }.map { k, v in
                (k, v.map { .array($0.map(JSONValue.string)) } ?? .null)
            })))
        }
        if !c.exists.isEmpty {
            fields.append(("exists", .object(c.exists.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })))
        }
        if !c.isDirectory.isEmpty {
            fields.append(("is_dir", .object(c.isDirectory.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })))
        }
        if !c.resolved.isEmpty {
            fields.append(("resolved", .object(c.resolved.sorted { $0.key < $1.key }.map { ($0.key, .str($0.value)) })))
        }
        if let h = s.heatSources { fields.append(("heat_sources", RecordedHeatSources.value(h, commandLines: commandLines))) }
        return JSONValue.object(fields).serialized(pretty: false)
    }
}

/// Wall-clock times of recorded moments (the replay's source label and the dashboard's REPLAY header).
package enum ReplayTime {
    /// `2026-11-23T12:00:00Z` + 41 s → `12:00:41` (UTC, as recorded); "" when the start time
    /// is not in that form.
    package static func wallClock(_ iso: String, plus seconds: Double) -> String {
        let parts = iso.split(separator: "T")
        guard parts.count == 2 else { return "" }
        let hms = parts[1].prefix(8).split(separator: ":").compactMap { Int($0) }
        guard hms.count == 3 else { return "" }
        let total = (hms[0] * 3600 + hms[1] * 60 + hms[2] + Int(seconds.rounded(.down))) % 86400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(total / 3600)):\(two(total / 60 % 60)):\(two(total % 60))"
    }
}
