/// Why a full-screen terminal session cannot start. Found by `Terminal.preflight()`
/// before curses is touched, so the program can print a plain message and exit
/// instead of leaving the terminal half-initialised.
public enum TerminalProblem: Error, CustomStringConvertible, Equatable, Sendable {
    /// Standard input or standard output is not a terminal (piped or redirected).
    case notATerminal
    /// The `TERM` environment variable is unset or empty.
    case termNotSet
    /// terminfo has no usable entry for this `TERM` (unknown, too generic such as
    /// `dumb`, or a hardcopy terminal).
    case unusableTerm(String)
    /// No terminfo database was found at all.
    case noTerminfoDatabase(String)
    /// curses refused to start (`newterm` returned NULL).
    case initializationFailed(String)

    public var description: String {
        switch self {
        case .notATerminal:
            return "standard input and output must both be a terminal (is output piped or redirected?)"
        case .termNotSet:
            return "the TERM environment variable is not set"
        case .unusableTerm(let term):
            return "TERM=\(term) cannot drive a full-screen display (unknown to terminfo, too generic, hardcopy, or unable to move the cursor); try TERM=xterm-256color"
        case .noTerminfoDatabase(let term):
            return "no terminfo database found for TERM=\(term) (is ncurses-base installed, or TERMINFO set wrongly?)"
        case .initializationFailed(let term):
            return "curses could not start on TERM=\(term)"
        }
    }
}
