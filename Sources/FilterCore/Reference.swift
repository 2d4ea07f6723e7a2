import ImageIO

/// Plain scalar reference implementations: the definition of what each kernel must
/// compute, written for clarity, not speed. The fast kernels are tested against these.
public enum Reference {
    /// Every stage in turn on every pixel; after each stage each channel is rounded to
    /// nearest (halves up) and clamped to 0…255. Alpha is left as it is.
    public static func colorChain(_ stages: [ColorMatrix], on image: PixelBuffer) {
        for y in 0..<image.height {
            let row = image.row(y)
            for x in 0..<image.width {
                let p = row + 4 * x
                var r = Float(p[0]), g = Float(p[1]), b = Float(p[2])
                for stage in stages {
                    let m = stage.m
                    let nr = m[0] * r + m[1] * g + m[2] * b + m[3]
                    let ng = m[4] * r + m[5] * g + m[6] * b + m[7]
                    let nb = m[8] * r + m[9] * g + m[10] * b + m[11]
                    r = quantize(nr)
                    g = quantize(ng)
                    b = quantize(nb)
                }
                p[0] = UInt8(r); p[1] = UInt8(g); p[2] = UInt8(b)
            }
        }
    }

    /// Round half up, then clamp to 0…255.
    @inline(__always) static func quantize(_ x: Float) -> Float {
        min(max(x + 0.5, 0), 255).rounded(.down)
    }
}
