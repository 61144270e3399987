import ThermtopCore

extension Panels {
    static func battery(_ state: AppState, into buf: inout CellBuffer, in r: Rect, theme: Theme) {
        guard r.height > 0 else { return }
        let snap = state.status.snapshot
        buf.put("Battery", x: r.x + 1, y: r.y, style: theme.title)
        let x0 = r.x + 9
        let ac = snap.acOnline.map { "AC \($0 ? "online" : "offline")" } ?? (snap.adapters.isEmpty ? nil : "AC unknown")
        guard !snap.batteries.isEmpty else {
            var text = ThermalBattery.noneText
            if let ac { text += " · \(ac)" }
            if !snap.peripherals.isEmpty { text += " · \(snap.peripherals.count) peripheral battery(ies) not counted" }
            fit(text, into: &buf, x: x0, y: r.y, in: r, style: theme.dim, theme: theme)
            return
        }
        let sys = ThermalCombinedBattery(snap.batteries)
        let pct = sys.percent
        let low = pct.map { $0 <= ThermalConfig().batterySaverPercent } ?? false
        var x = x0
        x += buf.put(Format.padLeft(pct.map(Format.percent) ?? "?", 6), x: x, y: r.y, style: low ? theme.level(.fair) : .plain) + 1
        let gaugeWidth = r.width >= 100 ? 20 : 10
        buf.gauge(percent: pct, x: x, y: r.y, width: gaugeWidth, theme: theme, style: low ? theme.fill(.fair) : theme.fill(.nominal))
        x += gaugeWidth + 1
        var parts: [String] = [sys.status?.rawValue ?? "status unknown"]
        if let watts = sys.watts {
            parts.append("\(Format.watts(watts)) \(sys.status == .charging ? "in" : sys.status == .discharging ? "out" : "")")
        }
        if let t = sys.secondsToEmpty { parts.append("\(Format.duration(t)) to empty") } else if let t = sys.secondsToFull {
            parts.append("\(Format.duration(t)) to full")
        } else if sys.status == .discharging || sys.status == .charging {
            parts.append("time unknown (\(snap.batteries.first?.timeUnknownReason ?? "no rate"))")
        }
        if r.height < 2, let ac { parts.append(ac) }
        fit(parts.joined(separator: " · "), into: &buf, x: x, y: r.y, in: r, theme: theme)
        guard r.height >= 2 else { return }
        var second: [String] = []
        if snap.batteries.count > 1 { second.append("total of \(snap.batteries.count) by energy") }
        for b in snap.batteries {
            // Each pack's own charge: BAT1 at 7 % matters even when the total reads 22 %.
            var d = [b.id + (snap.batteries.count > 1 ? " " + (b.percent.map(Format.percent) ?? "?") : "")]
            if let h = b.healthPercent { d.append("health \(Format.percent(h))") }
            if let c = b.cyclesText { d.append(c) }
            second.append(d.joined(separator: ", "))
        }
        if let ac { second.append(ac) }
        if !snap.peripherals.isEmpty { second.append("\(snap.peripherals.count) peripheral battery(ies) not counted") }
        fit(second.joined(separator: " · "), into: &buf, x: x0, y: r.y + 1, in: r, style: theme.dim, theme: theme)
    }
}
