import ThermtopCore

/// The policy in plain words for a person watching the machine: what the tier means for
/// software here. Every phrase is derived from a field of the one `QualityPolicy` value, so
/// the lines cannot contradict each other; the developer terms (prefetch, inference budget)
/// stay in the debug overlay and the JSON.
extension Panels {
    static func policyHeadline(_ p: QualityPolicy) -> String {
        switch p.tier {
        case .full: "software may work at full pace"
        case .reduced: "software should ease off"
        case .minimal: "software should do only what you ask"
        }
    }

    static func policyMeaning(_ p: QualityPolicy) -> String {
        let heavy: String
        switch p.inference {
        case .full: heavy = "heavy extras run"
        case .reduced(let n): heavy = "heavy extras 1 time in \(n)"
        case .suspended: heavy = "heavy extras paused"
        }
        return "animations \(p.animationsEnabled ? "on" : "off (pulse stopped)") · \(p.prefetchEnabled ? "may load ahead" : "nothing loaded ahead") · \(heavy) · your requests always run"
    }

    static func lowPowerMeaning(_ p: QualityPolicy) -> String {
        guard p.lowPower else { return "not saving power" }
        let a = p.lowPowerAdjustments
        var parts: [String] = []
        if a.skipBackgroundRefresh { parts.append("no background refresh") }
        if a.deferPrefetch { parts.append("no loading ahead") }
        if a.longBatchedSync { parts.append("syncing in bigger batches") }
        if a.coarseLocation { parts.append("location less precise") }
        return "saving power: " + parts.joined(separator: ", ")
    }

    /// Rows the policy panel can use: the tier line, what it means, the schedule, and what
    /// saving power changes when it is on.
    static func policyLines(_ p: QualityPolicy) -> Int { p.lowPower ? 4 : 3 }

    static func policy(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let p = state.status.policy
        let countdown = state.replay != nil ? "as recorded" : state.paused ? "paused" : state.renderPolicy.countdownText(state.secondsUntilRefresh)
        var x = r.x + 1
        x += buf.put("Policy ", x: x, y: r.y, style: theme.title)
        let headline = "tier \(p.tier): \(policyHeadline(p))" + (p.lowPower ? " · saving power" : " · not saving power")
        fit(headline, into: &buf, x: x, y: r.y, in: r, style: theme.title, theme: theme)
        var lines = [
            (policyMeaning(p), CellStyle.plain),
            ("rediscovery every \(Format.duration(p.refreshIntervalSeconds)) (\(countdown)\(state.replay == nil ? ", r = now" : "")) · sensors read and shown every \(Screen.formatSeconds(state.sampleDelay)) at every tier", theme.dim),
        ]
        if p.lowPower { lines.append((lowPowerMeaning(p), theme.level(.fair))) }
        for (i, (text, style)) in lines.enumerated() where i + 1 < r.height {
            fit(text, into: &buf, x: r.x + 3, y: r.y + 1 + i, in: r, style: style, theme: theme)
        }
    }
}
