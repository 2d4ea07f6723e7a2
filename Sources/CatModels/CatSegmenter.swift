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
    static let loaded = Result { () throws(Darknet.ReadError) -> Darknet in
        // The weights are 4.5 MB (float32): 8 MiB is room for another conversion.
        let network = try Darknet.installed(
            folder, cfg: files.cfg, weights: files.weights, maxWeightBytes: 8 << 20, largestRun: side,
            maxWork: maxWork)
        try check(network)
        return network
    }

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
    package static var network: Darknet? { try? loaded.get() }

    /// Why no mask can be made, or nil when it can.
    public static var unavailable: String? {
        if case .failure(let error) = loaded { return "the cat mask's network cannot be read: \(error)" }
        return nil
    }

    /// Each side of a box grows by this fraction of it (half before, half after): the
    /// network sees the cat's outline whole even where the detector's box cuts a tail or ear.
    static let grow = 0.15

    /// At most this many cats a picture are masked (the most certain first; the detector's
    /// boxes come so): a mask's cost is bounded whatever the picture holds.
    public static let maxCats = 8

    /// The mask of the cats in `boxes` (`picture`'s pixels): a byte a pixel of `picture`,
    /// row after row, 0 (not a cat) to 255, the largest of the cats' where they overlap; nil
    /// without the network. `detail`: a larger copy of the same picture to look at and make
    /// the mask for (the boxes are scaled to it), when there is one.
    package static func mask(
        _ boxes: [ScoredRegion], in picture: PixelBuffer, threads: Int = CPUs.available,
        network: Darknet? = network
    ) -> [UInt8]? {
        guard let network else { return nil }
        var mask = [UInt8](repeating: 0, count: picture.width * picture.height)
        for box in boxes.prefix(maxCats) {
            let area = grown(box, width: picture.width, height: picture.height)
            guard area.width > 0, area.height > 0,
                let map = network.run(input(picture, area), threads: threads).last
            else { continue }
            paste(map, over: area, into: &mask, width: picture.width)
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

    /// The network's output `map` (0-1), resized bilinearly (half-pixel centres) over
    /// `area` of the mask, each pixel the larger of what it held and the map's.
    static func paste(
        _ map: FeatureMap, over area: (x: Int, y: Int, width: Int, height: Int), into mask: inout [UInt8], width: Int
    ) {
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
        mask.withUnsafeMutableBufferPointer { mask in
            for (row, (y0, y1, fy)) in ys.enumerated() {
                let top = plane + y0 * mw, bottom = plane + y1 * mw
                let line = mask.baseAddress! + (area.y + row) * width + area.x
                for (col, (x0, x1, fx)) in xs.enumerated() {
                    let upper = top[x0] * (1 - fx) + top[x1] * fx, lower = bottom[x0] * (1 - fx) + bottom[x1] * fx
                    let v = upper * (1 - fy) + lower * fy
                    let byte = UInt8(max(0, min(255, (v * 255).rounded())))
                    if byte > line[col] { line[col] = byte }
                }
            }
        }
    }
}
