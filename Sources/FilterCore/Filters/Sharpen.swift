internal import CFilterKernels
import CatPixels

extension FilterDefinition {
    static let sharpen = FilterDefinition(
        name: "sharpen", parameter: .factor(default: 1), valueName: "AMOUNT", maximum: 20,
        description: "Unsharp mask: adds AMOUNT x (image - its blur of sigma 1) (0-20); default 1",
        showcase: "2", step: 0.25,
        stage: { SharpenStage(amount: $0) })
}

/// Unsharp mask: the image plus `amount` times its difference from a blur of sigma 1.
struct SharpenStage: SpatialStage {
    let amount: Float
    /// The blur an unsharp mask subtracts: sigma 1 (less on a preview, `scaled`).
    let sigma: Double
    let gaussian: GaussianKernel

    init(amount: Double, sigma: Double = 1) {
        self.amount = Float(amount)
        self.sigma = sigma
        gaussian = GaussianKernel(sigma: sigma)
    }

    var halo: Int { gaussian.radius }

    func scaled(by factor: Double) -> any SpatialStage { SharpenStage(amount: Double(amount), sigma: sigma * factor) }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        try SharpenKernel(amount: amount, blur: BlurKernel(gaussian, width: width, height: height))
    }

    /// The reference blur, then v = ((s − b)·amount + s) + 0.5, clamped and truncated, for
    /// R, G and B; alpha from s.
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        BlurStage.reference(gaussian, from: src, into: dst)
        for y in 0..<src.height {
            for x in 0..<src.width {
                let s = src.row(y) + 4 * x, b = dst.row(y) + 4 * x
                for c in 0..<3 {
                    let sv = Float(s[c]), bv = Float(b[c])
                    b[c] = UInt8(Reference.quantize((sv - bv) * amount + sv + 0.5))
                }
                b[3] = s[3]
            }
        }
    }
}

/// The blur kernel, then ck_unsharp over the same rows.
final class SharpenKernel: SpatialKernel {
    let amount: Float
    let blur: BlurKernel

    init(amount: Float, blur: BlurKernel) {
        self.amount = amount
        self.blur = blur
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        try blur.run(rows, from: source, firstRow: sourceRow, into: destination, firstRow: destinationRow)
        ck_unsharp(
            source.row(rows.lowerBound - sourceRow), source.stride,
            destination.row(rows.lowerBound - destinationRow), destination.stride,
            blur.width, rows.count, amount)
    }
}
