import Testing
@testable import ThermtopUI

@Suite("Bracketed paste: the decoder finds ESC[200~ … ESC[201~ in what the terminal reads")
struct PasteDecoderTests {
    typealias Output = PasteDecoder.Output

    /// Feeds `reads` as the terminal would hand them over, one read per string, a millisecond
    /// apart; returns everything the decoder passed on.
    static func decode(_ reads: [String], decoder: inout PasteDecoder, start: Double = 100) -> [Output] {
        var out: [Output] = []
        for (i, read) in reads.enumerated() {
            let now = start + Double(i) / 1000
            decoder.expire(now: now, into: &out)
            for c in read.unicodeScalars { decoder.decode(.character(c), now: now, into: &out) }
        }
        return out
    }

    static func decode(_ reads: [String]) -> [Output] {
        var decoder = PasteDecoder()
        return decode(reads, decoder: &decoder)
    }

    static func characters(_ s: String) -> [Output] {
        s.unicodeScalars.map { .input(.character($0)) }
    }

    @Test("a paste cut anywhere, markers included, across three reads is one paste; the keys around it stay keys")
    func markersSplitAcrossReads() {
        let stream = Array("x\u{1B}[200~cpu\nq\u{1B}[201~y".unicodeScalars)
        let expected = Self.characters("x") + [.paste("cpu\nq")] + Self.characters("y")
        for i in 0...stream.count {
            for j in i...stream.count {
                let reads = [stream[..<i], stream[i..<j], stream[j...]].map { String(String.UnicodeScalarView($0)) }
                let out = Self.decode(reads)
                #expect(out == expected, "reads \(reads.map(\.debugDescription))")
            }
        }
    }

    @Test("nothing of a paste comes out before its end marker")
    func nothingBeforeTheEnd() {
        var decoder = PasteDecoder()
        #expect(Self.decode(["\u{1B}[200~q1l\r", "234\u{1B}[20"], decoder: &decoder) == [])
        #expect(Self.decode(["1~"], decoder: &decoder) == [.paste("q1l\r234")])
    }

    @Test("control characters inside a paste are its text, never keys; keys curses decoded inside it are left out")
    func controlCharactersInside() {
        var decoder = PasteDecoder()
        var out: [Output] = []
        let text = "a\r\n\tb\u{1B}c\u{7F}\u{03}\u{1B}[20x\u{1B}\u{1B}[201~"
        for c in "\u{1B}[200~".unicodeScalars { decoder.decode(.character(c), now: 1, into: &out) }
        for (i, c) in text.unicodeScalars.enumerated() {
            // A pasted ESC [ A that curses turned into the Up key, in the middle of the text.
            if i == 3 { decoder.decode(.key(.up), now: 1, into: &out) }
            decoder.decode(.character(c), now: 1, into: &out)
        }
        decoder.decode(.character("q"), now: 1, into: &out)
        #expect(out == [.paste("a\r\n\tb\u{1B}c\u{7F}\u{03}\u{1B}[20x\u{1B}"), .input(.character("q"))])
        #expect(decoder.deadline == nil, "nothing waits after the paste")
    }

    @Test("a paste whose end marker never comes ends once the input is quiet; keys work again after it")
    func noEndMarker() {
        var decoder = PasteDecoder()
        var out = Self.decode(["\u{1B}[200~cpu\nq"], decoder: &decoder, start: 10)
        #expect(out == [])
        #expect(decoder.deadline == 10 + PasteDecoder.quietSeconds)
        decoder.expire(now: 10 + PasteDecoder.quietSeconds / 2, into: &out)
        #expect(out == [], "the paste ended while its input could still be coming")
        decoder.expire(now: 10 + PasteDecoder.quietSeconds, into: &out)
        #expect(out == [.paste("cpu\nq")])
        #expect(decoder.deadline == nil)
        out = Self.decode(["q"], decoder: &decoder, start: 12)
        #expect(out == [.input(.character("q"))], "the key after the lost end marker was swallowed")
    }

    @Test("an ESC with nothing after it is the Escape key once the marker wait passes; other keys flush it at once")
    func heldEscape() {
        var decoder = PasteDecoder()
        var out = Self.decode(["\u{1B}"], decoder: &decoder, start: 5)
        #expect(out == [], "an ESC may be the start of a marker cut between reads")
        #expect(decoder.deadline == 5 + PasteDecoder.markerWaitSeconds)
        decoder.expire(now: 5 + PasteDecoder.markerWaitSeconds, into: &out)
        #expect(out == Self.characters("\u{1B}"))
        #expect(Self.decode(["\u{1B}[2", "j"]) == Self.characters("\u{1B}[2j"))
        out = []
        decoder.decode(.character("\u{1B}"), now: 6, into: &out)
        decoder.decode(.key(.down), now: 6, into: &out)
        #expect(out == Self.characters("\u{1B}") + [.input(.key(.down))])
    }

    @Test("a huge paste carries at most maxScalars of its text, and none of the rest leaks out as keys")
    func hugePaste() {
        let body = String(repeating: "q1\n", count: 100_000)
        let out = Self.decode(["\u{1B}[200~" + body, "\u{1B}[201~"])
        #expect(out.count == 1)
        guard case .paste(let text)? = out.first else {
            Issue.record("not one paste: \(out.prefix(3))")
            return
        }
        #expect(text.unicodeScalars.count == PasteDecoder.maxScalars)
        #expect(text.unicodeScalars.elementsEqual(body.unicodeScalars.prefix(PasteDecoder.maxScalars)))
    }
}

/// Issue 38 item 10: SGR mouse reports (1006) are decoded, never keys.
@Suite struct SGRMouseDecoderTests {
    @Test("an SGR press is a mouse key at 0-based cells; wheel up and down too; releases, drags and other buttons vanish; none of their digits are keys")
    func sgrReports() {
        let out = PasteDecoderTests.decode(["\u{1B}[<0;11;6M", "\u{1B}[<0;11;6m", "\u{1B}[<64;3;4M\u{1B}[<65;3;4M",
                                            "\u{1B}[<32;5;5M\u{1B}[<2;5;5M", "x"])
        #expect(out == [.input(.key(.mouse(MouseEvent(x: 10, y: 5, button: .left)))),
                        .input(.key(.mouse(MouseEvent(x: 2, y: 3, button: .wheelUp)))),
                        .input(.key(.mouse(MouseEvent(x: 2, y: 3, button: .wheelDown)))),
                        .input(.character("x"))], "\(out)")
    }

    @Test("an SGR report cut between two reads is still one click; one cut short for good is dropped, not keys")
    func sgrSplitAndCut() {
        let stream = Array("\u{1B}[<0;12;7M".unicodeScalars)
        for i in 1..<stream.count {
            let reads = [stream[..<i], stream[i...]].map { String(String.UnicodeScalarView($0)) }
            #expect(PasteDecoderTests.decode(reads) == [.input(.key(.mouse(MouseEvent(x: 11, y: 6, button: .left))))], "\(reads)")
        }
        var decoder = PasteDecoder()
        var out = PasteDecoderTests.decode(["\u{1B}[<0;12"], decoder: &decoder)
        decoder.expire(now: 200, into: &out)
        #expect(out.isEmpty, "a cut-short report gave \(out)")
        // Text pasted inside a paste stays text.
        #expect(PasteDecoderTests.decode(["\u{1B}[200~\u{1B}[<0;1;1M\u{1B}[201~"]) == [.paste("\u{1B}[<0;1;1M")])
    }
}
