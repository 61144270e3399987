/// One threshold of a sensor: where the level starts, how far below it the level clears, and
/// the rule that produced it (shown in reasons and in the detail view).
public struct ThermalThreshold: Sendable, Equatable {
    public var celsius: Double
    public var hysteresis: Double
    /// Where the value comes from: `passive trip`, `hwmon max`, `critical trip 103.0 °C − 15.0 °C`…
    public var rule: String
    /// True when the value is the named limit itself (a trip, an hwmon limit, a configured
    /// value), false when it was derived from another one.
    public var isDirect: Bool

    public init(celsius: Double, hysteresis: Double, rule: String, isDirect: Bool = true) {
        self.celsius = celsius
        self.hysteresis = hysteresis
        self.rule = rule
        self.isDirect = isDirect
    }

    /// `passive trip 90.0 °C`, or `88.0 °C (critical trip 103.0 °C − 15.0 °C)`.
    public var label: String { TextBytes.make { writeLabel(into: &$0) } }

    /// Writes `label` (for a text that includes it).
    package func writeLabel(into t: inout TextBytes) {
        if isDirect {
            t.text(rule); t.literal(" "); t.degrees(celsius)
        } else {
            t.degrees(celsius); t.literal(" ("); t.text(rule); t.literal(")")
        }
    }

    /// The temperature below which this level clears.
    public var clearsBelow: Double { celsius - hysteresis }
}

/// The fair, serious and critical thresholds of one sensor.
public struct SensorThresholds: Sendable, Equatable {
    public var fair: ThermalThreshold
    public var serious: ThermalThreshold
    public var critical: ThermalThreshold

    public init(fair: ThermalThreshold, serious: ThermalThreshold, critical: ThermalThreshold) {
        self.fair = fair
        self.serious = serious
        self.critical = critical
    }

    public subscript(state: ThermalState) -> ThermalThreshold? {
        switch state {
        case .nominal: nil
        case .fair: fair
        case .serious: serious
        case .critical: critical
        }
    }

    /// The level a temperature reaches against these limits, without hysteresis: the one rule
    /// the classifier starts from and the bars and graph colour by.
    public func level(at celsius: Double) -> ThermalState {
        var l = ThermalState.nominal
        for s in [ThermalState.fair, .serious, .critical] where celsius >= self[s]!.celsius { l = s }
        return l
    }

    /// Thresholds from the sensor's own data. One margin rule for every kind of limit
    /// (docs/verdict.md): a *warning* limit (passive trip, hwmon `max`: where the system
    /// starts to cool) is serious itself; a *shutdown* limit (critical trip, hwmon `crit`,
    /// else `emergency`: where hardware stops or throttles hard, as for NVMe and GPUs) puts
    /// critical `criticalBelowLimit` under it and serious `seriousBelowLimit` under it; a hot
    /// trip (the firmware's own "about to be critical") is critical itself. A warning limit at
    /// or above the shutdown limit is no warning and is passed over.
    /// - serious: configured; lowest passive trip; hwmon `max`; shutdown limit − 15 °C; a default by kind.
    /// - critical: configured; hot trip; shutdown limit − 5 °C; serious + 10 °C.
    /// - fair: serious − 10 °C.
    /// A level clears below its threshold minus the trip's hysteresis (default 2 °C).
    public static func derive(for sensor: ThermalSensor, config: ThermalConfig) -> SensorThresholds {
        let o = config.override(for: sensor)
        let defaultHyst = o?.hysteresis ?? config.defaultHysteresis
        func hyst(_ trip: TripPoint?) -> Double {
            if let h = o?.hysteresis { return h }
            if let h = trip?.hysteresis, h > 0 { return h }
            return defaultHyst
        }

        // A warning limit at or above the shutdown limit warns of nothing (coretemp's max =
        // crit = 100 °C): the shutdown rule applies instead.
        let shutdown = shutdownLimit(of: sensor)
        func warns(_ c: Double) -> Bool { shutdown.map { c < $0.celsius } ?? true }
        var serious: Threshold
        if let t = o?.serious {
            serious = Threshold(celsius: t, hysteresis: defaultHyst, rule: "configured")
        } else if let p = sensor.passiveTrips.first, let c = p.celsius, warns(c) {
            serious = Threshold(celsius: c, hysteresis: hyst(p), rule: sensor.tripsFrom.map { "\($0) passive trip" } ?? "passive trip")
        } else if let m = sensor.max, warns(m) {
            serious = Threshold(celsius: m, hysteresis: defaultHyst, rule: "hwmon max")
        } else if let limit = shutdown {
            serious = Threshold(celsius: limit.celsius - config.seriousBelowLimit,
                                hysteresis: limit.trip.map(hyst) ?? defaultHyst,
                                rule: degreesRule(limit.name, limit.celsius, " − ", config.seriousBelowLimit),
                                isDirect: false)
        } else {
            let d = sensor.isBattery ? config.defaultBatterySerious : config.defaultSerious
            serious = Threshold(celsius: d, hysteresis: defaultHyst,
                                rule: sensor.isBattery ? "default for batteries" : "default for sensors without limits",
                                isDirect: false)
        }

        var critical: Threshold
        if let t = o?.critical {
            critical = Threshold(celsius: t, hysteresis: defaultHyst, rule: "configured")
        } else if let h = sensor.hotTrip, let c = h.celsius {
            critical = Threshold(celsius: c, hysteresis: hyst(h), rule: sensor.tripsFrom.map { "\($0) hot trip" } ?? "hot trip")
        } else if let limit = shutdown {
            let c = limit.celsius - config.criticalBelowLimit
            var h = limit.trip.map(hyst) ?? defaultHyst
            // hwmon's crit_hyst is where the chip's own alarm clears (absolute): the level
            // clears there too when that is below the threshold and plausible.
            if limit.trip == nil, o?.hysteresis == nil, sensor.crit != nil, let ch = sensor.critHyst, ch < c, c - ch <= 50 { h = c - ch }
            critical = Threshold(celsius: c, hysteresis: h,
                                 rule: degreesRule(limit.name, limit.celsius, " − ", config.criticalBelowLimit),
                                 isDirect: false)
        } else {
            critical = Threshold(celsius: serious.celsius + config.criticalAboveSerious, hysteresis: defaultHyst,
                                 rule: degreesRule("serious ", serious.celsius, " + ", config.criticalAboveSerious),
                                 isDirect: false)
        }
        // Firmware can put a passive trip above the hot one; keep the levels ordered.
        if critical.celsius < serious.celsius { critical.celsius = serious.celsius }

        let fair: Threshold
        if let f = o?.fair {
            fair = Threshold(celsius: min(f, serious.celsius), hysteresis: defaultHyst, rule: "configured")
        } else {
            let fairMargin = o?.fairBelowSerious ?? config.fairBelowSerious
            fair = Threshold(celsius: serious.celsius - fairMargin, hysteresis: defaultHyst,
                             rule: degreesRule("serious ", serious.celsius, " − ", fairMargin),
                             isDirect: false)
        }
        return SensorThresholds(fair: fair, serious: serious, critical: critical)
    }

    /// The limit at which the hardware acts by itself (shuts down, or throttles hard): the
    /// zone's critical trip, else hwmon `crit`, else `emergency`. Every kind is treated alike
    /// (`derive`); `name` is how the rule names it (`critical trip `, `hwmon crit `…).
    static func shutdownLimit(of sensor: ThermalSensor) -> (celsius: Double, name: StaticString, trip: TripPoint?)? {
        if let ct = sensor.criticalTrip, let c = ct.celsius { return (c, "critical trip ", ct) }
        if let c = sensor.crit { return (c, "hwmon crit ", nil) }
        if let c = sensor.emergency { return (c, "hwmon emergency ", nil) }
        return nil
    }

    /// True for a sensor judged on default limits alone with no known role: no trip, no hwmon
    /// limit, nothing configured, and neither a known group (CPU, GPU, disk, Wi-Fi, battery)
    /// nor a named board channel (an unconnected Super-I/O `AUXTIN`, an unlabelled `tempN`).
    /// Such a reading is shown but counts as fair at most (docs/verdict.md).
    public static func isUncorroborated(_ s: ThermalSensor, override o: SensorOverride?) -> Bool {
        if !s.passiveTrips.isEmpty || s.hotTrip != nil || s.criticalTrip != nil { return false }
        if s.max != nil || s.crit != nil || s.emergency != nil { return false }
        if let o, o.serious != nil || o.critical != nil || o.fair != nil { return false }
        switch s.group {
        case .cpu, .gpu, .disk, .wifi, .battery: return false
        case .board, .other: break
        }
        guard let label = s.label, !label.isEmpty else { return true }
        let l = label.lowercased()
        if l.hasPrefix("auxtin") { return true }
        // An unlabelled hwmon channel carries its file name (`temp3`).
        if l.hasPrefix("temp"), l.count > 4, l.dropFirst(4).allSatisfy(\.isNumber) { return true }
        return false
    }

    /// A derived threshold's rule, `<head><a> <op> <b>` with `a` and `b` as `formatDegrees`
    /// prints them (`critical trip 103.0 °C − 15.0 °C`).
    package static func degreesRule(_ head: StaticString, _ a: Double, _ op: StaticString, _ b: Double) -> String {
        TextBytes.make { t in
            t.literal(head); t.degrees(a); t.literal(op); t.degrees(b)
        }
    }
}

/// `91.0 °C`: one decimal, the way every thermtop output prints temperatures.
package func formatDegrees(_ c: Double) -> String {
    // Written as bytes on the stack, then made a String (one that fits inline, as most do,
    // allocates nothing): interpolating the parts cost ~1.1 k instructions a call.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
        let p = buffer.baseAddress!
        return String(decoding: UnsafeBufferPointer(start: p, count: writeDegrees(c, to: p)), as: UTF8.self)
    }
}

/// Writes `formatDegrees(c)` (`−w.t °C`: at most 3 + 19 + 1 + 1 + 4 bytes) at `p`, which has
/// room for 32 bytes; returns how many it wrote. The one rule for printing a temperature.
func writeDegrees(_ c: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
    let r = (c * 10).rounded() / 10
    let whole = Int(r.rounded(.towardZero))
    var tenths = Int(((abs(r) - Double(abs(whole))) * 10).rounded())
    var w = abs(whole)
    if tenths == 10 { tenths = 0; w += 1 }
    var n = 0
    if r < 0 { p[0] = 0xE2; p[1] = 0x88; p[2] = 0x92; n = 3 }  // U+2212 MINUS SIGN
    n += writeDecimalDigits(UInt64(w), to: p + n)
    p[n] = UInt8(ascii: ".")
    n += 1
    n += writeDecimalDigits(UInt64(tenths), to: p + n)
    p[n] = 0x20; p[n + 1] = 0xC2; p[n + 2] = 0xB0; p[n + 3] = UInt8(ascii: "C")  // " °C"
    return n + 4
}

/// A short text (a reason, a threshold rule) written part by part as UTF-8 bytes and made a
/// String once. Interpolating two or more dynamic parts cost ~1.7 k instructions (each part an
/// append that checks and grows the String), and `status` builds a few such texts per sensor.
/// The parts print as interpolation prints them: strings as they are, `degrees` as
/// `formatDegrees`, `int` as `"\(n)"`.
package struct TextBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// `base` was allocated by `grow` (else it is `make`'s stack buffer).
    private var onHeap = false

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The text `build` writes. It starts in 256 bytes on the stack and moves to the heap only
    /// when it outgrows them.
    package static func make(_ build: (inout TextBytes) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { stack in
            var t = TextBytes(base: stack.baseAddress!, capacity: stack.count)
            build(&t)
            let text = String(decoding: UnsafeBufferPointer(start: t.base, count: t.count), as: UTF8.self)
            if t.onHeap { t.base.deallocate() }
            return text
        }
    }

    /// Room for `n` more bytes at the returned pointer.
    private mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > capacity {
            var size = capacity * 2
            while size < count + n { size *= 2 }
            let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            memory.update(from: base, count: count)
            if onHeap { base.deallocate() }
            base = memory
            capacity = size
            onHeap = true
        }
        return base + count
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        copyBytes(reserve(bytes.count), start, count: bytes.count)
        count += bytes.count
    }

    /// A literal part.
    package mutating func literal(_ s: StaticString) {
        s.withUTF8Buffer { append($0) }
    }

    /// UTF-8 bytes, as they are (whole characters: a String's, or an ASCII part of one).
    package mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
        append(b)
    }

    /// A String part, as it is.
    package mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// `formatDegrees(c)`.
    package mutating func degrees(_ c: Double) {
        let p = reserve(32)
        count += writeDegrees(c, to: p)
    }

    /// `n` in decimal, as `"\(n)"` prints an Int.
    package mutating func int(_ n: Int) {
        let p = reserve(21)
        if n < 0 {
            p[0] = UInt8(ascii: "-")
            count += 1 + writeDecimalDigits(UInt64(n.magnitude), to: p + 1)
        } else {
            count += writeDecimalDigits(UInt64(n), to: p)
        }
    }
}

/// Writes `v` in decimal ASCII digits (no sign, no leading zeros, `0` for zero) at `p`, which
/// has room for 20 bytes; returns how many it wrote. What `"\(v)"` prints, without making a
/// String: for the text builders that write bytes (`formatDegrees`, `JSONWriter`, `SysfsPath`).
package func writeDecimalDigits(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
    var count = 1
    var rest = v / 10
    while rest > 0 { count += 1; rest /= 10 }
    var x = v
    for i in stride(from: count - 1, through: 0, by: -1) {
        p[i] = UInt8(truncatingIfNeeded: x % 10) &+ UInt8(ascii: "0")
        x /= 10
    }
    return count
}

// thermtop's own code keeps the short name; `import Thermtop` exposes only the prefixed one
// (issue 7 §6: no generic names injected into users' code).
package typealias Threshold = ThermalThreshold

/// Copies `count` bytes from `source` to `destination` (the two not overlapping). Up to 32
/// bytes — the keys, text runs, path pieces and link names that are most of a report's and a
/// discovery's copies — with at most four word moves (the first and the last words of the
/// range, overlapping in the middle), where a call to the C library's `memcpy` (an indirect call
/// in the static build) cost ~30 instructions each: ~8,100 calls in `status --json` before, the
/// ~3,000 left being the standard library's own (making Strings). Longer ones by `memcpy`.
@inline(__always)
package func copyBytes(_ destination: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, count: Int) {
    /// The words of type `W` at `offset` and at the range's end, overlapping when the range is
    /// shorter than two (`count` is at least one word long).
    @inline(__always)
    func ends<W: FixedWidthInteger>(_: W.Type, from offset: Int = 0) {
        let last = count - MemoryLayout<W>.size
        let a = source.loadUnaligned(fromByteOffset: offset, as: W.self)
        let b = source.loadUnaligned(fromByteOffset: last - offset, as: W.self)
        destination.storeBytes(of: a, toByteOffset: offset, as: W.self)
        destination.storeBytes(of: b, toByteOffset: last - offset, as: W.self)
    }
    switch count {
    case 17...32: ends(UInt64.self); ends(UInt64.self, from: 8)
    case 8...16: ends(UInt64.self)
    case 4...7: ends(UInt32.self)
    case 2...3: ends(UInt16.self)
    case 1: destination.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
    case 33...: destination.copyMemory(from: source, byteCount: count)
    default: break
    }
}
