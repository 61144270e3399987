// Fuzz target `values`: every parser of one sysfs attribute's text (integers, temperatures,
// limits, hystereses, micro-units, percentages, flags, strings with control bytes), a power
// supply's `uevent` lines, the power-profiles-daemon state.ini parser, and the formatters
// that print what they return.
@testable import ThermtopCore
@testable import ThermtopLinux

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValues(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let raw = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let f = "class/thermal/thermal_zone0/temp"

    // An integer comes only from text that is all digits after an optional sign.
    if SysfsValue.integer(raw, file: f).value != nil {
        let t = SysfsValue.trimmed(raw).unicodeScalars
        let digits = t.first == "-" || t.first == "+" ? t.dropFirst() : t[...]
        if digits.isEmpty || !digits.allSatisfy({ ("0"..."9").contains($0) }) { fail("integer from \(raw.debugDescription)") }
    }
    if let c = SysfsValue.temperature(raw, file: f).value {
        guard SysfsValue.plausibleTemperature.contains(c) else { fail("temperature \(c) out of range") }
        requireInert(TemperatureUnit.celsius.number(c), "°C number")
        requireInert(TemperatureUnit.fahrenheit.number(c), "°F number")
        requireInert(formatDegrees(c), "formatDegrees")
    }
    if let c = SysfsValue.limit(raw, file: f).value, !SysfsValue.plausibleLimit.contains(c) { fail("limit \(c)") }
    if let h = SysfsValue.hysteresis(raw, file: f).value, !(0...50).contains(h) { fail("hysteresis \(h)") }
    for signed in [false, true] {
        if let v = SysfsValue.micro(raw, file: f, max: 1000, signed: signed).value {
            guard v >= 0, v <= 1000 else { fail("micro \(v)") }
            requireInert(Format.watts(v), "watts")
            requireInert(Format.fixed(v, places: 2), "fixed")
        }
    }
    if let p = SysfsValue.percent(raw, file: f).value {
        guard (0...100).contains(p) else { fail("percent \(p)") }
        requireInert(Format.percent(p), "percent")
    }
    _ = SysfsValue.flag(raw, file: f)
    if let s = SysfsValue.string(raw, file: f).value {
        requireInert(Format.clean(s), "clean")
        _ = Format.pad(Format.clean(s), Int(count % 40))
        _ = Format.padLeft(Format.clean(s), Int(count % 40))
    }
    // Every issue's text is printable once cleaned, whatever detail it carries.
    for r in [SysfsValue.temperature(raw, file: f).issue, SysfsValue.limit(raw, file: f).issue] {
        if let r { requireInert(Format.clean(r.description), "issue") }
    }
    // A power_supply `uevent` file (read for the type when `type` is missing): KEY=value lines;
    // a value is never empty and never spans lines.
    if let v = SupplyLayout.ueventValue(raw, key: "POWER_SUPPLY_TYPE") {
        if v.isEmpty || v.contains(where: \.isNewline) { fail("uevent value \(v.debugDescription)") }
    }
    if let profile = LowPowerReader.ppdProfile(fromStateINI: raw) {
        if profile.isEmpty { fail("empty profile") }
        requireInert(Format.clean(profile), "profile")
    }
    // Numbers of any size print without trapping (durations, fixed decimals, percentages).
    if count >= 8 {
        let bits = UnsafeRawPointer(data).loadUnaligned(as: UInt64.self)
        let d = Double(bitPattern: bits)
        if d.isFinite, abs(d) < 1e15 {
            _ = Format.fixed(d, places: Int(bits % 4))
            _ = Format.duration(abs(d))
            _ = Format.percent(d)
        }
    }
    return 0
}
