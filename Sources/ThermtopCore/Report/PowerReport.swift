/// Power domains, the CPU clock and the throttling verdict in `status` (text and JSON) and
/// `export`, written once here.
extension ThermalStatusReport {
    /// `power[]`, `cpu_frequency[]` and `throttling` of `status --json`.
    /// Each `power[]` entry: the domain (`domain` is the id `export` labels it with); an hwmon
    /// `powerN` channel keeps its meter's fields and stable `id` as before domains existed.
    package static func writePower(_ s: MonitorStatus, into w: inout JSONWriter) {
        w.field("window_seconds", .num(s.window))
        w.array("power") { w in
            for d in s.power {
                w.object { w in
                    let meter = d.meterID.flatMap { id in s.snapshot.powerMeters.first { $0.id == id } }
                    w.field("id", .string(meter?.id ?? d.id))
                    w.field("domain", .string(d.id))
                    w.field("name", .string(d.name))
                    w.field("source", .string(d.source.rawValue))
                    w.field("watts", .num(d.watts))
                    w.field("reason", .str(d.reason))
                    w.field("parent", .str(d.parent))
                    w.field("hidden", .bool(d.hidden))
                    w.field("at_limit", .bool(d.atLimit))
                    w.array("limits") { w in
                        for l in d.limits {
                            w.object { w in
                                w.field("constraint", .string(l.constraint))
                                w.field("watts", .num(l.watts))
                            }
                        }
                    }
                    if let m = meter {
                        w.field("location", .string(m.location))
                        w.field("chip", .str(m.chip))
                        w.field("label", .str(m.label))
                        w.field("average_watts", .num(m.averageWatts))
                        w.field("input_watts", .num(m.inputWatts))
                        w.field("cap_watts", .num(m.capWatts))
                        w.field("cap_min_watts", .num(m.capMinWatts))
                        w.field("cap_max_watts", .num(m.capMaxWatts))
                        w.field("asleep", .str(m.asleep))
                    }
                }
            }
        }
        w.array("cpu_frequency") { w in
            for p in s.snapshot.cpuFrequencies {
                w.object { w in
                    w.field("policy", .string(p.id))
                    w.array("cpus") { w in for c in p.cpus { w.value(.int(c)) } }
                    w.field("hertz", .num(p.currentKHz.map { $0 * 1000 }))
                    w.field("max_hertz", .num(p.maxKHz.map { $0 * 1000 }))
                }
            }
        }
        w.object("throttling") { w in
            w.field("active", s.throttling.active.map(JSONValue.bool) ?? .null)
            w.array("causes") { w in for c in s.throttling.causes { w.string(c.rawValue) } }
            w.array("evidence") { w in for e in s.throttling.evidence { w.string(e) } }
            w.field("text", .string(s.throttling.text))
        }
    }
}

extension Format {
    /// `Throttling  yes — thermal: CPU 2.1 of 4.7 GHz, package throttled 40× in 2 s`.
    package static func throttlingLine(_ s: MonitorStatus) -> String {
        "Throttling  \(clean(s.throttling.text))"
    }

    /// The `Power` lines of `status`: one per shown domain, subzones indented under their
    /// package; none when the machine offers no power reading at all.
    package static func powerLines(_ s: MonitorStatus) -> [String] {
        var lines: [String] = []
        for d in s.power where !d.hidden {
            let head = lines.isEmpty ? "Power      " : "           "
            let name = (d.parent != nil ? "  " : "") + clean(d.name)
            lines.append("\(head)\(name) (\(d.source.rawValue)): \(clean(d.valueText))")
        }
        return lines
    }
}

extension MetricsReport {
    /// `thermtop_power_*`, `thermtop_throttling_*` and `thermtop_cpu_*frequency_hertz`.
    static func writePower(_ s: MonitorStatus, into w: inout MetricsWriter) {
        let shown = s.power.filter { !$0.hidden }
        func labels(_ d: ThermalPowerDomain) -> [(String, String)] {
            [("domain", d.id), ("name", d.name), ("source", d.source.rawValue)]
        }
        if !shown.isEmpty {
            w.family("thermtop_power_watts", .gauge, help: "Power of each domain over the last window, watts (unknown domains are left out; see thermtop_power_up).")
            for d in shown { if let v = d.watts { w.sample("thermtop_power_watts", labels(d), v) } }
            w.family("thermtop_power_up", .gauge, help: "1 when the domain's power is known, 0 when it is unknown (first sample, root-only counter, counter gone wrong).")
            for d in shown { w.sample("thermtop_power_up", labels(d), d.watts == nil ? 0 : 1) }
            if shown.contains(where: { !$0.limits.isEmpty }) {
                w.family("thermtop_power_limit_watts", .gauge, help: "Power limits of each domain (RAPL constraints, hwmon or NVML cap), watts.")
                for d in shown {
                    for l in d.limits { w.sample("thermtop_power_limit_watts", labels(d) + [("constraint", l.constraint)], l.watts) }
                }
            }
        }
        let help = "1 while the machine is throttling (heat or a power limit), 0 when it is not; absent when nothing can tell."
        if let a = s.throttling.active {
            w.single("thermtop_throttling_active", .gauge, help: help, a ? 1 : 0)
        } else {
            w.family("thermtop_throttling_active", .gauge, help: help)
        }
        w.family("thermtop_throttling_cause", .gauge, help: "1 for each cause of the throttling in force (thermal, power).")
        for c in s.throttling.causes { w.sample("thermtop_throttling_cause", [("cause", c.rawValue)], 1) }
        let policies = s.snapshot.cpuFrequencies
        if !policies.isEmpty {
            w.family("thermtop_cpu_frequency_hertz", .gauge, help: "Clock of each cpufreq policy now (scaling_cur_freq), hertz.")
            for p in policies { if let v = p.currentKHz { w.sample("thermtop_cpu_frequency_hertz", [("policy", p.id)], v * 1000) } }
            w.family("thermtop_cpu_max_frequency_hertz", .gauge, help: "Highest clock of each cpufreq policy (cpuinfo_max_freq), hertz.")
            for p in policies { if let v = p.maxKHz { w.sample("thermtop_cpu_max_frequency_hertz", [("policy", p.id)], v * 1000) } }
        }
    }
}
