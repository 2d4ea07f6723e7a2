import CCatCascades
import CatSupport

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
    struct Stage: Sendable {
        let first: Int, count: Int
        let threshold: Float
    }
    struct Stump: Sendable {
        let feature: Int
        let threshold: Float
        let left: Float, right: Float
    }

    let kind: Kind
    /// The window the cascade was trained on.
    let width: Int, height: Int
    let stages: [Stage]
    let stumps: [Stump]
    /// LBP: 8 words (256 bits) a stump, the categories that go left.
    let subsets: [UInt32]
    /// Each feature's rectangles, in window coordinates (LBP: one, the size of a block).
    let features: [[(x: Int, y: Int, width: Int, height: Int, weight: Float)]]

    /// Joseph Howse's LBP frontal cat face cascade (OpenCV's `lbpcascade_frontalcatface.xml`).
    public static let lbp: Cascade = builtIn(cc_lbp_frontalcatface)
    /// His Haar one (`haarcascade_frontalcatface.xml`, upright features only).
    public static let haar: Cascade = builtIn(cc_haar_frontalcatface)

    private static func builtIn(_ text: (UnsafeMutablePointer<Int>) -> UnsafePointer<CChar>?) -> Cascade {
        var length = 0
        guard let bytes = text(&length) else { fatalError("built-in cascade missing") }
        // The files are part of the binary: one that does not read is a build error.
        do {
            return try CascadeFile.cascade(String(cString: bytes))
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

    /// The raw windows every stage accepts (OpenCV's `detectMultiScaleNoGrouping`), for the
    /// scales whose window lies between `minSize` and `maxSize` (0: no largest size).
    func windows(in image: GreyImage, scaleFactor: Double, minSize: Int, maxSize: Int) -> [Box] {
        guard image.width >= width, image.height >= height, scaleFactor > 1 else { return [] }
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
        func window(_ scale: Float) -> (Int, Int) {
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
        func scaledSize(_ scale: Float) -> (Int, Int) {
            (
                Int((Float(image.width) / scale).rounded(.toNearestOrEven)),
                Int((Float(image.height) / scale).rounded(.toNearestOrEven))
            )
        }
        // OpenCV splits the rows into stripes of a whole number of steps, as many as the
        // first scale's width / 32, and rows past the last stripe are not looked at.
        guard let first = scales.first else { return [] }
        let stripes = Int((Double(max(scaledSize(first).0 + 1 - width, 0)) / 32).rounded(.up))
        var found: [Box] = []
        for scale in scales {
            let (sw, sh) = scaledSize(scale)
            let columns = max(sw + 1 - width, 0), rows = max(sh + 1 - height, 0)
            guard columns > 0, rows > 0 else { continue }
            let step = scale >= 2 ? 1 : 2
            let stripe = max((rows / step + stripes - 1) / max(stripes, 1), 1) * step
            let lastRow = min(stripes * stripe, rows)
            let scaled = image.resized(width: sw, height: sh)
            let integral = Integral(scaled, squares: kind == .haar)
            let (boxWidth, boxHeight) = window(scale)
            Evaluator(cascade: self, integral: integral).scan(columns: columns, rows: lastRow, step: step) { x, y in
                found.append(
                    Box(
                        x: Int((Float(x) * scale).rounded(.toNearestOrEven)),
                        y: Int((Float(y) * scale).rounded(.toNearestOrEven)), width: boxWidth, height: boxHeight,
                        neighbours: 0))
            }
        }
        return found
    }

    /// OpenCV's `detectMultiScale`: the raw windows grouped, each group of more than
    /// `minNeighbours` giving its mean box (`groupRectangles`, eps 0.2).
    public func detect(
        in image: GreyImage, scaleFactor: Double = 1.1, minNeighbours: Int = 3, minSize: Int = 0, maxSize: Int = 0
    ) -> [Box] {
        let raw = windows(in: image, scaleFactor: scaleFactor, minSize: minSize, maxSize: maxSize)
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

/// The cascade at one scale: features as offsets into the integral images.
private struct Evaluator {
    let cascade: Cascade
    let integral: Integral
    /// Per feature: 4 offsets per rectangle (3 rectangles, Haar) or the 16 corners of the
    /// 3 x 3 blocks (LBP).
    let offsets: [Int]
    /// Haar: the rectangles' weights, 3 a feature.
    let weights: [Float]
    /// Haar: the window's inner rectangle that normalises the variance.
    let norm: (Int, Int, Int, Int)

    init(cascade: Cascade, integral: Integral) {
        self.cascade = cascade
        self.integral = integral
        let step = integral.step
        func corners(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [Int] {
            [x + step * y, x + w + step * y, x + step * (y + h), x + w + step * (y + h)]
        }
        var offsets: [Int] = [], weights: [Float] = []
        for feature in cascade.features {
            if cascade.kind == .lbp {
                let r = feature[0]
                for row in 0..<4 {
                    for col in 0..<4 { offsets.append(r.x + col * r.width + step * (r.y + row * r.height)) }
                }
            } else {
                for k in 0..<3 {
                    if k < feature.count {
                        let r = feature[k]
                        offsets += corners(r.x, r.y, r.width, r.height)
                        weights.append(r.weight)
                    } else {
                        offsets += [0, 0, 0, 0]
                        weights.append(0)
                    }
                }
            }
        }
        self.offsets = offsets
        self.weights = weights
        let n = corners(1, 1, cascade.width - 2, cascade.height - 2)
        norm = (n[0], n[1], n[2], n[3])
    }

    /// Every window whose every stage accepts it, in OpenCV's order: the rows `0..<rows` and columns `0..<columns` `step` apart; a window the first
    /// stage rejects also skips the next place, as OpenCV does.
    func scan(columns: Int, rows: Int, step: Int, found: (Int, Int) -> Void) {
        let haar = cascade.kind == .haar
        let area = Double((cascade.width - 2) * (cascade.height - 2))
        cascade.stages.withUnsafeBufferPointer { stages in
            cascade.stumps.withUnsafeBufferPointer { stumps in
                cascade.subsets.withUnsafeBufferPointer { subsets in
                    weights.withUnsafeBufferPointer { weights in
                        offsets.withUnsafeBufferPointer { offsets in
                            integral.sums.withUnsafeBufferPointer { sums in
                                integral.squares.withUnsafeBufferPointer { squares in
                                    for y in stride(from: 0, to: rows, by: step) {
                                        var x = 0
                                        while x < columns {
                                            let origin = x + integral.step * y
                                            let p = sums.baseAddress! + origin
                                            var result = 1, sum = 0.0
                                            var varianceNorm: Float = 1
                                            if haar {
                                                let q = squares.baseAddress! + origin
                                                let total = p[norm.0] &- p[norm.1] &- p[norm.2] &+ p[norm.3]
                                                let squared = UInt32(
                                                    bitPattern: q[norm.0] &- q[norm.1] &- q[norm.2] &+ q[norm.3])
                                                let nf = area * Double(squared) - Double(total) * Double(total)
                                                if nf > 0 {
                                                    varianceNorm = Float(1 / nf.squareRoot())
                                                    if !(area * Double(varianceNorm) < 0.1) { result = -1 }
                                                } else {
                                                    result = -1
                                                }
                                            }
                                            if result == 1 {
                                                (result, sum) = Self.stages(
                                                    p, varianceNorm, haar, stages, stumps, subsets, weights, offsets)
                                            }
                                            if result > 0 { found(x, y) }
                                            x += result == 0 ? 2 * step : step
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// 1 and the last stage's sum when every stage accepts the window at `p`; else minus the
    /// stage that rejected it (0: the first).
    @inline(__always)
    private static func stages(
        _ p: UnsafePointer<Int32>, _ varianceNorm: Float, _ haar: Bool,
        _ stages: UnsafeBufferPointer<Cascade.Stage>, _ stumps: UnsafeBufferPointer<Cascade.Stump>,
        _ subsets: UnsafeBufferPointer<UInt32>, _ weights: UnsafeBufferPointer<Float>,
        _ offsets: UnsafeBufferPointer<Int>
    ) -> (Int, Double) {
        var sum = 0.0
        for index in 0..<stages.count {
            let stage = stages[index]
            sum = 0
            for s in stage.first..<stage.first + stage.count {
                let stump = stumps[s]
                if !haar {
                    // The 4 x 4 corners of the 3 x 3 blocks, each read once.
                    let o = offsets.baseAddress! + 16 * stump.feature
                    let c = (
                        p[o[0]], p[o[1]], p[o[2]], p[o[3]], p[o[4]], p[o[5]], p[o[6]], p[o[7]], p[o[8]], p[o[9]],
                        p[o[10]], p[o[11]], p[o[12]], p[o[13]], p[o[14]], p[o[15]]
                    )
                    let centre = c.5 &- c.6 &- c.9 &+ c.10
                    var code = 0
                    if c.0 &- c.1 &- c.4 &+ c.5 >= centre { code |= 128 }
                    if c.1 &- c.2 &- c.5 &+ c.6 >= centre { code |= 64 }
                    if c.2 &- c.3 &- c.6 &+ c.7 >= centre { code |= 32 }
                    if c.6 &- c.7 &- c.10 &+ c.11 >= centre { code |= 16 }
                    if c.10 &- c.11 &- c.14 &+ c.15 >= centre { code |= 8 }
                    if c.9 &- c.10 &- c.13 &+ c.14 >= centre { code |= 4 }
                    if c.8 &- c.9 &- c.12 &+ c.13 >= centre { code |= 2 }
                    if c.4 &- c.5 &- c.8 &+ c.9 >= centre { code |= 1 }
                    let word = subsets[8 * s + code >> 5]
                    sum += Double(word & (1 << UInt32(code & 31)) != 0 ? stump.left : stump.right)
                } else {
                    let o = offsets.baseAddress! + 12 * stump.feature
                    let w = weights.baseAddress! + 3 * stump.feature
                    @inline(__always) func rect(_ k: Int) -> Float {
                        Float(p[o[4 * k]] &- p[o[4 * k + 1]] &- p[o[4 * k + 2]] &+ p[o[4 * k + 3]])
                    }
                    // Float, in OpenCV's order: the boxes must be the same.
                    var value = w[0] * rect(0) + w[1] * rect(1)
                    if w[2] != 0 { value += w[2] * rect(2) }
                    value *= varianceNorm
                    sum += Double(value < stump.threshold ? stump.left : stump.right)
                }
            }
            if sum < Double(stage.threshold) { return (-index, sum) }
        }
        return (1, sum)
    }
}
