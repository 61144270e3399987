/// `thermtop status`: the device state, reason, low power, tier, policy, every sensor with its
/// level, and batteries, as text or as a versioned JSON object.
public enum ThermalStatusReport {
    /// Bumped when a field changes meaning or disappears; new fields may be added within a version.
    public static let schema = "thermtop.status/1"

    /// The `thermtop status --json` document for `s` (schema `thermtop.status/1`).
    public static func jsonText(_ s: MonitorStatus, version: String, pretty: Bool = true) -> String {
        String(decoding: jsonUTF8(s, version: version, pretty: pretty), as: UTF8.self)
    }

    /// The document as UTF-8 bytes.
    package static func jsonUTF8(_ s: MonitorStatus, version: String, pretty: Bool = true) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        write(s, version: version, into: &w)
        return w.bytes
    }

    /// The document and a final new line (what `status --json` writes), handed to `body`.
    package static func withJSONLine<R>(_ s: MonitorStatus, version: String, pretty: Bool = true,
                                        _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        var w = JSONWriter(pretty: pretty)
        write(s, version: version, into: &w)
        w.endLine()
        return try w.bytes.withUnsafeBufferPointer(body)
    }

    /// The document as a value (`watch --json` takes its header fields): the written text read
    /// back, so the fields are listed once, in `write`.
    package static func json(_ s: MonitorStatus, version: String) -> JSONValue {
        switch JSONParser.parse(jsonUTF8(s, version: version, pretty: false)) {
        case .success(let v): return v
        case .failure(let f): preconditionFailure("status JSON does not read back: \(f)")
        }
    }

    /// Writes the document, field by field, into `w`.
    package static func write(_ status: MonitorStatus, version: String, into w: inout JSONWriter) {
        let system = ThermalCombinedBattery(status.snapshot.batteries)
        var inferenceNth: Int?
        if case .reduced(let n) = status.policy.inference { inferenceNth = n }
        let inferenceName: String = {
            switch status.policy.inference {
            case .full: "full"
            case .reduced: "reduced"
            case .suspended: "suspended"
            }
        }()
        w.object { w in
            w.field("schema", .string(schema))
            w.field("thermtop_version", .string(version))
            w.object("source") { w in
                w.field("label", .string(status.sourceLabel))
                w.field("simulated", .bool(status.sourceIsSimulated))
            }
            w.field("no_sensors", .bool(status.snapshot.isEmpty))
            // `unknown` when nothing was measured (apps still get nominal through the API).
            w.field("thermal_state", .string(status.shownStateName))
            w.field("measured", .bool(status.assessment.measured))
            w.field("simulated", .bool(status.isSimulated))
            w.field("thermal_state_simulated", .bool(status.stateIsSimulated))
            w.field("measured_thermal_state", .str(status.assessment.measuredState?.name))
            w.field("nothing_readable", .bool(status.assessment.nothingReadable))
            w.field("reason", .string(status.reason))
            w.field("decided_by", .str(status.assessment.decidedBy))
            w.object("forecast") { w in writeForecast(status.forecast, into: &w) }
            w.object("low_power") { w in
                w.field("enabled", .bool(status.isLowPowerModeEnabled))
                w.field("simulated", .bool(status.lowPowerIsSimulated))
                w.field("measured", .bool(status.lowPowerAssessment.enabled))
                w.array("reasons") { w in for r in status.lowPowerAssessment.reasons { w.string(r) } }
            }
            w.field("tier", .string(status.policy.tier.rawValue))
            w.object("policy") { w in
                w.field("refresh_interval_seconds", .num(status.policy.refreshIntervalSeconds))
                w.field("animations", .bool(status.policy.animationsEnabled))
                w.field("prefetch", .bool(status.policy.prefetchEnabled))
                w.field("inference", .string(inferenceName))
                w.field("inference_every_nth_frame", .int(inferenceNth))
                w.field("skip_background_refresh", .bool(status.policy.lowPowerAdjustments.skipBackgroundRefresh))
                w.field("defer_prefetch", .bool(status.policy.lowPowerAdjustments.deferPrefetch))
                w.field("coarse_location", .bool(status.policy.lowPowerAdjustments.coarseLocation))
                w.field("long_batched_sync", .bool(status.policy.lowPowerAdjustments.longBatchedSync))
                w.field("user_initiated_work_allowed", .bool(status.policy.userInitiatedWorkAllowed))
            }
            w.array("sensors") { w in
                // What a sensor's object needs from the status is passed as such (handing over
                // the whole status copied it once per sensor), and the sensors are taken by index
                // (iterating copies each assessment out).
                let decidedBy = status.assessment.decidedBy, sensors = status.assessment.sensors
                for i in sensors.indices {
                    writeSensor(sensors[i], time: status.snapshot.time, forecast: status.forecast.sensor(sensors[i].sensor.id),
                                decidesState: sensors[i].sensor.id == decidedBy, into: &w)
                }
            }
            w.field("headline_cpu", .str(headlineCPU(status.assessment.sensors)))
            w.array("fans") { w in
                for f in status.snapshot.fans { writeFan(f, status.assessment.fans.first { $0.fan.id == f.id }, into: &w) }
            }
            writePower(status, into: &w)
            writeHeatSources(status, into: &w)
            writeGPUs(status.snapshot, into: &w)
            w.array("hwmon_other") { w in for x in status.snapshot.hwmonExtras { writeExtra(x, into: &w) } }
            w.array("zones") { w in
                do {
                    let zones = status.snapshot.zones
                    for z in zones.indices {
                        w.object { w in
                            w.field("id", .string(zones[z].id))
                            w.field("stable_id", .str(zones[z].stableID))
                            w.field("asleep", .str(zones[z].asleep))
                            w.field("type", .str(zones[z].type))
                            w.field("celsius", .num(zones[z].celsius))
                            w.field("mode", .str(zones[z].mode))
                            w.field("policy", .str(zones[z].policy))
                            w.array("trips") { w in
                                for t in zones[z].trips {
                                    w.object { w in
                                        w.field("index", .int(t.index))
                                        w.field("type", .str(t.kind?.rawValue))
                                        w.field("celsius", .num(t.celsius))
                                        w.field("hysteresis_celsius", .num(t.hysteresis))
                                        w.field("ignored_reason", .str(t.ignored?.why))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            w.array("cooling_devices") { w in
                for c in status.assessment.cooling {
                    w.object { w in
                        w.field("id", .string(c.device.id))
                        w.field("stable_id", .str(c.device.stableID))
                        w.field("type", .str(c.device.type))
                        w.field("kind", .string(c.kind.rawValue))
                        w.field("current_state", .int(c.device.currentState))
                        w.field("max_state", .int(c.device.maxState))
                        w.field("level", .string(c.level.name))
                        w.field("ignored", .bool(c.ignored))
                    }
                }
            }
            w.array("hwmon") { w in
                do {
                    let hwmon = status.snapshot.hwmon
                    for h in hwmon.indices {
                        w.object { w in
                            w.field("device", .string(hwmon[h].device))
                            w.field("chip", .str(hwmon[h].chip))
                            w.field("channel", .string(hwmon[h].channel))
                            w.field("label", .str(hwmon[h].label))
                            w.field("celsius", .num(hwmon[h].celsius))
                            w.field("max_celsius", .num(hwmon[h].max))
                            w.field("crit_celsius", .num(hwmon[h].crit))
                            w.field("crit_hyst_celsius", .num(hwmon[h].critHyst))
                            w.field("emergency_celsius", .num(hwmon[h].emergency))
                            w.field("min_celsius", .num(hwmon[h].min))
                            w.field("asleep", .str(hwmon[h].asleep))
                            w.field("mirrors_zone", .str(hwmon[h].mirrorsZone))
                            w.field("stable_id", .str(hwmon[h].stableID))
                        }
                    }
                }
            }
            if status.snapshot.batteries.isEmpty {
                w.field("battery", .null)
            } else {
                w.object("battery") { w in
                    w.field("count", .int(status.snapshot.batteries.count))
                    w.field("percent", .num(system.percent, places: 2))
                    w.field("status", .str(system.status?.rawValue))
                    w.field("watts", .num(system.watts))
                    w.field("seconds_to_empty", .num(system.secondsToEmpty, places: 0))
                    w.field("seconds_to_full", .num(system.secondsToFull, places: 0))
                }
            }
            w.array("batteries") { w in for b in status.snapshot.batteries { writeBattery(b, into: &w) } }
            w.array("peripherals") { w in for b in status.snapshot.peripherals { writeBattery(b, into: &w) } }
            w.array("adapters") { w in
                for a in status.snapshot.adapters {
                    w.object { w in
                        w.field("name", .string(a.id))
                        w.field("type", .str(a.type))
                        w.field("online", a.online.map(JSONValue.bool) ?? .null)
                    }
                }
            }
            w.field("ac_online", status.snapshot.acOnline.map(JSONValue.bool) ?? .null)
            w.field("platform_profile", .str(status.snapshot.lowPower.platformProfile))
            w.array("platform_profile_choices") { w in for c in status.snapshot.lowPower.platformProfileChoices { w.string(c) } }
            w.field("power_profiles_daemon", .str(status.snapshot.lowPower.powerProfilesDaemon))
            w.field("power_profile_origin", .str(status.snapshot.lowPower.powerProfileOrigin?.rawValue))
            w.field("performance_degraded", .str(status.snapshot.lowPower.performanceDegraded))
            w.array("event_sources") { w in
                for e in status.eventSources {
                    w.object { w in
                        w.field("name", .string(e.name))
                        w.field("active", .bool(e.active))
                        w.field("detail", .string(e.detail))
                        w.field("events", .int(e.events))
                    }
                }
            }
            if let t = status.assessment.throttle {
                w.object("throttle") { w in
                    w.field("core_count", .int(status.snapshot.throttle?.core))
                    w.field("package_count", .int(status.snapshot.throttle?.package))
                    w.field("seconds_since_increase", .num(t.secondsSinceIncrease, places: 1))
                    w.field("level", .string(t.level.name))
                }
            } else {
                w.field("throttle", .null)
            }
            w.array("issues") { w in
                for i in status.snapshot.allIssues {
                    w.object { w in
                        w.field("file", .string(i.file))
                        w.field("reason", .string(i.reason.rawValue))
                        w.field("detail", .str(i.detail))
                    }
                }
            }
        }
    }

    static func headlineCPU(_ sensors: [SensorAssessment]) -> String? {
        sensors.first { $0.sensor.isHeadline && $0.sensor.group == .cpu }?.sensor.id
            ?? sensors.first { $0.sensor.isHeadline }?.sensor.id
    }

    /// `time`: the snapshot's; `forecast`: the sensor's; `decidesState`: its id is the status's `decidedBy`.
    static func writeSensor(_ a: SensorAssessment, time: Double, forecast: SensorForecast?, decidesState: Bool,
                            into w: inout JSONWriter) {
        let age: Double? = a.sensor.lastReadAt.map { time - $0 }
        do {
            w.object { w in
                w.field("id", .string(a.sensor.id))
                w.field("name", .string(a.sensor.name))
                w.field("kind", .string(a.sensor.kind.rawValue))
                w.field("celsius", .num(a.sensor.celsius))
                w.field("unknown_reason", .str(a.sensor.issue?.reason.rawValue))
                w.field("level", .str(a.reportedLevel?.name))
                w.field("held_by_hysteresis", .bool(a.heldByHysteresis))
                if let h = a.hold {
                    w.object("held") { w in
                        w.field("level", .string(h.level.name))
                        w.field("since", .str(h.sinceLabel))
                        w.field("seconds", .num((time - h.since).rounded(.down)))
                        w.field("reason", .string(h.issue.reason.rawValue))
                        w.field("expired", .bool(h.expired))
                    }
                } else {
                    w.field("held", .null)
                }
                w.field("ignored", .bool(a.ignored))
                w.field("uncorroborated", .bool(a.uncorroborated))
                w.field("decides_state", .bool(decidesState))
                w.field("fair_celsius", .num(a.thresholds.fair.celsius))
                w.field("serious_celsius", .num(a.thresholds.serious.celsius))
                w.field("serious_rule", .string(a.thresholds.serious.rule))
                w.field("serious_hysteresis_celsius", .num(a.thresholds.serious.hysteresis))
                w.field("critical_celsius", .num(a.thresholds.critical.celsius))
                w.field("critical_rule", .string(a.thresholds.critical.rule))
                w.field("reason", .string(a.reason))
                w.field("headroom", .num(forecast?.headroom))
                w.field("trend", .str(forecast?.trend.kind.rawValue))
                w.field("hidden", .bool(a.hidden))
                w.field("pinned", .bool(a.pinned))
                w.field("location", .string(a.sensor.location))
                w.field("display_name", .string(a.sensor.displayName))
                w.field("group", .string(a.sensor.group.rawValue))
                w.field("headline", .bool(a.sensor.isHeadline))
                w.field("headline_fallback", .bool(a.sensor.isFallbackHeadline))
                w.field("member_of", .str(a.sensor.memberOf))
                w.field("mirror_of", .str(a.sensor.mirrorOf))
                w.field("dummy_reason", .str(a.sensor.dummyReason))
                w.field("device_model", .str(a.sensor.deviceInfo?.model))
                w.field("pci_slot", .str(a.sensor.deviceInfo?.pciSlot))
                w.field("asleep", .str(a.sensor.asleep))
                w.field("last_celsius", .num(a.sensor.lastCelsius))
                w.field("last_read_age_seconds", .num(age, places: 1))
            }
        }
    }

    static func writeFan(_ f: ThermalFan, _ a: FanAssessment?, into w: inout JSONWriter) {
        w.object { w in
            w.field("id", .string(f.id))
            w.field("location", .string(f.location))
            w.field("chip", .str(f.chip))
            w.field("label", .str(f.label))
            w.field("display_name", .string(f.displayName))
            w.field("state", .string(f.state.rawValue))
            w.field("rpm", .num(f.rpm))
            w.field("min_rpm", .num(f.minRPM))
            w.field("max_rpm", .num(f.maxRPM))
            w.field("target_rpm", .num(f.targetRPM))
            w.field("pwm", .int(f.pwm))
            w.field("pwm_percent", .num(f.pwmPercent, places: 1))
            w.field("pwm_enable", .int(f.pwmEnable))
            w.field("control", .str(f.control?.rawValue))
            w.field("enabled", f.enabled.map(JSONValue.bool) ?? .null)
            w.field("spins_down", .bool(f.spinsDown))
            w.field("asleep", .str(f.asleep))
            w.field("level", .string((a?.level ?? .nominal).name))
            w.field("ignored", .bool(a?.ignored ?? true))
            w.field("reason", .str(a?.reason))
        }
    }

    static func writeExtra(_ x: HwmonExtra, into w: inout JSONWriter) {
        w.object { w in
            w.field("id", .string(x.id))
            w.field("location", .string(x.location))
            w.field("chip", .str(x.chip))
            w.field("label", .str(x.label))
            w.field("kind", .string(x.kind))
            w.field("value", .num(x.value))
            w.field("unit", .str(x.unit))
            w.field("raw", .str(x.raw))
        }
    }

    static func writeBattery(_ b: ThermalBattery, into w: inout JSONWriter) {
        w.object { w in
            w.field("name", .string(b.id))
            w.field("status", .str(b.status?.rawValue))
            w.field("percent", .num(b.percent, places: 2))
            w.field("percent_source", .str(b.percentSource?.rawValue))
            w.field("computed_percent", .num(b.computedPercent, places: 2))
            w.field("capacity_level", .str(b.capacityLevel))
            w.field("energy_now_wh", .num(b.energyNow))
            w.field("energy_full_wh", .num(b.energyFull))
            w.field("energy_full_design_wh", .num(b.energyFullDesign))
            w.field("charge_now_ah", .num(b.chargeNow))
            w.field("charge_full_ah", .num(b.chargeFull))
            w.field("charge_full_design_ah", .num(b.chargeFullDesign))
            w.field("watts", .num(b.watts))
            w.field("voltage_volts", .num(b.voltageNow))
            w.field("seconds_to_empty", .num(b.secondsToEmpty, places: 0))
            w.field("seconds_to_full", .num(b.secondsToFull, places: 0))
            w.field("time_unknown_reason", .str(b.timeUnknownReason))
            w.field("health_percent", .num(b.healthPercent, places: 2))
            w.field("cycle_count", .int(b.cycleCount))
            w.field("celsius", .num(b.celsius))
            w.field("model", .str(b.model))
            w.field("manufacturer", .str(b.manufacturer))
            w.field("technology", .str(b.technology))
            w.field("scope", .str(b.scope))
        }
    }
}
