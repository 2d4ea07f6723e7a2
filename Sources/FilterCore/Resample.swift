internal import CFilterKernels
import CatPixels
import CatSupport

/// The one resampler: separable, a vertical pass into a float row, then a horizontal pass
/// (CFilterKernels' `ck_resample_v`/`ck_resample_h`), with the weights of one of two kernels.
/// `resize`, `cover` and shrink-on-load use Lanczos-3; previews and the gallery's
/// thumbnails the box (area average), which is what a picture many times smaller wants.
public enum ResampleFilter: Sendable, Equatable {
    /// Lanczos-3 as Pillow's `LANCZOS` defines it: the kernel stretched by the scale when
    /// shrinking, so every source pixel counts.
    case lanczos3
    /// Each output pixel the average of the source pixels under it, each weighted by the
    /// part of it the output pixel covers (the exact fractional footprint).
    case box
}

extension PixelBuffer {
    /// A copy of `width` × `height` pixels, resampled with `filter` (every channel alike,
    /// alpha included), on `threads` threads.
    public func resampled(
        width: Int, height: Int, filter: ResampleFilter = .lanczos3, threads: Int = 1
    ) throws -> PixelBuffer {
        try FilterChain.resample(toExactly: width, height, filter: filter).apply(to: self, threads: threads)
    }

    /// A box-filtered copy at most `side` long, or this picture when it is no longer (or
    /// when the copy cannot be made): what detectors read.
    public func shrunk(toFit side: Int) -> PixelBuffer {
        let fit = fittingSize(maxWidth: side, maxHeight: side)
        guard fit != (width, height) else { return self }
        return (try? resampled(width: fit.0, height: fit.1, filter: .box, threads: 1)) ?? self
    }
}

extension FilterChain {
    /// A resample to exactly `width` × `height` with `filter`, built from the values.
    public static func resample(toExactly width: Int, _ height: Int, filter: ResampleFilter) -> FilterChain {
        FilterChain(filters: [], stages: [.spatial(ResizeStage(.exact(width, height), filter: filter))], subjects: nil)
    }
}

/// The taps of one axis, `input` samples to `output`: output sample i is centred at
/// (i + 0.5) · scale in the input. Every output sample reads `taps` consecutive inputs from
/// `first(i)`, zero weights padding the ends.
struct ResampleAxis {
    let input: Int, output: Int, filter: ResampleFilter
    let scale: Double, filterScale: Double, support: Double
    let taps: Int

    init(input: Int, output: Int, filter: ResampleFilter) {
        self.input = input
        self.output = output
        self.filter = filter
        scale = Double(input) / Double(output)
        switch filter {
        case .lanczos3:
            // Stretched by the scale when shrinking: support 3 · scale.
            filterScale = max(scale, 1)
            support = 3 * filterScale
            taps = min(input, 2 * Int(support.rounded(.up)) + 1)
        case .box:
            // The footprint [i · scale, (i + 1) · scale) touches at most ⌈scale⌉ + 1 inputs.
            filterScale = scale
            support = scale / 2
            taps = min(input, Int(scale.rounded(.up)) + 1)
        }
    }

    /// The inputs with a weight, before padding to `taps`.
    func span(_ i: Int) -> Range<Int> {
        switch filter {
        case .lanczos3:
            let center = (Double(i) + 0.5) * scale
            let lower = max(0, Int(center - support + 0.5)), upper = min(input, Int(center + support + 0.5))
            return lower..<max(lower + 1, upper)
        case .box:
            let (x0, x1) = footprint(i)
            let lower = min(input - 1, Int(x0)), upper = min(input, Int(x1.rounded(.up)))
            return lower..<max(lower + 1, upper)
        }
    }

    func first(_ i: Int) -> Int { min(span(i).lowerBound, input - taps) }

    /// The box's footprint of output sample i in input coordinates.
    private func footprint(_ i: Int) -> (Double, Double) { (Double(i) * scale, Double(i + 1) * scale) }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let a = Double.pi * x
        return 3 * sin(a) * sin(a / 3) / (a * a)
    }

    /// Normalised weights, `taps` per output sample, one after another: made straight into
    /// one array (an array of arrays of doubles took 48 bytes an input column when a
    /// 10,000,000 x 1 picture was shrunk to 480 x 1, and 2.9 s of allocation).
    func weights() -> [Float] {
        var all = [Float](repeating: 0, count: output * taps)
        var w = [Double](repeating: 0, count: taps)
        for i in 0..<output {
            let span = span(i), start = first(i)
            for k in w.indices { w[k] = 0 }
            for j in span {
                switch filter {
                case .lanczos3:
                    let center = (Double(i) + 0.5) * scale
                    w[j - start] = Self.lanczos3((Double(j) - center + 0.5) / filterScale)
                case .box:
                    let (x0, x1) = footprint(i)
                    w[j - start] = max(0, min(x1, Double(j + 1)) - max(x0, Double(j)))
                }
            }
            let total = w.reduce(0, +)
            for k in w.indices { all[i * taps + k] = Float(total == 0 ? w[k] : w[k] / total) }
        }
        return all
    }
}

/// The two passes with their weights, and the float row between them.
final class ResampleKernel: SpatialKernel {
    let horizontal: ResampleAxis, vertical: ResampleAxis
    private let hFirst: [Int32], hWeights: [Float], vWeights: [Float]
    private var row: [Float]

    init(horizontal: ResampleAxis, vertical: ResampleAxis) {
        self.horizontal = horizontal
        self.vertical = vertical
        hFirst = (0..<horizontal.output).map { Int32(horizontal.first($0)) }
        hWeights = horizontal.weights()
        vWeights = vertical.weights()
        row = [Float](repeating: 0, count: horizontal.input * 4)
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        let (width, taps) = (horizontal.input, Int32(vertical.taps))
        row.withUnsafeMutableBufferPointer { column in
            hFirst.withUnsafeBufferPointer { first in
                hWeights.withUnsafeBufferPointer { hw in
                    vWeights.withUnsafeBufferPointer { vw in
                        for y in rows {
                            ck_resample_v(
                                source.row(vertical.first(y) - sourceRow), source.stride, column.baseAddress, width,
                                vw.baseAddress! + y * vertical.taps, taps)
                            ck_resample_h(
                                column.baseAddress, destination.row(y - destinationRow), horizontal.output,
                                first.baseAddress, hw.baseAddress, Int32(horizontal.taps))
                        }
                    }
                }
            }
        }
    }

    /// The kernels' arithmetic one sample at a time: float weights, for each output row
    /// the vertical sums in tap order, then the horizontal sums in tap order, + 0.5,
    /// clamped, truncated. (The tests check Lanczos-3 against an independent
    /// double-precision one: within 1.)
    static func reference(
        from src: PixelBuffer, into dst: PixelBuffer, filter: ResampleFilter
    ) {
        let ha = ResampleAxis(input: src.width, output: dst.width, filter: filter),
            va = ResampleAxis(input: src.height, output: dst.height, filter: filter)
        let hw = ha.weights(), vw = va.weights()
        var column = [Float](repeating: 0, count: src.width * 4)
        for y in 0..<dst.height {
            for i in 0..<src.width * 4 {
                var sum: Float = 0
                for k in 0..<va.taps { sum = sum + Float(src.row(va.first(y) + k)[i]) * vw[y * va.taps + k] }
                column[i] = sum
            }
            for x in 0..<dst.width {
                for c in 0..<4 {
                    var sum: Float = 0
                    for k in 0..<ha.taps { sum = sum + column[4 * (ha.first(x) + k) + c] * hw[x * ha.taps + k] }
                    dst.row(y)[4 * x + c] = UInt8(min(max(sum + 0.5, 0), 255))
                }
            }
        }
    }
}
