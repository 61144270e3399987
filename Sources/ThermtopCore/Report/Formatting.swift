/// Small formatters shared by the text report and the dashboard. Total: a huge, infinite or
/// NaN value (a hostile recording, a command-line number) prints as text and never traps in an
/// integer conversion.
package enum Format {
    /// Largest magnitude printed digit by digit; above it a Double no longer holds every whole
    /// number, and `Int` would trap past 2^63.
    static let exactLimit = 1e15

    /// `1 h 23 min`, `45 min`, `30 s`; `unknown` when not a number.
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "unknown" }
        if abs(seconds) >= exactLimit { return "\(fixed(seconds / 3600, places: 0)) h" }
        let s = Int(seconds.rounded(.down))
        if s >= 3600 { return "\(s / 3600) h \((s % 3600) / 60) min" }
        if s >= 60 { return "\(s / 60) min" }
        return "\(s) s"
    }

    /// `72 %` / `29.7 %` (one decimal only when not whole); `? %` when not a number.
    package static func percent(_ p: Double) -> String {
        guard p.isFinite else { return "? %" }
        let r = (p * 10).rounded() / 10
        return r == r.rounded() && abs(r) < exactLimit ? "\(Int(r)) %" : "\(r) %"
    }

    /// `0.42` for `fixed(0.4199, places: 2)`: always `places` decimals (Foundation-free printf
    /// `%.Nf`). Beyond 10^15 (after scaling) Swift's shortest form (`1e+19`), and `nan`, `inf`
    /// or `-inf` for what is not a finite number.
    package static func fixed(_ v: Double, places: Int) -> String {
        guard v.isFinite else { return v.isNaN ? "nan" : v < 0 ? "-inf" : "inf" }
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < exactLimit else { return "\(v)" }
        let whole = Int(scaled / scale)
        let frac = Int(scaled - Double(whole) * scale)
        var fracText = String(frac)
        while fracText.count < places { fracText = "0" + fracText }
        let sign = v < 0 && scaled > 0 ? "-" : ""
        return places > 0 ? "\(sign)\(whole).\(fracText)" : "\(sign)\(whole)"
    }

    /// `8.01 W`; `? W` when not a number.
    package static func watts(_ w: Double) -> String {
        guard w.isFinite else { return "? W" }
        let r = (w * 100).rounded() / 100
        return "\(r) W"
    }

    /// Text from sysfs made safe for a terminal: control characters (C0, DEL, C1, so also ESC)
    /// become `?`, so a zone type like `evil\e[2J` can never move the cursor or clear a screen.
    package static func clean(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            if u.value < 0x20 || u.value == 0x7f || (0x80..<0xa0).contains(u.value) || u == "\u{FFFD}" {
                out += "?"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Left-justify to a width (truncating with `…`).
    package static func pad(_ s: String, _ width: Int) -> String {
        if s.count > width { return String(s.prefix(max(width - 1, 0))) + "…" }
        return s + String(repeating: " ", count: width - s.count)
    }

    package static func padLeft(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }
}

extension ThermalStatusReport {
    /// The readable text of `thermtop status`, temperatures in `units` (the config's choice).
    public static func text(_ s: MonitorStatus) -> String { text(s, units: .celsius) }

    package static func text(_ s: MonitorStatus, units: TemperatureUnit) -> String {
        let snap = s.snapshot
        let p = s.policy
        var lines: [String] = []
        lines.append("thermtop status — source: \(Format.clean(s.sourceLabel))\(s.sourceIsSimulated ? " (SIMULATED)" : "")")
        if snap.isEmpty {
            lines.append("No thermal sensors, cooling devices or batteries were found under this sysfs root.")
            lines.append("This is normal in containers and most VMs; run `thermtop status --simulate` to see the simulated laptop.")
        }
        lines.append("")
        let unmeasured = s.stateIsUnknown ? "  (NOT MEASURED: nothing could be read; apps are told nominal)" : ""
        lines.append("State      \(s.shownStateName)\(s.stateIsSimulated ? "  (SIMULATED; measured \(s.assessment.measuredState?.name ?? "nothing"))" : "")\(unmeasured)")
        lines.append("Reason     \(Format.clean(s.why.text(units)))")
        lines.append("Forecast   \(forecastLine(s, units: units))")
        lines.append(Format.throttlingLine(s))
        lines.append("Low power  \(s.lowPowerHeadline)")
        for r in s.lowPowerAssessment.reasons { lines.append("           - \(Format.clean(r))") }
        lines.append("Tier       \(p.tier)")
        lines.append("Policy     refresh every \(Format.fixed(p.refreshIntervalSeconds, places: 0)) s · animations \(p.animationsEnabled ? "on" : "off") · prefetch \(p.prefetchEnabled ? "on" : "off") · inference \(p.inference)")
        if p.lowPower { lines.append("           low power: \(p.lowPowerAdjustments.summary.joined(separator: ", "))") }
        lines.append("           work the person asks for is never blocked")

        if !s.assessment.sensors.isEmpty {
            for h in s.assessment.sensors where h.sensor.isHeadline {
                let t = h.sensor.celsius.map(units.format) ?? "unknown"
                lines.append("")
                lines.append("CPU        \(Format.clean(h.sensor.name)): \(t)\(h.sensor.isFallbackHeadline ? " (fallback: no CPU sensor found)" : "")")
            }
            lines.append("")
            lines.append("Sensors" + String(repeating: " ", count: 42) + "     \(units.symbol)  level     fair serious critical  serious from")
            // Headline CPUs first, each followed by the members folded under it; the rest in order.
            var ordered: [SensorAssessment] = []
            for h in s.assessment.sensors where h.sensor.isHeadline {
                ordered.append(h)
                ordered += s.assessment.sensors.filter { $0.sensor.memberOf == h.sensor.id }
            }
            let placed = Set(ordered.map(\.sensor.id))
            ordered += s.assessment.sensors.filter { !placed.contains($0.sensor.id) }
            for a in ordered where !a.hidden {
                let mark = a.sensor.id == s.assessment.decidedBy ? "*" : " "
                var name = (a.sensor.memberOf != nil ? "  " : "") + a.sensor.displayName
                if a.sensor.mirrorOf != nil { name += " (mirror)" }
                if a.sensor.dummyReason != nil { name += " (dummy)" }
                let shown = DisplayWidth.pad(Format.clean(name), 46)
                let level: String
                if a.sensor.celsius == nil {
                    let why = a.sensor.issue?.why ?? "no reading"
                    if let h = a.hold, !h.expired {
                        level = "\(h.level) HELD (\(Format.clean(a.why.text(units))))"
                    } else if let sleep = a.sensor.asleep {
                        let last = a.sensor.lastCelsius.map { c in
                            ", last \(units.format(c))" + (a.sensor.lastReadAt.map { " \(Format.fixed((snap.time - $0).rounded(.down), places: 0)) s ago" } ?? "")
                        } ?? ""
                        level = "asleep (\(Format.clean(sleep)); not read so as not to wake it\(last))"
                    } else {
                        level = "unknown (\(Format.clean(why)))"
                    }
                    lines.append("\(mark) \(shown) \(Format.padLeft("?", 6))  \(level)")
                    continue
                }
                level = a.ignored ? "ignored" : a.level.name + (a.heldByHysteresis ? "*" : "")
                lines.append("\(mark) \(shown) \(Format.padLeft(units.number(a.sensor.celsius), 6))  \(Format.pad(level, 8)) \(Format.padLeft(units.number(a.thresholds.fair.celsius), 6)) \(Format.padLeft(units.number(a.thresholds.serious.celsius), 7)) \(Format.padLeft(units.number(a.thresholds.critical.celsius), 8))  \(Format.clean(a.thresholds.serious.rulePhrase.text(units)))")
            }
            lines.append("  (* decides the state; level* = held by hysteresis; indented = folded under the CPU above)")
            let hidden = s.assessment.sensors.filter(\.hidden).count
            if hidden > 0 { lines.append("  (\(hidden) hidden by the config file; --no-config or status --json shows them)") }
        }
        if !s.assessment.fans.isEmpty {
            lines.append("")
            lines.append("Fans" + String(repeating: " ", count: 24) + "    RPM   PWM  control     state       level")
            for f in s.assessment.fans {
                let fan = f.fan
                let rpm = fan.rpm.map { Format.fixed($0, places: 0) } ?? "?"
                let pwm = fan.pwmPercent.map { "\(Format.fixed($0, places: 0)) %" } ?? "—"
                let mark = fan.id == s.assessment.decidedBy ? "*" : " "
                lines.append("\(mark) \(DisplayWidth.pad(Format.clean(fan.displayName), 26)) \(Format.padLeft(rpm, 6)) \(Format.padLeft(pwm, 5))  \(Format.pad(fan.control?.rawValue ?? "—", 10))  \(Format.pad(fan.state.rawValue, 10))  \(f.ignored ? "—" : f.level.name)")
            }
        }
        if !snap.hwmonExtras.isEmpty {
            // Inputs thermtop shows but does not judge (voltages, currents…), one line per chip.
            var byChip: [(String, [String])] = []
            for x in snap.hwmonExtras {
                let chip = "\(x.chip ?? "hwmon") (\(x.location.split(separator: "/").first ?? ""))"
                let v = x.value.map { "\(Format.fixed($0, places: 3)) \(x.unit ?? "")" } ?? "raw \(x.raw ?? "?")"
                let item = "\(x.label ?? String(x.location.split(separator: "/").last ?? "")) \(v)"
                if let i = byChip.firstIndex(where: { $0.0 == chip }) { byChip[i].1.append(item) } else { byChip.append((chip, [item])) }
            }
            lines.append("")
            for (chip, items) in byChip { lines.append("Other      \(Format.clean(chip)): \(Format.clean(items.joined(separator: ", ")))") }
        }
        let power = Format.powerLines(s)
        if !power.isEmpty { lines.append(""); lines += power }
        let heat = Format.heatSourceLines(s)
        if !heat.isEmpty { lines.append(""); lines += heat }
        let gpus = Format.gpuLines(snap, units: units)
        if !gpus.isEmpty { lines.append(""); lines += gpus }
        if !s.assessment.cooling.isEmpty {
            lines.append("")
            lines.append("Cooling devices")
            for c in s.assessment.cooling {
                let st = c.device.currentState.map(String.init) ?? "?"
                let mx = c.device.maxState.map(String.init) ?? "?"
                lines.append("  \(DisplayWidth.pad(Format.clean(c.device.type ?? c.device.id), 22)) \(Format.padLeft("\(st)/\(mx)", 7))  \(c.ignored ? "ignored" : c.level.name)")
            }
        }
        if let t = s.assessment.throttle { lines.append(""); lines.append("Throttle   \(Format.clean(t.reason))") }
        lines.append("")
        if snap.batteries.isEmpty {
            lines.append("Battery    \(ThermalBattery.noneText)")
        } else {
            let sys = ThermalCombinedBattery(snap.batteries)
            if snap.batteries.count > 1 {
                lines.append("Battery    \(sys.percent.map(Format.percent) ?? "?") combined (\(snap.batteries.count) batteries, weighted by energy), \(sys.status?.rawValue ?? "unknown")")
            }
            for b in snap.batteries { lines.append(batteryLine(b)) }
        }
        for b in snap.peripherals { lines.append("Peripheral \(batteryLine(b).dropFirst(11))") }
        for a in snap.adapters {
            lines.append("Adapter    \(Format.clean(a.id)) (\(Format.clean(a.type ?? "?"))): \(a.online.map { $0 ? "online" : "offline" } ?? "unknown")")
        }
        for p in s.profileTexts { lines.append("Profile    \(Format.clean(p))") }
        if let why = snap.lowPower.performanceDegraded { lines.append("Profile    performance degraded: \(Format.clean(why))") }
        for e in s.eventSources {
            lines.append("Wakes      \(e.name): \(e.active ? "active" : "unavailable"), \(Format.clean(e.detail))")
        }
        let issues = snap.allIssues
        if !issues.isEmpty {
            lines.append("")
            lines.append("Reading issues (\(issues.count)): values shown as unknown")
            for i in issues { lines.append("  \(Format.clean(i.description))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func batteryLine(_ b: ThermalBattery) -> String {
        var parts: [String] = []
        parts.append(b.percent.map(Format.percent) ?? (b.capacityLevel.map { "level \(Format.clean($0))" } ?? "?"))
        parts.append(b.status?.rawValue ?? "unknown")
        if let w = b.watts { parts.append(Format.watts(w)) }
        if let t = b.secondsToEmpty { parts.append("\(Format.duration(t)) to empty") } else if let t = b.secondsToFull {
            parts.append("\(Format.duration(t)) to full")
        } else if b.status == .discharging || b.status == .charging, let why = b.timeUnknownReason {
            parts.append("time unknown (\(why))")
        }
        if let h = b.healthPercent { parts.append("health \(Format.percent(h))") }
        if let c = b.cyclesText { parts.append(c) }
        if let m = b.model { parts.append(Format.clean(m)) }
        return "Battery    \(Format.clean(b.id)): " + parts.joined(separator: ", ")
    }
}

extension MonitorStatus {
    /// True when nothing was measured and no state is forced: every output that people or
    /// scripts read says `unknown`, never the nominal that apps are told.
    public var stateIsUnknown: Bool { assessment.nothingReadable && !stateIsSimulated }

    /// The state as shown: `unknown` when nothing was measured, else the state in force.
    public var shownStateName: String { stateIsUnknown ? "unknown" : thermalState.name }

    /// True when anything in force is not this machine's measurement: a forced state, forced
    /// low power, or the simulated laptop.
    public var isSimulated: Bool { stateIsSimulated || lowPowerIsSimulated || sourceIsSimulated }
}
