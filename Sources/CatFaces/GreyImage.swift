internal import CCatDetectors
import CatPixels
import CatSupport

/// An 8-bit grey picture, as the cascades read it.
public struct GreyImage: Sendable {
    public let width: Int, height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `image`'s luma by OpenCV's `COLOR_RGB2GRAY` (BT.601 weights in 14-bit fixed point).
    public init(_ image: PixelBuffer) {
        var pixels = [UInt8](repeating: 0, count: image.width * image.height)
        for row in 0..<image.height {
            let p = image.row(row)
            for col in 0..<image.width {
                let r = Int(p[4 * col]), g = Int(p[4 * col + 1]), b = Int(p[4 * col + 2])
                pixels[row * image.width + col] = UInt8((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14)
            }
        }
        self.init(width: image.width, height: image.height, pixels: pixels)
    }

    /// Histogram equalisation, as OpenCV's `equalizeHist`: each level maps to 255 times the
    /// share of pixels below or at it, after the darkest level present.
    public func equalized() -> GreyImage {
        var histogram = [Int](repeating: 0, count: 256)
        for v in pixels { histogram[Int(v)] += 1 }
        guard var i = histogram.firstIndex(where: { $0 > 0 }), histogram[i] < pixels.count else { return self }
        let scale = Float(255) / Float(pixels.count - histogram[i])
        var lut = [UInt8](repeating: 0, count: 256)
        var sum = 0
        i += 1
        while i < 256 {
            sum += histogram[i]
            lut[i] = UInt8(min(255, max(0, (Float(sum) * scale).rounded(.toNearestOrEven))))
            i += 1
        }
        return GreyImage(width: width, height: height, pixels: pixels.map { lut[Int($0)] })
    }

    /// Resized to `w` × `h` as OpenCV's `resize` with `INTER_LINEAR_EXACT`, bit for bit:
    /// bilinear weights in 8-bit fixed point (source position (x + 0.5)·scale − 0.5), each
    /// row first, then 16-bit fixed point down the columns, rounded; an exact halving is
    /// OpenCV's 2 x 2 mean instead. The cascades' scales must match OpenCV's to give its boxes.
    public func resized(width w: Int, height h: Int) -> GreyImage {
        if w == width && h == height { return self }
        let scaleX = Double(w) / Double(width), scaleY = Double(h) / Double(height)
        if abs(1 / scaleX - 2) < .ulpOfOne && abs(1 / scaleY - 2) < .ulpOfOne {
            var out = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let a = 2 * y * width + 2 * x
                    let s = Int(pixels[a]) + Int(pixels[a + 1]) + Int(pixels[a + width]) + Int(pixels[a + width + 1])
                    out[y * w + x] = UInt8((s + 2) >> 2)
                }
            }
            return GreyImage(width: w, height: h, pixels: out)
        }
        /// Per destination place: the first source index and its weight (of 256); the
        /// second source gets 256 minus it. Outside the source: the edge, weight 256.
        func taps(_ dst: Int, _ src: Int, _ inverse: Double) -> [(Int, Int)] {
            let scale = 1 / inverse
            return (0..<dst).map { i in
                let f = scale * (Double(i) + 0.5) - 0.5
                let k = Int(f.rounded(.down))
                if k < 0 || src == 1 { return (0, 256) }
                if k >= src - 1 { return (src - 1, 256) }
                let second = Int(((f - Double(k)) * 256).rounded(.toNearestOrEven))
                return (k, 256 - second)
            }
        }
        let xs = taps(w, width, scaleX), ys = taps(h, height, scaleY)
        // Every source row OpenCV reads, resized along x: 8 fractional bits.
        var rows = [UInt16](repeating: 0, count: w * height)
        for y in 0..<height {
            let src = y * width
            for x in 0..<w {
                let (k, a) = xs[x]
                let first = a * Int(pixels[src + k])
                let second = a == 256 ? 0 : (256 - a) * Int(pixels[src + k + 1])
                rows[y * w + x] = UInt16(first + second)
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let (k, a) = ys[y]
            for x in 0..<w {
                if a == 256 {
                    // A row taken whole: its 8-bit fixed point value, rounded.
                    out[y * w + x] = UInt8(min(255, (Int(rows[k * w + x]) + 128) >> 8))
                } else {
                    let v = a * Int(rows[k * w + x]) + (256 - a) * Int(rows[(k + 1) * w + x])
                    out[y * w + x] = UInt8(min(255, (v + 32768) >> 16))
                }
            }
        }
        return GreyImage(width: w, height: h, pixels: out)
    }
}

/// The summed-area tables of a picture, one row larger and `stride` wide (at least one
/// column more than the picture, so that every scale can share one): `sums` (and `squares`
/// of the squared levels, for Haar's variance) at (x, y) is the total above and left of it.
/// Both are 32-bit and wrap, as OpenCV's: the differences over a window are exact.
struct Integral {
    let stride: Int
    var sums: [Int32]
    var squares: [Int32]

    /// `stride` elements a row, at least the image's width + 1.
    init(_ image: GreyImage, stride: Int, squares withSquares: Bool) {
        precondition(stride > image.width)
        self.stride = stride
        // Padded: the kernel reads (and ignores) a little past the last window.
        let count = stride * (image.height + 1) + Int(CC_CASCADE_PAD)
        var sums = [Int32](repeating: 0, count: count)
        var squares = [Int32](repeating: 0, count: withSquares ? count : 0)
        for y in 0..<image.height {
            var line: Int32 = 0, lineSquares: Int32 = 0
            for x in 0..<image.width {
                let v = Int32(image.pixels[y * image.width + x])
                line &+= v
                sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] &+ line
                if withSquares {
                    lineSquares &+= v * v
                    squares[(y + 1) * stride + x + 1] = squares[y * stride + x + 1] &+ lineSquares
                }
            }
        }
        self.sums = sums
        self.squares = squares
    }
}
