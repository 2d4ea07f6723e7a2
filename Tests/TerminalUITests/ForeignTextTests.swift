import CatImageIO
import CatSupport
import Foundation
import TerminalUI
import TestSupport
import Testing

/// The one neutraliser, and the JSON views' escaping, class by class.
@Suite("Foreign text")
struct ForeignTextTests {
    @Test func everyControlBecomesAVisibleEscape() {
        #expect(ForeignText.visible("plain cat, café, 猫 🐈") == "plain cat, café, 猫 🐈", "text as it is")
        #expect(ForeignText.visible("\u{1B}]0;title\u{07}") == #"\033]0;title\a"#)
        #expect(ForeignText.visible("a\nb\tc\rd\u{08}\u{0C}\u{0B}") == #"a\nb\tc\rd\b\f\v"#)
        #expect(ForeignText.visible("\u{00}\u{1F}\u{7F}") == #"\000\037\177"#)
        #expect(ForeignText.visible("\u{80}\u{9B}\u{9F}") == #"\u0080\u009B\u009F"#, "C1 controls")
        #expect(ForeignText.visible("abc\u{202E}gnp.exe") == #"abc\u202Egnp.exe"#, "bidi override")
        #expect(ForeignText.visible("\u{2066}\u{2069}\u{200E}\u{061C}") == #"\u2066\u2069\u200E\u061C"#)
        #expect(ForeignText.visible("line\u{2028}para\u{2029}") == #"line\u2028para\u2029"#)
        #expect(
            ForeignText.visible(#"C:\cats"#) == #"C:\\cats"#, "a backslash is doubled: the escapes stay unambiguous")
        #expect(ForeignText.visible(FileNames.decode([0x63, 0xE9, 0xFF])) == #"c\351\377"#, "bytes that are not UTF-8")
    }

    @Test func nothingActiveComesOutOfAnyText() {
        // Every scalar of the hostile set, and random bytes decoded as a name: no control survives.
        #expect(HostileCatServer.rawControls(in: ForeignText.visible(HostileCatServer.payload)).isEmpty)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let shown = ForeignText.visible(FileNames.decode(bytes))
            #expect(!shown.unicodeScalars.contains { ForeignText.isControl($0) || FileNames.rawByte($0) != nil })
        }
    }

    @Test func jsonEscapesEveryControlAndStaysLossless() throws {
        let encoded = JSONValue.string(HostileCatServer.payload).encoded
        #expect(HostileCatServer.rawControls(in: encoded).isEmpty)
        #expect(encoded.contains(#"\u009b"#) && encoded.contains(#"\u2028"#) && encoded.contains(#"\u202e"#))
        let decoded = try JSONSerialization.jsonObject(with: Data(encoded.utf8), options: .fragmentsAllowed)
        #expect(decoded as? String == HostileCatServer.payload)
        #expect(JSONValue.string(FileNames.decode([0x61, 0xFF])).encoded == #""a\ufffd""#)
    }
}
