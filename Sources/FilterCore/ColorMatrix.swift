/// An affine colour transform on 8-bit RGB values (alpha untouched):
///
///     r' = m[0]·r + m[1]·g + m[2]·b + m[3]
///     g' = m[4]·r + m[5]·g + m[6]·b + m[7]
///     b' = m[8]·r + m[9]·g + m[10]·b + m[11]
///
/// with r, g, b and the offsets m[3], m[7], m[11] in 0…255 units. Every W3C Filter
/// Effects colour function is one of these; the filters in `Filters/` build them.
public struct ColorMatrix: Sendable, Equatable {
    public var m: [Float]

    /// From the nine coefficients (row-major) and three offsets in 0…1 units, as the
    /// W3C spec writes them.
    public init(_ c: [Double], offsets: [Double] = [0, 0, 0]) {
        precondition(c.count == 9 && offsets.count == 3)
        m = [
            c[0], c[1], c[2], offsets[0] * 255,
            c[3], c[4], c[5], offsets[1] * 255,
            c[6], c[7], c[8], offsets[2] * 255,
        ].map { Float($0) }
    }

    /// The 12 floats the kernels read: `m` with the +0.5 of round-half-up added to the
    /// offsets, so that clamping and truncating afterwards rounds to nearest.
    public var kernelCoefficients: [Float] {
        var c = m
        c[3] += 0.5; c[7] += 0.5; c[11] += 0.5
        return c
    }

    /// The same linear function `slope·x + intercept` on each channel (the
    /// feComponentTransfer `linear` type); intercept in 0…1 units.
    public static func linear(slope: Double, intercept: Double) -> ColorMatrix {
        ColorMatrix([slope, 0, 0, 0, slope, 0, 0, 0, slope], offsets: [intercept, intercept, intercept])
    }

    /// Scales each channel by its own factor (a colour cast).
    public static func channels(_ r: Double, _ g: Double, _ b: Double) -> ColorMatrix {
        ColorMatrix([r, 0, 0, 0, g, 0, 0, 0, b])
    }
}
