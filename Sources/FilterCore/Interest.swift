import CatPixels
import CatSupport

/// Where a window is most interesting, by libvips's two smartcrop measures (libvips 8.14,
/// `conversion/smartcrop.c`), for the `attention` and `entropy` gravities. Both read a
/// picture of the image at the crop's input, usually a small copy of it
/// (`FilterChain.resolvingGravity`); the window's place scales back to the full image.
public enum Interest {
    /// The top left of a `width` × `height` window in `image` by `gravity`'s measure.
    static func window(
        _ gravity: Gravity, in image: PixelBuffer, width: Int, height: Int, subjects: (any SubjectFinder)?
    ) -> (x: Int, y: Int) {
        let w = min(width, image.width), h = min(height, image.height)
        switch gravity {
        case .cat: return cat(image, width: w, height: h, subjects: subjects)
        case .attention: return attention(image, width: w, height: h)
        case .entropy: return entropy(image, width: w, height: h)
        case .centre, .north, .south, .east, .west, .northeast, .northwest, .southeast, .southwest:
            return (
                gravity.offset(image.width, w, horizontal: true), gravity.offset(image.height, h, horizontal: false)
            )
        }
    }

    /// The `cat` gravity: the window around what the chain's subject finder keeps in view
    /// (`around`; CatScenes': the cats' faces, else their heads), else the centre.
    ///
    /// Not attention: measured with `Benchmarks/catcrop.py` on photos the cascades had not
    /// been tuned on, libvips's attention as the fallback kept fewer faces than the centre.
    static func cat(_ image: PixelBuffer, width: Int, height: Int, subjects: (any SubjectFinder)?) -> (x: Int, y: Int) {
        cat(
            subjects?.subjects(in: image) ?? .none, imageWidth: image.width, imageHeight: image.height, width: width,
            height: height)
    }

    /// The `cat` gravity's window for subjects already found (in the image's pixels): the
    /// live editor's crop frame, placed as `crop:WxH:cat` would place it.
    public static func cat(_ found: Subjects, imageWidth: Int, imageHeight: Int, width: Int, height: Int) -> (
        x: Int, y: Int
    ) {
        around(found.inView, imageWidth: imageWidth, imageHeight: imageHeight, width: width, height: height)
            ?? ((imageWidth - width) / 2, (imageHeight - height) / 2)
    }

    /// A `width` × `height` window in the image that holds every subject if they fit
    /// together, else the largest one (the most certain of equals): centred on them across,
    /// and with their middle two fifths down (room for the cat's body below), moved as
    /// little as needed to hold them and stay inside the image. nil without a subject.
    static func around(_ faces: [Subject], imageWidth: Int, imageHeight: Int, width: Int, height: Int) -> (
        x: Int, y: Int
    )? {
        guard var box = faces.first else { return nil }
        for face in faces.dropFirst() {
            let right = max(box.x + box.width, face.x + face.width),
                bottom = max(box.y + box.height, face.y + face.height)
            box.x = min(box.x, face.x)
            box.y = min(box.y, face.y)
            box.width = right - box.x
            box.height = bottom - box.y
        }
        if box.width > width || box.height > height,
            let best = faces.max(by: {
                ($0.width * $0.height, $0.score) < ($1.width * $1.height, $1.score)
            })
        {
            box = best
        }
        func place(_ start: Int, _ length: Int, _ window: Int, _ limit: Int, share: Double) -> Int {
            var at = start + length / 2 - Int(Double(window) * share)
            if length <= window { at = min(max(at, start + length - window), start) }
            return min(max(0, at), limit - window)
        }
        return (
            place(box.x, box.width, width, imageWidth, share: 0.5),
            place(box.y, box.height, height, imageHeight, share: 0.4)
        )
    }

    /// libvips's `entropy`: take slices off the window's sides, an eighth of what has to go
    /// at a time, each time from the side whose slice has the lower entropy (of its grey
    /// levels' histogram), until the window is left.
    static func entropy(_ image: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let grey = Grey(image)
        var (left, top, w, h) = (0, 0, image.width, image.height)
        let step = max(
            Int((Double(image.width - width) / 8).rounded(.up)), Int((Double(image.height - height) / 8).rounded(.up)))
        while w > width || h > height {
            let sliceWidth = min(w - width, step), sliceHeight = min(h - height, step)
            if sliceWidth > 0 {
                let leftScore = grey.entropy(x: left, y: top, width: sliceWidth, height: h)
                let rightScore = grey.entropy(x: left + w - sliceWidth, y: top, width: sliceWidth, height: h)
                w -= sliceWidth
                if leftScore < rightScore { left += sliceWidth }
            }
            if sliceHeight > 0 {
                let topScore = grey.entropy(x: left, y: top, width: w, height: sliceHeight)
                let bottomScore = grey.entropy(x: left, y: top + h - sliceHeight, width: w, height: sliceHeight)
                h -= sliceHeight
                if topScore < bottomScore { top += sliceHeight }
            }
        }
        return (left, top)
    }

    /// libvips's `attention` (after smartcrop.js): on a 32 x 32 copy, the sum of edges (the
    /// Laplacian of luminance, x5), skin tones (closeness of the colour's XYZ direction to
    /// smartcrop.js's skin vector, 0-100) and saturation
    /// (Lab's a), the last two only where Y > 5; blurred by a Gaussian as wide as a tenth of
    /// the window; the window centred on the maximum.
    static func attention(_ image: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let side = 32
        guard let small = try? image.resampled(width: side, height: side, filter: .lanczos3, threads: 1) else {
            return ((image.width - width) / 2, (image.height - height) / 2)
        }
        let hscale = Double(side) / Double(image.width), vscale = Double(side) / Double(image.height)
        var xyz = [(x: Double, y: Double, z: Double)](repeating: (0, 0, 0), count: side * side)
        for row in 0..<side {
            let p = small.row(row)
            for col in 0..<side {
                xyz[row * side + col] = Colour.xyz(p[4 * col], p[4 * col + 1], p[4 * col + 2])
            }
        }
        func luminance(_ col: Int, _ row: Int) -> Double {
            xyz[min(max(row, 0), side - 1) * side + min(max(col, 0), side - 1)].y
        }
        var score = [Double](repeating: 0, count: side * side)
        for row in 0..<side {
            for col in 0..<side {
                let c = xyz[row * side + col]
                let laplacian =
                    4 * c.y - luminance(col - 1, row) - luminance(col + 1, row) - luminance(col, row - 1)
                    - luminance(col, row + 1)
                var sum = abs(5 * laplacian)
                if c.y > 5 {
                    let norm = max((c.x * c.x + c.y * c.y + c.z * c.z).squareRoot(), 1e-9)
                    let dx = c.x / norm - 0.78, dy = c.y / norm - 0.57, dz = c.z / norm - 0.44
                    sum += 100 - 100 * (dx * dx + dy * dy + dz * dz).squareRoot()
                    sum += Colour.labA(c)
                }
                score[row * side + col] = sum
            }
        }
        let sigma = max(
            ((Double(width) * hscale) * (Double(width) * hscale) + (Double(height) * vscale) * (Double(height) * vscale))
                .squareRoot() / 10, 1)
        let blurred = gaussianBlur(score, side: side, sigma: sigma)
        var best = 0
        for i in blurred.indices where blurred[i] > blurred[best] { best = i }
        let (maxX, maxY) = (best % side, best / side)
        let left = Int(Double(maxX) / hscale) - width / 2, top = Int(Double(maxY) / vscale) - height / 2
        return (min(max(0, left), image.width - width), min(max(0, top), image.height - height))
    }

    /// A separable Gaussian over a square of values, edges repeated.
    static func gaussianBlur(_ values: [Double], side: Int, sigma: Double) -> [Double] {
        let radius = Int((3 * sigma).rounded(.up))
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var out = [Double](repeating: 0, count: input.count)
            for row in 0..<side {
                for col in 0..<side {
                    var sum = 0.0
                    for k in -radius...radius {
                        let c = horizontal ? min(max(col + k, 0), side - 1) : col
                        let r = horizontal ? row : min(max(row + k, 0), side - 1)
                        sum += weights[k + radius] * input[r * side + c]
                    }
                    out[row * side + col] = sum / total
                }
            }
            return out
        }
        return pass(pass(values, horizontal: true), horizontal: false)
    }

    /// Grey levels of a picture as libvips makes them from sRGB (`B_W`): the luminance of the
    /// linear light, encoded with the sRGB curve again; for the entropy.
    struct Grey {
        let width: Int
        let levels: [UInt8]

        init(_ image: PixelBuffer) {
            width = image.width
            let linear = (0...255).map { Colour.linear(UInt8($0)) }
            var levels = [UInt8](repeating: 0, count: image.width * image.height)
            for row in 0..<image.height {
                let p = image.row(row)
                for col in 0..<image.width {
                    let y =
                        0.2126 * linear[Int(p[4 * col])] + 0.7152 * linear[Int(p[4 * col + 1])]
                        + 0.0722 * linear[Int(p[4 * col + 2])]
                    let encoded = y <= 0.0031308 ? 12.92 * y : 1.055 * pow(y, 1 / 2.4) - 0.055
                    levels[row * image.width + col] = UInt8(min(255, max(0, (255 * encoded).rounded())))
                }
            }
            self.levels = levels
        }

        /// The Shannon entropy (bits) of the grey levels' histogram in a rectangle.
        func entropy(x: Int, y: Int, width w: Int, height h: Int) -> Double {
            var histogram = [Int](repeating: 0, count: 256)
            for row in y..<y + h {
                for col in x..<x + w { histogram[Int(levels[row * width + col])] += 1 }
            }
            let count = Double(w * h)
            return histogram.reduce(0.0) { sum, n in
                guard n > 0 else { return sum }
                let p = Double(n) / count
                return sum - p * log2(p)
            }
        }
    }

    /// sRGB (D65) to CIE XYZ (Y 0-100) and Lab's a, as libvips converts them.
    enum Colour {
        static func linear(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }

        static func xyz(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (x: Double, y: Double, z: Double) {
            let (lr, lg, lb) = (linear(r), linear(g), linear(b))
            return (
                100 * (0.4124 * lr + 0.3576 * lg + 0.1805 * lb), 100 * (0.2126 * lr + 0.7152 * lg + 0.0722 * lb),
                100 * (0.0193 * lr + 0.1192 * lg + 0.9505 * lb)
            )
        }

        static func labA(_ c: (x: Double, y: Double, z: Double)) -> Double {
            func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
            return 500 * (f(c.x / 95.047) - f(c.y / 100))
        }
    }
}
