internal import CFreeTypeShim
import CatSupport

/// Text laid out as the field lays it out, for captions: each grapheme cluster gets a font
/// (the bundled one when it has every character of the cluster; else the first font
/// fontconfig offers for the text's language that has them; emoji from a colour emoji font
/// first), and each line is shaped by libraqm, which splits it into runs by script and by
/// direction (FriBidi's bidirectional algorithm) and shapes each run with HarfBuzz: Arabic
/// letters join, marks sit on their base, Devanagari and Thai clusters form, a ZWJ sequence
/// (🐈‍⬛), a skin tone or a flag is one glyph, and a right-to-left line reads from the right.
/// The libraries are loaded when a caption is first laid out. One thread at a time.
final class TextLayout {
    /// The fonts in use: the bundled (or CATCTL_FONT) one first, then those found.
    private(set) var fonts: [Font]
    /// The text, as Unicode scalars, and the font of each (an index into `fonts`).
    let scalars: [UInt32]
    let fontOf: [Int32]
    /// Where each grapheme cluster starts in `scalars`.
    let clusterStarts: [Int]
    /// The characters no font has (drawn as the bundled font's missing-glyph box).
    let missing: [Character]
    /// The text's language for CJK characters and shaping (BCP 47), and its direction.
    let language: String
    let rightToLeft: Bool

    /// At most this many fonts in one caption: a font a script (a caption in many scripts
    /// still needs only a few dozen, and each costs a file open).
    static let maxFonts = 32

    init(_ text: String, primary: Font, environment: [String: String] = BundledResources.processEnvironment)
        throws(FilterError)
    {
        var why = [CChar](repeating: 0, count: 512)
        guard ctl_available(&why, why.count) != 0 else {
            let reason = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .resourceMissing("the text stack (libraqm, HarfBuzz, FriBidi, fontconfig): \(reason)")
        }
        let language = Self.language(of: text, environment: environment)
        var fonts = [primary], found: [String: Int32] = [:]
        var scalars: [UInt32] = [], fontOf: [Int32] = [], missing: [Character] = [], starts: [Int] = []
        for cluster in text {
            starts.append(scalars.count)
            let values = cluster.unicodeScalars.map(\.value)
            // Joiners, selectors and tags shape with their cluster but need no glyph of their own.
            let needed = cluster.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }.map(\.value)
            let emoji = Self.isEmoji(cluster)
            var font: Int32 = 0
            if emoji || !needed.allSatisfy(primary.has) {
                font = -1
                for lang in emoji ? ["und-zsye", language] : [language] where font < 0 {
                    font = try Self.fallback(for: needed, language: lang, fonts: &fonts, found: &found)
                }
                if font < 0 {
                    if !needed.allSatisfy(primary.has) { missing.append(cluster) }
                    font = 0
                }
            }
            scalars += values
            fontOf += Array(repeating: font, count: values.count)
        }
        self.fonts = fonts
        self.scalars = scalars
        self.fontOf = fontOf
        self.missing = missing
        clusterStarts = starts
        self.language = language
        rightToLeft = Self.isRightToLeft(text)
    }

    /// The font fontconfig offers for `scalars` in `language`, opened once per caption.
    private static func fallback(
        for scalars: [UInt32], language: String, fonts: inout [Font], found: inout [String: Int32]
    ) throws(FilterError) -> Int32 {
        guard !scalars.isEmpty else { return -1 }
        var path = [CChar](repeating: 0, count: 4096), index: Int32 = 0
        let hit = scalars.withUnsafeBufferPointer { s in
            ctl_find_font(language, 1, s.baseAddress, s.count, &path, path.count, &index)
        }
        guard hit != 0 else { return -1 }
        let file = path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let key = "\(index):\(file)"
        if let known = found[key] { return known }
        guard fonts.count < maxFonts, let font = try? Font(path: file, index: Int(index)) else { return -1 }
        fonts.append(font)
        found[key] = Int32(fonts.count - 1)
        return Int32(fonts.count - 1)
    }

    /// Every font at `pixels` per em.
    func setSize(_ pixels: Int) throws(FilterError) {
        for font in fonts { try font.setSize(pixels) }
    }

    /// A line of the text (the scalars `range` of it, or several ranges joined by spaces),
    /// shaped: its glyphs left to right, its width (1/64 px) and the ascender and descender
    /// (px) of the fonts it uses.
    struct Line {
        let glyphs: [ctl_glyph]
        let width: Int
        let ascender: Int, descender: Int
    }

    /// Where a line may break: a word is a range of `scalars`, `spaced` when white space
    /// stands before it (a line joins it with one space), else a break opportunity inside a
    /// run of letters: between ideographs and kana (CJK text has no spaces), as UAX #14
    /// allows, never before closing punctuation, small kana or the prolonged sound mark, nor
    /// after an opening bracket (kinsoku). Never inside a grapheme cluster.
    struct Word {
        let range: Range<Int>
        let spaced: Bool
    }

    var words: [Word] {
        var words: [Word] = [], start: Int?, spaced = true, previous: UInt32?
        for (c, cluster) in clusterStarts.enumerated() {
            let end = c + 1 < clusterStarts.count ? clusterStarts[c + 1] : scalars.count
            let first = scalars[cluster]
            let space = Unicode.Scalar(first)?.properties.isWhitespace ?? false
            if space {
                if let s = start { words.append(Word(range: s..<cluster, spaced: spaced)) }
                (start, spaced, previous) = (nil, true, nil)
                continue
            }
            if let s = start, let before = previous, Self.breaks(between: before, and: first) {
                words.append(Word(range: s..<cluster, spaced: spaced))
                (start, spaced) = (cluster, false)
            }
            if start == nil { start = cluster }
            previous = scalars[end - 1]
        }
        if let start { words.append(Word(range: start..<scalars.count, spaced: spaced)) }
        return words
    }

    /// A break opportunity between two ideographic clusters (UAX #14's ID class, with its
    /// CJK kinsoku exceptions).
    static func breaks(between before: UInt32, and after: UInt32) -> Bool {
        func ideographic(_ v: UInt32) -> Bool {
            switch v {
            case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF, 0x3000...0x303F,
                0xFF01...0xFF60:
                return true
            default: return false
            }
        }
        let noStart: Set<UInt32> = [
            0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF09, 0x300D, 0x300F, 0x3011, 0x3009, 0x300B, 0x30FC, 0x3041, 0x3043,
            0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9,
            0x30C3, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30F5, 0x30F6, 0xFF01, 0xFF1F, 0x309D, 0x309E, 0x30FD, 0x30FE,
        ]
        let noEnd: Set<UInt32> = [0x300C, 0x300E, 0x3010, 0x3008, 0x300A, 0xFF08]
        return ideographic(before) && ideographic(after) && !noStart.contains(after) && !noEnd.contains(before)
    }

    /// `words` joined (by single spaces where they were spaced), shaped as one paragraph in
    /// the text's direction.
    func shape(_ words: ArraySlice<Word>) throws(FilterError) -> Line {
        var text: [UInt32] = [], owner: [Int32] = []
        for word in words {
            if let last = owner.last, word.spaced {
                // The space between words in the bundled font, as Pango's font sets give it (a
                // colour emoji font's space is an emoji wide), else in the word's before it.
                text.append(0x20)
                owner.append(fonts[0].has(0x20) ? 0 : last)
            }
            text += scalars[word.range]
            owner += fontOf[word.range]
        }
        return try shape(text, owner)
    }

    /// The width of a space in the bundled font (1/64 px), between words.
    func spaceWidth() throws(FilterError) -> Int { try shape([0x20], [0]).width }

    private func shape(_ text: [UInt32], _ owner: [Int32]) throws(FilterError) -> Line {
        var glyphs = [ctl_glyph](repeating: ctl_glyph(), count: max(16, text.count * 2))
        var count = -1
        for _ in 0..<2 {
            count = fonts.map { Optional($0.font) }.withUnsafeBufferPointer { faces in
                glyphs.withUnsafeMutableBufferPointer { out in
                    ctl_shape(
                        text, text.count, faces.baseAddress, owner, faces.count, language, rightToLeft ? 2 : 1,
                        out.baseAddress, out.count)
                }
            }
            guard count < -1 else { break }
            glyphs = [ctl_glyph](repeating: ctl_glyph(), count: -count - 1)  // more glyphs than characters
        }
        guard count >= 0 else { throw .resourceMissing("a shaping of the caption (libraqm failed)") }
        glyphs.removeLast(glyphs.count - count)
        var ascender = 0, descender = 0
        for font in Set(glyphs.map(\.font)).sorted() {
            let metrics = fonts[Int(font)].metrics
            ascender = max(ascender, metrics.ascender)
            descender = min(descender, metrics.descender)
        }
        if glyphs.isEmpty { (ascender, descender) = (fonts[0].metrics.ascender, fonts[0].metrics.descender) }
        return Line(
            glyphs: glyphs, width: glyphs.reduce(0) { $0 + Int($1.x_advance) }, ascender: ascender,
            descender: descender)
    }

    /// Draws `line` with its left end at x / 64 and its baseline at `baseline` into `fill`
    /// (outline glyphs), `outline` (every glyph's border, `radius` / 64 px) and `colour`
    /// (colour glyphs, RGBA), masks of `width` × `height`.
    func draw(
        _ line: Line, x: Int, baseline: Int, fill: UnsafeMutablePointer<UInt8>, outline: UnsafeMutablePointer<UInt8>,
        colour: UnsafeMutablePointer<UInt8>, width: Int, height: Int, radius: Int
    ) throws(FilterError) {
        var pen = x
        for glyph in line.glyphs {
            let drawn = cft_draw_glyph(
                fonts[Int(glyph.font)].font, glyph.glyph, pen + Int(glyph.x_offset),
                baseline * 64 - Int(glyph.y_offset), fill, outline, colour, Int32(width), Int32(height), radius)
            guard drawn == 0 else { throw .resourceMissing("a glyph of the font") }
            pen += Int(glyph.x_advance)
        }
    }

    /// Han characters are drawn in the language's forms: Japanese when the text has kana,
    /// Korean when it has Hangul, else the locale's CJK language (LC_ALL, LC_CTYPE, LANG),
    /// else Simplified Chinese. Other scripts need no language to choose their font.
    static func language(of text: String, environment: [String: String]) -> String {
        var han = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return "ja"
            case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: return "ko"
            case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: han = true
            default: continue
            }
        }
        guard han else { return "" }
        let locale = (environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] ?? "").lowercased()
        for (prefix, tag) in [("ja", "ja"), ("ko", "ko"), ("zh_tw", "zh-tw"), ("zh_hk", "zh-hk"), ("zh", "zh-cn")]
        where locale.hasPrefix(prefix) {
            return tag
        }
        return "zh-cn"
    }

    /// Whether the text's first strong letter is of a right-to-left script (Hebrew, Arabic,
    /// Syriac, Thaana, N'Ko and the other blocks Unicode gives right-to-left letters): the
    /// paragraph direction of UAX #9 (rule P2), which FriBidi then resolves within.
    static func isRightToLeft(_ text: String) -> Bool {
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            switch scalar.value {
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
            default: return false
            }
        }
        return false
    }

    /// A cluster shown as an emoji: one with emoji presentation, or asked for it (VS16), a
    /// keycap, or a ZWJ sequence or a flag (regional indicators).
    static func isEmoji(_ cluster: Character) -> Bool {
        let scalars = cluster.unicodeScalars
        guard let first = scalars.first else { return false }
        if scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x20E3 }) { return true }
        if scalars.contains(where: { $0.value == 0xFE0E }) { return false }
        return first.properties.isEmojiPresentation || (0x1F1E6...0x1F1FF).contains(first.value)
            || (scalars.count > 1 && first.properties.isEmoji && scalars.contains { $0.value == 0x200D })
    }
}
