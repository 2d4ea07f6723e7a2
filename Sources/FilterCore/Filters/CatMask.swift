import CatPixels
import CatSupport

extension FilterDefinition {
    static let cutout = FilterDefinition(
        name: "cutout", valueName: "COLOR", kind: .spatial,
        description:
            "Cuts the cats out: the rest transparent (PNG, WebP, AVIF, JPEG XL, TIFF), or COLOR (a name or "
            + "#RRGGBB; a format without transparency gets white); no cat: left as it is",
        showcase: nil, optional: true,
        parse: { text throws(FilterError) in
            [.spatial(CatMaskStage(.cutout(background: try MaskColor.parse(text)), filter: "cutout"))]
        })

    static let sticker = FilterDefinition(
        name: "sticker", parameter: .factor(default: 8), valueName: "WIDTH", maximum: 64,
        description:
            "A messenger sticker of the cats: cut out, trimmed with a margin, a white outline WIDTH px wide "
            + "(default 8) and a soft shadow, fitted into 512x512; no cat: left as it is",
        stage: { CatMaskStage(.sticker(outline: $0), filter: "sticker") })

    static let portrait = FilterDefinition(
        name: "portrait", valueName: "SIGMA[:mono]", kind: .spatial,
        description:
            "Portrait mode: the background blurred (SIGMA px, default 12; :mono greys it too), the cats sharp, "
            + "the edge feathered; no cat: left as it is",
        showcase: "12:mono", optional: true,
        parse: { text throws(FilterError) in
            var parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let mono = parts.last?.lowercased() == "mono"
            if mono { parts.removeLast() }
            func bad(_ reason: String) -> FilterError { .badValue(filter: "portrait", value: text, reason: reason) }
            guard parts.count <= 1 else { throw bad("give SIGMA, SIGMA:mono or mono") }
            var sigma = 12.0
            if let first = parts.first, !first.isEmpty {
                guard let value = Filter.number(first), value >= 0.5, value <= GaussianKernel.maximumSigma else {
                    throw bad("SIGMA is a number of pixels from 0.5 to \(Int(GaussianKernel.maximumSigma))")
                }
                sigma = value
            }
            return [.spatial(CatMaskStage(.portrait(sigma: sigma, mono: mono), filter: "portrait"))]
        })
}

/// An opaque colour a filter takes: a name or `#RRGGBB` (`RRGGBB`, `#RGB`).
struct MaskColor: Sendable, Equatable {
    var r: UInt8, g: UInt8, b: UInt8

    static let white = MaskColor(r: 255, g: 255, b: 255)
    static let names: [String: MaskColor] = [
        "white": .white, "black": MaskColor(r: 0, g: 0, b: 0), "grey": MaskColor(r: 128, g: 128, b: 128),
        "gray": MaskColor(r: 128, g: 128, b: 128), "red": MaskColor(r: 255, g: 0, b: 0),
        "green": MaskColor(r: 0, g: 128, b: 0), "blue": MaskColor(r: 0, g: 0, b: 255),
        "yellow": MaskColor(r: 255, g: 255, b: 0), "pink": MaskColor(r: 255, g: 192, b: 203),
    ]

    /// "" is none (transparent).
    static func parse(_ text: String) throws(FilterError) -> MaskColor? {
        let lower = text.trimmingWhitespace().lowercased()
        if lower.isEmpty { return nil }
        if let named = names[lower] { return named }
        var hex = Substring(lower)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        let digits = hex.compactMap(\.hexDigitValue)
        if digits.count == hex.count, hex.count == 6 || hex.count == 3 {
            let v = hex.count == 6 ? digits : digits.flatMap { [$0, $0] }
            return MaskColor(
                r: UInt8(v[0] * 16 + v[1]), g: UInt8(v[2] * 16 + v[3]), b: UInt8(v[4] * 16 + v[5]))
        }
        throw .badValue(
            filter: "cutout", value: text,
            reason: "a colour is #RRGGBB or one of \(names.keys.sorted().joined(separator: ", "))")
    }
}

/// What a cat filter does with the cats' mask.
enum MaskEffect: Sendable, Equatable {
    /// The rest transparent, or this colour.
    case cutout(background: MaskColor?)
    /// The cut-out trimmed, outlined (px at 512) and shadowed, in a 512 square.
    case sticker(outline: Double)
    /// The rest blurred (and greyed).
    case portrait(sigma: Double, mono: Bool)
}

/// `cutout`, `sticker` and `portrait`: the cats' mask (the chain's `SubjectFinder`, made on a
/// copy of the picture as the `cat` gravity is placed: `FilterChain.resolvingGravity`)
/// resized bilinearly over the picture, soft at the fur, then used. A picture where no cat
/// is found passes unchanged with a note, or fails with `--require-cat`.
struct CatMaskStage: SpatialStage {
    let effect: MaskEffect
    let filter: String
    /// The mask, once placed (of any size: it is stretched over the picture the stage gets).
    let mask: SubjectMask?
    let placed: Bool
    /// The sticker's side: 512, a preview's scaled.
    let side: Int
    /// The sticker drawn on this colour, for an output without transparency (JPEG).
    let flatten: MaskColor?

    init(
        _ effect: MaskEffect, filter: String, mask: SubjectMask? = nil, placed: Bool = false, side: Int = 512,
        flatten: MaskColor? = nil
    ) {
        (self.effect, self.filter, self.mask, self.placed, self.side) = (effect, filter, mask, placed, side)
        self.flatten = flatten
    }

    /// The stage for an output without transparency: a cut-out on `color` (unless it has a
    /// colour), a sticker drawn on it.
    func flattened(over color: MaskColor) -> CatMaskStage {
        switch effect {
        case .cutout(let background):
            return CatMaskStage(
                .cutout(background: background ?? color), filter: filter, mask: mask, placed: placed, side: side)
        case .sticker:
            return CatMaskStage(effect, filter: filter, mask: mask, placed: placed, side: side, flatten: color)
        case .portrait: return self
        }
    }

    /// The mask is still to be made from the picture.
    var needsPicture: Bool { !placed }

    /// Placed, and a cat in its mask.
    var hasCat: Bool { placed && mask.map { !$0.isEmpty } == true }

    /// This stage with the cats' mask of the picture it will get (`mask` over that picture,
    /// or a copy of it), or nil when no finder made one.
    func placed(mask: SubjectMask?, requireCat: Bool) throws(FilterError) -> CatMaskStage {
        let stage = CatMaskStage(effect, filter: filter, mask: mask, placed: true, side: side, flatten: flatten)
        if requireCat && mask == nil { throw .noCatMask(filter: filter) }
        if requireCat && !stage.hasCat { throw .noCat(filter: filter) }
        return stage
    }

    /// A sticker: every frame of an animation must come out one size, so its mask is the
    /// first frame's for all (`FilterChain.placing(masksFrom:)` keeps it).
    var keepsFirstFramesMask: Bool {
        if case .sticker = effect { return true }
        return false
    }

    // Never an identity, even placed without a cat: the streaming pipeline's placed plan must
    // have the unplaced one's steps (the kernel then copies the rows).

    var notices: [String] {
        guard placed, !hasCat else { return [] }
        return mask == nil
            ? ["\(filter) has no cat mask (the mask network is not installed): the picture is left as it is"]
            : ["no cat found: \(filter) left the picture as it is"]
    }

    var makesAlpha: Bool {
        guard hasCat else { return false }
        switch effect {
        case .cutout(let background): return background == nil
        case .sticker: return flatten == nil
        case .portrait: return false
        }
    }

    var halo: Int {
        if case .portrait(let sigma, _) = effect { return GaussianKernel(sigma: sigma).radius }
        return 0
    }

    var inPlace: Bool {
        if case .cutout = effect { return true }
        return false
    }

    var streams: Bool {
        if case .sticker = effect { return false }
        return true
    }

    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        if case .sticker = effect, hasCat { return (side, side) }
        return (width, height)
    }

    func scaled(by factor: Double) -> any SpatialStage {
        switch effect {
        case .cutout: return self
        case let .portrait(sigma, mono):
            return CatMaskStage(
                .portrait(sigma: max(0.5, sigma * factor), mono: mono), filter: filter, mask: mask, placed: placed,
                side: side)
        case let .sticker(outline):
            return CatMaskStage(
                .sticker(outline: outline * factor), filter: filter, mask: mask, placed: placed,
                side: Self.scale(side, factor), flatten: flatten)
        }
    }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        try CatMaskKernel(self, width: width, height: height)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        try CatMaskKernel(self, width: src.width, height: src.height).run(
            0..<dst.height, from: src, firstRow: 0, into: dst, firstRow: 0)
    }
}

/// The mask stretched over a `width` x `height` picture: bilinear, half-pixel centres.
public struct MaskSampler {
    let mask: SubjectMask
    /// Each picture column's near mask column and the next one's weight (0-256): 6 bytes a
    /// column (a tuple of three Ints took 24, 2.4 GB for a picture 100,000,000 wide).
    let lows: [UInt32], weights: [UInt16]
    let height: Int

    public init(_ mask: SubjectMask, width: Int, height: Int) {
        self.mask = mask
        self.height = height
        var (lows, weights) = ([UInt32](repeating: 0, count: width), [UInt16](repeating: 0, count: width))
        for x in 0..<width {
            let (low, _, weight) = Self.taps(x, width, mask.width)
            (lows[x], weights[x]) = (UInt32(low), UInt16(weight))
        }
        (self.lows, self.weights) = (lows, weights)
    }

    static func taps(_ i: Int, _ count: Int, _ source: Int) -> (Int, Int, Int) {
        let at = max(0, (Double(i) + 0.5) * Double(source) / Double(count) - 0.5)
        let low = min(source - 1, Int(at))
        return (low, min(source - 1, low + 1), Int(((at - Double(low)) * 256).rounded()))
    }

    /// Row `y`'s mask values, 0-255 (`out` holds the picture's width).
    public func row(_ y: Int, into out: inout [UInt8]) {
        let (y0, y1, fy) = Self.taps(y, height, mask.height)
        let last = mask.width - 1
        mask.values.withUnsafeBufferPointer { v in
            let top = v.baseAddress! + y0 * mask.width, bottom = v.baseAddress! + y1 * mask.width
            lows.withUnsafeBufferPointer { lows in
                weights.withUnsafeBufferPointer { weights in
                    out.withUnsafeMutableBufferPointer { out in
                        for x in 0..<min(lows.count, out.count) {
                            let x0 = Int(lows[x]), fx = Int(weights[x]), x1 = min(last, x0 + 1)
                            let upper = Int(top[x0]) * (256 - fx) + Int(top[x1]) * fx
                            let lower = Int(bottom[x0]) * (256 - fx) + Int(bottom[x1]) * fx
                            out[x] = UInt8((upper * (256 - fy) + lower * fy + (1 << 15)) >> 16)
                        }
                    }
                }
            }
        }
    }
}

/// A cat filter on one thread.
final class CatMaskKernel: SpatialKernel {
    let stage: CatMaskStage
    let sampler: MaskSampler?
    let blur: (any SpatialKernel)?
    private var maskRow: [UInt8]
    private var blurred: PixelBuffer?
    private var sticker: PixelBuffer?

    init(_ stage: CatMaskStage, width: Int, height: Int) throws(FilterError) {
        self.stage = stage
        sampler = stage.mask.map { MaskSampler($0, width: width, height: height) }
        maskRow = [UInt8](repeating: 255, count: width)
        if case let .portrait(sigma, _) = stage.effect {
            blur = try BlurStage(sigma: sigma).makeKernel(width: width, height: height)
        } else {
            blur = nil
        }
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        guard stage.hasCat, sampler != nil else {
            // Not placed (a chain run without its finder: `catctl bench`), or no cat: as it is.
            guard source !== destination || sourceRow != destinationRow else { return }
            for y in rows {
                destination.row(y - destinationRow).update(from: source.row(y - sourceRow), count: source.width * 4)
            }
            return
        }
        if stage.makesAlpha { destination.hasAlpha = true }
        switch stage.effect {
        case .cutout(let background):
            for y in rows {
                sample(y)
                let s = source.row(y - sourceRow), d = destination.row(y - destinationRow)
                for x in 0..<source.width {
                    let m = Int(maskRow[x])
                    if let background {
                        d[4 * x] = Self.mix(s[4 * x], background.r, m)
                        d[4 * x + 1] = Self.mix(s[4 * x + 1], background.g, m)
                        d[4 * x + 2] = Self.mix(s[4 * x + 2], background.b, m)
                        d[4 * x + 3] = s[4 * x + 3]
                    } else {
                        (d[4 * x], d[4 * x + 1], d[4 * x + 2]) = (s[4 * x], s[4 * x + 1], s[4 * x + 2])
                        d[4 * x + 3] = UInt8((Int(s[4 * x + 3]) * m + 127) / 255)
                    }
                }
            }
        case .portrait(_, let mono):
            let width = source.width
            if blurred == nil || blurred!.height < rows.count {
                blurred = try FilterError.allocating { () throws(PixelError) in
                    try PixelBuffer(width: width, height: max(rows.count, 1), hasAlpha: source.hasAlpha)
                }
            }
            let background = blurred!
            try blur!.run(rows, from: source, firstRow: sourceRow, into: background, firstRow: rows.lowerBound)
            for y in rows {
                sample(y)
                let s = source.row(y - sourceRow), b = background.row(y - rows.lowerBound)
                let d = destination.row(y - destinationRow)
                for x in 0..<width {
                    let m = Int(maskRow[x])
                    var (r, g, bl) = (b[4 * x], b[4 * x + 1], b[4 * x + 2])
                    if mono {
                        let sum: Int = Int(r) * 77 + Int(g) * 150 + Int(bl) * 29 + 128
                        let grey = UInt8(sum >> 8)
                        (r, g, bl) = (grey, grey, grey)
                    }
                    d[4 * x] = Self.mix(s[4 * x], r, m)
                    d[4 * x + 1] = Self.mix(s[4 * x + 1], g, m)
                    d[4 * x + 2] = Self.mix(s[4 * x + 2], bl, m)
                    d[4 * x + 3] = s[4 * x + 3]
                }
            }
        case .sticker(let outline):
            // Made whole once (the stage takes the whole-image path), then copied a strip at a time.
            if sticker == nil {
                sticker = try Sticker.make(
                    from: source, sampler: sampler!, side: stage.side, outline: outline, on: stage.flatten)
            }
            let made = sticker!
            for y in rows {
                destination.row(y - destinationRow).update(from: made.row(y), count: made.width * 4)
            }
        }
    }

    /// `a` where the mask is 255, `b` where it is 0, rounded.
    @inline(__always) static func mix(_ a: UInt8, _ b: UInt8, _ m: Int) -> UInt8 {
        UInt8((Int(a) * m + Int(b) * (255 - m) + 127) / 255)
    }

    private func sample(_ y: Int) {
        guard let sampler else { return }
        sampler.row(y, into: &maskRow)
    }
}

/// A messenger sticker: the cats cut out of the picture, trimmed to them with a margin,
/// fitted into a `side` square with room around for a white outline `outline` px wide
/// (at 512) and a soft shadow below right, on transparency.
enum Sticker {
    static func make(
        from source: PixelBuffer, sampler: MaskSampler, side: Int, outline: Double, on flatten: MaskColor?
    ) throws(FilterError) -> PixelBuffer {
        let (width, height) = (source.width, source.height)
        // The cats' bounds (128 and over), on the mask stretched over the picture.
        var row = [UInt8](repeating: 0, count: width)
        var (left, top, right, bottom) = (width, height, -1, -1)
        for y in 0..<height {
            sampler.row(y, into: &row)
            for x in 0..<width where row[x] >= 128 {
                (left, right) = (min(left, x), max(right, x))
                (top, bottom) = (min(top, y), max(bottom, y))
            }
        }
        let canvas = try FilterError.allocating { () throws(PixelError) in
            try PixelBuffer(width: side, height: side, hasAlpha: true)
        }
        for y in 0..<side { canvas.row(y).initialize(repeating: 0, count: side * 4) }
        guard right >= left, bottom >= top else { return canvas }  // not reached: a stage with no cat is skipped
        let scale = Double(side) / 512
        let w = max(0, outline * scale), shadow = max(1, w)
        // The cats' bounds with a margin of a twentieth of their long side, fitted inside
        // room for the outline and the shadow's blur.
        let margin = max(right - left + 1, bottom - top + 1) / 20
        let box = (
            x: max(0, left - margin), y: max(0, top - margin),
            width: min(width, right + margin + 1) - max(0, left - margin),
            height: min(height, bottom + margin + 1) - max(0, top - margin)
        )
        let inner = max(1.0, Double(side) - 2 * (w + 2 * shadow))
        let fit = min(inner / Double(box.width), inner / Double(box.height))
        let (cw, ch) = (max(1, Int(Double(box.width) * fit)), max(1, Int(Double(box.height) * fit)))
        let cut = try FilterError.allocating { () throws(PixelError) in
            let view = PixelBuffer(viewing: source, x: box.x, y: box.y, width: box.width, height: box.height)
            do { return try view.resampled(width: cw, height: ch, filter: .lanczos3, threads: 1) } catch {
                throw PixelError.outOfMemory(bytes: cw * ch * 4)
            }
        }
        // The cut-out's alpha: the mask under each of its pixels' centres.
        let (ox, oy) = ((side - cw) / 2, (side - ch) / 2)
        var alpha = [Float](repeating: 0, count: side * side)
        for y in 0..<ch {
            let sy = min(height - 1, box.y + Int((Double(y) + 0.5) / fit))
            sampler.row(sy, into: &row)
            for x in 0..<cw {
                let sx = min(width - 1, box.x + Int((Double(x) + 0.5) / fit))
                alpha[(oy + y) * side + ox + x] = Float(row[sx]) / 255
            }
        }
        // The outline: the alpha blurred by half its width, ramped steeply (a rounded
        // dilation by about `w`); the shadow: the outline blurred by `shadow`, moved down right.
        var ring = blurred(alpha, side: side, sigma: max(0.5, w / 2))
        for i in ring.indices { ring[i] = w < 0.5 ? alpha[i] : min(1, max(0, (ring[i] * 255 - 3) / 6)) }
        let shade = blurred(ring, side: side, sigma: shadow)
        let shift = Int((shadow / 2).rounded())
        for y in 0..<side {
            let out = canvas.row(y)
            for x in 0..<side {
                let sx = x - shift, sy = y - shift
                let s = sx >= 0 && sy >= 0 ? shade[sy * side + sx] * 0.35 : 0
                // Shadow (black), then the white outline over it, then the cat over both.
                var (r, g, b, a): (Float, Float, Float, Float) = (0, 0, 0, s)
                let o = ring[y * side + x]
                (r, g, b) = over((r, g, b), a, (1, 1, 1), o)
                a = o + a * (1 - o)
                let c = alpha[y * side + x]
                if c > 0, x >= ox, x < ox + cw, y >= oy, y < oy + ch {
                    let p = cut.row(y - oy) + 4 * (x - ox)
                    (r, g, b) = over((r, g, b), a, (Float(p[0]) / 255, Float(p[1]) / 255, Float(p[2]) / 255), c)
                    a = c + a * (1 - c)
                }
                if let flatten {  // on an opaque colour
                    let back = (Float(flatten.r) / 255, Float(flatten.g) / 255, Float(flatten.b) / 255)
                    (r, g, b) = over(back, 1, (r, g, b), a)
                    a = 1
                }
                out[4 * x] = UInt8((r * 255).rounded())
                out[4 * x + 1] = UInt8((g * 255).rounded())
                out[4 * x + 2] = UInt8((b * 255).rounded())
                out[4 * x + 3] = UInt8((a * 255).rounded())
            }
        }
        return canvas
    }

    /// `top` (straight alpha `ta`) over a colour of alpha `ba`: the colour of the result.
    static func over(
        _ bottom: (Float, Float, Float), _ ba: Float, _ top: (Float, Float, Float), _ ta: Float
    ) -> (Float, Float, Float) {
        let a = ta + ba * (1 - ta)
        guard a > 0 else { return (0, 0, 0) }
        func c(_ t: Float, _ b: Float) -> Float { min(1, (t * ta + b * ba * (1 - ta)) / a) }
        return (c(top.0, bottom.0), c(top.1, bottom.1), c(top.2, bottom.2))
    }

    /// A `side` square plane blurred by a Gaussian of `sigma` (zero beyond it), across then down.
    static func blurred(_ plane: [Float], side: Int, sigma: Double) -> [Float] {
        let radius = Int((3 * sigma).rounded(.up))
        var taps = (0...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = taps[0] + 2 * taps.dropFirst().reduce(0, +)
        taps = taps.map { $0 / total }
        var across = [Float](repeating: 0, count: side * side), out = across
        for y in 0..<side {
            for x in 0..<side {
                var sum = plane[y * side + x] * taps[0]
                for k in 1...max(1, radius) where k <= radius {
                    if x - k >= 0 { sum += plane[y * side + x - k] * taps[k] }
                    if x + k < side { sum += plane[y * side + x + k] * taps[k] }
                }
                across[y * side + x] = sum
            }
        }
        for y in 0..<side {
            for x in 0..<side {
                var sum = across[y * side + x] * taps[0]
                for k in 1...max(1, radius) where k <= radius {
                    if y - k >= 0 { sum += across[(y - k) * side + x] * taps[k] }
                    if y + k < side { sum += across[(y + k) * side + x] * taps[k] }
                }
                out[y * side + x] = sum
            }
        }
        return out
    }
}
