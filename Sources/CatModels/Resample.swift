import CatPixels

/// A rectangle of a picture resized to a square of network input, as Pillow's bilinear resize
/// does (the classifier's threshold was chosen on crops made so; the mask's network is fed
/// the same way).
enum Resample {
    /// The `width` x `height` rectangle of `picture` from (`left`, `top`) (black beyond the
    /// picture), resized to `side` square: 3 planes (R, G, B) of `side` x `side` values 0-255.
    /// A tent filter widened by the scale when shrinking (Pillow's `BILINEAR`); a rectangle
    /// over twice `side` is first averaged in blocks to at most that, from at most 4 x 4
    /// samples a block, so the cost does not grow with the picture.
    static func square(_ picture: PixelBuffer, left: Int, top: Int, width: Int, height: Int, side: Int) -> [Float] {
        // The crop's block means, RGB, of the samples `skip` apart (black beyond the picture).
        // (`every` a multiple of `skip`: each block's first sample is in it).
        let rough = max(1, max(width, height) / (2 * side)), skip = max(1, (rough + 3) / 4)
        let every = max(skip, rough / skip * skip)
        let (cw, ch) = ((width + every - 1) / every, (height + every - 1) / every)
        var crop = [Float](repeating: 0, count: 3 * cw * ch)
        var across = [Float](repeating: 0, count: cw), down = [Float](repeating: 0, count: ch)
        for x in stride(from: 0, to: width, by: skip) { across[x / every] += 1 }
        for y in stride(from: 0, to: height, by: skip) {
            down[y / every] += 1
            let py = top + y
            guard py >= 0, py < picture.height else { continue }
            let row = picture.row(py), base = 3 * (y / every * cw)
            for x in stride(from: left >= 0 ? 0 : (-left + skip - 1) / skip * skip, to: width, by: skip) {
                let px = left + x
                guard px < picture.width else { break }
                let at = base + 3 * (x / every)
                crop[at] += Float(row[4 * px])
                crop[at + 1] += Float(row[4 * px + 1])
                crop[at + 2] += Float(row[4 * px + 2])
            }
        }
        for by in 0..<ch {
            for bx in 0..<cw {
                for c in 0..<3 { crop[3 * (by * cw + bx) + c] /= across[bx] * down[by] }
            }
        }
        let xs = tent(cw, side), ys = tent(ch, side)
        // Across first (every crop row), then down.
        var rows = [Float](repeating: 0, count: 3 * side * ch)
        for y in 0..<ch {
            for (col, (first, weights)) in xs.enumerated() {
                var sum: (Float, Float, Float) = (0, 0, 0)
                for (k, w) in weights.enumerated() {
                    let at = 3 * (y * cw + first + k)
                    sum.0 += w * crop[at]
                    sum.1 += w * crop[at + 1]
                    sum.2 += w * crop[at + 2]
                }
                let at = 3 * (y * side + col)
                (rows[at], rows[at + 1], rows[at + 2]) = sum
            }
        }
        var values = [Float](repeating: 0, count: 3 * side * side)
        for (out, (first, weights)) in ys.enumerated() {
            for col in 0..<side {
                for c in 0..<3 {
                    var sum: Float = 0
                    for (k, w) in weights.enumerated() { sum += w * rows[3 * ((first + k) * side + col) + c] }
                    values[c * side * side + out * side + col] = sum
                }
            }
        }
        return values
    }

    /// Pillow's bilinear taps from `source` samples to `count`: for each output, its first
    /// source sample and the weights from there (a tent of half-width max(1, scale), its
    /// weights summing to 1).
    static func tent(_ source: Int, _ count: Int) -> [(first: Int, weights: [Float])] {
        let scale = Double(source) / Double(count), spread = max(1, scale)
        return (0..<count).map { i in
            let centre = (Double(i) + 0.5) * scale
            let first = max(0, Int(centre - spread + 0.5)), end = min(source, Int(centre + spread + 0.5))
            var weights = (first..<max(first, end)).map { x in max(0, 1 - abs((Double(x) - centre + 0.5) / spread)) }
            let total = weights.reduce(0, +)
            if total > 0 { weights = weights.map { $0 / total } }
            return (first, weights.map(Float.init))
        }
    }
}
