import Testing

@testable import TerminalUI

/// Bytes a terminal sends in raw mode → keys and replies (issue 12: a small component of its own).
@Suite("Key decoder")
struct KeyDecoderTests {
    func decode(_ chunks: [String], flush: Bool = true) -> [TerminalInput] {
        var decoder = KeyDecoder()
        var out: [TerminalInput] = []
        for chunk in chunks { out += decoder.feed(Array(chunk.utf8)) }
        if flush { out += decoder.flush() }
        return out
    }

    func keys(_ text: String) -> [Key] {
        decode([text]).compactMap { if case let .key(key) = $0 { return key } else { return nil } }
    }

    @Test func arrowsInEveryForm() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1B}OA\u{1B}OD") == [.up, .left])  // application cursor mode (SS3)
        #expect(keys("\u{1B}[1;5C\u{1B}[1;2A") == [.right, .up])  // with Ctrl / Shift
        #expect(
            keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[3~\u{1B}[5~\u{1B}[6~") == [
                .home, .end, .home, .end, .delete, .pageUp, .pageDown,
            ])
    }

    @Test func controlBytesAndText() {
        #expect(keys("\r\n\u{7F}\u{08}\t") == [.enter, .enter, .backspace, .backspace, .tab])
        #expect(keys("\u{03}\u{15}\u{17}") == [.ctrl("c"), .ctrl("u"), .ctrl("w")])
        #expect(keys("q ?") == [.char("q"), .char(" "), .char("?")])
        #expect(keys("é猫🐈") == [.char("é"), .char("猫"), .char("🐈")])
    }

    @Test func escapeAloneAltAndSplitSequences() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty && decoder.hasPending)  // Escape, or the start of a sequence?
        #expect(decoder.feed(Array("[".utf8)).isEmpty)
        #expect(decoder.feed(Array("C".utf8)) == [.key(.right)])
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.flush() == [.key(.escape)])  // nothing followed: Escape
        #expect(!decoder.hasPending)
        #expect(keys("\u{1B}q") == [.alt("q")])
        #expect(keys("\u{1B}\u{1B}") == [.escape, .escape])
        // A UTF-8 character cut between two reads.
        let cat = Array("猫".utf8)
        #expect(decoder.feed(Array(cat[0..<2])).isEmpty)
        #expect(decoder.feed(Array(cat[2...])) == [.key(.char("猫"))])
    }

    /// SGR mouse reports (mode 1006): presses, releases, the wheel, drags; nonsense is no event.
    @Test func mouseReports() {
        #expect(
            keys("\u{1B}[<0;12;5M\u{1B}[<0;12;5m\u{1B}[<64;3;4M\u{1B}[<65;3;4M\u{1B}[<32;7;8M\u{1B}[<2;1;1M") == [
                .mouse(MouseEvent(.press, column: 12, row: 5)), .mouse(MouseEvent(.release, column: 12, row: 5)),
                .mouse(MouseEvent(.wheelUp, column: 3, row: 4)), .mouse(MouseEvent(.wheelDown, column: 3, row: 4)),
                .mouse(MouseEvent(.drag, column: 7, row: 8)), .mouse(MouseEvent(.press, button: 2, column: 1, row: 1)),
            ])
        #expect(
            keys("\u{1B}[<0;0;5M\u{1B}[<0;5M\u{1B}[<0;99999999999;1M\u{1B}[<66;1;1Mq") == [
                .unknown, .unknown, .unknown, .unknown, .char("q"),
            ])
        // The extra buttons are no click; an old-style report (`ESC [ M` and 3 bytes) is no key.
        #expect(keys("\u{1B}[<128;3;4M\u{1B}[M !!q") == [.unknown, .unknown, .char("q")])
        // Cut between reads.
        #expect(decode(["\u{1B}[<0;1", "0;2M"]) == [.key(.mouse(MouseEvent(.press, column: 10, row: 2)))])
    }

    @Test func repliesToQueries() {
        #expect(decode(["\u{1B}[6;20;10t"]) == [.cellSize(width: 10, height: 20)])
        #expect(decode(["\u{1B}[?62;4;22c"]) == [.deviceAttributes([62, 4, 22])])
        #expect(decode(["\u{1B}_Gi=31;OK\u{1B}\\"]) == [.kittyGraphics(ok: true)])
        #expect(decode(["\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\"]) == [.kittyGraphics(ok: false)])
        // Split anywhere, and other strings (OSC colour replies) ignored.
        #expect(decode(["\u{1B}_Gi=3", "1;OK\u{1B}", "\\q"]) == [.kittyGraphics(ok: true), .key(.char("q"))])
        #expect(decode(["\u{1B}]11;rgb:0000/0000/0000\u{07}x"]) == [.key(.char("x"))])
    }
}

/// Pasted text (issue 42): bracketed pastes are one input, however they are cut into
/// reads; a run of characters too fast to be typed is one too.
@Suite("Pastes")
struct PasteTests {
    @Test func aBracketedPasteIsOneInputAcrossReads() {
        var decoder = KeyDecoder()
        var out = decoder.feed(Array("x\u{1B}[20".utf8))
        out += decoder.feed(Array("0~hello \u{1B}[A wo".utf8))
        #expect(!decoder.hasPending, "a paste under way is no pending key")
        #expect(decoder.flush().isEmpty, "nor does a pause end it")
        out += decoder.feed(Array("rld\u{1B}[20".utf8))
        out += decoder.feed(Array("1~".utf8))
        out += decoder.feed(Array("q".utf8))
        #expect(out == [.key(.char("x")), .paste("hello \u{1B}[A world"), .key(.char("q"))])
    }

    /// Pasted text may hold an end mark of its own (terminals pass it on): what follows it
    /// in the same read, or within 50 ms, is pasted text too, never keys (`x ESC[201~ q`
    /// quit the editor).
    @Test func anEndMarkInsidePastedTextEndsNothing() {
        var decoder = KeyDecoder()
        var out = decoder.feed(Array("\u{1B}[200~x\u{1B}[201~q\rs\u{1B}[201~".utf8))
        #expect(out == [.paste("x"), .paste("q\rs")])
        out = decoder.feed(Array("\u{1B}[200~y\u{1B}[201~".utf8), at: 10.0)
        out += decoder.feed(Array("q".utf8), at: 10.02)
        #expect(out == [.paste("y")] && decoder.hasPending)
        out = decoder.flush()
        #expect(out == [.paste("q")], "the tail, ended by the quiet")
        #expect(decoder.feed(Array("q".utf8), at: 11.0) == [.key(.char("q"))], "typing, later, is keys")
    }

    @Test func turnsOfTheWheelInOneReadAreOneEvent() {
        let wheel = { (a: MouseEvent.Action) in TerminalInput.key(.mouse(MouseEvent(a, column: 3, row: 4))) }
        let inputs = Array(repeating: wheel(.wheelDown), count: 2000) + [wheel(.wheelUp), .key(.char("q"))]
        let merged = KeyDecoder.coalesce(inputs)
        #expect(merged.count == 3, "\(merged.count)")
        guard case let .key(.mouse(first))? = merged.first else {
            Issue.record("no wheel")
            return
        }
        #expect(first.action == .wheelDown && first.count == 2000)
        #expect(merged.last == .key(.char("q")))
    }

    @Test func aHugePasteIsKeptShort() {
        var decoder = KeyDecoder()
        var out: [TerminalInput] = decoder.feed(Array("\u{1B}[200~".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 16)
        for _ in 0..<8 { out += decoder.feed(chunk) }
        out += decoder.feed(Array("\u{1B}[201~".utf8))
        guard case let .paste(text)? = out.first, out.count == 1 else {
            Issue.record("\(out.count) inputs")
            return
        }
        #expect(text.utf8.count == KeyDecoder.maxPaste)
    }

    @Test func aBurstOfCharactersIsAPasteAndTypingIsKeys() {
        let typed: [TerminalInput] = [.key(.char("c")), .key(.char("c")), .key(.enter)]
        #expect(KeyDecoder.coalesce(typed) == typed)
        let burst: [TerminalInput] = Array("hello world".map { .key(.char($0)) }) + [.key(.enter)]
        #expect(KeyDecoder.coalesce(burst) == [.paste("hello world"), .key(.enter)])
        let lines: [TerminalInput] =
            Array("one two".map { .key(.char($0)) }) + [.key(.enter)]
            + Array("three".map { .key(.char($0)) })
        #expect(KeyDecoder.coalesce(lines) == [.paste("one two three")])
        let mixed: [TerminalInput] = [.key(.up)] + Array("abcdefghij".map { .key(.char($0)) }) + [.key(.ctrl("c"))]
        #expect(KeyDecoder.coalesce(mixed) == [.key(.up), .paste("abcdefghij"), .key(.ctrl("c"))])
    }
}

@Suite("Pasting into a prompt")
struct PromptPasteTests {
    @Test func aPasteGoesInAtTheCursorCleanedAndWithinTheLimit() {
        var prompt = LinePrompt(label: "caption: ", text: "ab", limit: 6, purpose: .caption)
        _ = prompt.handle(.left)
        prompt.paste("X\u{1B}Y\nZZZZ")
        #expect(prompt.text == "aX Y b", "controls and line breaks are spaces; the limit holds: \(prompt.text)")
        _ = prompt.handle(.char("!"))
        #expect(prompt.text == "aX Y b", "full")
        var open = LinePrompt(label: "save as: ")
        open.paste("e\u{301}t\u{E9}.png")
        #expect(open.text == "e\u{301}t\u{E9}.png")
        _ = open.handle(.backspace)
        #expect(open.text == "e\u{301}t\u{E9}.pn", "the cursor is at the end")
    }
}
