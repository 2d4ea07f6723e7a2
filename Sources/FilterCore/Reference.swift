import CatPixels

/// Plain scalar reference implementations: the definition of what each kernel computes,
/// written for clarity, not speed, one pixel and one channel at a time. The fast kernels
/// (CFilterKernels) do the same arithmetic in the same order and are tested to give
/// identical bytes. The colour chain's reference is here; each spatial stage carries its
/// own (`SpatialStage.reference`, in its filter file).
struct Reference: Kernels {
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

    func spatial(_ stage: any SpatialStage, from src: PixelBuffer, into dst: PixelBuffer) throws {
        try stage.reference(from: src === dst ? src.copy() : src, into: dst)
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
