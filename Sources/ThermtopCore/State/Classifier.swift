/// The level of one temperature sensor, its thresholds and why.
public struct SensorAssessment: Sendable, Equatable, Identifiable {
    /// The sensor and its reading.
    public var sensor: ThermalSensor
    /// Its fair, serious and critical thresholds.
    public var thresholds: SensorThresholds
    /// The level the reading is at.
    public var level: ThermalState
    /// True when the reading is below the level's threshold but above its clearing point.
    public var heldByHysteresis: Bool
    /// True when an override says to leave the sensor out.
    public var ignored: Bool
    /// Why, as values (`ThermalReason`): the reading, the threshold it reached, where it clears.
    public var why: ThermalReason
    /// Why, in °C, as `status --json` prints it: `serious: x86_pkg_temp 91.0 °C ≥ passive trip
    /// 90.0 °C (clears below 88.0 °C)`.
    public var reason: String { why.description }
    /// Set when the sensor has no reading now (unreadable or removed) but decided a level
    /// before: its last level is kept, fail safe, until it reads again or the hold expires.
    public var hold: SensorHold?
    /// The config hides it from what is shown (it is still judged).
    public var hidden: Bool = false
    /// The config pins it to the top of the dashboard.
    public var pinned: Bool = false
    /// No limit of its own and no known role (`SensorThresholds.isUncorroborated`): judged on
    /// default limits only, so it counts as fair at most.
    public var uncorroborated: Bool = false

    public var id: String { sensor.id }

    /// The sensor's level as reported: nil when it has no reading and holds nothing (or its
    /// hold expired), so an unknown sensor is never shown as nominal. `level` is what it adds
    /// to the device state (nominal for an unknown sensor).
    public var reportedLevel: ThermalState? {
        if sensor.celsius != nil { return level }
        if let hold, !hold.expired { return level }
        return nil
    }

    /// How far the sensor is toward its serious threshold: 0 at `ThermalConfig.sortHeadroomSpan`
    /// (30 °C) below it, 1 at it. Orders the dashboard's "nearest limit first" list and picks
    /// the "closest" sensor of a nominal reason. (The forecast's headroom, `thermalHeadroom`,
    /// is 0 at fair and 1 at critical.)
    public var headroom: Double? {
        guard let t = sensor.celsius else { return nil }
        let span = ThermalConfig.sortHeadroomSpan
        return (t - (thresholds.serious.celsius - span)) / span
    }
}

/// A level kept for a sensor that stopped reading (fail safe: a sensor that said "critical"
/// and then went silent must not read as "nominal").
public struct SensorHold: Sendable, Equatable {
    /// The level the sensor had when it last read.
    public var level: ThermalState
    /// Monotonic time (the snapshot clock) of the first sample without a reading.
    public var since: Double
    /// Wall-clock time of day of `since` (`12:01:07`), when the clock knows it.
    public var sinceLabel: String?
    /// Why there is no reading (unreadable file, sensor removed…).
    public var issue: ReadingIssue
    /// True once the hold time has passed: the level is no longer counted.
    public var expired: Bool

    /// A hold of `level` since `since`, for the reading's `issue`.
    public init(level: ThermalState, since: Double, sinceLabel: String?, issue: ReadingIssue, expired: Bool) {
        self.level = level
        self.since = since
        self.sinceLabel = sinceLabel
        self.issue = issue
        self.expired = expired
    }
}

/// A cooling device judged by ChromeOS ratios.
public struct CoolingAssessment: Sendable, Equatable, Identifiable {
    /// The device and its states.
    public var device: CoolingDevice
    /// What it cools (processor, fan, other).
    public var kind: CoolingKind
    /// The level its ratio of states says.
    public var level: ThermalState
    /// True when an override says to leave it out.
    public var ignored: Bool
    /// Why, as `status` prints it.
    public var reason: String
    public var id: String { device.id }
}

/// A fan judged like a fan cooling device (ChromeOS ratios on its duty): a fan the firmware
/// drives to full speed is already a response to heat.
public struct FanAssessment: Sendable, Equatable, Identifiable {
    /// The fan and its readings.
    public var fan: ThermalFan
    /// The level its duty says.
    public var level: ThermalState
    /// True when the fan cannot speak for heat: manual or fixed full-speed control (a person
    /// or the driver chose the speed), or no duty known.
    public var ignored: Bool
    /// Why, as `status` prints it.
    public var reason: String
    public var id: String { fan.id }
}

/// What the Intel throttle counters say.
public struct ThrottleAssessment: Sendable, Equatable {
    /// The counters' sum now.
    public var total: Int64
    /// Increase seen in the sample that last saw the counters rise.
    public var lastIncrease: Int64
    /// Seconds since the counters last rose, nil if never seen rising.
    public var secondsSinceIncrease: Double?
    /// The level throttling says.
    public var level: ThermalState
    /// Why, as `status` prints it.
    public var reason: String
}

/// The device's thermal state with every source and the reason for it.
public struct ThermalAssessment: Sendable, Equatable {
    /// The measured state (nominal when nothing was measured: see `nothingReadable`).
    public var state: ThermalState
    /// Why, as values: the deciding sensor, its reading, rule, threshold and clearing point
    /// (`ThermalReason`), with the heat sources once the monitor names them.
    public var why: ThermalReason
    /// Why, in °C, as `status --json` prints it: `serious: x86_pkg_temp 91.0 °C ≥ passive trip
    /// 90.0 °C (clears below 88.0 °C)`.
    public var reason: String { why.description }
    /// The id of the sensor, cooling device or `throttle` that decided the state, if any.
    public var decidedBy: String?
    /// The sensor the reason names: `decidedBy`, or at nominal the closest sensor it cites.
    /// The dashboard never folds it away.
    public var cited: String?
    /// Each temperature sensor with its level and thresholds.
    public var sensors: [SensorAssessment]
    /// Each cooling device and how hard it works.
    public var cooling: [CoolingAssessment]
    /// CPU throttling seen between samples, if the machine counts it.
    public var throttle: ThrottleAssessment?
    /// True when nothing was measured: sensors or cooling devices exist but not one gave a
    /// reading (and no level is held), or none was found at all. The state is reported to apps
    /// as nominal (as on Apple platforms) and shown to people as unknown; `thermtop status`
    /// exits 69.
    public var nothingReadable: Bool
    /// hwmon fans judged by their duty (`Classifier.assess(fan:config:)`).
    public var fans: [FanAssessment]

    /// An assessment from its parts.
    public init(state: ThermalState, why: ThermalReason, decidedBy: String?, sensors: [SensorAssessment],
                cooling: [CoolingAssessment], throttle: ThrottleAssessment?, nothingReadable: Bool = false,
                fans: [FanAssessment] = [], cited: String? = nil) {
        self.state = state
        self.why = why
        self.decidedBy = decidedBy
        self.cited = cited ?? decidedBy
        self.sensors = sensors
        self.cooling = cooling
        self.throttle = throttle
        self.nothingReadable = nothingReadable
        self.fans = fans
    }

    /// Sensors that keep a level they can no longer confirm.
    public var heldSensors: [SensorAssessment] { sensors.filter { $0.hold.map { !$0.expired } ?? false } }

    /// The measured state, nil when nothing could be read.
    public var measuredState: ThermalState? { nothingReadable ? nil : state }

    /// False when nothing was measured (`nothingReadable`).
    public var measured: Bool { !nothingReadable }

    /// Before any sample: nominal, nothing measured yet.
    public static let unknown = ThermalAssessment(
        state: .nominal, why: ThermalReason(.noSample), decidedBy: nil, sensors: [], cooling: [], throttle: nil)
}

/// What the classifier remembers between samples: each sensor's last level (for hysteresis)
/// and the throttle counters' history.
public struct ClassifierMemory: Sendable, Equatable {
    /// Each sensor's last level, by id.
    public var levels: [String: ThermalState] = [:]
    /// The throttle counters' last total.
    public var throttleTotal: Int64?
    /// When they last rose (monitor clock).
    public var throttleRoseAt: Double?
    /// By how much they rose then.
    public var throttleLastIncrease: Int64 = 0
    /// The last assessment of each sensor that read above nominal: what a hold keeps when the
    /// sensor goes silent or disappears.
    public var lastElevated: [String: SensorAssessment] = [:]
    /// The last assessment of every sensor present in the previous sample, so one that
    /// disappears is listed as removed (for the hold time) rather than vanishing without a word.
    /// (Made on demand: the classifier keeps the two parts below.)
    public var lastSeen: [String: SensorAssessment] {
        get {
            var all = removedSeen
            for i in presentSeen.indices { all[presentSeen[i].sensor.id] = presentSeen[i] }
            return all
        }
        set {
            presentSeen = []
            removedSeen = newValue
        }
    }
    /// `lastSeen` of the sensors present in the previous sample: that sample's own assessments,
    /// the array shared with it. A dictionary of them copied each assessment (a dozen strings
    /// retained) into storage of a few dozen kilobytes at every sample.
    var presentSeen: [SensorAssessment] = []
    /// `lastSeen` of the sensors removed since, still within their hold time.
    var removedSeen: [String: SensorAssessment] = [:]

    /// `lastSeen[id]` without making the dictionary.
    func lastSeen(_ id: String) -> SensorAssessment? {
        // The last of one id wins, as in the dictionary.
        for i in presentSeen.indices.reversed() where presentSeen[i].sensor.id == id { return presentSeen[i] }
        return removedSeen[id]
    }
    /// When each silent sensor stopped reading (monotonic time, wall-clock label).
    public var silentSince: [String: SilentMark] = [:]

    /// When a sensor went silent: monotonic time and wall-clock label.
    public struct SilentMark: Sendable, Equatable {
        /// Monitor-clock seconds.
        public var time: Double
        /// Wall-clock time of day (`12:01:07`), when known.
        public var label: String?
    }

    /// Nothing remembered.
    public init() {}
}

/// Turns a snapshot into a thermal state. Pure: the same snapshot, config and memory give the
/// same answer; `memory` carries hysteresis and throttle history to the next call.
public enum ThermalClassifier {
    /// Level of one sensor given its previous level. Rising: the highest level whose
    /// threshold is reached. Falling: a level is kept while the reading stays at or above
    /// `threshold − hysteresis`.
    public static func level(celsius t: Double, thresholds th: SensorThresholds,
                             previous: ThermalState) -> (level: ThermalState, held: Bool) {
        let raw = th.level(at: t)
        if raw >= previous { return (raw, false) }
        var kept = raw
        for s in [ThermalState.fair, .serious, .critical] where s <= previous && s > raw && t >= th[s]!.clearsBelow {
            kept = s
        }
        return (kept, kept > raw)
    }

    /// Judge one sensor: its thresholds from its own limits, the config and the overrides, its level with hysteresis against `memory`.
    public static func assess(sensor raw: consuming ThermalSensor, config: ThermalConfig,
                              previous: ThermalState) -> SensorAssessment {
        let o = config.override(for: raw)
        let th = SensorThresholds.derive(for: raw, config: config)
        let ignored = o?.ignore ?? false
        // A configured name replaces the kernel's everywhere downstream (reasons, JSON, export).
        // The sensor is moved along, not copied: each copy retains its dozen strings.
        var sensor = raw
        if let n = o?.name { sensor.name = n; sensor.displayName = n }
        let hidden = o?.hidden ?? false, pinned = o?.pinned ?? false
        guard let t = sensor.celsius else {
            let why = sensor.issue.map { "\($0.reason.rawValue)" } ?? "no reading"
            return SensorAssessment(sensor: sensor, thresholds: th, level: .nominal, heldByHysteresis: false,
                                    ignored: ignored, why: ThermalReason(.unread(sensor: sensor.name, why: why)), hold: nil,
                                    hidden: hidden, pinned: pinned)
        }
        var (lvl, held) = level(celsius: t, thresholds: th, previous: previous)
        // A junk input (an unconnected AUXTIN) judged on default limits alone never makes the
        // machine serious or critical by itself.
        let uncorroborated = SensorThresholds.isUncorroborated(sensor, override: o)
        if uncorroborated && lvl > .fair { lvl = .fair; held = false }
        let why = ThermalReason(lvl == .nominal
            ? .belowFair(sensor: sensor.name, celsius: t, fair: th.fair.celsius)
            : .reached(level: lvl, sensor: sensor.name, celsius: t, threshold: th[lvl]!, held: held,
                       uncorroborated: uncorroborated))
        return SensorAssessment(sensor: sensor, thresholds: th, level: ignored ? .nominal : lvl,
                                heldByHysteresis: held, ignored: ignored,
                                why: ignored ? ThermalReason(.ignored(why)) : why, hold: nil,
                                hidden: hidden, pinned: pinned, uncorroborated: uncorroborated)
    }

    /// Judge one cooling device by the ratio of its state to its highest (ChromeOS ratios).
    public static func assess(cooling d: CoolingDevice, config: ThermalConfig) -> CoolingAssessment {
        let type = d.type ?? d.id
        let kind = CoolingKind(type: type)
        if config.ignoredCoolingTypes.contains(type) {
            return CoolingAssessment(device: d, kind: kind, level: .nominal, ignored: true,
                                     reason: "\(type): not a response to heat, ignored")
        }
        guard let cur = d.currentState, let max = d.maxState, max > 0 else {
            return CoolingAssessment(device: d, kind: kind, level: .nominal, ignored: false,
                                     reason: "\(type): state unknown")
        }
        // An on/off fan (max_state 1) is switched on by an active trip: the firmware's "start
        // the fan" point, often a few degrees above idle. It is cooling at work, not a heat
        // level; the zone's own temperature is judged against its limits.
        if kind == .fan && max == 1 {
            return CoolingAssessment(device: d, kind: kind, level: .nominal, ignored: false,
                                     reason: cur >= 1 ? "\(type) on (on/off fan: cooling at an active trip, not a heat level)"
                                                      : "\(type) at \(Swift.max(cur, 0))/1")
        }
        let ratios = config.coolingRatios[kind] ?? CoolingRatios.chromeOS[.other]!
        var lvl = ThermalState.nominal
        var needed = 0
        for s in [ThermalState.fair, .serious, .critical] {
            guard let r = ratios.ratio(for: s) else { continue }
            let n = Int((Double(max) * r).rounded(.up))
            if cur >= n, n > 0 { lvl = s; needed = n }
        }
        // `<type> at <cur>/<max>` or `<level>: cooling device <type> at state <cur>/<max> (≥
        // <needed>, <kind> ratio)`.
        let reason = lvl == .nominal
            ? "\(type) at \(Swift.max(cur, 0))/\(max)"
            : "\(lvl.name): cooling device \(type) at state \(cur)/\(max) (≥ \(needed), \(kind.rawValue) ratio)"
        return CoolingAssessment(device: d, kind: kind, level: lvl, ignored: false, reason: reason)
    }

    /// Judge one fan by its duty, as a fan cooling device.
    public static func assess(fan f: ThermalFan, config: ThermalConfig) -> FanAssessment {
        let name = f.displayName
        switch f.control {
        case .manual?, .fullSpeed?:
            return FanAssessment(fan: f, level: .nominal, ignored: true,
                                 reason: "\(name): \(f.control!.rawValue) control, not a response to heat")
        default: break
        }
        guard f.asleep == nil, let duty = f.dutyFraction else {
            return FanAssessment(fan: f, level: .nominal, ignored: true, reason: "\(name): duty unknown (\(f.state.rawValue))")
        }
        var lvl = ThermalState.nominal
        for s in [ThermalState.fair, .serious, .critical] {
            if let r = config.fanDutyRatios.ratio(for: s), duty >= r { lvl = s }
        }
        let pct = Int((duty * 100).rounded())
        let reason = lvl == .nominal
            ? "\(name) at \(pct) %"
            : "\(lvl): \(name) at \(pct) % of full speed (≥ \(Int((config.fanDutyRatios.ratio(for: lvl)! * 100).rounded())) %, fan ratio)"
        return FanAssessment(fan: f, level: lvl, ignored: false, reason: reason)
    }

    /// `12:01:07` from seconds since local midnight.
    public static func timeOfDayLabel(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down)) % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(s / 3600)):\(two(s % 3600 / 60)):\(two(s % 60))"
    }

    /// A sensor without a reading now: unknown, or holding the level it last read (fail safe)
    /// while `config.sensorHoldSeconds` has not passed since it went silent.
    static func silent(_ unknown: SensorAssessment, issue: ReadingIssue, verb: String, now: Double,
                       timeOfDay: Double?, config: ThermalConfig, memory: inout ClassifierMemory) -> SensorAssessment {
        let id = unknown.sensor.id
        let mark = memory.silentSince[id] ?? ClassifierMemory.SilentMark(time: now, label: timeOfDay.map(timeOfDayLabel))
        memory.silentSince[id] = mark
        guard let last = memory.lastElevated[id], !unknown.ignored else { return unknown }
        var out = unknown
        let since = mark.label.map { "since \($0)" } ?? "for \(Int((now - mark.time).rounded(.down))) s"
        let name = unknown.sensor.name
        let why = issue.why
        if now - mark.time < config.sensorHoldSeconds {
            out.level = last.level
            out.hold = SensorHold(level: last.level, since: mark.time, sinceLabel: mark.label, issue: issue, expired: false)
            out.why = ThermalReason(.holding(level: last.level, sensor: name, verb: verb, since: since, why: why,
                                             last: last.sensor.celsius, holdSeconds: Int(config.sensorHoldSeconds)))
        } else {
            out.hold = SensorHold(level: last.level, since: mark.time, sinceLabel: mark.label, issue: issue, expired: true)
            out.why = ThermalReason(.holdExpired(level: last.level, sensor: name, verb: verb, since: since, why: why,
                                                 holdSeconds: Int(config.sensorHoldSeconds)))
        }
        return out
    }

    /// `timeOfDay`: seconds since local midnight at the sample (from the monitor's clock), used
    /// only to label when a held sensor went silent; nil labels holds by their age instead.
    ///
    /// In five steps: the sensors present, the sensors removed (and the holds of both), the
    /// throttle counters' memory, the deciding source, and the reason explaining it.
    public static func assess(_ snapshot: ThermalSnapshot, config given: ThermalConfig,
                              memory: inout ClassifierMemory, timeOfDay: Double? = nil) -> ThermalAssessment {
        let present = snapshot.temperatureSensors
        let config = given.withMirrorRules(present)
        var pass = SensorPass(present: present.count, seenBefore: memory.presentSeen.count + memory.removedSeen.count)
        assessPresent(present, config: config, now: snapshot.time, timeOfDay: timeOfDay, memory: &memory, into: &pass)
        assessRemoved(config: config, now: snapshot.time, timeOfDay: timeOfDay, memory: &memory, into: &pass)
        let sensors = pass.sensors
        let cooling = snapshot.coolingDevices.map { assess(cooling: $0, config: config) }
        let throttle = assessThrottle(snapshot.throttle, at: snapshot.time, config: config, memory: &memory)
        let fans = snapshot.fans.map { assess(fan: $0, config: config) }
        let decision = decide(sensors: sensors, cooling: cooling, fans: fans, throttle: throttle,
                              gpus: snapshot.gpus, memory: memory)
        // Nothing read at all: said so rather than passing "nominal" off as a measurement.
        let nothingReadable = !sensors.contains { $0.sensor.celsius != nil || ($0.hold.map { !$0.expired } ?? false) }
            && !cooling.contains { $0.device.currentState != nil && $0.device.maxState != nil }
            && throttle == nil
        let (why, cited) = explain(decision, sensors: sensors, cooling: cooling, nothingReadable: nothingReadable,
                                   anyPresent: !pass.seen.isEmpty)
        return ThermalAssessment(state: decision.state, why: why, decidedBy: decision.decidedBy, sensors: sensors,
                                 cooling: cooling, throttle: throttle, nothingReadable: nothingReadable,
                                 fans: fans, cited: cited)
    }

    /// The sensors' assessments as the steps build them, and what the next sample remembers.
    struct SensorPass {
        /// Each sensor present, then each removed one still within its hold time.
        var sensors: [SensorAssessment] = []
        /// The level each sensor adds, for hysteresis at the next sample.
        var levels: [String: ThermalState]
        /// The ids present in this sample.
        var seen: Set<String>

        /// Sized once: these hold every present sensor (and the removed ones still listed).
        init(present: Int, seenBefore: Int) {
            sensors.reserveCapacity(present + seenBefore)
            levels = [String: ThermalState](minimumCapacity: present + seenBefore)
            seen = Set<String>(minimumCapacity: present)
        }

        /// What a sensor adds to the device state: its held level while a hold lasts, else its
        /// level when it read, else nothing.
        mutating func add(_ a: SensorAssessment, read: Bool) {
            levels[a.sensor.id] = a.hold.map { $0.expired ? .nominal : $0.level } ?? (read ? a.level : .nominal)
            sensors.append(a)
        }
    }

    /// Step 1: each sensor present, with hysteresis against its last level; one without a
    /// reading holds the level it last read (`silent`).
    static func assessPresent(_ present: [ThermalSensor], config: ThermalConfig, now: Double, timeOfDay: Double?,
                              memory: inout ClassifierMemory, into pass: inout SensorPass) {
        // By index, each sensor handed over once (iterating copied it out first) and read back
        // from its assessment: a sensor copy retains its dozen strings.
        for i in present.indices {
            let id = present[i].id
            pass.seen.insert(id)
            var a = assess(sensor: present[i], config: config, previous: memory.levels[id] ?? .nominal)
            let read = a.sensor.celsius != nil
            if read {
                memory.silentSince.removeValueIfAny(forKey: id)
                if a.level > .nominal && !a.ignored { memory.lastElevated[id] = a } else { memory.lastElevated.removeValueIfAny(forKey: id) }
            } else {
                let issue = a.sensor.issue ?? ReadingIssue(file: id, reason: .noData)
                a = silent(a, issue: issue, verb: "unreadable", now: now, timeOfDay: timeOfDay, config: config, memory: &memory)
                if a.hold?.expired ?? true { memory.lastElevated.removeValueIfAny(forKey: id) }
            }
            pass.add(a, read: read)
        }
    }

    /// Step 2: a sensor that disappeared (driver unloaded, device removed) is listed as removed
    /// for the hold time; one that decided a level is held at it the same way as an unreadable
    /// one. Those still within their hold keep their last assessment as seen. Then the memory
    /// keeps this sample's sensors for the next.
    static func assessRemoved(config: ThermalConfig, now: Double, timeOfDay: Double?,
                              memory: inout ClassifierMemory, into pass: inout SensorPass) {
        let presentCount = pass.sensors.count
        var stillHeld: [String: SensorAssessment] = [:]
        var goneIDs = memory.removedSeen.keys.filter { !pass.seen.contains($0) }
        for i in memory.presentSeen.indices where !pass.seen.contains(memory.presentSeen[i].sensor.id) {
            goneIDs.append(memory.presentSeen[i].sensor.id)
        }
        var previous: String?
        for id in goneIDs.sorted() where id != previous {
            previous = id
            let last = memory.lastSeen(id)!
            var gone = memory.lastElevated[id] ?? last
            let mark = memory.silentSince[id] ?? ClassifierMemory.SilentMark(time: now, label: timeOfDay.map(timeOfDayLabel))
            if now - mark.time >= config.sensorHoldSeconds {
                memory.lastElevated[id] = nil
                memory.silentSince[id] = nil
                continue
            }
            stillHeld[id] = last
            gone.sensor.celsius = nil
            let issue = ReadingIssue(file: id, reason: .vanished,
                                     detail: "removed " + (mark.label.map { "since \($0)" } ?? "for \(Int((now - mark.time).rounded(.down))) s"))
            gone.sensor.issue = issue
            gone.heldByHysteresis = false
            gone.level = .nominal
            gone.hold = nil
            gone.why = ThermalReason(.unread(sensor: gone.sensor.name, why: issue.detail!))
            // The hold's reason names the time once: pass the issue without the "removed since" detail.
            gone = silent(gone, issue: ReadingIssue(file: id, reason: .vanished), verb: "removed", now: now,
                          timeOfDay: timeOfDay, config: config, memory: &memory)
            if gone.hold?.expired ?? false { memory.lastElevated[id] = nil }
            pass.add(gone, read: false)
        }
        for id in memory.silentSince.keys where !pass.seen.contains(id) && stillHeld[id] == nil {
            memory.silentSince[id] = nil
        }
        // The present sensors' assessments come first in `sensors`, one each.
        memory.presentSeen = pass.sensors.count == presentCount ? pass.sensors : Array(pass.sensors[..<presentCount])
        memory.removedSeen = stillHeld
        memory.levels = pass.levels
    }

    /// Step 3: the Intel throttle counters, serious while they rose within the throttle window.
    static func assessThrottle(_ counters: ThrottleCounters?, at time: Double, config: ThermalConfig,
                               memory: inout ClassifierMemory) -> ThrottleAssessment? {
        guard let counters else {
            memory.throttleTotal = nil
            return nil
        }
        if let before = memory.throttleTotal, counters.total > before {
            memory.throttleRoseAt = time
            memory.throttleLastIncrease = counters.total - before
        }
        memory.throttleTotal = counters.total
        let since = memory.throttleRoseAt.map { time - $0 }
        let active = since.map { $0 <= config.throttleWindowSeconds } ?? false
        return ThrottleAssessment(
            total: counters.total, lastIncrease: memory.throttleLastIncrease, secondsSinceIncrease: since,
            level: active ? .serious : .nominal,
            reason: active
                ? "serious: Intel thermal throttle counters rose by \(memory.throttleLastIncrease) within the last \(Int(config.throttleWindowSeconds)) s"
                : "throttle counters steady (\(counters.total))")
    }

    /// What decided the state: the level, the source's id and its reason (empty at nominal).
    struct Decision {
        var state = ThermalState.nominal
        var decidedBy: String?
        var why: ThermalReason?
    }

    /// Step 4: the deciding source. The highest level wins; among sensors at that level, the
    /// one furthest past its threshold; a cooling device, a fan, the throttle counters or a
    /// GPU's clock-event reasons decide only above every sensor.
    static func decide(sensors ranked: [SensorAssessment], cooling: [CoolingAssessment], fans: [FanAssessment],
                       throttle: ThrottleAssessment?, gpus: [ThermalGPU], memory: ClassifierMemory) -> Decision {
        var d = Decision()
        // Compared by index, fields read in place: an assessment handed to a closure was copied
        // whole (a retain and a release of each of its ~25 references).
        // A held sensor counts at its held level, compared by its last reading.
        func margin(_ i: Int) -> Double {
            let t = ranked[i].sensor.celsius ?? memory.lastElevated[ranked[i].sensor.id]?.sensor.celsius ?? 0
            return t - ranked[i].thresholds[ranked[i].level]!.celsius
        }
        // Mirrors (their primary carries the same die and trips) and known dummies never decide.
        if let h = indexOfMax(ranked.count, where: { !ranked[$0].ignored && !ranked[$0].sensor.isFolded && ranked[$0].level > .nominal },
                              by: { a, b in
            if ranked[a].level != ranked[b].level { return ranked[a].level < ranked[b].level }
            return margin(a) < margin(b)
        }) {
            d = Decision(state: ranked[h].level, decidedBy: ranked[h].sensor.id, why: ranked[h].why)
        }
        if let c = cooling.filter({ !$0.ignored }).max(by: { $0.level < $1.level }), c.level > d.state {
            d = Decision(state: c.level, decidedBy: c.device.stableID ?? c.device.id, why: ThermalReason(.device(c.reason)))
        }
        if let f = fans.filter({ !$0.ignored }).max(by: { $0.level < $1.level }), f.level > d.state {
            d = Decision(state: f.level, decidedBy: f.fan.id, why: ThermalReason(.device(f.reason)))
        }
        if let t = throttle, t.level > d.state {
            d = Decision(state: t.level, decidedBy: "throttle", why: ThermalReason(.device(t.reason)))
        }
        if let g = ThermalGPUClockRule.assess(gpus), g.level > d.state {
            d = Decision(state: g.level, decidedBy: g.gpuID, why: ThermalReason(.device(g.reason)))
        }
        return d
    }

    /// Step 5: the reason for the decision, and the sensor it cites. At nominal it names the
    /// sensor closest to its limit (and counts the unreadable ones); with nothing read it says
    /// so rather than pass "nominal" off as a measurement.
    static func explain(_ d: Decision, sensors ranked: [SensorAssessment], cooling: [CoolingAssessment],
                        nothingReadable: Bool, anyPresent: Bool) -> (ThermalReason, cited: String?) {
        var why = d.why
        var cited: String?
        if d.state == .nominal,
           let t = indexOfMax(ranked.count, where: { ranked[$0].sensor.celsius != nil && !ranked[$0].ignored && !ranked[$0].sensor.isFolded },
                              by: { (ranked[$0].headroom ?? -1) < (ranked[$1].headroom ?? -1) }) {
            cited = ranked[t].sensor.id
            // Never "every sensor" while some could not be read: they are counted. A sensor
            // of a sleeping device is not unread by failure (it is off, and not woken).
            let unread = ranked.filter {
                $0.sensor.celsius == nil && $0.sensor.asleep == nil && !$0.ignored && !$0.sensor.isFolded
            }.count
            why = ThermalReason(.allBelowFair(unreadable: unread, closest: ranked[t].sensor.displayName,
                                              celsius: ranked[t].sensor.celsius!, fair: ranked[t].thresholds.fair.celsius))
        }
        // Sensors listed only because they were removed do not count: with none present, the
        // machine has no sensors (now), which is said as such.
        if nothingReadable && !anyPresent && cooling.isEmpty {
            why = ThermalReason(.nothingFound)
        } else if nothingReadable {
            let example = ranked.first.map { a in "\(a.sensor.name): \(a.sensor.issue?.reason.rawValue ?? "no reading")" }
            why = ThermalReason(.nothingReadable(sensors: ranked.count, cooling: cooling.count, example: example))
        }
        return (why ?? ThermalReason(.noSensorReading), cited)
    }
}

extension ThermalConfig {
    /// A rule or override written for a folded mirror (`x86_pkg_temp`, shown once as coretemp's
    /// package row, which takes over its trips) applies to the row it folds into: its limits
    /// and `ignore` are merged under the primary's own settings, which win. Unchanged (no copy)
    /// when no mirror has a setting.
    func withMirrorRules(_ sensors: [ThermalSensor]) -> ThermalConfig {
        if rules.isEmpty && overrides.isEmpty { return self }
        var out: ThermalConfig?
        for i in sensors.indices {
            guard let primary = sensors[i].mirrorOf, let o = override(for: sensors[i]) else { continue }
            var limits = SensorOverride(serious: o.serious, critical: o.critical, fairBelowSerious: o.fairBelowSerious,
                                        hysteresis: o.hysteresis, ignore: o.ignore, fair: o.fair, ignoreSet: o.ignoreSet)
            guard limits != SensorOverride() else { continue }
            if let p = sensors.first(where: { $0.id == primary }), let own = override(for: p) { limits = limits.merged(with: own) }
            if out == nil { out = self }
            out!.overrides[primary] = limits
        }
        return out ?? self
    }
}

/// Of the indices `0 ..< count` that `include` accepts, the greatest by `less`, the first of
/// equals (what `filter(include).max(by: less)` returns of a list's elements). By index, so the
/// callers read the fields they compare in place: `filter` and iterating copy every assessment
/// out, and so did handing each to a closure.
private func indexOfMax(_ count: Int, where include: (Int) -> Bool, by less: (Int, Int) -> Bool) -> Int? {
    var best: Int?
    for i in 0..<count where include(i) {
        if let b = best, !less(b, i) { continue }
        best = i
    }
    return best
}

extension Dictionary {
    /// `self[key] = nil`, without hashing `key` when the dictionary is empty: the memory's
    /// silent and elevated sensors usually are, and removal (unlike lookup) has no empty fast path.
    fileprivate mutating func removeValueIfAny(forKey key: Key) {
        if !isEmpty { removeValue(forKey: key) }
    }
}
