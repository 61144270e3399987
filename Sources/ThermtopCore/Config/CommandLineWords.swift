/// Splits an `--on-change` command line into argv the way a shell splits words, and nothing
/// more: single quotes keep text literally, double quotes allow `\"` `\\` `\$` escapes, a
/// backslash outside quotes escapes the next character. No variables, globs, pipes or
/// redirections: the command is run directly, never through a shell, so no text can be
/// spliced into it. Values reach the command only through its environment.
package enum CommandLineWords {
    /// Why the line cannot be split (an unclosed quote, a trailing backslash), nil if fine.
    public static func problem(_ line: String) -> String? {
        switch scan(line) {
        case .success: nil
        case .failure(let e): e.message
        }
    }

    /// The words, or [] when the line is malformed or blank.
    public static func split(_ line: String) -> [String] {
        (try? scan(line).get()) ?? []
    }

    struct Problem: Error { let message: String }

    static func scan(_ line: String) -> Result<[String], Problem> {
        var words: [String] = []
        var cur = ""
        var inWord = false
        var it = Array(line.unicodeScalars)[...]
        while let c = it.popFirst() {
            switch c {
            case " ", "\t", "\n":
                if inWord { words.append(cur); cur = ""; inWord = false }
            case "'":
                inWord = true
                guard let end = it.firstIndex(of: "'") else { return .failure(Problem(message: "a ' quote is never closed")) }
                cur.unicodeScalars.append(contentsOf: it[..<end])
                it = it[(end + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let d = it.popFirst() {
                    if d == "\"" { closed = true; break }
                    if d == "\\", let n = it.first, n == "\"" || n == "\\" || n == "$" || n == "`" {
                        cur.unicodeScalars.append(n)
                        it = it.dropFirst()
                    } else {
                        cur.unicodeScalars.append(d)
                    }
                }
                if !closed { return .failure(Problem(message: "a \" quote is never closed")) }
            case "\\":
                inWord = true
                guard let n = it.popFirst() else { return .failure(Problem(message: "a trailing \\ escapes nothing")) }
                cur.unicodeScalars.append(n)
            default:
                inWord = true
                cur.unicodeScalars.append(c)
            }
        }
        if inWord { words.append(cur) }
        return .success(words)
    }
}
