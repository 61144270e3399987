#if canImport(Glibc)
import Glibc
#endif
import Testing
import ThermtopCore

/// Texts, names and trip sorting of the status path against the plain rules they follow
/// (String interpolation, `Set` lookups and `filter`/`sorted`/`min`), on inputs chosen to
/// break a shortcut.
/// A reproducible sequence of picks (a 64-bit LCG, Knuth's MMIX constants): each test draws its
/// random inputs from its own seed, so a failure names inputs that come back on every run.
struct SeededPicks {
    var seed: UInt64
    /// A number in 0..<n.
    mutating func next(_ n: Int) -> Int {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((seed >> 33) % UInt64(n))
    }
}

@Suite("Text and catalog fast paths match the plain rules they stand for")
struct TextFastPathTests {
    /// Names that are not plain ASCII, empty, long, or start with a combining mark.
    static let names = [
        "acpitz", "", "CPU ☃ naïve", "\u{301}e", "x86_pkg_temp", String(repeating: "long-name ", count: 30),
        String(repeating: "ß", count: 400), "tab\there", "CR\r\nLF",
    ]

    @Test("an hwmon channel's id and name and an issue's why read as interpolated", arguments: names)
    func readingTexts(_ text: String) {
        for chip in [nil, "coretemp", text] {
            for label in [nil, "Package id 0", text] {
                let c = HwmonChannel(device: "hwmon\(text.utf8.count)", chip: chip, channel: text, label: label, celsius: 40)
                #expect(c.id == "\(c.device)/\(c.channel)")
                #expect(c.displayName == "\(chip ?? c.device) \(label ?? c.channel)")
            }
        }
        for detail in [nil, "", "EIO", text] {
            let i = ReadingIssue(file: "f", reason: .ioError, detail: detail)
            if let detail, !detail.isEmpty { #expect(i.why == "\(i.reason.rawValue) \(detail)") } else { #expect(i.why == "io-error") }
        }
    }

    /// `ThermalThreshold.label` as plain interpolation writes it.
    static func plainLabel(_ t: ThermalThreshold) -> String {
        t.isDirect ? "\(t.rule) \(formatDegrees(t.celsius))" : "\(formatDegrees(t.celsius)) (\(t.rule))"
    }

    @Test("derived threshold rules and labels read as interpolated", arguments: [-40.0, 0, 52.55, 103, 1e6])
    func derivedRules(_ c: Double) {
        #expect(SensorThresholds.degreesRule("critical trip ", c, " − ", 15).text(.celsius)
                == "critical trip \(formatDegrees(c)) − \(formatDegrees(15))")
        #expect(SensorThresholds.degreesRule("serious ", c, " + ", 9.95).text(.celsius) == "serious \(formatDegrees(c)) + \(formatDegrees(9.95))")
        for direct in [true, false] {
            for rule in TextFastPathTests.names {
                let t = ThermalThreshold(celsius: c, hysteresis: 2, rule: rule, isDirect: direct)
                #expect(t.label == Self.plainLabel(t))
            }
        }
        // Every branch of `derive` that builds a rule from degrees.
        let sensors = [
            ThermalSensor(id: "a", name: "a", kind: .zone, celsius: 50,
                          criticalTrip: TripPoint(index: 0, kind: .critical, celsius: c + 200)),
            ThermalSensor(id: "b", name: "b", kind: .hwmon, celsius: 50, crit: c + 200),
            ThermalSensor(id: "c", name: "c", kind: .hwmon, celsius: 50, emergency: c + 200),
            ThermalSensor(id: "d", name: "d", kind: .hwmon, celsius: 50, max: c + 200),
        ]
        let cfg = ThermalConfig()
        for s in sensors {
            let th = SensorThresholds.derive(for: s, config: cfg)
            let serious = th.serious.celsius
            #expect(th.fair.rule == "serious \(formatDegrees(serious)) − \(formatDegrees(cfg.fairBelowSerious))")
            if let ct = s.criticalTrip?.celsius {
                #expect(th.serious.rule == "critical trip \(formatDegrees(ct)) − \(formatDegrees(cfg.seriousBelowLimit))")
                #expect(th.critical.rule == "critical trip \(formatDegrees(ct)) − \(formatDegrees(cfg.criticalBelowLimit))")
            } else if let l = s.crit ?? s.emergency {
                let which = s.crit != nil ? "hwmon crit" : "hwmon emergency"
                #expect(th.serious.rule == "\(which) \(formatDegrees(l)) − \(formatDegrees(cfg.seriousBelowLimit))")
                #expect(th.critical.rule == "\(which) \(formatDegrees(l)) − \(formatDegrees(cfg.criticalBelowLimit))")
            } else {
                #expect(th.critical.rule == "serious \(formatDegrees(serious)) + \(formatDegrees(cfg.criticalAboveSerious))")
            }
        }
    }

    @Test("a sensor's reason reads as interpolated (nominal, reached, held)", arguments: names)
    func sensorReasons(_ name: String) {
        let hot = TripPoint(index: 1, kind: .hot, celsius: 100, hysteresis: 2)
        let passive = TripPoint(index: 0, kind: .passive, celsius: 90)
        let cfg = ThermalConfig()
        for (t, previous) in [(30.0, ThermalState.nominal), (95, .nominal), (101, .nominal), (99, .critical), (85.5, .serious)] {
            let s = ThermalSensor(id: "z", name: name, kind: .zone, celsius: t, passiveTrips: [passive], hotTrip: hot)
            let a = ThermalClassifier.assess(sensor: s, config: cfg, previous: previous)
            let th = a.thresholds
            let plain: String
            if a.level == .nominal {
                plain = "nominal: \(name) \(formatDegrees(t)) < fair \(formatDegrees(th.fair.celsius))"
            } else {
                let thr = th[a.level]!
                plain = a.heldByHysteresis
                    ? "\(a.level): \(name) \(formatDegrees(t)) held until below \(formatDegrees(thr.clearsBelow)) (\(Self.plainLabel(thr)))"
                    : "\(a.level): \(name) \(formatDegrees(t)) ≥ \(Self.plainLabel(thr)) (clears below \(formatDegrees(thr.clearsBelow)))"
            }
            #expect(a.reason == plain)
        }
        #expect(ThermalClassifier.assess(sensor: ThermalSensor(id: "z", name: name, kind: .zone, celsius: 95, passiveTrips: [passive], hotTrip: hot),
                                         config: cfg, previous: .critical).heldByHysteresis == false)
    }

    @Test("a cooling device's reason reads as interpolated", arguments: names)
    func coolingReasons(_ type: String) {
        for (cur, max) in [(-1, 10), (0, 10), (3, 10), (7, 10), (10, 10), (2, 3), (5, 1000)] {
            let d = CoolingDevice(id: "cooling_device0", type: type.isEmpty ? nil : type, currentState: cur, maxState: max)
            let a = ThermalClassifier.assess(cooling: d, config: ThermalConfig())
            let shown = type.isEmpty ? "cooling_device0" : type
            if a.level == .nominal {
                #expect(a.reason == "\(shown) at \(Swift.max(cur, 0))/\(max)")
            } else {
                let head = "\(a.level): cooling device \(shown) at state \(cur)/\(max) (≥ "
                let tail = ", \(a.kind.rawValue) ratio)"
                #expect(a.reason.hasPrefix(head) && a.reason.hasSuffix(tail))
                let needed = a.reason.dropFirst(head.count).dropLast(tail.count)
                #expect(Int(needed).map { "\($0)" == needed } ?? false)
            }
        }
    }

    /// The name sets the catalog's tests stand for, asked with `Set.contains`.
    static let cpuNames: Set<String> = [
        "coretemp", "k10temp", "zenpower", "k8temp", "via_cputemp", "x86_pkg_temp", "cpu_thermal", "tcpu",
        "b0d4", "soc_thermal", "cpu",
    ]
    static let gpuNames: Set<String> = ["amdgpu", "radeon", "nouveau", "i915", "xe", "gpu_thermal", "nvidia"]
    static let diskNames: Set<String> = ["nvme", "drivetemp"]
    static let boardNames: Set<String> = [
        "acpitz", "thinkpad", "dell_smm", "asus", "asus_ec_sensors", "asus_wmi_sensors", "tskn", "tmem",
        "tamb", "tchg", "sen1", "sen2", "sen3", "sen4", "sen5", "pch_skylake", "pch_cannonlake", "pch_cometlake",
        "pch_tigerlake", "pch_alderlake", "int3400_thermal", "int3400 thermal", "gigabyte_wmi", "hp_wmi",
    ]

    @Test("the catalog's name tests answer as the sets do")
    func catalogNames() {
        let all = Self.cpuNames.union(Self.gpuNames).union(Self.diskNames).union(Self.boardNames)
        var probes = Array(all)
        for n in all {
            probes += [n + "_", String(n.dropLast()), n.uppercased(), " " + n, n + "\u{301}", n + "\0"]
        }
        probes += ["", "cpu0_thermal", "CPU", "nvme0", "iwlwifi_1", "int3400-thermal", "ｃｐｕ"]
        for n in probes {
            #expect(SensorCatalog.isCPUName(n) == Self.cpuNames.contains(n), "\(n)")
            #expect(SensorCatalog.isGPUName(n) == Self.gpuNames.contains(n), "\(n)")
            #expect(SensorCatalog.isDiskName(n) == Self.diskNames.contains(n), "\(n)")
            #expect(SensorCatalog.isBoardName(n) == Self.boardNames.contains(n), "\(n)")
        }
    }

    @Test("a trip type reads back as the kernel spells it, and nothing else reads as one")
    func tripKindsFromTheirSpelling() {
        for kind in TripKind.allCases {
            #expect(TripKind(rawValue: kind.rawValue) == kind, "\(kind)")
            #expect(TripKind(rawValue: kind.rawValue.uppercased()) == nil, "\(kind) uppercased")
            #expect(TripKind(rawValue: kind.rawValue + " ") == nil, "\(kind) with a space")
        }
        #expect(Set(TripKind.allCases.map(\.rawValue)) == ["active", "passive", "hot", "critical"])
        for other in ["", "active0", "hot\n", "crit", "user_space"] { #expect(TripKind(rawValue: other) == nil, "\(other)") }
    }

    @Test("a zone's trips are sorted out as filter, sorted and min do")
    func zoneTrips() {
        var picks = SeededPicks(seed: 0x9E37_79B9_7F4A_7C15)
        let kinds: [TripKind?] = [.active, .passive, .hot, .critical, nil]
        let temps: [Double?] = [nil, -273, 0, 45, 90, 90, 95, 100, 105, 1000]
        for _ in 0..<500 {
            var trips: [TripPoint] = []
            for i in 0..<picks.next(8) {
                trips.append(TripPoint(index: i, kind: kinds[picks.next(kinds.count)], celsius: temps[picks.next(temps.count)],
                                       hysteresis: Double(picks.next(4)),
                                       ignored: picks.next(6) == 0 ? ReadingIssue(file: "trip_point_\(i)_temp", reason: .implausible) : nil))
            }
            let s = ThermalSensor(zone: ThermalZone(id: "thermal_zone0", type: "acpitz", celsius: 50, trips: trips))
            let usable = trips.filter(\.isUsable)
            #expect(s.passiveTrips == usable.filter { $0.kind == .passive }.sorted { $0.celsius! < $1.celsius! })
            #expect(s.hotTrip == usable.filter { $0.kind == .hot }.min { $0.celsius! < $1.celsius! })
            #expect(s.criticalTrip == usable.filter { $0.kind == .critical }.min { $0.celsius! < $1.celsius! })
        }
    }
}

/// `SysfsValue.integer`'s byte-level parse and `isSentinel` against `Int64(trimmed(raw))` and
/// a plain sentinel set.
@Suite("Sysfs integers and sentinels match the plain rules they stand for")
struct SysfsFastPathTests {
    static func plain(_ raw: String) -> Reading<Int64> {
        let text = SysfsValue.trimmed(raw)
        if text.isEmpty { return .unknown(ReadingIssue(file: "f", reason: .empty)) }
        guard let n = Int64(text) else {
            return .unknown(ReadingIssue(file: "f", reason: .notANumber, detail: String(text.prefix(24))))
        }
        return .value(n)
    }

    @Test("integers parse as Int64(trimmed(raw)) does")
    func integers() {
        var inputs = ["", "\n", " ", "0", "-0", "+0", "+", "-", "+-1", "--1", "1-", "42\n", " 42\n", "\t42 \r\n\0",
                      "42 43", "0042", "-273150\n", "9223372036854775807", "9223372036854775808",
                      "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "١٢", "４２", "12a",
                      "0x10", "1e3", "1.5", " +7", "\r42", "\u{0}42", "42\u{301}", "−5", "²"]
        inputs += inputs.map { $0 + "\n" }
        for raw in inputs {
            #expect(SysfsValue.integer(raw, file: "f") == Self.plain(raw), "\(raw.debugDescription)")
        }
        var seed: UInt64 = 12345
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let v = Int64(bitPattern: seed) >> Int64(seed % 64)
            for raw in ["\(v)", "\(v)\n", "+\(v)", " \(v) "] {
                #expect(SysfsValue.integer(raw, file: "f") == Self.plain(raw), "\(raw.debugDescription)")
            }
        }
    }

    @Test("sentinels are the values of a plain set")
    func sentinels() {
        let plain: Set<Int64> = [-273_150, -273_250, -274_000, -32_768_000, 65_261_850, 65_535_000, 127_000_000]
        for v in plain { #expect(SysfsValue.isSentinel(v)) }
        for v: Int64 in [0, -273_149, -273_151, 65_535_001, 127_000_001, .min, .max, 1, -1] {
            #expect(SysfsValue.isSentinel(v) == plain.contains(v))
        }
    }
}

/// Stable ids and names: `SensorIDs.make` and `disambiguate`, the class-folder test, and the
/// catalog's two ways of finding equal display names, against the plain rules they stand for.
@Suite("Sensor ids and names match the plain rules they stand for")
struct SensorIDFastPathTests {
    static func oldDisambiguate(_ ids: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return ids.map { id in
            let n = (seen[id] ?? 0) + 1
            seen[id] = n
            return n == 1 ? id : "\(id)#\(n)"
        }
    }

    @Test("ids are made and told apart as plain rules do (few ids compared in place, many counted)")
    func ids() {
        for key in ["pci-0000:00:18.3", "", "platform-é\u{301}"] {
            for channel in TextFastPathTests.names {
                #expect(SensorIDs.make(device: ThermalDeviceInfo(key: key), middle: "hwmon", channel: channel)
                        == "\(key)/hwmon/\(channel)")
            }
        }
        #expect(SensorIDs.make(device: nil, middle: "thermal", channel: "acpitz") == "unlinked/thermal/acpitz")
        // Canonically equal spellings are the same id to a dictionary; they must be to the scan.
        let base = ["a", "b", "a", "é", "e\u{301}", "a", "", "", "x#2", "x", "x"]
        for count in [0, 1, 5, 11, 32, 33, 100] {
            let ids = (0..<count).map { base[($0 * 7) % base.count] }
            #expect(SensorIDs.disambiguate(ids) == Self.oldDisambiguate(ids))
        }
    }

    @Test("equal display names are tagged the same by both ways of finding them")
    func equalNames() {
        func disk(_ n: Int, model: String, slot: String?) -> ThermalSensor {
            ThermalSensor(id: "d\(n)", name: "nvme", kind: .hwmon, celsius: 40, chip: "nvme", label: "Composite",
                          deviceInfo: ThermalDeviceInfo(key: "pci-\(n)", pciSlot: slot, model: model))
        }
        let disks = [
            disk(0, model: "SSD 980", slot: "0000:01:00.0"), disk(1, model: "SSD 980", slot: "0000:02:00.0"),
            disk(2, model: "X", slot: nil), disk(3, model: "X", slot: "0000:04:00.0"), disk(4, model: "X", slot: nil),
            disk(5, model: "é", slot: nil), disk(6, model: "e\u{301}", slot: nil), disk(7, model: "Solo", slot: nil),
        ]
        let few = SensorCatalog.annotate(disks).map(\.displayName)
        let others = (0..<40).map { ThermalSensor(id: "o\($0)", name: "other\($0)", kind: .hwmon, celsius: 30) }
        let many = SensorCatalog.annotate(disks + others).map(\.displayName)
        #expect(few == Array(many.prefix(disks.count)))
        #expect(few.contains("NVMe SSD 980 (Composite) [01:00.0]") && few.contains("NVMe X (Composite) [#3]"))
        // é and e + U+0301 are equal names (as String compares them), not told apart by bytes.
        #expect(few[5] == "NVMe é (Composite) [#1]" && few[6] == "NVMe e\u{301} (Composite) [#2]")
    }
}

/// `SensorTrend.fit`'s short cut for fewer points than a trend needs, against the window the
/// full rule builds (filter, thinning) for the same points.
@Suite("Trend fit short cut matches the full rule")
struct TrendFastPathTests {
    @Test("too few points give the window count the full rule would")
    func fewPoints() {
        var picks = SeededPicks(seed: 99)
        let times: [Double] = [0, 1, 5, 29.9, 30, 31, 100, -5, .nan, .infinity]
        for maxPoints in [0, 1, 2, 3, 60] {
            var config = ForecastConfig()
            config.maxPoints = maxPoints
            for _ in 0..<400 {
                let points = (0..<picks.next(config.minSamples)).map { _ in (time: times[picks.next(times.count)], celsius: 50.0) }
                var expected = 0
                if let newest = points.last {
                    expected = points.filter { newest.time - $0.time <= config.windowSeconds && $0.time <= newest.time }.count
                    if expected > maxPoints, maxPoints >= 2 { expected = maxPoints }
                }
                #expect(SensorTrend.fit(points, config: config) == .notEnough(expected))
            }
        }
    }
}

/// `CombinedBattery.percent` and `status`, computed in one pass, against the array rules
/// they stand for.
@Suite("Combined battery matches the plain rules it stands for")
struct CombinedBatteryFastPathTests {
    @Test("percent and status as the compactMap rules gave them")
    func combined() {
        var picks = SeededPicks(seed: 5)
        let values: [Double?] = [nil, 0, 12.5, 50, 57.3, 100, -1, .nan]
        let statuses: [ThermalBatteryStatus?] = [nil, .charging, .discharging, .notCharging, .full, .unknown]
        for _ in 0..<2000 {
            let list = (0..<picks.next(4)).map { i in
                ThermalBattery(id: "BAT\(i)", status: statuses[picks.next(statuses.count)], capacity: values[picks.next(values.count)],
                               energyNow: values[picks.next(values.count)], energyFull: values[picks.next(values.count)],
                               chargeFull: values[picks.next(values.count)], voltageNow: values[picks.next(values.count)])
            }
            let c = ThermalCombinedBattery(list)
            let known = list.compactMap { b -> (Double, Double?)? in b.percent.map { ($0, b.energyFullWh) } }
            var percent: Double?
            if known.count == 1 { percent = known[0].0 } else if !known.isEmpty, known.allSatisfy({ $0.1 != nil && $0.1! > 0 }) {
                percent = known.reduce(0) { $0 + $1.0 * $1.1! } / known.reduce(0) { $0 + $1.1! }
            }
            // Several batteries that all know their energies: the energy sums (issue 29).
            if list.count > 1, list.allSatisfy({ $0.energyNowWh != nil && ($0.energyFullWh ?? 0) > 0 }) {
                var now = 0.0, full = 0.0
                for b in list { now += Swift.min(b.energyNowWh!, b.energyFullWh!); full += b.energyFullWh! }
                percent = Swift.min(100, 100 * now / full)
            }
            #expect(c.percent.map(\.bitPattern) == percent.map(\.bitPattern))
            let all = list.compactMap(\.status)
            let status: ThermalBatteryStatus? = all.contains(.discharging) ? .discharging : all.contains(.charging) ? .charging
                : (!all.isEmpty && all.allSatisfy { $0 == .full }) ? .full : all.first
            #expect(c.status == status)
        }
    }
}
