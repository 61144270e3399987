/// One of the eight ANSI colours, the terminal's own default, gray or orange.
///
/// `gray` is "bright black": colour 8 on terminals with 16 or more colours. On an
/// 8-colour terminal the terminal layer draws a gray foreground as the default
/// colour with the dim attribute instead. `orange` is colour 208 on 256-colour terminals,
/// bright red (9) on 16-colour ones and red on 8-colour ones.
public enum TermColor: Sendable, Hashable, CaseIterable {
    case defaultColor
    case black, red, green, yellow, blue, magenta, cyan, white
    case gray
    case orange
}
