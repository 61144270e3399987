import ThermtopCore

extension ThermalSensorGroup {
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
    var rank: Int { ThermalSensorGroup.allCases.firstIndex(of: self) ?? 0 }
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
        // Each row's sort key is worked out once, then indices are sorted: comparing whole
        // assessments copied them and recomputed headroom and lowercased names per comparison.
        let keys = kept.map { SortKey($0, sort: sort, decider: decider) }
        let order = keys.indices.sorted { i, j in
            let a = keys[i], b = keys[j]
            // Sensors the config pins come first, in every order; then the deciding one.
            if a.pinned != b.pinned { return a.pinned }
            if a.decides != b.decides { return a.decides }
            return reversed ? ordered(b, a, sort) : ordered(a, b, sort)
        }
        return order.map { kept[$0] }
    }

    /// What the orders compare, taken from an assessment once.
    struct SortKey {
        var pinned: Bool, decides: Bool, headline: Bool
        /// Headroom (`.headroom`) or °C (`.temperature`); nil when unread.
        var number: Double?
        /// The lowercased display name (`.name`, `.group`).
        var name = ""
        var rank = 0
        var id: String

        init(_ a: SensorAssessment, sort: SortOrder, decider: String?) {
            pinned = a.pinned
            decides = decider != nil && a.sensor.id == decider
            headline = a.sensor.isHeadline
            id = a.sensor.id
            switch sort {
            case .headroom: number = a.headroom
            case .temperature: number = a.sensor.celsius
            case .name: name = a.sensor.displayName.lowercased()
            case .group: name = a.sensor.displayName.lowercased(); rank = a.sensor.group.rank
            }
        }
    }

    static func ordered(_ a: SortKey, _ b: SortKey, _ sort: SortOrder) -> Bool {
        switch sort {
        case .headroom:
            // The headline CPU first (the row people look for), then closest to the serious
            // threshold first; sensors without a reading last; ties by id.
            if a.headline != b.headline { return a.headline }
            return byNumber(a, b)
        case .temperature:
            return byNumber(a, b)
        case .name:
            return byName(a, b)
        case .group:
            return a.rank != b.rank ? a.rank < b.rank : byName(a, b)
        }
    }

    /// Highest first, unread last, ties by id.
    static func byNumber(_ a: SortKey, _ b: SortKey) -> Bool {
        switch (a.number, b.number) {
        case let (x?, y?): return x != y ? x > y : a.id < b.id
        case (_?, nil): return true
        case (nil, _?): return false
        default: return a.id < b.id
        }
    }

    static func byName(_ a: SortKey, _ b: SortKey) -> Bool {
        a.name != b.name ? a.name < b.name : a.id < b.id
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
}
