import Testing

@testable import TerminalUI

/// The live scenes' one-line field: what each key does to the text, and when it answers.
@Suite("Line prompt")
struct LinePromptTests {
    func typed(_ keys: [Key], from text: String = "") -> (LinePrompt, [LinePrompt.Outcome]) {
        var prompt = LinePrompt(label: "save as: ", text: text)
        let outcomes = keys.map { prompt.handle($0) }
        return (prompt, outcomes)
    }

    @Test func typingAndDeleting() {
        let (prompt, outcomes) = typed([.char("c"), .char("a"), .char("t"), .char("é"), .backspace, .char("s")])
        #expect(prompt.text == "cats" && outcomes.allSatisfy { $0 == .editing })
        #expect(typed([.backspace], from: "").0.text == "", "Backspace on nothing is nothing")
        #expect(typed([.left, .up, .tab, .unknown], from: "keep").0.text == "keep", "other keys leave the text")
    }

    @Test func wordsAndLines() {
        #expect(typed([.ctrl("w")], from: "out/sepia cat.png").0.text == "out/sepia ")
        #expect(typed([.ctrl("w")], from: "out/sepia-cat.png").0.text == "out/", "a path's folder stays")
        #expect(typed([.ctrl("w")], from: "two words  ").0.text == "two ", "trailing blanks go with the word")
        #expect(typed([.ctrl("u")], from: "all of it").0.text == "")
    }

    /// The cursor: Left, Right, Home, End (Ctrl-A, Ctrl-E) move it; typing and deleting
    /// happen at it, by characters of any script.
    @Test func aCursorMovesAndEditsInPlace() {
        #expect(typed([.left, .left, .char("ø")], from: "cat").0.text == "cøat")
        #expect(typed([.home, .char("🐈"), .char(" ")], from: "cat").0.text == "🐈 cat")
        #expect(typed([.home, .right, .backspace], from: "猫cat").0.text == "cat")
        #expect(typed([.home, .delete, .end, .char("s")], from: "xcat").0.text == "cats")
        #expect(typed([.ctrl("a"), .right, .right, .right, .right, .right, .char("!")], from: "cat").0.text == "cat!")
        #expect(typed([.left, .left, .ctrl("e"), .char("s")], from: "cat").0.text == "cats")
        #expect(typed([.left, .left, .left, .ctrl("w")], from: "big cat").0.text == "cat")
        #expect(typed([.left, .ctrl("u")], from: "all of it").0.cursor == 0)
    }

    /// Keys come a scalar at a time: a combining mark or a variation selector joins the
    /// character before it, and the cursor stays on the text (it was past its end, and drawing trapped).
    @MainActor @Test func scalarsThatJoinTheCharacterBeforeThem() {
        var prompt = LinePrompt(label: "caption: ", purpose: .caption)
        for scalar in ["e", "\u{301}", "\u{2764}", "\u{FE0F}", "\u{1F1EB}", "\u{1F1F7}"] as [Character] {
            _ = prompt.handle(.char(scalar))
        }
        #expect(prompt.text == "é❤️🇫🇷" && prompt.cursor == 3)
        let host = FakeHost()
        (host.columns, host.rows) = (20, 3)
        var frame = ScreenFrame(host: host)
        prompt.draw(into: &frame, row: 3)
        _ = prompt.handle(.left)
        _ = prompt.handle(.backspace)
        #expect(prompt.text == "é🇫🇷" && prompt.cursor == 1)
    }

    /// A limit counts Unicode scalars (the caption's own measure): a key that would pass it is dropped.
    @Test func aLimitKeepsTheTextShort() {
        var prompt = LinePrompt(label: "caption: ", limit: 4, purpose: .caption)
        for c in "ab🐈cd" { _ = prompt.handle(.char(c)) }
        #expect(prompt.text == "ab🐈c")
        _ = prompt.handle(.char("é"))
        #expect(prompt.text == "ab🐈c")
    }

    @Test func enterAnswersAndEscapeGivesUp() {
        #expect(typed([.char("x"), .enter], from: "a.pn").1.last == .answered("a.pnx"))
        #expect(typed([.escape], from: "a").1 == [.cancelled])
        #expect(typed([.ctrl("g")], from: "a").1 == [.cancelled])
    }

    @Test func takeClosesThePromptAndPassesTheAnswer() {
        var prompt: LinePrompt? = LinePrompt(label: "save as: ", text: "cat.png")
        var answers: [String] = []
        #expect(LinePrompt.take(.char("x"), into: &prompt) { answers.append($0) })
        #expect(prompt?.text == "cat.pngx" && answers.isEmpty)
        #expect(LinePrompt.take(.enter, into: &prompt) { answers.append($0) })
        #expect(prompt == nil && answers == ["cat.pngx"])
        #expect(!LinePrompt.take(.char("y"), into: &prompt) { answers.append($0) }, "no prompt: the key is not taken")
        var cancelled: LinePrompt? = LinePrompt(label: "", text: "z")
        #expect(LinePrompt.take(.escape, into: &cancelled) { answers.append($0) })
        #expect(cancelled == nil && answers == ["cat.pngx"])
    }
}
