/// One of the eight ANSI colours, the terminal's own default, or gray.
///
/// `gray` is "bright black": colour 8 on terminals with 16 or more colours. On an
/// 8-colour terminal the terminal layer draws a gray foreground as the default
/// colour with the dim attribute instead.
public enum TermColor: Sendable, Hashable, CaseIterable {
    case defaultColor
    case black, red, green, yellow, blue, magenta, cyan, white
    case gray
}
