internal import CFilterKernels
import CatPixels

extension FilterDefinition {
    static let vignette = FilterDefinition(
        name: "vignette", parameter: .amount(default: 0.5),
        description: "Darkens towards the corners, by up to AMOUNT (0-1) at the very corner; default 0.5",
        showcase: "0.8",
        stage: { VignetteStage(amount: $0) })
}

/// Darkening towards the corners by up to `amount` (0…1): each pixel depends on its
/// position only, so it needs no rows around it and runs in place.
struct VignetteStage: SpatialStage {
    let amount: Float

    init(amount: Double) { self.amount = Float(amount) }

    var inPlace: Bool { true }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        VignetteKernel(amount: amount, width: width, height: height)
    }

    /// f = 1 − amount·smoothstep(t), t = clamp(((dx² + dy²)·0.5 − 0.2)·1.25, 0, 1);
    /// each of R, G, B becomes c·f + 0.5, clamped and truncated.
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        let dx2 = Self.squaredDistances(src.width), dy2 = Self.squaredDistances(src.height)
        for y in 0..<src.height {
            for x in 0..<src.width {
                var t = ((dx2[x] + dy2[y]) * 0.5 - 0.2) * 1.25
                t = min(max(t, 0), 1)
                let f = 1 - amount * (t * t * (3 - 2 * t))
                let s = src.row(y) + 4 * x, d = dst.row(y) + 4 * x
                for c in 0..<3 { d[c] = UInt8(Reference.quantize(Float(s[c]) * f + 0.5)) }
                d[3] = s[3]
            }
        }
    }

    /// The squared, normalised distances from the centre that the kernel and the
    /// reference read: (i + 0.5 − n/2) / (n/2), squared, per column (or row).
    /// Corners are at dx² + dy² = 2.
    static func squaredDistances(_ n: Int) -> [Float] {
        let half = Float(n) / 2
        return (0..<n).map { i in
            let d = (Float(i) + 0.5 - half) / half
            return d * d
        }
    }
}

/// ck_vignette with the distance tables of one image size.
final class VignetteKernel: SpatialKernel {
    let amount: Float
    let width: Int
    private let dx2: [Float], dy2: [Float]

    init(amount: Float, width: Int, height: Int) {
        self.amount = amount
        self.width = width
        dx2 = VignetteStage.squaredDistances(width)
        dy2 = VignetteStage.squaredDistances(height)
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        dx2.withUnsafeBufferPointer { dx in
            dy2.withUnsafeBufferPointer { dy in
                ck_vignette(
                    source.row(rows.lowerBound - sourceRow), source.stride,
                    destination.row(rows.lowerBound - destinationRow), destination.stride,
                    width, rows.count, dx.baseAddress, dy.baseAddress! + rows.lowerBound, amount)
            }
        }
    }
}
