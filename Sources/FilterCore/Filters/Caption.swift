import CatPixels
import CatSupport

extension FilterDefinition {
    static let caption = FilterDefinition(
        name: "caption", valueName: "TEXT", kind: .spatial,
        description:
            "Meme caption: white, dark outline, sized to the width, wrapped (UAX #14; a line feed starts a "
            + "line); any script, shaped (HarfBuzz, right to left where it reads so), fonts found for what the bundled one lacks, colour emoji; at the "
            + "bottom, or at the top when a cat's face or head is where the bottom caption would go; at most 1000 "
            + "characters",
        showcase: "HELLO CAT",
        parse: { text throws(FilterError) in [.spatial(try CaptionStage(text, side: .clearOfFaces, filter: "caption"))]
        })

    static let captionTop = FilterDefinition(
        name: "caption-top", valueName: "TEXT", kind: .spatial,
        description: "The same caption, always at the top", showcase: "TOP TEXT",
        parse: { text throws(FilterError) in [.spatial(try CaptionStage(text, side: .top, filter: "caption-top"))] })

    static let captionBottom = FilterDefinition(
        name: "caption-bottom", valueName: "TEXT", kind: .spatial,
        description: "The same caption, always at the bottom", showcase: "BOTTOM TEXT",
        parse: { text throws(FilterError) in
            [.spatial(try CaptionStage(text, side: .bottom, filter: "caption-bottom"))]
        })
}

extension FilterDefinition {
    /// The most characters (Unicode scalars) a caption may have.
    public static var captionLimit: Int { CaptionStage.maxLength }
}

/// Where a caption goes.
enum CaptionSide: Sendable {
    case top, bottom
    /// At the bottom unless a cat's face is there, then at the top: decided on the picture
    /// (`FilterChain.resolvingGravity`); drawn at the bottom until then.
    case clearOfFaces
}

/// Text over the picture, meme style: white letters with a dark outline, as large as the
/// width allows (and at most two fifths of the height), wrapped onto several lines when
/// long, centred at the bottom (or the top). The text is shaped (`TextLayout`: HarfBuzz,
/// FriBidi, libraqm) in the bundled DejaVu Sans Bold and, for what it lacks, the fonts
/// fontconfig finds (CJK, Devanagari, Thai, colour emoji); a character no font has shows the
/// missing-glyph box, and the chain says so (`notices`). Each row is drawn over in place, so
/// it streams.
struct CaptionStage: SpatialStage {
    /// Longer captions are refused (64): a meme line is a few dozen characters, and each
    /// character costs a glyph at every font size tried (SECURITY.md).
    static let maxLength = 1000

    let text: String
    let side: CaptionSide
    var top: Bool { side == .top }
    /// The mask of one image size, rendered once whatever the number of threads.
    let masks = LockedValue<[String: CaptionMask]>([:])

    /// The side still to be decided on the picture.
    var needsPicture: Bool { side == .clearOfFaces }

    /// A warning for each character no installed font has (`FilterChain.notices`).
    let notices: [String]

    private init(text: String, side: CaptionSide, notices: [String]) {
        self.text = text
        self.side = side
        self.notices = notices
    }

    /// This caption on the side that keeps it off `faces` of a `width` × `height` picture:
    /// the top when one of them reaches into the bottom caption's band.
    func placed(clearOf faces: [Subject], width: Int, height: Int) throws(FilterError) -> CaptionStage {
        let band = try CaptionMask(text, top: false, width: width, height: height)
        let covered = faces.contains { $0.y < band.top + band.height && $0.y + $0.height > band.top }
        return CaptionStage(text: text, side: covered ? .top : .bottom, notices: notices)
    }

    init(_ text: String, side: CaptionSide, filter: String) throws(FilterError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .badValue(filter: filter, value: text, reason: "the caption is empty") }
        let length = trimmed.unicodeScalars.count
        guard length <= Self.maxLength else {
            throw .badValue(
                filter: filter, value: String(trimmed.prefix(40)) + "…",
                reason: "the caption has \(length) characters; at most \(Self.maxLength) fit")
        }
        self.text = trimmed
        self.side = side
        // A font that cannot be read fails when the caption is drawn, as it always has.
        let missing = (try? TextLayout(trimmed, primary: Font.bundled()))?.missing ?? []
        notices = Self.notices(for: missing)
    }

    /// "no installed font has 猫, 犬 (U+732B, U+72AC)…", one line per Debian package that
    /// would draw them (at most 8 characters named, then how many more).
    /// Bytes that were not UTF-8 (U+FFFD, as the argument was decoded) and private-use
    /// characters no package draws are said as such.
    static func notices(for missing: [Character]) -> [String] {
        let unlooked = missing.isEmpty ? nil : TextLayout.fallbackUnlooked
        var byPackage: [(package: String, clusters: [Character])] = []
        for cluster in missing {
            let first = cluster.unicodeScalars.first?.value ?? 0
            // A byte that was not UTF-8: U+FFFD, or as the arguments are decoded, a raw byte
            // kept as U+10FF80-U+10FFFF (FileNames).
            let notText = first == 0xFFFD || cluster.unicodeScalars.first.flatMap(FileNames.rawByte) != nil
            let package =
                notText
                ? ""
                : (0xE000...0xF8FF).contains(first) || first >= 0xF0000
                    ? "-"
                    : TextLayout.isEmoji(cluster)
                        ? "fonts-noto-color-emoji"
                        : (0x2E80...0x9FFF).contains(first) || (0xAC00...0xD7AF).contains(first)
                            || (0xF900...0xFAFF).contains(first) || (0x20000...0x3FFFF).contains(first)
                            ? "fonts-noto-cjk" : "fonts-noto-core or fonts-noto-extra"
            if let i = byPackage.firstIndex(where: { $0.package == package }) {
                if !byPackage[i].clusters.contains(cluster) { byPackage[i].clusters.append(cluster) }
            } else {
                byPackage.append((package, [cluster]))
            }
        }
        return byPackage.map { package, clusters in
            if package.isEmpty {
                return "the caption holds bytes that are not UTF-8 text: they show as boxes"
            }
            let shown = clusters.prefix(8)
            let codes = shown.map { $0.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) } }
            let more = clusters.count > shown.count ? " and \(clusters.count - shown.count) more" : ""
            let it = clusters.count == 1 ? "it" : "them"
            return "no installed font has \(shown.map(String.init).joined(separator: ", "))\(more) "
                + "(\(codes.map { $0.joined(separator: " ") }.joined(separator: ", "))): the caption shows "
                + "\(clusters.count == 1 ? "a box" : "boxes") for \(it); "
                + (package == "-"
                    ? "private-use characters are in no font package"
                    : unlooked.map { "no fallback font was looked for: \($0)" } ?? "\(package) would draw \(it)")
        }
    }

    var inPlace: Bool { true }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        CaptionKernel(
            // One rendered mask per image size, shared by the threads of a pass.
            mask: try masks.withLockedValue { (rendered) throws(FilterError) -> CaptionMask in
                if let mask = rendered["\(width)x\(height)"] { return mask }
                let mask = try CaptionMask(text, top: top, width: width, height: height)
                rendered["\(width)x\(height)"] = mask
                return mask
            })
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        for y in 0..<src.height { dst.row(y).update(from: src.row(y), count: src.width * 4) }
        let mask = try CaptionMask(text, top: top, width: src.width, height: src.height)
        for y in 0..<src.height { mask.draw(row: y, into: dst.row(y)) }
    }
}

/// The caption's coverage: `fill` (the letters), `outline` (their stroked borders) and
/// `colour` (colour glyphs, emoji: RGBA premultiplied, the columns `colourColumns` only,
/// empty when there are none), for the band of rows [top, top + height) of an image `width`
/// wide.
struct CaptionMask: Sendable {
    let width: Int, top: Int, height: Int
    let fill: [UInt8], outline: [UInt8], colour: [UInt8]
    let colourColumns: Range<Int>
    /// For tests: the lines the text was wrapped onto (as scalar strings), and the font size.
    let lines: [String], size: Int

    /// The grey of the outline.
    static let dark: Int = 16

    init(_ text: String, top atTop: Bool, width: Int, height: Int) throws(FilterError) {
        let layout = try TextLayout(text, primary: try Font.bundled())
        var words = layout.words
        let maxWidth = max(1, width * 92 / 100) * 64
        var size = max(6, min(width / 9, height / 4))
        var lines: [TextLayout.Line] = [], groups: [ArraySlice<TextLayout.Word>] = []
        while true {
            try layout.setSize(size)
            let widest: (width: Int, glyphs: Int)
            (groups, widest) = try Self.wrap(words, layout: layout, maxWidth: maxWidth)
            lines = []
            for group in groups { lines.append(try layout.shape(group)) }
            let fits =
                lines.allSatisfy { $0.width <= maxWidth }
                && lines.reduce(0) { $0 + $1.ascender - $1.descender } <= height * 2 / 5
            // More lines than fit at the smallest size: the line feeds become spaces and the
            // text is fitted again, so that all of it is drawn (60 lines of 1-2 words on a
            // 451x300 picture drew the first 37).
            if !fits, size <= 6, words.contains(where: \.hard) {
                words = words.map { .init(range: $0.range, spaced: $0.spaced || $0.hard, rightToLeft: $0.rightToLeft) }
                size = max(6, min(width / 9, height / 4))
                continue
            }
            if fits || size <= 6 { break }
            // The sizes at which the widest word (no wrap splits it) is still wider than a line
            // cannot fit either: shaping is unhinted, so widths scale with the size, within
            // 1/64 px a glyph each way. They are skipped without shaping (a text that never
            // fits went through some 40 sizes, each shaped).
            var next = max(6, size * 9 / 10)
            while next > 6, widest.width * next / size - 2 * widest.glyphs > maxWidth { next = max(6, next * 9 / 10) }
            size = next
        }
        let radius = max(1, size / 14)
        let band = min(height, lines.reduce(0) { $0 + $1.ascender - $1.descender } + 2 * radius)
        let margin = max(1, height / 40)
        self.width = width
        self.height = band
        self.top = atTop ? min(margin, height - band) : max(0, height - margin - band)
        self.lines = groups.map { group in
            group.enumerated().map { i, word in
                (i > 0 && word.spaced ? " " : "")
                    + String(String.UnicodeScalarView(layout.scalars[word.range].compactMap(Unicode.Scalar.init)))
            }.joined()
        }
        self.size = size
        // The colour layer covers only the columns of the colour glyphs (a size either side):
        // across the whole width, an emoji in a 12 MP caption took 7 MB.
        let placed = lines.map { (line: $0, x: (width * 64 - $0.width) / 2) }  // centred
        let columns = layout.colourColumns(placed, margin: size)
        // Clamped into the picture at both ends: a word wider than the picture at the smallest
        // size runs off both sides, and its emoji may all lie outside.
        let colourColumns =
            columns.map { min(width, max(0, $0.lowerBound))..<min(width, max(0, $0.lowerBound, $0.upperBound)) }
            ?? 0..<0
        let hasColour = !colourColumns.isEmpty
        var fill = [UInt8](repeating: 0, count: width * band), outline = fill
        var colour = [UInt8](repeating: 0, count: hasColour ? colourColumns.count * band * 4 : 4)
        try fill.withUnsafeMutableBufferPointer { (f) throws(FilterError) in
            try outline.withUnsafeMutableBufferPointer { (o) throws(FilterError) in
                try colour.withUnsafeMutableBufferPointer { (c) throws(FilterError) in
                    var baseline = radius
                    for (line, x) in placed {
                        baseline += line.ascender
                        try layout.draw(
                            line, x: x, baseline: baseline, fill: f.baseAddress!,
                            outline: o.baseAddress!, colour: c.baseAddress!, colourColumns: colourColumns,
                            width: width, height: band,
                            radius: radius * 64)
                        baseline -= line.descender
                    }
                }
            }
        }
        self.fill = fill
        self.outline = outline
        self.colour = hasColour ? colour : []
        self.colourColumns = colourColumns
    }

    /// Words greedily onto lines no wider than `maxWidth` (1/64 px); a word wider than a
    /// line stands alone on one, and a line feed starts a new line. Words are as
    /// `TextLayout.words` gives them (UAX #14: CJK text breaks between ideographs). Each word is shaped once, and a line's width is its words' and
    /// spaces' widths; the lines are then shaped whole (which the fit is checked on). Also
    /// gives the widest word's width and glyph count, for the sizes to skip.
    static func wrap(_ words: [TextLayout.Word], layout: TextLayout, maxWidth: Int) throws(FilterError)
        -> (lines: [ArraySlice<TextLayout.Word>], widest: (width: Int, glyphs: Int))
    {
        var lines: [ArraySlice<TextLayout.Word>] = [], start = 0, lineWidth = 0, widest = (width: 0, glyphs: 0)
        let space = try layout.spaceWidth()
        for i in words.indices {
            let shaped = try layout.shape(words[i...i])
            let own = shaped.width
            if own > widest.width { widest = (own, shaped.glyphs.count) }
            let gap = words[i].spaced ? space : 0
            if i == start {
                lineWidth = own
            } else if !words[i].hard, lineWidth + gap + own <= maxWidth {
                lineWidth += gap + own
            } else {
                lines.append(words[start..<i])
                (start, lineWidth) = (i, own)
            }
        }
        if start < words.count { lines.append(words[start..<words.count]) }
        return (lines, widest)
    }

    /// Paints image row `y` (RGBA8): the outline over the picture, the letters over that;
    /// alpha becomes at least the coverage.
    func draw(row y: Int, into pixels: UnsafeMutablePointer<UInt8>) {
        guard y >= top, y < top + height else { return }
        let start = (y - top) * width
        // Where this row's colour pixels start, for column x at `colourStart + 4 * x`.
        let colourStart = 4 * ((y - top) * colourColumns.count - colourColumns.lowerBound)
        for x in 0..<width {
            let o = Int(outline[start + x]), f = Int(fill[start + x])
            let a = colourColumns.contains(x) ? Int(colour[colourStart + 4 * x + 3]) : 0
            guard o | f | a != 0 else { continue }
            let p = pixels + 4 * x
            for c in 0..<3 {
                var under = (Int(p[c]) * (255 - o) + Self.dark * o + 127) / 255
                if a != 0 { under = Int(colour[colourStart + 4 * x + c]) + (under * (255 - a) + 127) / 255 }
                p[c] = UInt8(min(255, (under * (255 - f) + 255 * f + 127) / 255))
            }
            p[3] = max(p[3], UInt8(max(o, f, a)))
        }
    }
}

/// Rows drawn over in place.
final class CaptionKernel: SpatialKernel {
    let mask: CaptionMask

    init(mask: CaptionMask) { self.mask = mask }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        for y in rows {
            let d = destination.row(y - destinationRow)
            if source !== destination { d.update(from: source.row(y - sourceRow), count: source.width * 4) }
            mask.draw(row: y, into: d)
        }
    }
}
