import ThermtopCore

extension SysfsRoot {
    /// Read a file and parse it with one of `SysfsValue`'s parsers.
    @_disfavoredOverload
    func value<T>(_ file: String, _ parse: (String, String) -> Reading<T>) -> Reading<T> {
        switch read(file) {
        case .success(let text): parse(text, file)
        case .failure(let issue): .unknown(issue)
        }
    }

    /// Read a value, recording why it is unknown in `issues` (missing optional files are not
    /// recorded unless `required`).
    @_disfavoredOverload
    func take<T>(_ file: String, _ parse: (String, String) -> Reading<T>, into issues: inout [ReadingIssue],
                 required: Bool = true) -> T? {
        switch value(file, parse) {
        case .value(let v): return v
        case .unknown(let issue):
            if required || issue.reason != .missing { issues.append(issue) }
            return nil
        }
    }

    // The same for a path written as an interpolation at the call site (`SysfsPath`).
    func value<T>(_ file: SysfsPath, _ parse: (String, String) -> Reading<T>) -> Reading<T> { value(file.string, parse) }
    func take<T>(_ file: SysfsPath, _ parse: (String, String) -> Reading<T>, into issues: inout [ReadingIssue],
                 required: Bool = true) -> T? {
        take(file.string, parse, into: &issues, required: required)
    }
}

/// Parsers adapted to the `(text, file)` shape.
enum Parse {
    static let string: @Sendable (String, String) -> Reading<String> = SysfsValue.string
    static let integer: @Sendable (String, String) -> Reading<Int64> = SysfsValue.integer
    static let temperature: @Sendable (String, String) -> Reading<Double> = SysfsValue.temperature
    static let limit: @Sendable (String, String) -> Reading<Double> = SysfsValue.limit
    static let hysteresis: @Sendable (String, String) -> Reading<Double> = SysfsValue.hysteresis
    static let percent: @Sendable (String, String) -> Reading<Double> = SysfsValue.percent
    static let flag: @Sendable (String, String) -> Reading<Bool> = SysfsValue.flag
    static func micro(max: Double, signed: Bool = false) -> @Sendable (String, String) -> Reading<Double> {
        { SysfsValue.micro($0, file: $1, max: max, signed: signed) }
    }
    /// Battery `temp`: tenths of °C.
    static let tenthsCelsius: @Sendable (String, String) -> Reading<Double> = {
        SysfsValue.scaled($0, file: $1, divisor: 10, range: -40...100)
    }
    static let int: @Sendable (String, String) -> Reading<Int> = { text, file in
        SysfsValue.integer(text, file: file).flatMap { n in
            (Int64(Int32.min)...Int64(Int32.max)).contains(n) ? .value(Int(n))
                : .unknown(ReadingIssue(file: file, reason: .implausible, detail: "\(n)"))
        }
    }
}
