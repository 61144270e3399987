/// The four stages of Apple's `ProcessInfo.ThermalState`, in order.
///
/// - nominal: nothing to do.
/// - fair: fans may be audible; defer work the person does not need now.
/// - serious: performance is impacted; cut CPU, GPU and I/O, frame rate and animation.
/// - critical: cool down; do only the minimum needed to respond to the person.
public enum ThermalState: Int, Sendable, Hashable, Comparable, CaseIterable, Codable, CustomStringConvertible {
    /// Nothing to do.
    case nominal = 0
    /// Fans may be audible; defer work the person does not need now.
    case fair = 1
    /// Performance is impacted; cut CPU, GPU and I/O, frame rate and animation.
    case serious = 2
    /// Cool down; do only the minimum needed to respond to the person.
    case critical = 3

    /// Ordered by heat: `nominal < fair < serious < critical`.
    public static func < (a: ThermalState, b: ThermalState) -> Bool { a.rawValue < b.rawValue }

    /// `nominal`, `fair`, `serious` or `critical`.
    public var name: String {
        switch self {
        case .nominal: "nominal"
        case .fair: "fair"
        case .serious: "serious"
        case .critical: "critical"
        }
    }

    /// The state's name.
    public var description: String { name }

    /// The state with this name, any case; nil for another word.
    public init?(name: String) {
        guard let s = ThermalState.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = s
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let s = ThermalState(name: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown state \(text)"))
        }
        self = s
    }
}
