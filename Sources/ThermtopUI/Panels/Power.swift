import ThermtopCore

/// The Throttling line (the plain answer, on the first screen) and the Power line (every shown
/// power domain with a sparkline of its recent watts).
extension Panels {
    /// `Throttling  yes — thermal: CPU 2.1 of 4.7 GHz, …`; nil while nothing can tell.
    static func throttlingText(_ s: MonitorStatus) -> String? {
        guard s.throttling.active != nil else { return nil }
        return Format.throttlingLine(s)
    }

    static func throttling(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0, let text = throttlingText(state.status) else { return }
        let style = state.status.throttling.active == true ? theme.level(.serious) : .plain
        fit(text, into: &buf, x: r.x + 1, y: r.y, in: r, style: style, theme: theme)
    }

    /// The domains the Power line shows, in order.
    static func shownPower(_ s: MonitorStatus) -> [ThermalPowerDomain] { s.power.filter { !$0.hidden } }

    /// One domain as the line shows it: `package-0 12 W of 28 W limit`, `core ?` with the
    /// reason kept for the detail (status --json).
    static func powerItem(_ d: ThermalPowerDomain) -> String {
        let name = d.parent != nil ? String(d.name.split(separator: " ").last ?? Substring(d.name)) : d.name
        guard d.watts != nil else { return "\(name) ? (\(d.reason ?? "no reading"))" }
        return "\(name) \(d.valueText)"
    }

    /// The Power line's text without sparklines, nil when no domain is shown.
    static func powerText(_ s: MonitorStatus) -> String? {
        let shown = shownPower(s)
        return shown.isEmpty ? nil : "Power    " + shown.map(powerItem).joined(separator: " · ")
    }

    /// Columns of sparkline after each domain on a wide screen.
    static let powerSparkWidth = 8

    static func power(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0, let plain = powerText(state.status) else { return }
        let shown = shownPower(state.status)
        let spark = r.width >= Layout.wideWidth
        let needed = plain.count + (spark ? shown.count * (powerSparkWidth + 1) : 0)
        guard spark, needed <= r.width - 2 else {
            fit(plain, into: &buf, x: r.x + 1, y: r.y, in: r, theme: theme)
            return
        }
        var x = r.x + 1
        x += buf.text("Power    ", x: x, y: r.y, theme: theme)
        for (i, d) in shown.enumerated() {
            if i > 0 { x += buf.text(" · ", x: x, y: r.y, style: theme.dim, theme: theme) }
            x += buf.text(powerItem(d), x: x, y: r.y, style: d.atLimit ? theme.level(.fair) : .plain, theme: theme)
            x += 1
            let values = Array((state.powerHistory[d.id] ?? []).suffix(powerSparkWidth))
            let column: [Double?] = Array(repeating: nil, count: powerSparkWidth - values.count) + values.map { Optional($0) }
            // Against the limit where there is one, else with room above the highest point.
            let high = max(d.mainLimit?.watts ?? 0, (values.max() ?? 0) * 1.25, 1)
            buf.sparkline(column, x: x, y: r.y, low: 0, high: high, theme: theme, style: theme.dim)
            x += powerSparkWidth
        }
    }

    /// Extends each domain's watts history by the new status (one point per history step, as
    /// the sensors' sparklines); a domain that is gone loses its history.
    static func recordPower(_ state: inout AppState, _ new: MonitorStatus, advance: Bool) {
        var kept: [String: [Double]] = [:]
        for d in new.power {
            var h = state.powerHistory[d.id] ?? []
            if let w = d.watts {
                if advance || h.isEmpty { h.append(w) } else { h[h.count - 1] = w }
            }
            if h.count > AppState.historyLength { h.removeFirst(h.count - AppState.historyLength) }
            kept[d.id] = h
        }
        state.powerHistory = kept
    }
}
