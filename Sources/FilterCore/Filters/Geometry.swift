import CatPixels

/// The value syntax the geometry filters share (ImageMagick's geometry): `W`, `xH`,
/// `WxH`, `WxH+X+Y`. Sizes are whole pixels, 1 to 1,000,000; offsets 0 to 1,000,000.
enum Geometry {
    static let maximum = 1_000_000

    /// The sizes the live editor offers for resize, cover and crop: these parts of the image.
    static let fractions = [0.125, 0.25, 0.5, 0.75]

    /// `fraction` of `pixels`, at least 1.
    static func part(_ pixels: Int, _ fraction: Double) -> Int { max(1, Int(Double(pixels) * fraction)) }

    /// The reference of every stage that only moves pixels (crop, rotate, flip, flop):
    /// output pixel (x, y) is input pixel `from(x, y)`, all four bytes.
    static func move(from src: PixelBuffer, into dst: PixelBuffer, _ from: (Int, Int) -> (Int, Int)) {
        for y in 0..<dst.height {
            for x in 0..<dst.width {
                let (sx, sy) = from(x, y)
                let s = src.row(sy) + 4 * sx, d = dst.row(y) + 4 * x
                for c in 0..<4 { d[c] = s[c] }
            }
        }
    }

    /// `W`, `xH` or `WxH`: at least one side.
    static func size(_ text: String, filter: String) throws(FilterError) -> (width: Int?, height: Int?) {
        func bad(_ reason: String) -> FilterError { .badValue(filter: filter, value: text, reason: reason) }
        let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        let width = parts[0].isEmpty ? nil : try pixels(String(parts[0]), bad)
        let height = parts.count < 2 || parts[1].isEmpty ? nil : try pixels(String(parts[1]), bad)
        if parts.count == 2 && parts[1].isEmpty { throw bad("a size is W, xH or WxH") }
        guard width != nil || height != nil else { throw bad("a size is W, xH or WxH") }
        return (width, height)
    }

    /// `WxH`, both sides.
    static func box(_ text: String, filter: String) throws(FilterError) -> (width: Int, height: Int) {
        let size = try size(text, filter: filter)
        guard let width = size.width, let height = size.height else {
            throw .badValue(filter: filter, value: text, reason: "give both sides, WxH")
        }
        return (width, height)
    }

    /// `WxH` or `WxH+X+Y`.
    static func rectangle(_ text: String, filter: String) throws(FilterError) -> (
        width: Int, height: Int, x: Int?, y: Int?
    ) {
        func bad(_ reason: String) -> FilterError { .badValue(filter: filter, value: text, reason: reason) }
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 1 || parts.count == 3 else { throw bad("a crop is WxH or WxH+X+Y") }
        let box = try box(parts[0], filter: filter)
        guard parts.count == 3 else { return (box.width, box.height, nil, nil) }
        return (box.width, box.height, try offset(parts[1], bad), try offset(parts[2], bad))
    }

    /// `P` of `P%`: a percentage above 0 and at most 10000, as a factor (90 -> 0.9).
    static func percent(_ text: String, filter: String) throws(FilterError) -> Double {
        guard text.allSatisfy(\.isASCII), let p = Double(text), p.isFinite, p > 0, p <= 10_000 else {
            throw .badValue(
                filter: filter, value: text + "%", reason: "a scale is a percentage above 0 and at most 10000%")
        }
        return p / 100
    }

    static func pixels(_ text: String, _ bad: (String) -> FilterError) throws(FilterError) -> Int {
        guard text.allSatisfy(\.isASCII), let n = Int(text) else {
            throw bad("'\(text)' is not a whole number of pixels")
        }
        guard n > 0 else { throw bad("sizes must be at least 1 pixel") }
        guard n <= maximum else { throw bad("at most \(maximum) pixels a side") }
        return n
    }

    static func offset(_ text: String, _ bad: (String) -> FilterError) throws(FilterError) -> Int {
        guard text.allSatisfy(\.isASCII), let n = Int(text), n >= 0, n <= maximum else {
            throw bad("'\(text)' is not an offset of 0 to \(maximum) pixels")
        }
        return n
    }
}
