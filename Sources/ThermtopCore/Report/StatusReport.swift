/// `thermtop status`: the device state, reason, low power, tier, policy, every sensor with its
/// level, and batteries, as text or as a versioned JSON object.
public enum ThermalStatusReport {
    /// Bumped when a field changes meaning or disappears; new fields may be added within a version.
    public static let schema = "thermtop.status/1"

    /// The `thermtop status --json` document for `s` (schema `thermtop.status/1`).
    public static func jsonText(_ s: MonitorStatus, version: String, pretty: Bool = true) -> String {
        json(s, version: version).serialized(pretty: pretty)
    }

    package static func json(_ s: MonitorStatus, version: String) -> JSONValue {
        let snap = s.snapshot
        let p = s.policy
        let system = CombinedBattery(snap.batteries)
        let acOnline: JSONValue = snap.acOnline.map(JSONValue.bool) ?? .null
        var inferenceNth: Int?
        if case .reduced(let n) = p.inference { inferenceNth = n }
        let inferenceName: String = {
            switch p.inference {
            case .full: "full"
            case .reduced: "reduced"
            case .suspended: "suspended"
            }
        }()
        return .object([
            ("schema", .string(schema)),
            ("thermtop_version", .string(version)),
            ("source", .object([("label", .string(s.sourceLabel)), ("simulated", .bool(s.sourceIsSimulated))])),
            ("no_sensors", .bool(snap.isEmpty)),
            ("thermal_state", .string(s.thermalState.name)),
            ("thermal_state_simulated", .bool(s.stateIsSimulated)),
            ("measured_thermal_state", .str(s.assessment.measuredState?.name)),
            ("nothing_readable", .bool(s.assessment.nothingReadable)),
            ("reason", .string(s.reason)),
            ("decided_by", .str(s.assessment.decidedBy)),
            ("forecast", forecastJSON(s.forecast)),
            ("low_power", .object([
                ("enabled", .bool(s.isLowPowerModeEnabled)),
                ("simulated", .bool(s.lowPowerIsSimulated)),
                ("measured", .bool(s.lowPowerAssessment.enabled)),
                ("reasons", .array(s.lowPowerAssessment.reasons.map(JSONValue.string))),
            ])),
            ("tier", .string(p.tier.rawValue)),
            ("policy", .object([
                ("refresh_interval_seconds", .num(p.refreshIntervalSeconds)),
                ("animations", .bool(p.animationsEnabled)),
                ("prefetch", .bool(p.prefetchEnabled)),
                ("inference", .string(inferenceName)),
                ("inference_every_nth_frame", .int(inferenceNth)),
                ("skip_background_refresh", .bool(p.lowPowerAdjustments.skipBackgroundRefresh)),
                ("defer_prefetch", .bool(p.lowPowerAdjustments.deferPrefetch)),
                ("coarse_location", .bool(p.lowPowerAdjustments.coarseLocation)),
                ("long_batched_sync", .bool(p.lowPowerAdjustments.longBatchedSync)),
                ("user_initiated_work_allowed", .bool(p.userInitiatedWorkAllowed)),
            ])),
            ("sensors", .array(s.assessment.sensors.map { sensorJSON($0, s) })),
            ("headline_cpu", .str(headlineCPU(s.assessment.sensors))),
            ("fans", .array(snap.fans.map { f in fanJSON(f, s.assessment.fans.first { $0.fan.id == f.id }) })),
            ("power", .array(snap.powerMeters.map(powerJSON))),
            ("hwmon_other", .array(snap.hwmonExtras.map(extraJSON))),
            ("zones", .array(snap.zones.map { z in
                .object([
                    ("id", .string(z.id)),
                    ("stable_id", .str(z.stableID)),
                    ("asleep", .str(z.asleep)),
                    ("type", .str(z.type)),
                    ("celsius", .num(z.celsius)),
                    ("mode", .str(z.mode)),
                    ("policy", .str(z.policy)),
                    ("trips", .array(z.trips.map { t in
                        .object([
                            ("index", .int(t.index)),
                            ("type", .str(t.kind?.rawValue)),
                            ("celsius", .num(t.celsius)),
                            ("hysteresis_celsius", .num(t.hysteresis)),
                            ("ignored_reason", .str(t.ignored?.why)),
                        ])
                    })),
                ])
            })),
            ("cooling_devices", .array(s.assessment.cooling.map { c in
                .object([
                    ("id", .string(c.device.id)),
                    ("stable_id", .str(c.device.stableID)),
                    ("type", .str(c.device.type)),
                    ("kind", .string(c.kind.rawValue)),
                    ("current_state", .int(c.device.currentState)),
                    ("max_state", .int(c.device.maxState)),
                    ("level", .string(c.level.name)),
                    ("ignored", .bool(c.ignored)),
                ])
            })),
            ("hwmon", .array(snap.hwmon.map { h in
                .object([
                    ("device", .string(h.device)),
                    ("chip", .str(h.chip)),
                    ("channel", .string(h.channel)),
                    ("label", .str(h.label)),
                    ("celsius", .num(h.celsius)),
                    ("max_celsius", .num(h.max)),
                    ("crit_celsius", .num(h.crit)),
                    ("crit_hyst_celsius", .num(h.critHyst)),
                    ("emergency_celsius", .num(h.emergency)),
                    ("min_celsius", .num(h.min)),
                    ("asleep", .str(h.asleep)),
                    ("mirrors_zone", .str(h.mirrorsZone)),
                    ("stable_id", .str(h.stableID)),
                ])
            })),
            ("battery", snap.batteries.isEmpty ? .null : .object([
                ("count", .int(snap.batteries.count)),
                ("percent", .num(system.percent, places: 2)),
                ("status", .str(system.status?.rawValue)),
                ("watts", .num(system.watts)),
                ("seconds_to_empty", .num(system.secondsToEmpty, places: 0)),
                ("seconds_to_full", .num(system.secondsToFull, places: 0)),
            ])),
            ("batteries", .array(snap.batteries.map(batteryJSON))),
            ("peripherals", .array(snap.peripherals.map(batteryJSON))),
            ("adapters", .array(snap.adapters.map { a in
                .object([("name", .string(a.id)), ("type", .str(a.type)), ("online", a.online.map(JSONValue.bool) ?? .null)])
            })),
            ("ac_online", acOnline),
            ("platform_profile", .str(snap.lowPower.platformProfile)),
            ("platform_profile_choices", .array(snap.lowPower.platformProfileChoices.map(JSONValue.string))),
            ("power_profiles_daemon", .str(snap.lowPower.powerProfilesDaemon)),
            ("power_profile_origin", .str(snap.lowPower.powerProfileOrigin?.rawValue)),
            ("performance_degraded", .str(snap.lowPower.performanceDegraded)),
            ("event_sources", .array(s.eventSources.map { e in
                .object([("name", .string(e.name)), ("active", .bool(e.active)), ("detail", .string(e.detail)),
                         ("events", .int(e.events))])
            })),
            ("throttle", s.assessment.throttle.map { t in
                .object([
                    ("core_count", .int(snap.throttle?.core)),
                    ("package_count", .int(snap.throttle?.package)),
                    ("seconds_since_increase", .num(t.secondsSinceIncrease, places: 1)),
                    ("level", .string(t.level.name)),
                ])
            } ?? .null),
            ("issues", .array(snap.allIssues.map { i in
                .object([("file", .string(i.file)), ("reason", .string(i.reason.rawValue)), ("detail", .str(i.detail))])
            })),
        ])
    }

    static func headlineCPU(_ sensors: [SensorAssessment]) -> String? {
        sensors.first { $0.sensor.isHeadline && $0.sensor.group == .cpu }?.sensor.id
            ?? sensors.first { $0.sensor.isHeadline }?.sensor.id
    }

    static func sensorJSON(_ a: SensorAssessment, _ st: MonitorStatus) -> JSONValue {
        let time = st.snapshot.time
        let base: [(String, JSONValue)] = [
            ("id", .string(a.sensor.id)),
            ("name", .string(a.sensor.name)),
            ("kind", .string(a.sensor.kind.rawValue)),
            ("celsius", .num(a.sensor.celsius)),
            ("unknown_reason", .str(a.sensor.issue?.reason.rawValue)),
            ("level", .str(a.reportedLevel?.name)),
            ("held_by_hysteresis", .bool(a.heldByHysteresis)),
            ("held", a.hold.map { h in
                .object([
                    ("level", .string(h.level.name)),
                    ("since", .str(h.sinceLabel)),
                    ("seconds", .num((time - h.since).rounded(.down))),
                    ("reason", .string(h.issue.reason.rawValue)),
                    ("expired", .bool(h.expired)),
                ])
            } ?? .null),
            ("ignored", .bool(a.ignored)),
            ("decides_state", .bool(a.sensor.id == st.assessment.decidedBy)),
            ("fair_celsius", .num(a.thresholds.fair.celsius)),
            ("serious_celsius", .num(a.thresholds.serious.celsius)),
            ("serious_rule", .string(a.thresholds.serious.rule)),
            ("serious_hysteresis_celsius", .num(a.thresholds.serious.hysteresis)),
            ("critical_celsius", .num(a.thresholds.critical.celsius)),
            ("critical_rule", .string(a.thresholds.critical.rule)),
            ("reason", .string(a.reason)),
            ("headroom", .num(st.forecast.sensor(a.sensor.id)?.headroom)),
            ("trend", .str(st.forecast.sensor(a.sensor.id)?.trend.kind.rawValue)),
            ("hidden", .bool(a.hidden)),
            ("pinned", .bool(a.pinned)),
        ]
        let s = a.sensor
        let age: Double? = s.lastReadAt.map { time - $0 }
        let identity: [(String, JSONValue)] = [
            ("location", .string(s.location)),
            ("display_name", .string(s.displayName)),
            ("group", .string(s.group.rawValue)),
            ("headline", .bool(s.isHeadline)),
            ("headline_fallback", .bool(s.isFallbackHeadline)),
            ("member_of", .str(s.memberOf)),
            ("mirror_of", .str(s.mirrorOf)),
            ("dummy_reason", .str(s.dummyReason)),
            ("device_model", .str(s.deviceInfo?.model)),
            ("pci_slot", .str(s.deviceInfo?.pciSlot)),
            ("asleep", .str(s.asleep)),
            ("last_celsius", .num(s.lastCelsius)),
            ("last_read_age_seconds", .num(age, places: 1)),
        ]
        return .object(base + identity)
    }

    static func fanJSON(_ f: Fan, _ a: FanAssessment?) -> JSONValue {
        let reading: [(String, JSONValue)] = [
            ("id", .string(f.id)),
            ("location", .string(f.location)),
            ("chip", .str(f.chip)),
            ("label", .str(f.label)),
            ("display_name", .string(f.displayName)),
            ("state", .string(f.state.rawValue)),
            ("rpm", .num(f.rpm)),
            ("min_rpm", .num(f.minRPM)),
            ("max_rpm", .num(f.maxRPM)),
            ("target_rpm", .num(f.targetRPM)),
        ]
        let control: [(String, JSONValue)] = [
            ("pwm", .int(f.pwm)),
            ("pwm_percent", .num(f.pwmPercent, places: 1)),
            ("pwm_enable", .int(f.pwmEnable)),
            ("control", .str(f.control?.rawValue)),
            ("enabled", f.enabled.map(JSONValue.bool) ?? .null),
            ("spins_down", .bool(f.spinsDown)),
            ("asleep", .str(f.asleep)),
            ("level", .string((a?.level ?? .nominal).name)),
            ("ignored", .bool(a?.ignored ?? true)),
            ("reason", .str(a?.reason)),
        ]
        return .object(reading + control)
    }

    static func powerJSON(_ m: PowerMeter) -> JSONValue {
        .object([
            ("id", .string(m.id)),
            ("location", .string(m.location)),
            ("chip", .str(m.chip)),
            ("label", .str(m.label)),
            ("watts", .num(m.watts)),
            ("average_watts", .num(m.averageWatts)),
            ("input_watts", .num(m.inputWatts)),
            ("cap_watts", .num(m.capWatts)),
            ("cap_min_watts", .num(m.capMinWatts)),
            ("cap_max_watts", .num(m.capMaxWatts)),
            ("asleep", .str(m.asleep)),
        ])
    }

    static func extraJSON(_ x: HwmonExtra) -> JSONValue {
        .object([
            ("id", .string(x.id)),
            ("location", .string(x.location)),
            ("chip", .str(x.chip)),
            ("label", .str(x.label)),
            ("kind", .string(x.kind)),
            ("value", .num(x.value)),
            ("unit", .str(x.unit)),
            ("raw", .str(x.raw)),
        ])
    }

    static func batteryJSON(_ b: Battery) -> JSONValue {
        .object([
            ("name", .string(b.id)),
            ("status", .str(b.status?.rawValue)),
            ("percent", .num(b.percent, places: 2)),
            ("percent_source", .str(b.percentSource?.rawValue)),
            ("computed_percent", .num(b.computedPercent, places: 2)),
            ("capacity_level", .str(b.capacityLevel)),
            ("energy_now_wh", .num(b.energyNow)),
            ("energy_full_wh", .num(b.energyFull)),
            ("energy_full_design_wh", .num(b.energyFullDesign)),
            ("charge_now_ah", .num(b.chargeNow)),
            ("charge_full_ah", .num(b.chargeFull)),
            ("charge_full_design_ah", .num(b.chargeFullDesign)),
            ("watts", .num(b.watts)),
            ("voltage_volts", .num(b.voltageNow)),
            ("seconds_to_empty", .num(b.secondsToEmpty, places: 0)),
            ("seconds_to_full", .num(b.secondsToFull, places: 0)),
            ("time_unknown_reason", .str(b.timeUnknownReason)),
            ("health_percent", .num(b.healthPercent, places: 2)),
            ("cycle_count", .int(b.cycleCount)),
            ("celsius", .num(b.celsius)),
            ("model", .str(b.model)),
            ("manufacturer", .str(b.manufacturer)),
            ("technology", .str(b.technology)),
            ("scope", .str(b.scope)),
        ])
    }
}

// thermtop's own code keeps the short name; `import Thermtop` exposes only the prefixed one
// (issue 7 §6: no generic names injected into users' code).
package typealias StatusReport = ThermalStatusReport
