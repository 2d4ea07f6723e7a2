internal import CCatModels
import CatPixels
import CatSupport

/// The cat's mask: a salient-object network (U^2-Netp, Resources/models/u2netp/README.md) on
/// each verified cat box grown by `grow`, resized to `side` square as rembg feeds it, its
/// map resized back over the box. On the box, not the whole photo: the person holding the
/// cat, the bed and the plant pot are outside the network's view.
public enum CatSegmenter {
    /// Where the network's files are (as the detector's: `BundledResources`), and their names.
    static let folder = "models/u2netp", files = (cfg: "u2netp.cfg", weights: "u2netp.weights")

    /// The network's input side.
    static let side = 320

    /// The most operations a mask's network may take (`Darknet.checkCost`): U^2-Netp's are
    /// 19.8 G multiply-adds and some 1.5 G of pooling, resizing and copies (8 each); a file
    /// that asks more is refused at reading.
    static let maxWork = 24_000_000_000

    /// The network, read once from its installed files, or why it cannot be.
    // The weights are 4.5 MB (float32): 8 MiB is room for another conversion.
    static let loaded = Darknet.loading(
        folder, files: files, maxWeightBytes: 8 << 20, largestRun: side, maxWork: maxWork, check: check)

    /// Refuses a network that does not map a `side` square RGB picture to one plane of the
    /// same size: one output, its last layer, a logistic.
    static func check(_ network: Darknet) throws(Darknet.ReadError) {
        guard network.input == Darknet.Shape(channels: 3, width: side, height: side), network.endsInItsOneLogistic,
            network.shapes.last == Darknet.Shape(channels: 1, width: side, height: side)
        else {
            throw Darknet.ReadError(description: "the network does not map \(side) x \(side) RGB pictures to a mask")
        }
    }

    /// The network, when it could be read (`loaded`).
    package static var network: Darknet? { loaded.network }

    /// Why no mask can be made, or nil when it can.
    public static var unavailable: String? { loaded.unavailable("the cat mask's network") }

    /// Each side of a box grows by this fraction of it (half before, half after): the
    /// network sees the cat's outline whole even where the detector's box cuts a tail or ear.
    static let grow = 0.15

    /// At most this many cats a picture are masked (the most certain first; the detector's
    /// boxes come so): a mask's cost is bounded whatever the picture holds.
    public static let maxCats = 8

    /// The mask of the cats in `boxes` (`picture`'s pixels), the first `maxCats` of them;
    /// nil without the network.
    public static func mask(
        _ boxes: [ScoredRegion], in picture: PixelBuffer, threads: Int = CPUs.available
    ) -> CatMask? {
        network.map { mask(boxes, in: picture, threads: threads, network: $0) }
    }

    package static func mask(
        _ boxes: [ScoredRegion], in picture: PixelBuffer, threads: Int, network: Darknet,
        runtime: NetworkRuntime = .chosen(.xnnpack)
    ) -> CatMask {
        var mask = CatMask(width: picture.width, height: picture.height)
        for box in boxes.prefix(maxCats) {
            let area = grown(box, width: picture.width, height: picture.height)
            guard area.width > 0, area.height > 0,
                let map = network.run(input(picture, area), threads: threads, runtime: runtime).last
            else {
                mask.cats.append(nil)
                continue
            }
            mask.cats.append(paste(map, over: area, into: &mask.values, width: picture.width))
        }
        return mask
    }

    /// `box` grown by `grow`, within the picture.
    static func grown(_ box: ScoredRegion, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let dx = Int((Double(box.width) * grow / 2).rounded()), dy = Int((Double(box.height) * grow / 2).rounded())
        let left = max(0, box.x - dx), top = max(0, box.y - dy)
        let right = min(width, box.x + box.width + dx), bottom = min(height, box.y + box.height + dy)
        return (left, top, max(0, right - left), max(0, bottom - top))
    }

    /// The network's input for `area` of `picture`: resized to `side` square (`Resample`),
    /// divided by its largest value, then ImageNet's mean taken off and divided by its
    /// deviation, channel by channel (how U^2-Net was trained, and rembg feeds it).
    package static func input(_ picture: PixelBuffer, _ area: (x: Int, y: Int, width: Int, height: Int)) -> FeatureMap {
        let values = Resample.square(
            picture, left: area.x, top: area.y, width: area.width, height: area.height, side: side)
        let largest = max(values.max() ?? 0, 1e-6)
        let mean: [Float] = [0.485, 0.456, 0.406], deviation: [Float] = [0.229, 0.224, 0.225]
        let map = FeatureMap(Darknet.Shape(channels: 3, width: side, height: side))
        for c in 0..<3 {
            let plane = map.plane(c)
            for p in 0..<side * side { plane[p] = (values[c * side * side + p] / largest - mean[c]) / deviation[c] }
        }
        return map
    }

    /// The levels the stretched map goes through: at or under `lower` not cat, at or over
    /// `upper` cat, linear between (soft fur stays soft, a pale body turns solid).
    static let solid: (lower: Float, upper: Float) = (0.1, 0.7)

    /// The network's output `map`, stretched to 0-1 by its own least and largest values (as
    /// U^2-Net's own test and rembg do: the network's sure cat is often 0.8), through the
    /// levels `solid`, resized
    /// bilinearly (half-pixel centres) over `area` of the mask, each pixel the larger of what
    /// it held and the map's. Gives the
    /// map's own part of the mask (128 and over): its bounds and pixels, nil when none.
    static func paste(
        _ map: FeatureMap, over area: (x: Int, y: Int, width: Int, height: Int), into mask: inout [UInt8], width: Int
    ) -> CatMask.Region? {
        let (mw, mh) = (map.shape.width, map.shape.height)
        func taps(_ count: Int, _ source: Int) -> [(Int, Int, Float)] {
            let scale = Float(source) / Float(count)
            return (0..<count).map { i in
                let at = max(0, (Float(i) + 0.5) * scale - 0.5)
                let low = min(source - 1, Int(at))
                return (low, min(source - 1, low + 1), at - Float(low))
            }
        }
        let xs = taps(area.width, mw), ys = taps(area.height, mh)
        let plane = map.plane(0)
        let values = UnsafeBufferPointer(start: plane, count: mw * mh)
        // Stretched to 0-1, then the levels `solid`: U^2-Netp gives a white cat on a white
        // wall 0.6-0.8 (a third see-through once cut out); from `solid.upper` on it is cat.
        let least = values.min() ?? 0, range = (values.max() ?? 1) - least
        let (low, high) = Self.solid
        let scale: Float = range > 1e-6 ? 255 / range / (high - low) : 0
        let offset = least + low * range
        var (left, top, right, bottom, pixels) = (Int.max, Int.max, -1, -1, 0)
        mask.withUnsafeMutableBufferPointer { mask in
            for (row, (y0, y1, fy)) in ys.enumerated() {
                let upperRow = plane + y0 * mw, lowerRow = plane + y1 * mw
                let line = mask.baseAddress! + (area.y + row) * width + area.x
                for (col, (x0, x1, fx)) in xs.enumerated() {
                    let upper = upperRow[x0] * (1 - fx) + upperRow[x1] * fx
                    let lower = lowerRow[x0] * (1 - fx) + lowerRow[x1] * fx
                    let v = upper * (1 - fy) + lower * fy
                    let byte = UInt8(max(0, min(255, ((v - offset) * scale).rounded())))
                    if byte > line[col] { line[col] = byte }
                    if byte >= 128 {
                        pixels += 1
                        (left, right) = (min(left, col), max(right, col))
                        (top, bottom) = (min(top, row), max(bottom, row))
                    }
                }
            }
        }
        guard pixels > 0 else { return nil }
        return CatMask.Region(
            x: area.x + left, y: area.y + top, width: right - left + 1, height: bottom - top + 1, pixels: pixels)
    }
}

/// The cats' mask over a picture: a byte a pixel, row after row, 0 (not a cat) to 255, the
/// largest of the cats' where they overlap.
public struct CatMask: Equatable, Sendable {
    public let width: Int, height: Int
    public var values: [UInt8]
    /// Each cat's own part of the mask (128 and over), in the order of the boxes asked
    /// about (the first `CatSegmenter.maxCats`): nil where the network saw none.
    public var cats: [Region?] = []

    public struct Region: Equatable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        /// Its pixels at 128 and over.
        public var pixels: Int

        /// The same region in a `width` x `height` picture, each axis `x` and `y` times as
        /// long (its pixels, the area's ratio), kept inside it.
        public func scaled(x fx: Double, y fy: Double, within width: Int, _ height: Int) -> Region {
            let left = min(width - 1, max(0, Int((Double(x) * fx).rounded())))
            let top = min(height - 1, max(0, Int((Double(y) * fy).rounded())))
            let right = min(width, max(left + 1, Int((Double(x + self.width) * fx).rounded())))
            let bottom = min(height, max(top + 1, Int((Double(y + self.height) * fy).rounded())))
            return Region(
                x: left, y: top, width: right - left, height: bottom - top,
                pixels: Int((Double(pixels) * fx * fy).rounded()))
        }
    }

    public init(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
        values = [UInt8](repeating: 0, count: width * height)
    }
}
