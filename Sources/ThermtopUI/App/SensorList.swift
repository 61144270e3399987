import ThermtopCore

extension SensorGroup {
    /// How the dashboard names the group.
    public var label: String {
        switch self {
        case .cpu: "CPU"
        case .gpu: "GPU"
        case .disk: "disk"
        case .wifi: "Wi-Fi"
        case .battery: "battery"
        case .board: "board"
        case .other: "other"
        }
    }

    /// Display order for the group sort.
    var rank: Int { SensorGroup.allCases.firstIndex(of: self) ?? 0 }
}

/// The sensor list's rules: what is hidden, how it filters and sorts. Pure.
public enum SensorList {
    /// Hidden unless `a` (show all) is on: sensors the configuration hides or ignores, mirrors of
    /// another row (x86_pkg_temp of coretemp Package), known dummies (INT3400's fixed 20 °C),
    /// and members folded under their headline (per-core, per-CCD: Enter on the headline).
    public static func isHidden(_ a: SensorAssessment) -> Bool {
        a.hidden || a.ignored || a.sensor.isFolded || a.sensor.memberOf != nil
    }

    /// The members folded under a headline sensor (`shown`: one listed on its own row anyway,
    /// the cited sensor, which the headline's `+N` does not count).
    public static func members(of id: String, in all: [SensorAssessment], shown: String? = nil) -> [SensorAssessment] {
        all.filter { $0.sensor.memberOf == id && $0.sensor.id != shown }
    }

    /// `cited` is the sensor the state's reason names (`ThermalAssessment.cited`): it is never
    /// folded under its headline or hidden as a mirror. `decider`, the one that decided a state
    /// above nominal, comes first in every order after the pinned ones, so the sensor behind the
    /// verdict is always on the first screen.
    public static func rows(_ all: [SensorAssessment], sort: SortOrder, reversed: Bool = false, filter: String,
                            showAll: Bool, cited: String? = nil, decider: String? = nil) -> [SensorAssessment] {
        let needle = filter.lowercased()
        let kept = all.filter { a in
            if !showAll && isHidden(a) && !(a.sensor.id == cited && !a.hidden && !a.ignored) { return false }
            guard !needle.isEmpty else { return true }
            return matches(a, needle)
        }
        return kept.sorted { a, b in
            // Sensors the config pins come first, in every order; then the deciding one.
            if a.pinned != b.pinned { return a.pinned }
            if let decider, (a.sensor.id == decider) != (b.sensor.id == decider) { return a.sensor.id == decider }
            return reversed ? ordered(b, a, sort) : ordered(a, b, sort)
        }
    }

    static func ordered(_ a: SensorAssessment, _ b: SensorAssessment, _ sort: SortOrder) -> Bool {
        switch sort {
        case .headroom:
            return byHeadroom(a, b)
        case .temperature:
            switch (a.sensor.celsius, b.sensor.celsius) {
            case let (x?, y?): return x != y ? x > y : a.sensor.id < b.sensor.id
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.sensor.id < b.sensor.id
            }
        case .name:
            return byName(a, b)
        case .group:
            let x = a.sensor.group.rank, y = b.sensor.group.rank
            return x != y ? x < y : byName(a, b)
        }
    }

    static func byName(_ a: SensorAssessment, _ b: SensorAssessment) -> Bool {
        let x = a.sensor.displayName.lowercased(), y = b.sensor.displayName.lowercased()
        return x != y ? x < y : a.sensor.id < b.sensor.id
    }

    /// Whether a sensor matches filter or search text (already lowercased).
    static func matches(_ a: SensorAssessment, _ needle: String) -> Bool {
        let n = needle.utf8.count
        // A needle longer than the text cannot be in it: checked first, because `contains`
        // builds a table of the needle for every text it searches.
        func has(_ text: String) -> Bool {
            let t = text.lowercased()
            return t.utf8.count >= n && t.contains(needle)
        }
        return has(a.sensor.displayName) || has(a.sensor.name) || has(a.sensor.group.label)
    }

    /// The headline CPU first (the row people look for), then closest to the serious
    /// threshold first; sensors without a reading last; ties by id.
    static func byHeadroom(_ a: SensorAssessment, _ b: SensorAssessment) -> Bool {
        if a.sensor.isHeadline != b.sensor.isHeadline { return a.sensor.isHeadline }
        switch (a.headroom, b.headroom) {
        case let (x?, y?): return x != y ? x > y : a.sensor.id < b.sensor.id
        case (_?, nil): return true
        case (nil, _?): return false
        default: return a.sensor.id < b.sensor.id
        }
    }
}
