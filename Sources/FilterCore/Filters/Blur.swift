internal import CFilterKernels
import CatPixels
import CatSupport

/// A Gaussian kernel in the fixed point of the blur kernel: radius ⌈3σ⌉, Q15 taps
/// (centre first) that sum to 32768 over the whole kernel.
public struct GaussianKernel: Sendable, Equatable {
    public static let maximumSigma = 100.0

    public let radius: Int
    /// weights[0] is the centre, weights[k] the taps at ±k.
    public let weights: [Int16]

    public init(sigma: Double) {
        guard sigma >= 0.3 else {  // narrower than a pixel: nothing to blur
            radius = 0
            weights = [Int16.max]
            return
        }
        let radius = Int((3 * sigma).rounded(.up))
        let g = (0...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = g[0] + 2 * g.dropFirst().reduce(0, +)
        var q = g.map { Int(($0 / total * 32768).rounded()) }
        q[0] = 32768 - 2 * q.dropFirst().reduce(0, +)  // the rounding remainder goes to the centre
        self.radius = radius
        self.weights = q.map { Int16(clamping: $0) }
    }
}

extension FilterDefinition {
    static let blur = FilterDefinition(
        name: "blur", parameter: .factor(default: 2), valueName: "SIGMA", maximum: GaussianKernel.maximumSigma,
        description: "Gaussian blur, SIGMA in pixels (0-100; the kernel reaches 3 sigma); default 2",
        showcase: "3", step: 0.5,
        stage: { BlurStage(sigma: $0) })
}

/// Gaussian blur with standard deviation `sigma` pixels, all four channels.
struct BlurStage: SpatialStage {
    let sigma: Double
    let gaussian: GaussianKernel

    init(sigma: Double) {
        self.sigma = sigma
        gaussian = GaussianKernel(sigma: sigma)
    }

    func scaled(by factor: Double) -> any SpatialStage { BlurStage(sigma: sigma * factor) }

    var halo: Int { gaussian.radius }
    var isIdentity: Bool { gaussian.radius == 0 }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        try BlurKernel(gaussian, width: width, height: height)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        Self.reference(gaussian, from: src, into: dst)
    }

    /// Separable Gaussian in fixed point. Samples become Q6 (v·64); the horizontal pass
    /// sums mulhrs(left + right, w[k]) over the symmetric taps (edges repeat the border
    /// pixel) and caps the result at 255·64; the vertical pass does the same down the
    /// columns (edge rows repeated) and rounds back to 8 bits.
    static func reference(_ kernel: GaussianKernel, from src: PixelBuffer, into dst: PixelBuffer) {
        let w = src.width, h = src.height, r = kernel.radius, weights = kernel.weights
        let mulhrs = Reference.mulhrs
        var horizontal = [Int16](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let row = src.row(y)
            func sample(_ x: Int, _ c: Int) -> Int16 { Int16(row[4 * min(max(x, 0), w - 1) + c]) << 6 }
            for x in 0..<w {
                for c in 0..<4 {
                    var acc = mulhrs(sample(x, c), weights[0])
                    for k in stride(from: 1, through: r, by: 1) {
                        acc &+= mulhrs(sample(x - k, c) &+ sample(x + k, c), weights[k])
                    }
                    horizontal[(y * w + x) * 4 + c] = min(acc, 255 << 6)
                }
            }
        }
        for y in 0..<h {
            func sample(_ yy: Int, _ lane: Int) -> Int16 { horizontal[min(max(yy, 0), h - 1) * w * 4 + lane] }
            let d = dst.row(y)
            for lane in 0..<(w * 4) {
                var acc = mulhrs(sample(y, lane), weights[0])
                for k in stride(from: 1, through: r, by: 1) {
                    acc &+= mulhrs(sample(y - k, lane) &+ sample(y + k, lane), weights[k])
                }
                d[lane] = UInt8(min(max((acc &+ 32) >> 6, 0), 255))
            }
        }
    }
}

/// ck_blur_rows with its scratch memory (one per thread).
final class BlurKernel: SpatialKernel {
    let gaussian: GaussianKernel
    let width: Int, height: Int
    private let scratch: UnsafeMutableRawPointer

    init(_ gaussian: GaussianKernel, width: Int, height: Int) throws(FilterError) {
        let bytes = ck_blur_scratch_bytes(width, Int32(gaussian.radius))
        var scratch: UnsafeMutableRawPointer?
        guard posix_memalign(&scratch, 64, bytes) == 0, let scratch else { throw .pixels(.outOfMemory(bytes: bytes)) }
        self.gaussian = gaussian
        self.width = width
        self.height = height
        self.scratch = scratch
    }

    deinit { free(scratch) }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        gaussian.weights.withUnsafeBufferPointer { w in
            ck_blur_rows(
                source.base, source.stride, destination.base, destination.stride, width, height,
                rows.lowerBound, rows.upperBound, sourceRow, destinationRow, w.baseAddress,
                Int32(gaussian.radius), scratch)
        }
    }
}
