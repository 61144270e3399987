import Testing
import ThermtopCore

/// The standard library's search by Characters (what `String.contains(_:)` resolves to in
/// ThermtopCore, which imports no Foundation; here Foundation's scalar-based overload would win).
func characterContains<C: Collection>(_ haystack: C, _ needle: C) -> Bool where C.Element: Equatable {
    haystack.contains(needle)
}

@Suite("hasSubstring answers what String.contains answers")
struct TextSearchTests {
    @Test("same answer as contains(_:) for ASCII, combining marks, CR LF, non-ASCII and empty needles", arguments: [
        ("thermal-cpufreq-0", "cpufreq"), ("pwm-fan", "fan"), ("TFN1", "fan"), ("", "fan"), ("fa", "fan"),
        ("fan", "fan"), ("xfanx", "fan"), ("hidpp_battery_0", "battery"), ("iwlwifi_1", "wifi"),
        // A combining mark after the match makes the last letter another Character: no match.
        ("wifi\u{301}", "wifi"), ("fan\u{308}x", "fan"), ("cafe\u{301} fan", "fan"),
        ("ba\u{301}t", "bat"), ("b\u{e4}ttery", "battery"), ("\u{e9}bat", "bat"),
        // CR LF is one Character: "\n" alone is not in "a\r\nb".
        ("a\r\nfan", "fan"), ("fan\r\n", "fan"), ("a\r\nb", "\nb"), ("a\r\nb", "a\r"), ("a\rb", "\rb"),
        ("abc", ""), ("", ""), ("caf\u{e9}", "f\u{e9}"), ("cafe\u{301}", "f\u{e9}"),
    ])
    func sameAsContains(haystack: String, needle: String) {
        #expect(haystack.hasSubstring(needle) == characterContains(haystack, needle), "\(haystack.debugDescription) / \(needle.debugDescription)")
    }

    @Test("every ASCII needle over every position of a mixed string agrees with contains(_:)")
    func exhaustiveOverSlices() {
        #expect(!characterContains("a\r\nb", "\nb"), "the reference searches by Characters")
        let text = "ab\r\nc\u{301}d-fan_bat\u{1F525}z"
        let words = ["a", "b", "ab", "c", "cd", "d", "-fan", "fan_", "bat", "z", "batz", "\r", "\n", "\r\n", "d-", "e"]
        let chars = Array(text)
        for i in 0..<chars.count {
            for j in i...chars.count {
                let hay = String(chars[i..<j])
                for w in words { #expect(hay.hasSubstring(w) == characterContains(hay, w), "\(hay.debugDescription) / \(w.debugDescription)") }
            }
        }
    }
}
