import CatPixels
import CatSupport

extension FilterDefinition {
    static let caption = FilterDefinition(
        name: "caption", valueName: "TEXT", kind: .spatial,
        description:
            "Meme caption: white, dark outline, sized to the width, wrapped (FreeType); at the bottom, or at "
            + "the top when a cat's face or head is where the bottom caption would go; at most 1000 characters",
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
/// long, centred at the bottom (or the top). Glyphs and outlines come from FreeType and the
/// bundled DejaVu Sans Bold; a character the font lacks shows its missing-glyph box. Each
/// row is drawn over in place, so it streams.
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

    private init(text: String, side: CaptionSide) {
        self.text = text
        self.side = side
    }

    /// This caption on the side that keeps it off `faces` of a `width` × `height` picture:
    /// the top when one of them reaches into the bottom caption's band.
    func placed(clearOf faces: [Subject], width: Int, height: Int) throws(FilterError) -> CaptionStage {
        let band = try CaptionMask(text, top: false, width: width, height: height)
        let covered = faces.contains { $0.y < band.top + band.height && $0.y + $0.height > band.top }
        return CaptionStage(text: text, side: covered ? .top : .bottom)
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

/// The caption's coverage: `fill` (the letters) and `outline` (their stroked borders), for
/// the band of rows [top, top + height) of an image `width` wide.
struct CaptionMask: Sendable {
    let width: Int, top: Int, height: Int
    let fill: [UInt8], outline: [UInt8]
    /// For tests: the lines the text was wrapped onto, and the font size.
    let lines: [String], size: Int

    /// The grey of the outline.
    static let dark: Int = 16

    init(_ text: String, top atTop: Bool, width: Int, height: Int) throws(FilterError) {
        let font = try Font.bundled()
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        let maxWidth = max(1, width * 92 / 100) * 64
        var size = max(6, min(width / 9, height / 4)), lines: [String] = []
        while true {
            try font.setSize(size)
            lines = Self.wrap(words, font: font, maxWidth: maxWidth)
            let fits =
                lines.allSatisfy { font.width($0) <= maxWidth }
                && lines.count * font.metrics.lineHeight <= height * 2 / 5
            if fits || size <= 6 { break }
            size = max(6, size * 9 / 10)
        }
        let metrics = font.metrics, radius = max(1, size / 14)
        let band = min(height, lines.count * metrics.lineHeight + 2 * radius)
        let margin = max(1, height / 40)
        self.width = width
        self.height = band
        self.top = atTop ? min(margin, height - band) : max(0, height - margin - band)
        self.lines = lines
        self.size = size
        var fill = [UInt8](repeating: 0, count: width * band), outline = fill
        try fill.withUnsafeMutableBufferPointer { (f) throws(FilterError) in
            try outline.withUnsafeMutableBufferPointer { (o) throws(FilterError) in
                for (i, line) in lines.enumerated() {
                    try font.draw(
                        line, x: (width * 64 - font.width(line)) / 2,
                        baseline: radius + i * metrics.lineHeight + metrics.ascender, fill: f.baseAddress!,
                        outline: o.baseAddress, width: width, height: band, radius: radius * 64)
                }
            }
        }
        self.fill = fill
        self.outline = outline
    }

    /// Words greedily onto lines no wider than `maxWidth` (1/64 px); a word wider than a
    /// line stands alone on one. Each word is measured once: a line's width grows by the
    /// space and the word, kerning across the joins included, so it is exactly
    /// `font.width(line)` without measuring the line again.
    static func wrap(_ words: [String], font: Font, maxWidth: Int) -> [String] {
        var lines: [String] = [], line: [String] = [], lineWidth = 0
        let space = font.width(" ")
        for word in words {
            let own = font.width(word)
            let joined =
                lineWidth + font.kerning(line.last?.unicodeScalars.last, " ") + space
                + font.kerning(" ", word.unicodeScalars.first) + own
            if line.isEmpty {
                (line, lineWidth) = ([word], own)
            } else if joined <= maxWidth {
                line.append(word)
                lineWidth = joined
            } else {
                lines.append(line.joined(separator: " "))
                (line, lineWidth) = ([word], own)
            }
        }
        if !line.isEmpty { lines.append(line.joined(separator: " ")) }
        return lines
    }

    /// Paints image row `y` (RGBA8): the outline over the picture, the letters over that;
    /// alpha becomes at least the coverage.
    func draw(row y: Int, into pixels: UnsafeMutablePointer<UInt8>) {
        guard y >= top, y < top + height else { return }
        let start = (y - top) * width
        for x in 0..<width {
            let o = Int(outline[start + x]), f = Int(fill[start + x])
            guard o | f != 0 else { continue }
            let p = pixels + 4 * x
            for c in 0..<3 {
                let under = (Int(p[c]) * (255 - o) + Self.dark * o + 127) / 255
                p[c] = UInt8((under * (255 - f) + 255 * f + 127) / 255)
            }
            p[3] = max(p[3], UInt8(max(o, f)))
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
