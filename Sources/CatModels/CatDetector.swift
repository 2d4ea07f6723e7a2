internal import CCatModels
import CatPixels
import CatSupport

/// Finds whole cats with a small learned detector: Yolo-Fastest-1.1-xl, trained on COCO
/// (Resources/models/yolo-fastest/README.md), run by catctl's own kernels (`Darknet`).
/// The picture is stretched to the network's input, as darknet and OpenCV's dnn do, at two
/// sizes (`passes`); the `cat` boxes of both above `threshold` are kept, the most certain of
/// any that overlap by more than `overlap` (greedy NMS, as OpenCV's `NMSBoxes`).
public enum CatDetector {
    /// Where the network's files are: `Resources/models/yolo-fastest/` in a source tree,
    /// `share/catctl/models/yolo-fastest/` once installed (`BundledResources`), and their names.
    static let folder = "models/yolo-fastest",
        files = (cfg: "yolo-fastest-1.1-xl.cfg", weights: "yolo-fastest-1.1-xl.weights")

    /// The network, read once from its installed files, or why it cannot be (a file missing,
    /// too large, or not what its layers say: `Darknet`'s checks).
    // Yolo-Fastest's weights are 3.7 MB: 16 MiB is room for a retrained copy.
    static let loaded = Darknet.loading(folder, files: files, maxWeightBytes: 16 << 20) {
        (network) throws(Darknet.ReadError) in
        guard network.input.channels == 3 else {
            throw Darknet.ReadError(description: "the network does not read RGB pictures")
        }
        guard network.layers.allSatisfy({ if case .yolo = $0 { true } else { !$0.isOutput } }) else {
            throw Darknet.ReadError(description: "the network's outputs are not all yolo layers")
        }
    }

    /// The network, when it could be read (`loaded`); without it no cat is found, only faces.
    package static var network: Darknet? { loaded.network }

    /// COCO's class 15.
    static let catClass = 15
    /// The lowest cat score kept (0-1). Measured with OpenCV's dnn on Tests/Fixtures/cats
    /// (67 cat photos with a marked face, 24 with no cat; both passes): at 0.2 a cat box
    /// holds the face in 59 and no cat is seen on 11 of the 24; at 0.3, 56 and 15; at 0.4,
    /// 56 and 18; at 0.5, 53 and 20; at 0.6, 47 and 22. Keeping a box only when cat is its
    /// best class changes nothing from 0.4 on.
    public static let threshold = 0.4
    /// Boxes that overlap more than this (intersection over union) are one cat.
    public static let overlap = 0.45
    /// Why the network cannot be used, or nil when it can.
    public static var unavailable: String? { loaded.unavailable("the cat detector's network") }

    /// A box the network found, in its input's 0-1 coordinates (centre and size).
    package struct Candidate: Equatable {
        var x: Double, y: Double, width: Double, height: Double
        var score: Double
    }

    /// The long sides of the network's inputs: the picture is read twice, each time
    /// stretched to sides that are multiples of 32 with about its shape. Measured with
    /// OpenCV's dnn on the first 55 photos of Tests/Fixtures/cats (52 with a marked face),
    /// the marked face is in a cat box at 0.2 on: 40 at 320 x 320 (how the network was
    /// trained), 42 at 352 long, 44 at 480, 43 at 544, 34 at 640; 47 for 320 x 320 and 480
    /// together, 48 for 352 and 480. On all 67 with a face at 0.4: 56 for 352 and 480, 50
    /// for 480 alone, 51 for 352 and 416.
    public static let passes = [352, 480]

    /// The long side of a third pass, run only when the first two find no cat the second
    /// look keeps (`CatFinder.find`): a cat small in the picture is found at a larger input.
    public static let thirdPass = 640

    /// The network's input sides for a `width` x `height` picture and a long side `long`.
    static func inputSize(width: Int, height: Int, long: Int) -> (width: Int, height: Int) {
        func short(_ a: Int, _ b: Int) -> Int {
            max(32, min(long, Int((Double(long) * Double(a) / Double(max(1, b)) / 32).rounded()) * 32))
        }
        return width >= height ? (long, short(height, width)) : (short(width, height), long)
    }

    /// The candidates of one pass over `picture`, its input `long` on its long side.
    package static func candidates(in picture: PixelBuffer, long: Int, threads: Int, network: Darknet? = network)
        -> [Candidate]
    {
        guard network != nil else { return [] }  // no network installed: no input to make for it
        let size = inputSize(width: picture.width, height: picture.height, long: long)
        return candidates(
            input(picture, width: size.width, height: size.height), threshold: threshold, threads: threads,
            network: network)
    }

    /// The cats `network` (another than the installed one: the fuzz target's) finds in
    /// `picture`, both passes, at the real sizes.
    package static func cats(in picture: PixelBuffer, using network: Darknet) -> [ScoredRegion] {
        boxes(passes.flatMap { candidates(in: picture, long: $0, threads: 1, network: network) }, in: picture)
    }

    /// At most this many candidates are suppressed (the most certain), and cats reported.
    static let maxCandidates = 1000, maxCats = 50

    /// The passes' candidates as cats in `picture`'s pixels: suppressed, the most certain first.
    package static func boxes(_ found: [Candidate], in picture: PixelBuffer) -> [ScoredRegion] {
        suppress(found).prefix(maxCats).map { c in
            let (w, h) = (picture.width, picture.height)
            func edge(_ v: Double, _ size: Int) -> Int { Int(min(max(0, v * Double(size)), Double(size)).rounded()) }
            let left = min(edge(c.x - c.width / 2, w), w - 1), top = min(edge(c.y - c.height / 2, h), h - 1)
            let right = max(left + 1, edge(c.x + c.width / 2, w)), bottom = max(top + 1, edge(c.y + c.height / 2, h))
            return ScoredRegion(x: left, y: top, width: right - left, height: bottom - top, score: c.score)
        }
    }

    /// The network's input made from `picture`: stretched to `width` x `height` (the
    /// picture's own size by default) by bilinear interpolation (pixel centres aligned, as
    /// OpenCV's `resize`), RGB planes in 0-1.
    static func input(_ picture: PixelBuffer, width: Int? = nil, height: Int? = nil) -> FeatureMap {
        let map = FeatureMap(
            Darknet.Shape(channels: 3, width: width ?? picture.width, height: height ?? picture.height))
        let (W, H) = (map.shape.width, map.shape.height)
        func taps(_ count: Int, _ source: Int) -> [(Int, Int, Float)] {
            let scale = Double(source) / Double(count)
            return (0..<count).map { i in
                let at = max(0, (Double(i) + 0.5) * scale - 0.5)
                let lo = min(Int(at), source - 1), hi = min(lo + 1, source - 1)
                return (lo, hi, Float(at - Double(lo)))
            }
        }
        let xs = taps(W, picture.width), ys = taps(H, picture.height)
        for (row, (y0, y1, fy)) in ys.enumerated() {
            let p0 = picture.row(y0), p1 = picture.row(y1)
            for (col, (x0, x1, fx)) in xs.enumerated() {
                for c in 0..<3 {
                    let top = Float(p0[4 * x0 + c]) * (1 - fx) + Float(p0[4 * x1 + c]) * fx
                    let bottom = Float(p1[4 * x0 + c]) * (1 - fx) + Float(p1[4 * x1 + c]) * fx
                    map.plane(c)[row * W + col] = (top * (1 - fy) + bottom * fy) / 255
                }
            }
        }
        return map
    }

    /// Every box of every yolo layer whose cat score (objectness x the class's logistic) is
    /// at least `threshold`, as darknet decodes them: centre (cell + logistic) / cells, size
    /// anchor x exp / the input's size (the input run, not the cfg's).
    static func candidates(
        _ input: FeatureMap, threshold: Double, threads: Int = CPUs.available, network: Darknet? = network
    ) -> [Candidate] {
        var found: [Candidate] = []
        guard let network else { return [] }
        let outputs = network.run(input, threads: threads, runtime: .chosen(.own))
        // Each output with its layer (a softmax output is none of the detector's).
        for (map, layer) in zip(outputs, network.layers.filter(\.isOutput)) {
            guard case .yolo(let yolo) = layer, yolo.classes > catClass else { continue }
            let (cols, rows) = (map.shape.width, map.shape.height)
            let per = yolo.classes + 5
            func logistic(_ v: Float) -> Double { 1 / (1 + exp(-Double(v))) }
            for (a, anchor) in yolo.anchors.enumerated() {
                let base = a * per
                let objectness = map.plane(base + 4), cat = map.plane(base + 5 + catClass)
                for cell in 0..<(cols * rows) {
                    let object = logistic(objectness[cell])
                    let score = object * logistic(cat[cell])
                    guard score >= threshold else { continue }
                    let (col, row) = (cell % cols, cell / cols)
                    // A box of no sane size (weights that are not Yolo-Fastest's) is no cat.
                    let (tw, th) = (Double(map.plane(base + 2)[cell]), Double(map.plane(base + 3)[cell]))
                    guard tw.isFinite, th.isFinite, tw < 10, th < 10 else { continue }
                    found.append(
                        Candidate(
                            x: (Double(col) + logistic(map.plane(base)[cell])) / Double(cols),
                            y: (Double(row) + logistic(map.plane(base + 1)[cell])) / Double(rows),
                            width: exp(tw) * anchor.width / Double(input.shape.width),
                            height: exp(th) * anchor.height / Double(input.shape.height), score: score))
                }
            }
        }
        return found
    }

    /// Greedy non-maximum suppression: the most certain first, each dropped that overlaps
    /// one kept by more than `overlap`.
    static func suppress(_ candidates: [Candidate]) -> [Candidate] {
        func iou(_ a: Candidate, _ b: Candidate) -> Double {
            let w = min(a.x + a.width / 2, b.x + b.width / 2) - max(a.x - a.width / 2, b.x - b.width / 2)
            let h = min(a.y + a.height / 2, b.y + b.height / 2) - max(a.y - a.height / 2, b.y - b.height / 2)
            guard w > 0, h > 0 else { return 0 }
            return w * h / (a.width * a.height + b.width * b.height - w * h)
        }
        var kept: [Candidate] = []
        for c in candidates.sorted(by: { $0.score > $1.score }).prefix(maxCandidates)
        where !kept.contains(where: { iou($0, c) > overlap }) {
            kept.append(c)
        }
        return kept
    }
}
