internal import CCatDetectors
import CatSupport
import Dispatch

/// A boosted cascade of depth-1 weak classifiers over Haar or LBP features, evaluated on
/// integral images: our own evaluator of OpenCV's cascade files. It gives the same boxes as
/// OpenCV 4.6's `CascadeClassifier::detectMultiScale` with the same parameters on the same
/// grey picture (shown by `CatFacesTests` against boxes from Debian's python3-opencv), so
/// catctl needs neither libopencv (about 20 MB of libraries and their start-up) nor a C++
/// shim. What has to match: the scales, OpenCV's bit-exact bilinear resize of each
/// (`GreyImage.resized`), the windows' steps, the float arithmetic of the features and
/// stages, and `groupRectangles`.
public struct Cascade: Sendable {
    enum Kind: Sendable { case haar, lbp }
    /// The stages and their stumps (depth-1 trees), flat, as `cc_cascade_scan` reads them.
    struct Stages: Sendable {
        /// Stage k's stumps are `ends[k - 1]..<ends[k]`; it accepts a window when the sum
        /// of their leaves is at least its threshold.
        var ends: [Int32] = [], stageThresholds: [Float] = []
        /// Per stump: the feature it reads, its threshold (Haar), its two leaves.
        var features: [Int32] = [], thresholds: [Float] = [], left: [Float] = [], right: [Float] = []
        /// LBP: 8 words (256 bits) a stump, the codes that go left.
        var subsets: [UInt32] = []
    }

    let kind: Kind
    /// The window the cascade was trained on.
    let width: Int, height: Int
    let stages: Stages
    /// Each feature's rectangles, in window coordinates (LBP: one, the size of a block).
    let features: [[(x: Int, y: Int, width: Int, height: Int, weight: Float)]]

    /// Joseph Howse's LBP frontal cat face cascade (OpenCV's `lbpcascade_frontalcatface.xml`).
    public static let lbp: Cascade = builtIn(cc_lbp_frontalcatface)
    /// His Haar one (`haarcascade_frontalcatface.xml`, upright features only).
    public static let haar: Cascade = builtIn(cc_haar_frontalcatface)

    private static func builtIn(_ text: (UnsafeMutablePointer<Int>) -> UnsafePointer<CChar>?) -> Cascade {
        var length = 0
        guard let text = text(&length) else { fatalError("built-in cascade missing") }
        // The files are part of the binary (NUL-terminated): one that does not read is a build error.
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: length)
        do {
            return try CascadeFile(bytes: bytes).cascade()
        } catch {
            fatalError("built-in cascade: \(error)")
        }
    }

    /// A box in the picture's pixels, and how many raw windows were grouped into it
    /// (`neighbours`, 0 for a raw window).
    public struct Box: Equatable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public var neighbours: Int
    }

    /// The raw windows every stage of each of `cascades` accepts (OpenCV's
    /// `detectMultiScaleNoGrouping`, a list a cascade), for the scales whose window lies
    /// between `minSize` and `maxSize` (0: no largest size). The cascades share a window
    /// size, and so the scales: each scale's picture and integral images are made once for
    /// all of them, and the scales run on every core.
    static func windows(
        _ cascades: [Cascade], in image: GreyImage, scaleFactor: Double, minSize: Int, maxSize: Int
    ) -> [[Box]] {
        guard let model = cascades.first else { return [] }
        precondition(cascades.allSatisfy { $0.width == model.width && $0.height == model.height })
        let (width, height) = (model.width, model.height)
        guard image.width >= width, image.height >= height, scaleFactor > 1 else { return cascades.map { _ in [] } }
        // The scales, as OpenCV lists them: a float factor each, those whose window fits
        // the image, then those between the sizes (0: no largest size).
        let maxWidth = maxSize > 0 ? maxSize : image.width, maxHeight = maxSize > 0 ? maxSize : image.height
        var all: [Float] = []
        var factor = 1.0
        while Int((Double(width) * factor).rounded(.toNearestOrEven)) <= image.width
            && Int((Double(height) * factor).rounded(.toNearestOrEven)) <= image.height
        {
            all.append(Float(factor))
            factor *= scaleFactor
        }
        @Sendable func window(_ scale: Float) -> (Int, Int) {
            (
                Int((Float(width) * scale).rounded(.toNearestOrEven)),
                Int((Float(height) * scale).rounded(.toNearestOrEven))
            )
        }
        var scales: [Float] = []
        for scale in all {
            let (w, h) = window(scale)
            if w > maxWidth || h > maxHeight { break }
            if w >= minSize && h >= minSize { scales.append(scale) }
        }
        // None between the sizes: the one nearest the smallest size, as OpenCV does.
        if scales.isEmpty,
            let nearest = all.min(by: { a, b in
                let (aw, ah) = window(a), (bw, bh) = window(b)
                return (minSize - aw) * (minSize - aw) + (minSize - ah) * (minSize - ah)
                    < (minSize - bw) * (minSize - bw) + (minSize - bh) * (minSize - bh)
            })
        {
            scales = [nearest]
        }
        @Sendable func scaledSize(_ scale: Float) -> (Int, Int) {
            (
                Int((Float(image.width) / scale).rounded(.toNearestOrEven)),
                Int((Float(image.height) / scale).rounded(.toNearestOrEven))
            )
        }
        // OpenCV splits the rows into stripes of a whole number of steps, as many as the
        // first scale's width / 32, and rows past the last stripe are not looked at.
        guard let first = scales.first else { return cascades.map { _ in [] } }
        let stripes = Int((Double(max(scaledSize(first).0 + 1 - width, 0)) / 32).rounded(.up))
        let haar = cascades.contains { $0.kind == .haar }
        // Every scale's integral images have the first (largest) one's stride, so each
        // cascade's offsets are made once.
        let stride = scaledSize(first).0 + 1
        let kernels = cascades.map { KernelCascade($0, stride: stride) }
        // Per scale, per cascade; the largest pictures (the first scales) start first.
        let found = LockedValue([[[Box]]?](repeating: nil, count: scales.count))
        let chosen = scales
        DispatchQueue.concurrentPerform(iterations: chosen.count) { index in
            let scale = chosen[index]
            let (sw, sh) = scaledSize(scale)
            let columns = max(sw + 1 - width, 0), rows = max(sh + 1 - height, 0)
            guard columns > 0, rows > 0 else { return }
            let step = scale >= 2 ? 1 : 2
            let stripe = max((rows / step + stripes - 1) / max(stripes, 1), 1) * step
            let lastRow = min(stripes * stripe, rows)
            let integral = Integral(image.resized(width: sw, height: sh), stride: stride, squares: haar)
            let (boxWidth, boxHeight) = window(scale)
            let boxes = kernels.map { kernel in
                var boxes: [Box] = []
                kernel.scan(integral, columns: columns, rows: lastRow, step: step) {
                    x, y in
                    boxes.append(
                        Box(
                            x: Int((Float(x) * scale).rounded(.toNearestOrEven)),
                            y: Int((Float(y) * scale).rounded(.toNearestOrEven)), width: boxWidth,
                            height: boxHeight, neighbours: 0))
                }
                return boxes
            }
            found.withLockedValue { $0[index] = boxes }
        }
        let perScale = found.current.compactMap { $0 }
        return cascades.indices.map { c in perScale.flatMap { $0[c] } }
    }

    /// OpenCV's `detectMultiScale`: the raw windows grouped, each group of more than
    /// `minNeighbours` giving its mean box (`groupRectangles`, eps 0.2).
    public func detect(
        in image: GreyImage, scaleFactor: Double = 1.1, minNeighbours: Int = 3, minSize: Int = 0, maxSize: Int = 0
    ) -> [Box] {
        let raw = Self.windows([self], in: image, scaleFactor: scaleFactor, minSize: minSize, maxSize: maxSize)[0]
        return Self.group(raw, threshold: minNeighbours, eps: 0.2)
    }

    /// OpenCV's `groupRectangles`: windows that are similar (every side within eps times
    /// their mean smaller size) join one class, transitively; a class of more than
    /// `threshold` windows gives their mean, unless it lies inside a stronger class.
    static func group(_ boxes: [Box], threshold: Int, eps: Double) -> [Box] {
        guard threshold > 0, !boxes.isEmpty else { return boxes }
        func similar(_ a: Box, _ b: Box) -> Bool {
            let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
            return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
                && Double(abs(a.x + a.width - b.x - b.width)) <= delta
                && Double(abs(a.y + a.height - b.y - b.height)) <= delta
        }
        // Union-find over every pair.
        var parent = Array(boxes.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in boxes.indices {
            for j in boxes.indices where j > i && similar(boxes[i], boxes[j]) {
                let a = root(i), b = root(j)
                if a != b { parent[b] = a }
            }
        }
        var classes: [Int: (sum: (Int, Int, Int, Int), count: Int)] = [:]
        var order: [Int] = []
        for (i, box) in boxes.enumerated() {
            let r = root(i)
            if classes[r] == nil { order.append(r) }
            let c = classes[r] ?? ((0, 0, 0, 0), 0)
            classes[r] = ((c.sum.0 + box.x, c.sum.1 + box.y, c.sum.2 + box.width, c.sum.3 + box.height), c.count + 1)
        }
        let means: [Box] = order.map { r in
            let c = classes[r]!
            let s = 1 / Float(c.count)
            func mean(_ v: Int) -> Int { Int((Float(v) * s).rounded(.toNearestOrEven)) }
            return Box(
                x: mean(c.sum.0), y: mean(c.sum.1), width: mean(c.sum.2), height: mean(c.sum.3), neighbours: c.count)
        }
        return means.enumerated().compactMap { i, r1 in
            let n1 = r1.neighbours
            guard n1 > threshold else { return nil }
            for (j, r2) in means.enumerated() where j != i && r2.neighbours > threshold {
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
                let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                if r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (r2.neighbours > max(3, n1) || n1 < 3)
                {
                    return nil
                }
            }
            return r1
        }
    }
}

/// A cascade as `cc_cascade_scan` (CCatDetectors) reads it: its stages, and its features
/// as offsets into integral images `stride` elements a row, in memory of its own that lives
/// as long as this value. Made once a detection, for all its scales (their integral images
/// share the stride).
// @unchecked: immutable after init: its C buffers are only read by the scans.
private final class KernelCascade: @unchecked Sendable {
    private let kernel: cc_cascade
    private let buffers: [UnsafeMutableRawPointer]

    init(_ cascade: Cascade, stride: Int) {
        var owned: [UnsafeMutableRawPointer] = []
        func copy<T>(_ values: [T]) -> UnsafePointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(values.count, 1))
            _ = buffer.initialize(from: values)
            owned.append(UnsafeMutableRawPointer(buffer.baseAddress!))
            return UnsafePointer(buffer.baseAddress!)
        }
        func corners(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [Int32] {
            [x + stride * y, x + w + stride * y, x + stride * (y + h), x + w + stride * (y + h)].map { Int32($0) }
        }
        // Per feature: 4 offsets per rectangle (3 rectangles and their weights, Haar) or
        // the 16 corners of the 3 x 3 blocks (LBP).
        var offsets: [Int32] = [], weights: [Float] = []
        for feature in cascade.features {
            if cascade.kind == .lbp {
                let r = feature[0]
                for row in 0..<4 {
                    for col in 0..<4 { offsets.append(Int32(r.x + col * r.width + stride * (r.y + row * r.height))) }
                }
            } else {
                for k in 0..<3 {
                    let r = k < feature.count ? feature[k] : (x: 0, y: 0, width: 0, height: 0, weight: 0)
                    offsets += k < feature.count ? corners(r.x, r.y, r.width, r.height) : [0, 0, 0, 0]
                    weights.append(r.weight)
                }
            }
        }
        let stages = cascade.stages
        // The window's inner rectangle that normalises the variance (Haar).
        let norm = corners(1, 1, cascade.width - 2, cascade.height - 2)
        kernel = cc_cascade(
            kind: Int32(cascade.kind == .lbp ? CC_CASCADE_LBP : CC_CASCADE_HAAR),
            stage_count: Int32(stages.ends.count), stage_ends: copy(stages.ends),
            stage_thresholds: copy(stages.stageThresholds), stump_features: copy(stages.features),
            stump_thresholds: copy(stages.thresholds), stump_left: copy(stages.left),
            stump_right: copy(stages.right), subsets: copy(stages.subsets), offsets: copy(offsets),
            weights: copy(weights), norm: (norm[0], norm[1], norm[2], norm[3]),
            area: Double((cascade.width - 2) * (cascade.height - 2)))
        buffers = owned
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// Every window whose every stage accepts it, in OpenCV's order: the rows `0..<rows`
    /// and columns `0..<columns` `step` apart; a window the first stage rejects also skips
    /// the next place, as OpenCV does.
    func scan(_ integral: Integral, columns: Int, rows: Int, step: Int, found: (Int, Int) -> Void) {
        let room = 2 * ((columns + step - 1) / step) * ((rows + step - 1) / step)
        var places = [Int32](repeating: 0, count: room)
        let count = integral.sums.withUnsafeBufferPointer { sums in
            integral.squares.withUnsafeBufferPointer { squares in
                withUnsafePointer(to: kernel) { kernel in
                    cc_cascade_scan(
                        kernel, sums.baseAddress, squares.baseAddress, integral.stride, Int32(columns), Int32(rows),
                        Int32(step), &places)
                }
            }
        }
        for i in 0..<count { found(Int(places[2 * i]), Int(places[2 * i + 1])) }
    }
}
