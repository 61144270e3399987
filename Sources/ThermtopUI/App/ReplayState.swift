import ThermtopCore

/// Where a replayed recording is (`thermtop --replay FILE`), as the feed reports it with each
/// status.
public struct ReplayPosition: Sendable, Equatable {
    /// Index of the last recorded sample fed through the monitor.
    public var index: Int
    /// Its recorded time, seconds since the start of the recording.
    public var time: Double
    /// Recorded time of the next sample; nil when the recording has ended.
    public var nextTime: Double?

    public init(index: Int, time: Double, nextTime: Double?) {
        self.index = index
        self.time = time
        self.nextTime = nextTime
    }
}

/// The replay's playback: what was recorded, where it is, and the playback clock. Pure: the
/// reducer moves it on `tick`s and keys, and asks the feed (`Effect.replayAdvance`) to feed the
/// recorded samples that are due through the monitor; each arrives as a normal status.
public struct ReplayState: Sendable, Equatable {
    /// The file, as given on the command line.
    public var file: String
    /// The recording's header: host, kernel and wall-clock start (ISO 8601 UTC).
    public var host: String
    public var kernel: String
    public var startTime: String
    /// Recorded time of the last sample: the recording's length.
    public var total: Double
    public var sampleCount: Int
    public var position: ReplayPosition
    /// Playback speed: recorded seconds per real second.
    public var speed: Double
    /// The playback clock: at monotonic `anchorNow` the replay stood at recorded `anchorTime`;
    /// it advances at `speed` from there while playing. Re-anchored on resume and speed changes.
    public var anchorNow: Double
    public var anchorTime: Double

    /// Speeds the `<`/`>` keys move between (halving and doubling).
    public static let speedRange = (1.0 / 64)...1024.0

    public init(file: String, host: String, kernel: String, startTime: String, total: Double, sampleCount: Int,
                position: ReplayPosition, speed: Double, now: Double) {
        self.file = file
        self.host = host
        self.kernel = kernel
        self.startTime = startTime
        self.total = total
        self.sampleCount = sampleCount
        self.position = position
        self.speed = speed
        anchorNow = now
        anchorTime = position.time
    }

    public var ended: Bool { position.nextTime == nil }

    /// Recorded time the playback clock shows at monotonic `now` (while playing).
    public func playbackTime(at now: Double) -> Double {
        anchorTime + max(0, now - anchorNow) * speed
    }

    /// Monotonic time at which the next recorded sample is due while playing; nil at the end.
    public var nextDue: Double? {
        position.nextTime.map { anchorNow + max(0, $0 - anchorTime) / speed }
    }

    /// Restart the playback clock at the current position.
    public mutating func anchor(at now: Double) {
        anchorNow = now
        anchorTime = position.time
    }

    /// `12:00:41`: the wall-clock time of the recorded moment (UTC, as recorded); "" when the
    /// header's start time is not ISO 8601.
    public var wallClock: String { ReplayTime.wallClock(startTime, plus: position.time) }

    /// `0:41.2 / 2:00`, `1:02:03.0 / 2:00:00` past an hour: the position to a tenth, so each
    /// step of a fast recording shows.
    public var elapsedText: String {
        let tenth = Int((max(0, position.time) * 10).rounded(.down)) % 10
        return "\(Self.clock(position.time)).\(tenth) / \(Self.clock(total))"
    }

    /// `×2`, `×0.5`, `×1`.
    public var speedText: String {
        let s = speed
        if s == s.rounded() { return "×\(Int(s))" }
        if s >= 0.1 { return "×" + Format.fixed(s, places: s * 10 == (s * 10).rounded() ? 1 : 2) }
        return "×1/\(Int((1 / s).rounded()))"
    }

    static func clock(_ seconds: Double) -> String {
        let t = Int(max(0, seconds).rounded(.down))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return t >= 3600 ? "\(t / 3600):\(two(t / 60 % 60)):\(two(t % 60))" : "\(t / 60):\(two(t % 60))"
    }
}
