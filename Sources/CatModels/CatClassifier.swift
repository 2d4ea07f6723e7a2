internal import CCatModels
import CatPixels
import CatSupport

/// The second look at every cat box: an ImageNet classifier (EfficientNet-Lite0,
/// Resources/models/efficientnet-lite0/README.md), run by catctl's own kernels (`Darknet`),
/// tells a domestic cat from what the detector takes for one (COCO has no class for a
/// leopard, a lemur, a hedgehog or a wild cat; ImageNet has). A box is kept when ImageNet's
/// five domestic-cat classes together score at least `threshold` on a square crop around it.
public enum CatClassifier {
    /// Where the network's files are (as the detector's: `BundledResources`), and their names.
    static let folder = "models/efficientnet-lite0",
        files = (cfg: "efficientnet-lite0.cfg", weights: "efficientnet-lite0.weights")

    /// The network's input side.
    static let side = 224

    /// The network, read once from its installed files, or why it cannot be.
    // The weights are 5.2 MB (int8 and float16): 8 MiB is room for another conversion. A
    // look may cost at most `maxWork` (it may run `maxLooks` times a picture).
    static let loaded = Darknet.loading(
        folder, files: files, maxWeightBytes: 8 << 20, largestRun: side, maxWork: maxWork, check: check)

    /// Refuses a network that is not a classifier of `side` square RGB pictures with one
    /// output, its last layer: a softmax over at least ImageNet's classes.
    static func check(_ network: Darknet) throws(Darknet.ReadError) {
        guard network.input == Darknet.Shape(channels: 3, width: side, height: side), network.endsInItsOneSoftmax,
            let last = network.shapes.last, last.channels > domestic.upperBound
        else {
            throw Darknet.ReadError(
                description: "the network is not an ImageNet classifier of \(side) x \(side) RGB pictures")
        }
    }

    /// The network, when it could be read (`loaded`); without it every box is kept.
    package static var network: Darknet? { loaded.network }

    /// Why the second look cannot be taken, or nil when it can.
    public static var unavailable: String? { loaded.unavailable("the cat classifier's network") }

    /// ImageNet's domestic cats: 281 tabby, 282 tiger cat, 283 Persian, 284 Siamese, 285
    /// Egyptian cat (the big cats, 286-293, are not).
    static let domestic = 281...285

    /// The lowest summed domestic-cat probability a box is kept at. Chosen on the tuning half
    /// of Tests/Fixtures/cats (Benchmarks/second-look.py; docs/detection.md has both halves).
    public static let threshold = 0.05

    /// The crop's side over the box's long side.
    static let margin = 1.1

    /// At most this many boxes get a second look (the most certain first); the rest are
    /// kept unlooked, as all are without the classifier. A look is some 15 ms on one core.
    static let maxLooks = 16

    /// The most operations a look may take (`Darknet.checkCost`): EfficientNet-Lite0's are
    /// some 0.45 G; a file that asks more is refused at reading.
    static let maxWork = 1_000_000_000

    /// The boxes of `boxes` (in `picture`'s pixels) the classifier takes for domestic cats,
    /// in their order; all of them when the network cannot be read, and each it cannot score
    /// (weights that overflow) or past the first `maxLooks`. `detail`: a larger copy of the
    /// same picture to crop from, when there is one (the boxes are scaled to it).
    package static func domesticCats(
        _ boxes: [ScoredRegion], in picture: PixelBuffer, detail: PixelBuffer? = nil, threads: Int = CPUs.available,
        network: Darknet? = network
    ) -> [ScoredRegion] {
        guard let network else { return boxes }
        let source = detail ?? picture
        let fx = Double(source.width) / Double(picture.width), fy = Double(source.height) / Double(picture.height)
        return boxes.enumerated().filter { i, box in
            guard i < maxLooks else { return true }
            let scaled = (
                x: Double(box.x) * fx, y: Double(box.y) * fy, width: Double(box.width) * fx,
                height: Double(box.height) * fy
            )
            let input = Self.input(source, around: scaled)
            return (domesticScore(input, network: network, threads: threads) ?? 1) >= threshold
        }.map(\.element)
    }

    /// The five domestic-cat classes' summed probability for `input` (`side` square, made by
    /// `input(_:around:)`), or nil when the network gives none (weights that overflow on it).
    package static func domesticScore(_ input: FeatureMap, network: Darknet, threads: Int) -> Double? {
        guard let probabilities = network.run(input, threads: threads, runtime: .chosen(.own)).last,
            probabilities.shape.channels > domestic.upperBound
        else { return nil }
        let score = domestic.reduce(0) { $0 + Double(probabilities.plane($1)[0]) }
        return score.isFinite ? score : nil
    }

    /// The network's input for a box of `picture` (its pixels): the square `margin` times the
    /// box's long side around its centre, black beyond the picture, resized to `side` square
    /// as Pillow's bilinear resize does (`Resample.square`: the classifier's threshold was
    /// chosen on crops made so), scaled as (x - 127) / 128.
    package static func input(
        _ picture: PixelBuffer, around box: (x: Double, y: Double, width: Double, height: Double)
    ) -> FeatureMap {
        let long = max(box.width, box.height) * margin
        let (cx, cy) = (box.x + box.width / 2, box.y + box.height / 2)
        // Pillow's crop box, its edges truncated toward zero as Python's int(), within
        // sizes an Int holds (a box is in the picture: this only guards the arithmetic).
        func edge(_ v: Double) -> Int { Int(max(-1e9, min(1e9, v))) }
        let left = edge(cx - long / 2), top = edge(cy - long / 2)
        let width = max(1, edge(cx + long / 2) - left), height = max(1, edge(cy + long / 2) - top)
        let values = Resample.square(picture, left: left, top: top, width: width, height: height, side: side)
        let map = FeatureMap(Darknet.Shape(channels: 3, width: side, height: side))
        for c in 0..<3 {
            let plane = map.plane(c)
            for p in 0..<side * side { plane[p] = (values[c * side * side + p] - 127) / 128 }
        }
        return map
    }
}
