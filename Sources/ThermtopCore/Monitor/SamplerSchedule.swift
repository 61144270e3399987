/// What woke a sample: the sampler's own timer, a command, an event source, or the start.
/// Shown as `label` in the debug overlay and `status --json`; the hub decides from the case
/// whom a new status wakes (a timed sample that announces nothing wakes no one).
public enum MonitorWakeReason: Sendable, Equatable, Hashable {
    /// The first reading (`start`).
    case start
    /// The event sources came up after a first reading made without them (`event sources up`).
    case eventSourcesUp
    /// The sampler's timer: `delay` went by (`timer`).
    case timer
    /// A rediscovery, asked for or at the tier's pace (`refresh`).
    case refresh
    /// A caller asked for a sample (`request`, `key`, `load changed`).
    case request(String)
    /// An event source's hint, with what it said (`uevent power_supply change BAT0`).
    case event(String)

    /// What the debug overlay and JSON show.
    public var label: String {
        switch self {
        case .start: "start"
        case .eventSourcesUp: "event sources up"
        case .timer: "timer"
        case .refresh: "refresh"
        case .request(let why), .event(let why): why
        }
    }
}

/// The sampler's decisions, as a value: given the clock, the last sample, the commands and
/// the event sources' hints it was handed, `next(now:)` says what to do (sample, rediscover
/// first, publish again, stop, or sleep until a time). The hub's thread only carries the
/// steps out; this type holds every rule about when.
package struct SamplerSchedule: Sendable, Equatable {
    /// Seconds between timed samples (at least 50 ms).
    package private(set) var delay: Double
    /// No timed samples or rediscoveries while paused; commands and hints still act.
    package var paused = false
    /// When the next timed sample is due; nil before the sampler's first sample.
    package private(set) var nextSample: Double?
    /// When the devices were last rediscovered.
    package private(set) var lastRediscovery: Double
    /// The tier's rediscovery interval, from the last status published.
    package var refreshInterval: Double

    /// What was asked and not yet done. Every step but `.stop` takes all of it.
    package var pending = Pending()

    package struct Pending: Sendable, Equatable {
        package var stop = false
        /// The first step of a started sampler: the first reading, or one that shows the
        /// event sources.
        package var start: MonitorWakeReason?
        package var refresh = false
        package var request: String?
        /// Hints in the order they came.
        package var hints: [MonitorChangeHint] = []
        /// An event source came up or went down.
        package var eventSources = false

        package init() {}

        /// Whether nothing is waiting.
        package var isEmpty: Bool { self == Pending() }
    }

    /// What to do next.
    package enum Step: Sendable, Equatable {
        /// Leave the sampler loop.
        case stop
        /// Sample (after rediscovering when `rediscover`), woken by `reason`.
        case sample(MonitorWakeReason, rediscover: Bool)
        /// Publish the last status again with the sampler's info (the event sources changed;
        /// nothing is read).
        case republish
        /// Sleep until `until` on the clock, or until a command or a hint (nil: only those).
        case sleep(until: Double?)
    }

    /// Commands from any thread.
    package enum Command: Sendable, Equatable {
        /// Rediscover and sample now.
        case refresh
        /// Sample now; the reason shows as what woke it.
        case sample(reason: String)
        /// Leave the loop.
        case stop
    }

    /// The shortest delay taken.
    package static let minimumDelay = 0.05

    /// A schedule made at `now` (counted as the last rediscovery: devices are found when the
    /// source is made).
    package init(delay: Double, now: Double, refreshInterval: Double) {
        self.delay = max(Self.minimumDelay, delay)
        lastRediscovery = now
        self.refreshInterval = refreshInterval
    }

    /// When the tier-paced rediscovery is due: the one formula the sampler, the dashboard and
    /// the debug overlay use.
    package static func refreshDue(lastRediscovery: Double, interval: Double) -> Double {
        lastRediscovery + interval
    }

    /// When the tier-paced rediscovery is due.
    package var refreshDue: Double { Self.refreshDue(lastRediscovery: lastRediscovery, interval: refreshInterval) }

    /// Set the time between samples (at least 50 ms); applies from the next sample.
    package mutating func setDelay(_ seconds: Double) { delay = max(Self.minimumDelay, seconds) }

    /// A sampler starts: its first step is the first reading when none was made, or (with
    /// event sources) a reading that shows their states.
    package mutating func begin(hasReading: Bool, eventSources: Bool) {
        pending.start = !hasReading ? .start : eventSources ? .eventSourcesUp : nil
    }

    /// Why a sampler that replaced one stuck in a hung read samples at once.
    package static let replacedReason = "a read hung; sampler replaced"

    /// The sampler was replaced while it read (a read hung): the sample it was taking never
    /// ends, so the new one reads at once.
    package mutating func samplerReplaced() { pending.request = pending.request ?? Self.replacedReason }

    /// A stop asked of an earlier sampler does not stop the next one.
    package mutating func cancelStop() { pending.stop = false }

    package mutating func receive(_ command: Command) {
        switch command {
        case .refresh: pending.refresh = true
        case .sample(let reason): pending.request = reason
        case .stop: pending.stop = true
        }
    }

    package mutating func receive(_ hint: MonitorChangeHint) { pending.hints.append(hint) }

    /// An event source came up or went down: its state is published even when nothing is read.
    package mutating func eventSourcesChanged() { pending.eventSources = true }

    /// A reading ran from `start` to `end`. Timed samples keep to one grid, a delay apart from
    /// the first reading's start, whatever was read between them and however long a reading
    /// took: the history keeps one point per step, and a timer that restarts at each reading's
    /// end slides by that reading's length until a step gets no sample (a blank column about
    /// every 1/length samples, and after most slow rediscoveries). A reading before the timer's time
    /// leaves it there; one that ends past it moves it to the first grid time after `end`.
    package mutating func sampled(start: Double, end: Double) {
        let due = nextSample ?? start
        guard end >= due else { return }
        nextSample = due + delay * (((end - due) / delay).rounded(.down) + 1)
    }

    /// The devices were rediscovered at `time`.
    package mutating func rediscovered(at time: Double) { lastRediscovery = time }

    /// What to do at `now`; takes what it acts on out of `pending`.
    ///
    /// What a sample is said to be woken by, first match wins: a refresh command, a sample
    /// command; then each hint in order, a rediscover hint naming itself over all before it
    /// and a resample hint only if nothing else did; then the tier's rediscovery coming due,
    /// and last the timer.
    package mutating func next(now: Double) -> Step {
        if pending.stop { return .stop }
        if let start = pending.start {
            // The first reading is as fresh as a refresh or a hint asked for.
            pending = Pending()
            return .sample(start, rediscover: false)
        }
        var rediscover = false
        var reason: MonitorWakeReason?
        if pending.refresh { rediscover = true; reason = .refresh }
        if let r = pending.request { reason = reason ?? .request(r) }
        for hint in pending.hints {
            switch hint {
            case .rediscover(let why): rediscover = true; reason = .event(why)
            case .resample(let why): reason = reason ?? .event(why)
            }
        }
        if !paused {
            if now >= refreshDue { rediscover = true; reason = reason ?? .refresh }
            if let due = nextSample, now >= due { reason = reason ?? .timer }
        }
        if let reason {
            pending = Pending()
            return .sample(reason, rediscover: rediscover)
        }
        if pending.eventSources {
            pending = Pending()
            return .republish
        }
        pending = Pending()
        guard !paused else { return .sleep(until: nil) }
        return .sleep(until: min(nextSample ?? .infinity, refreshDue))
    }
}

extension MonitorStatus {
    /// When the tier-paced rediscovery after this status is due, on the monitor's clock.
    package var refreshDueAt: Double {
        SamplerSchedule.refreshDue(lastRediscovery: sampler.lastRediscovery, interval: policy.refreshIntervalSeconds)
    }
}
