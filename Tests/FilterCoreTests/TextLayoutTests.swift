import CatPixels
import Foundation
import TestSupport
import Testing

@testable import FilterCore

/// Caption text is shaped by HarfBuzz (through libraqm, with FriBidi for direction) in the
/// fonts fontconfig finds: checked against HarfBuzz's own `hb-shape` (libharfbuzz-bin) for
/// the same font and text, and by pixels that cannot lie.
@Suite("Caption text: shaping, direction, fallback fonts, colour emoji")
struct TextLayoutTests {
    /// Texts each drawn in one font (the bundled one, or the one fontconfig gives).
    static let scripts: [(String, String)] = [
        ("Arabic", "قطة جميلة"), ("Hebrew", "חתול יפה"), ("Devanagari", "बिल्ली सुंदर है"),
        ("Thai", "แมวน่ารัก"), ("Japanese", "猫が好き"), ("emoji", "🐈‍⬛ 👍🏽 🇯🇵 ❤️"),
    ]

    func layout(_ text: String) throws -> TextLayout { try TextLayout(text, primary: Font.bundled()) }

    /// hb-shape's glyphs for `text` in face `index` of `path` at `size` px, as (glyph,
    /// cluster, advance, x offset, y offset), positions in 1/64 px (`--font-size` in 1/64 px).
    /// Its format: `glyph=cluster@x,y+advance` (the offsets only when not zero).
    func hbShape(_ text: String, path: String, index: Int, size: Int) throws -> [(UInt32, UInt32, Int, Int, Int)] {
        guard
            let hb = ["/usr/bin/hb-shape", "/usr/local/bin/hb-shape"].first(where: FileManager.default.isExecutableFile)
        else { throw CocoaError(.fileNoSuchFile) }
        let result = try Catctl.run(
            program: URL(fileURLWithPath: hb),
            ["--no-glyph-names", "--face-index=\(index)", "--font-size=\(size * 64)", path, text])
        #expect(result.status == 0, "\(result.stderr)")
        let body = result.stdout.split(separator: UInt8(ascii: "\n")).first.map { String(decoding: $0, as: UTF8.self) }
        return try (body ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]")).split(separator: "|").map {
            let glyph = $0.split(separator: "=", maxSplits: 1)
            let rest = glyph.count == 2 ? glyph[1].split(separator: "+", maxSplits: 1) : []
            let place = rest.first?.split(separator: "@", maxSplits: 1) ?? []
            let offsets = place.count == 2 ? place[1].split(separator: ",").compactMap { Int($0) } : [0, 0]
            guard let id = UInt32(glyph[0]), let cluster = place.first.flatMap({ UInt32($0) }),
                let advance = rest.count == 2 ? Int(rest[1]) : nil, offsets.count == 2
            else { throw CocoaError(.coderReadCorrupt) }
            return (id, cluster, advance, offsets[0], offsets[1])
        }
    }

    @Test(arguments: scripts) func glyphsAndPositionsAreHarfBuzzs(_ name: String, _ text: String) throws {
        let layout = try layout(text)
        #expect(layout.missing.isEmpty, "\(name): \(layout.missing)")
        try layout.setSize(40)
        let line = try layout.shape(layout.words[...])
        // The spaces between words are the bundled font's; every other glyph is one font's.
        let spaces = Set(text.unicodeScalars.enumerated().filter { $0.element == " " }.map { UInt32($0.offset) })
        let glyphs = line.glyphs.filter { !spaces.contains($0.cluster) }
        let used = Set(glyphs.map(\.font))
        #expect(used.count == 1, "\(name) is drawn in one font: \(used)")
        let font = layout.fonts[Int(used.first ?? 0)]
        let expected = try hbShape(text, path: font.path, index: font.index, size: 40).filter { !spaces.contains($0.1) }
        #expect(glyphs.map(\.glyph) == expected.map(\.0), "\(name): the same glyphs")
        #expect(glyphs.map(\.cluster) == expected.map(\.1), "\(name): the same clusters")
        // A colour emoji font is a bitmap font, shaped at its strike and scaled: ids only.
        if !font.isColour {
            #expect(glyphs.map { Int($0.x_advance) } == expected.map(\.2), "\(name): the same advances")
            #expect(glyphs.map { Int($0.x_offset) } == expected.map(\.3), "\(name): the same x offsets")
            #expect(glyphs.map { Int($0.y_offset) } == expected.map(\.4), "\(name): the same y offsets")
        }
    }

    /// Japanese text gets the Japanese forms of a CJK font, Korean the Korean, and a Han-only
    /// text the locale's.
    @Test func cjkLanguageChoosesTheFace() {
        #expect(TextLayout.language(of: "猫が好き", environment: [:]) == "ja")
        #expect(TextLayout.language(of: "고양이 猫", environment: [:]) == "ko")
        #expect(TextLayout.language(of: "猫", environment: ["LANG": "ja_JP.UTF-8"]) == "ja")
        #expect(TextLayout.language(of: "猫", environment: ["LANG": "zh_TW.UTF-8"]) == "zh-tw")
        #expect(TextLayout.language(of: "猫", environment: [:]) == "zh-cn")
        #expect(TextLayout.language(of: "cat", environment: ["LANG": "ja_JP.UTF-8"]) == "")
    }

    /// One ZWJ sequence, a skin tone and a flag are one glyph each.
    @Test func emojiSequencesAreOneGlyphEach() throws {
        let layout = try layout("🐈‍⬛👍🏽🇯🇵")
        try layout.setSize(40)
        let line = try layout.shape(layout.words[...])
        #expect(line.glyphs.count == 3, "\(line.glyphs.map(\.glyph))")
        #expect(line.glyphs.allSatisfy { layout.fonts[Int($0.font)].isColour })
    }

    /// A right-to-left caption's first letter is its rightmost glyph.
    @Test func rightToLeftReadsFromTheRight() throws {
        for text in ["חתול", "قطة"] {
            let layout = try layout(text)
            #expect(layout.rightToLeft)
            try layout.setSize(40)
            let line = try layout.shape(layout.words[...])
            #expect(line.glyphs.last?.cluster == 0 && line.glyphs.first?.cluster != 0, "\(text)")
        }
    }

    /// Japanese has no spaces: it wraps between ideographs and kana, never with a line
    /// starting with a full stop, a comma or a small kana.
    @Test func cjkWrapsWithoutSpaces() throws {
        let text = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"
        let mask = try CaptionMask(text, top: false, width: 300, height: 400)
        #expect(mask.lines.count > 1, "\(mask.lines)")
        #expect(mask.lines.joined() == text)
        for line in mask.lines.dropFirst() {
            #expect(!["。", "、", "っ", "ー"].contains(String(line.prefix(1))), "\(mask.lines)")
        }
    }

    /// The words `text` breaks into, as strings, with how each follows the one before: " "
    /// after white space, "" after a break inside a run of letters, "\n" after a line feed.
    func words(_ text: String) throws -> [String] {
        let layout = try layout(text)
        return layout.words.map { word in
            (word.hard ? "\n" : word.spaced ? " " : "")
                + String(String.UnicodeScalarView(layout.scalars[word.range].compactMap(Unicode.Scalar.init)))
        }
    }

    /// Lines break where UAX #14 lets them (ICU's rules): after white space and hyphens, not
    /// inside a number, a word and its closing punctuation, or before "!" (even after a
    /// space); must after a line feed; never inside a grapheme cluster.
    @Test func linesBreakByUAX14() throws {
        #expect(try words("HELLO-CAT world") == [" HELLO-", "CAT", " world"])
        #expect(try words("it costs 3.14 (or 3,5)!") == [" it", " costs", " 3.14", " (or", " 3,5)!"])
        #expect(try words("Bonjour le chat !") == [" Bonjour", " le", " chat !"])
        #expect(try words("TOP\nBOTTOM line") == [" TOP", "\nBOTTOM", " line"])
        #expect(try words("A\r\n\r\nB") == [" A", "\nB"], "blank lines are one line break")
        #expect(try words("no\u{A0}break here") == [" no\u{A0}break", " here"])
        // Each emoji sequence, mark and flag whole (breaks between the clusters).
        let text = "🐈‍⬛👍🏽🇯🇵e\u{301}\u{302}"
        let layout = try layout(text)
        let starts = Set(layout.clusterStarts)
        #expect(layout.words.allSatisfy { starts.contains($0.range.lowerBound) })
        #expect(layout.words.map { $0.range.count }.reduce(0, +) == layout.scalars.count)
    }

    /// Without ICU, the rule before it: after white space, between ideographs, and a must
    /// after a line feed; for such text, the same as ICU's.
    @Test func theFallbackAgreesWithICUOnPlainText() throws {
        for text in ["HELLO CAT world", "吾輩は猫である", "TOP\nBOTTOM  two", "猫 cat 犬"] {
            let layout = try layout(text)
            #expect(layout.lineBreaks() == layout.fallbackBreaks(), "\(text)")
        }
    }

    /// Each paragraph (a line feed starts one) reads in its own direction (UAX #9).
    @Test func eachParagraphHasItsOwnDirection() throws {
        let layout = try layout("שלום!\nHello, world!\nשלום עולם")
        #expect(layout.words.map(\.rightToLeft) == [true, false, false, true, true])
        #expect(try self.layout("Hello\nשלום").words.map(\.rightToLeft) == [false, true])
        // A line separator (U+2028) ends a line, not a paragraph: the direction goes on; a
        // paragraph separator (U+2029) starts a new one.
        #expect(try self.layout("שלום\u{2028}Hello world").words.map(\.rightToLeft) == [true, true, true])
        #expect(try self.layout("שלום\u{2029}Hello world").words.map(\.rightToLeft) == [true, false, false])
        #expect(try self.layout("שלום\u{2028}Hello\u{2028}").words.map(\.hard) == [false, true])
        // Spaces after the line feed: the paragraph still ends there, with ICU's breaks (right
        // after it) and without (after the spaces).
        let spaced = try self.layout("שלום\n  Hello")
        #expect(spaced.words.map(\.rightToLeft) == [true, false])
        #expect(spaced.words(breaks: spaced.fallbackBreaks()).map(\.rightToLeft) == [true, false])
    }

    /// More lines than fit at the smallest size: the line feeds become spaces, and all of the
    /// text is drawn.
    @Test func tooManyLinesAreJoined() throws {
        let text = (1...60).map { "line \($0)" }.joined(separator: "\n")
        let mask = try CaptionMask(text, top: false, width: 451, height: 300)
        #expect(mask.lines.joined(separator: " ") == text.replacingOccurrences(of: "\n", with: " "))
        #expect(mask.height < 300)
    }

    /// A word wider than the picture at the smallest size, with its emoji past both edges:
    /// no colour layer, no trap.
    @Test func emojiOutsideThePictureAreClipped() throws {
        for (text, width, height) in [
            ("x" + String(repeating: "a", count: 150) + "(😹)", 451, 300), ("Nooooo(🐱)", 1, 1),
            ("WWWW\u{2060}🐱", 2, 1), (String(repeating: "A", count: 40) + "\u{A0}🐱", 7, 100),
        ] {
            let mask = try CaptionMask(text, top: false, width: width, height: height)
            #expect(mask.colourColumns.lowerBound >= 0 && mask.colourColumns.upperBound <= width, "\(text)")
        }
    }

    /// A line feed starts a new line even when the words would fit on one.
    @Test func aLineFeedStartsALine() throws {
        let mask = try CaptionMask("HI\nCAT", top: false, width: 2000, height: 1000)
        #expect(mask.lines == ["HI", "CAT"])
        #expect(try CaptionMask("HI CAT", top: false, width: 2000, height: 1000).lines == ["HI CAT"])
    }

    func mask(_ text: String) throws -> CaptionMask { try CaptionMask(text, top: false, width: 240, height: 160) }

    @Test func differentCharactersDrawDifferently() throws {
        // 猫 and 犬 (no box for either), and Arabic letters with and without a ZWNJ between them
        // (joined, then not).
        let cat = try mask("猫"), dog = try mask("犬")
        #expect(cat.fill != dog.fill && cat.fill.contains { $0 > 200 })
        #expect(try mask("بب").fill != mask("ب\u{200C}ب").fill)
        #expect(try layout("猫犬").missing.isEmpty)
    }

    @Test func emojiKeepTheirOwnColours() throws {
        let emoji = try mask("I CAN HAS 🐈")
        #expect(!emoji.colour.isEmpty)
        var coloured = 0
        for i in stride(from: 0, to: emoji.colour.count, by: 4) where emoji.colour[i + 3] == 255 {
            let (r, g, b) = (Int(emoji.colour[i]), Int(emoji.colour[i + 1]), Int(emoji.colour[i + 2]))
            if max(r, g, b) - min(r, g, b) > 60 { coloured += 1 }
        }
        #expect(coloured > 20, "\(coloured) coloured pixels")
        #expect(try mask("I CAN HAS CAT").colour.isEmpty)
    }

    /// A character no installed font has is named, with the package that would draw it.
    @Test func aCharacterNoFontHasIsNamed() throws {
        let chain = try FilterChain(specs: ["caption:cat \u{E000}"])
        #expect(chain.notices.count == 1)
        #expect(chain.notices.first?.contains("U+E000") == true, "\(chain.notices)")
        #expect(chain.notices.first?.contains("private-use characters are in no font package") == true)
        #expect(try FilterChain(specs: ["caption:猫 🐈 बिल्ली"]).notices.isEmpty)
        // Which package would draw it, for a character of a script; and bytes that were not
        // UTF-8 (decoded as U+FFFD, or kept as raw bytes U+10FF80-U+10FFFF) are said as such.
        #expect(
            CaptionStage.notices(for: ["𓀀"]).first?.hasSuffix("fonts-noto-core or fonts-noto-extra would draw it")
                == true)
        #expect(
            CaptionStage.notices(for: ["\u{10FFED}", "\u{10FFA0}"]) == CaptionStage.notices(for: ["\u{FFFD}"]))
        #expect(
            CaptionStage.notices(for: ["\u{FFFD}"]) == [
                "the caption holds bytes that are not UTF-8 text: they show as boxes"
            ])
    }
}
