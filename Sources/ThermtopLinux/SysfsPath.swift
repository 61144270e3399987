import ThermtopCore

/// A path written as an interpolation at a call site (`"\(dir)/\(channel)_input"`).
/// `SysfsRoot`'s calls that take a path have an overload taking one, so call sites read the
/// same whether a path is a `String` or built in place; `path(_:)` makes one to keep.
struct SysfsPath: ExpressibleByStringInterpolation {
    let string: String

    init(stringLiteral value: String) { string = value }
    init(stringInterpolation: DefaultStringInterpolation) { string = String(stringInterpolation: stringInterpolation) }
}

/// A path built from an interpolation, to keep (`path("\(base)/\(id)")`).
func path(_ p: SysfsPath) -> String { p.string }
