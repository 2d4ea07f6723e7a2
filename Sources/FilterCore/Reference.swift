import ImageIO

/// Plain scalar reference implementations: the definition of what each kernel computes,
/// written for clarity, not speed, one pixel and one channel at a time. The fast kernels
/// (CFilterKernels) do the same arithmetic in the same order and are tested to give
/// identical bytes.
struct Reference: Kernels {
    init() {}

    /// Each stage in turn on every pixel: r' = c0·r + c1·g + c2·b + c3 (c3 includes the
    /// +0.5 of rounding), then clamped to 0…255 and truncated. Alpha is copied.
    func color(_ c: [Float], from src: PixelBuffer, into dst: PixelBuffer) {
        for y in 0..<src.height {
            for x in 0..<src.width {
                let s = src.row(y) + 4 * x, d = dst.row(y) + 4 * x
                var r = Float(s[0]), g = Float(s[1]), b = Float(s[2])
                for i in stride(from: 0, to: c.count, by: 12) {
                    let nr = c[i] * r + c[i + 1] * g + c[i + 2] * b + c[i + 3]
                    let ng = c[i + 4] * r + c[i + 5] * g + c[i + 6] * b + c[i + 7]
                    let nb = c[i + 8] * r + c[i + 9] * g + c[i + 10] * b + c[i + 11]
                    r = Self.quantize(nr)
                    g = Self.quantize(ng)
                    b = Self.quantize(nb)
                }
                let a = s[3]
                d[0] = UInt8(r); d[1] = UInt8(g); d[2] = UInt8(b); d[3] = a
            }
        }
    }

    /// Separable Gaussian in fixed point. Samples become Q6 (v·64); the horizontal pass
    /// sums mulhrs(left + right, w[k]) over the symmetric taps (edges repeat the border
    /// pixel) and caps the result at 255·64; the vertical pass does the same down the
    /// columns (edge rows repeated) and rounds back to 8 bits.
    func blur(_ kernel: GaussianKernel, from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError) {
        let w = src.width, h = src.height, r = kernel.radius, weights = kernel.weights
        var horizontal = [Int16](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let row = src.row(y)
            func sample(_ x: Int, _ c: Int) -> Int16 { Int16(row[4 * min(max(x, 0), w - 1) + c]) << 6 }
            for x in 0..<w {
                for c in 0..<4 {
                    var acc = Self.mulhrs(sample(x, c), weights[0])
                    for k in stride(from: 1, through: r, by: 1) {
                        acc &+= Self.mulhrs(sample(x - k, c) &+ sample(x + k, c), weights[k])
                    }
                    horizontal[(y * w + x) * 4 + c] = min(acc, 255 << 6)
                }
            }
        }
        for y in 0..<h {
            func sample(_ yy: Int, _ lane: Int) -> Int16 { horizontal[min(max(yy, 0), h - 1) * w * 4 + lane] }
            let d = dst.row(y)
            for lane in 0..<(w * 4) {
                var acc = Self.mulhrs(sample(y, lane), weights[0])
                for k in stride(from: 1, through: r, by: 1) {
                    acc &+= Self.mulhrs(sample(y - k, lane) &+ sample(y + k, lane), weights[k])
                }
                d[lane] = UInt8(min(max((acc &+ 32) >> 6, 0), 255))
            }
        }
    }

    /// v = ((s − b)·amount + s) + 0.5, clamped and truncated, for R, G and B; alpha from s.
    func unsharp(amount: Float, source src: PixelBuffer, blurred: PixelBuffer) {
        for y in 0..<src.height {
            for x in 0..<src.width {
                let s = src.row(y) + 4 * x, b = blurred.row(y) + 4 * x
                for c in 0..<3 {
                    let sv = Float(s[c]), bv = Float(b[c])
                    b[c] = UInt8(Self.quantize((sv - bv) * amount + sv + 0.5))
                }
                b[3] = s[3]
            }
        }
    }

    /// f = 1 − amount·smoothstep(t), t = clamp(((dx² + dy²)·0.5 − 0.2)·1.25, 0, 1);
    /// each of R, G, B becomes c·f + 0.5, clamped and truncated.
    func vignette(amount: Float, from src: PixelBuffer, into dst: PixelBuffer) {
        let dx2 = VignetteTables.squaredDistances(src.width), dy2 = VignetteTables.squaredDistances(src.height)
        for y in 0..<src.height {
            for x in 0..<src.width {
                var t = ((dx2[x] + dy2[y]) * 0.5 - 0.2) * 1.25
                t = min(max(t, 0), 1)
                let f = 1 - amount * (t * t * (3 - 2 * t))
                let s = src.row(y) + 4 * x, d = dst.row(y) + 4 * x
                for c in 0..<3 { d[c] = UInt8(Self.quantize(Float(s[c]) * f + 0.5)) }
                d[3] = s[3]
            }
        }
    }

    /// Clamp to 0…255, then round down.
    @inline(__always) static func quantize(_ x: Float) -> Float {
        min(max(x, 0), 255).rounded(.down)
    }

    /// (a·w + 2¹⁴) >> 15, as x86's pmulhrsw.
    @inline(__always) static func mulhrs(_ a: Int16, _ w: Int16) -> Int16 {
        Int16(truncatingIfNeeded: (Int32(a) * Int32(w) + 0x4000) >> 15)
    }
}
