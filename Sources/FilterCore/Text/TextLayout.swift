internal import CTextShim
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
            // Joiners, selectors and tags shape with their cluster but need no glyph of their
            // own, nor does white space a line may break at (it is never drawn: `words`).
            let needed = cluster.unicodeScalars.filter {
                !$0.properties.isDefaultIgnorableCodePoint && !Self.isBreakingSpace($0.value)
            }.map(\.value)
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

    /// Why no fallback font was looked for, or nil when one was: fontconfig's configuration
    /// did not load, or a sort did not end, in time; or `FONTCONFIG_FILE` was not read.
    static var fallbackUnlooked: String? {
        switch ctl_fonts_unanswered() {
        case 1: "fontconfig did not answer within \(ctl_fonts_wait()) s (see FONTCONFIG_FILE)"
        case 2: "FONTCONFIG_FILE is not a regular file of at most 16 MiB, so it was not read"
        default: nil
        }
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

    /// Where a line may break, by UAX #14 (ICU's line break iterator): a word is a range of
    /// `scalars` from one break opportunity to the next, its trailing white space left out;
    /// `spaced` when white space stood before it (a line joins it with one space), else it
    /// follows a break inside a run of letters (after a hyphen, between ideographs and kana,
    /// CJK text having no spaces); `hard` when a line must start with it (a line feed came
    /// before). Never inside a grapheme cluster. Without ICU, a line may break after white
    /// space and between ideographs (`breaks(between:and:)`), and must after a line feed.
    struct Word {
        let range: Range<Int>
        let spaced: Bool
        var hard = false
        /// Its paragraph reads right to left (a paragraph separator starts a paragraph, with
        /// its own direction: UAX #9; a line separator only a line).
        var rightToLeft = false
    }

    var words: [Word] { words(breaks: lineBreaks() ?? fallbackBreaks()) }

    /// The words between the breaks `kinds` gives (`lineBreaks`' form).
    func words(breaks kinds: [UInt8]) -> [Word] {
        let count = scalars.count
        var words: [Word] = [], start = 0, spaced = true, hard = false
        // Each paragraph's direction, from its first letter.
        func direction(from start: Int) -> Bool {
            Self.isRightToLeft(
                scalars[start..<((start..<count).first { Self.isParagraphSeparator(scalars[$0]) } ?? count)])
        }
        var rightToLeft = direction(from: 0)
        // The scalars [start, end) are a segment: a word, once its trailing white space is off.
        func segment(to end: Int) {
            var last = end
            while last > start, Self.isBreakingSpace(scalars[last - 1]) { last -= 1 }
            if last > start {
                words.append(Word(range: start..<last, spaced: spaced, hard: hard, rightToLeft: rightToLeft))
                (spaced, hard) = (last < end, false)
            } else if end > start {
                spaced = true
            }
        }
        for cluster in clusterStarts.dropFirst() where kinds[cluster] != 0 {
            segment(to: cluster)
            if kinds[cluster] == 2 {
                if !words.isEmpty { hard = true }
                // The separator is in the white space before the break (ICU breaks right after
                // it, the fallback rule after the spaces that follow it).
                if scalars[start..<cluster].contains(where: Self.isParagraphSeparator) {
                    rightToLeft = direction(from: cluster)
                }
            }
            start = cluster
        }
        segment(to: count)
        return words
    }

    /// White space a line may end in (not the no-break spaces: they hold words together).
    static func isBreakingSpace(_ scalar: UInt32) -> Bool {
        guard scalar != 0xA0, scalar != 0x2007, scalar != 0x202F, let value = Unicode.Scalar(scalar) else {
            return false
        }
        return value.properties.isWhitespace
    }

    /// A line feed, carriage return, next line, or line or paragraph separator: a line ends.
    static func isLineFeed(_ scalar: UInt32) -> Bool {
        [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(scalar)
    }

    /// A paragraph separator of UAX #9 (bidi class B) that also ends a line: a line feed,
    /// carriage return, next line or U+2029. Not U+2028, a vertical tab or a form feed: they
    /// end a line, not a paragraph. (The information separators U+001C-001E, also class B,
    /// end no line here: they stay in their paragraph.)
    static func isParagraphSeparator(_ scalar: UInt32) -> Bool {
        [0x0A, 0x0D, 0x85, 0x2029].contains(scalar)
    }

    /// For each scalar, whether a line may (1) or must (2) break before it, or not (0), by
    /// ICU; nil without ICU.
    func lineBreaks() -> [UInt8]? {
        var kinds = [UInt8](repeating: 0, count: scalars.count)
        let found = scalars.withUnsafeBufferPointer { s in
            kinds.withUnsafeMutableBufferPointer { k in ctl_line_breaks(s.baseAddress, s.count, language, k.baseAddress)
            }
        }
        return found == 1 ? kinds : nil
    }

    /// Break kinds as `lineBreaks` gives them, without ICU: after white space (a must after a
    /// line feed), and between ideographs.
    func fallbackBreaks() -> [UInt8] {
        var kinds = [UInt8](repeating: 0, count: scalars.count), spaces = false, feed = false
        for (c, cluster) in clusterStarts.enumerated() {
            let first = scalars[cluster]
            if Self.isBreakingSpace(first) {
                (spaces, feed) = (true, feed || Self.isLineFeed(first))
                continue
            }
            if spaces {
                kinds[cluster] = feed ? 2 : 1
            } else if c > 0, Self.breaks(between: scalars[cluster - 1], and: first) {
                kinds[cluster] = 1
            }
            (spaces, feed) = (false, false)
        }
        return kinds
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
    /// the direction of the paragraph they are in.
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
        return try shape(text, owner, rightToLeft: words.first?.rightToLeft ?? rightToLeft)
    }

    /// The width of a space in the bundled font (1/64 px), between words.
    func spaceWidth() throws(FilterError) -> Int { try shape([0x20], [0], rightToLeft: rightToLeft).width }

    private func shape(_ text: [UInt32], _ owner: [Int32], rightToLeft: Bool) throws(FilterError) -> Line {
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

    /// The columns (px) the colour glyphs of `lines` may cover, each line drawn from its x
    /// (1/64 px), `margin` px either side of their advances (a bitmap's bearing, the
    /// outline); nil when there are none.
    func colourColumns(_ lines: [(line: Line, x: Int)], margin: Int) -> Range<Int>? {
        var columns: Range<Int>?
        for (line, x) in lines {
            var pen = x
            for glyph in line.glyphs {
                if fonts[Int(glyph.font)].isColour {
                    let from = (pen + Int(glyph.x_offset)) / 64 - margin
                    let to = (pen + Int(glyph.x_offset) + Int(glyph.x_advance)) / 64 + margin
                    columns = columns.map { min($0.lowerBound, from)..<max($0.upperBound, to) } ?? from..<to
                }
                pen += Int(glyph.x_advance)
            }
        }
        return columns
    }

    /// Draws `line` with its left end at x / 64 and its baseline at `baseline` into `fill`
    /// (outline glyphs), `outline` (every glyph's border, `radius` / 64 px) and `colour`
    /// (colour glyphs, RGBA, the columns `colourColumns` only), masks of `width` × `height`.

    func draw(
        _ line: Line, x: Int, baseline: Int, fill: UnsafeMutablePointer<UInt8>, outline: UnsafeMutablePointer<UInt8>,
        colour: UnsafeMutablePointer<UInt8>, colourColumns: Range<Int>, width: Int, height: Int, radius: Int
    ) throws(FilterError) {
        var pen = x
        for glyph in line.glyphs {
            let drawn = cft_draw_glyph(
                fonts[Int(glyph.font)].font, glyph.glyph, pen + Int(glyph.x_offset),
                baseline * 64 - Int(glyph.y_offset), fill, outline, colour, Int32(colourColumns.lowerBound),
                Int32(colourColumns.count), Int32(width), Int32(height), radius)
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
    static func isRightToLeft(_ text: String) -> Bool { isRightToLeft(text.unicodeScalars.map(\.value)[...]) }

    static func isRightToLeft(_ scalars: ArraySlice<UInt32>) -> Bool {
        for value in scalars {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic else { continue }
            switch value {
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
