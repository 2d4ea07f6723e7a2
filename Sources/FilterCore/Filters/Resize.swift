internal import CFilterKernels
import CatImageIO
import Foundation

extension FilterDefinition {
    static let resize = FilterDefinition(
        name: "resize", valueName: "W|xH|WxH",
        description: "Fit inside W x H keeping the aspect ratio (may enlarge); W or xH alone sets one side. Lanczos-3",
        showcase: "160",
        presets: { width, _ in Geometry.fractions.map { "\(Geometry.part(width, $0))" } },
        parse: { text throws(FilterError) in
            let size = try Geometry.size(text, filter: "resize")
            switch (size.width, size.height) {
            case let (w?, h?): return [.spatial(ResizeStage(.fit(w, h)))]
            case let (w?, nil): return [.spatial(ResizeStage(.width(w)))]
            case let (nil, h?): return [.spatial(ResizeStage(.height(h)))]
            case (nil, nil): return []  // Geometry.size never gives this
            }
        })

    static let cover = FilterDefinition(
        name: "cover", valueName: "WxH",
        description: "Fill W x H exactly: resize to cover it (Lanczos-3), then crop the overflow around the centre",
        showcase: "160x160",
        presets: { width, height in
            Geometry.fractions.map {
                let side = Geometry.part(min(width, height), $0); return "\(side)x\(side)"
            }
        },
        parse: { text throws(FilterError) in
            let box = try Geometry.box(text, filter: "cover")
            return [
                .spatial(ResizeStage(.cover(box.width, box.height))),
                .spatial(CropStage(width: box.width, height: box.height, x: nil, y: nil, spec: "cover:" + text)),
            ]
        })
}

/// Lanczos-3 resampling, separable: a horizontal pass into float rows, then a vertical
/// pass (CFilterKernels), as Pillow's `LANCZOS` does it: the kernel is stretched by the
/// scale when shrinking, so every source pixel counts. Streams: each band of output rows
/// needs a band of input rows (`inputRows`).
struct ResizeStage: SpatialStage {
    enum Mode: Sendable, Equatable {
        case width(Int)
        case height(Int)
        /// Inside the box, keeping the aspect ratio.
        case fit(Int, Int)
        /// Covering the box, keeping the aspect ratio (a crop follows).
        case cover(Int, Int)
        /// Exactly this size (what the others become after shrink-on-load).
        case exact(Int, Int)
    }

    let mode: Mode

    init(_ mode: Mode) { self.mode = mode }

    func scaled(by factor: Double) -> any SpatialStage {
        func s(_ n: Int) -> Int { Self.scale(n, factor) }
        switch mode {
        case let .width(w): return ResizeStage(.width(s(w)))
        case let .height(h): return ResizeStage(.height(s(h)))
        case let .fit(w, h): return ResizeStage(.fit(s(w), s(h)))
        case let .cover(w, h): return ResizeStage(.cover(s(w), s(h)))
        case let .exact(w, h): return ResizeStage(.exact(s(w), s(h)))
        }
    }

    func outputSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
        func scaled(_ n: Int, _ s: Double) -> Int { max(1, Int((Double(n) * s).rounded())) }
        switch mode {
        case let .width(tw): return (tw, scaled(h, Double(tw) / Double(w)))
        case let .height(th): return (scaled(w, Double(th) / Double(h)), th)
        case let .fit(tw, th):
            let s = min(Double(tw) / Double(w), Double(th) / Double(h))
            return (min(tw, scaled(w, s)), min(th, scaled(h, s)))
        case let .cover(tw, th):
            let s = max(Double(tw) / Double(w), Double(th) / Double(h))
            return (max(tw, scaled(w, s)), max(th, scaled(h, s)))
        case let .exact(tw, th): return (tw, th)
        }
    }

    func inputRows(forOutput rows: Range<Int>, width w: Int, height h: Int) -> Range<Int> {
        let axis = LanczosAxis(input: h, output: outputSize(width: w, height: h).height)
        return axis.first(rows.lowerBound)..<axis.first(rows.upperBound - 1) + axis.taps
    }

    func makeKernel(width w: Int, height h: Int) throws(ImageIOError) -> any SpatialKernel {
        let size = outputSize(width: w, height: h)
        return ResizeKernel(
            horizontal: LanczosAxis(input: w, output: size.width), vertical: LanczosAxis(input: h, output: size.height))
    }

    /// The kernels' arithmetic one sample at a time: float weights, for each output row
    /// the vertical sums in tap order, then the horizontal sums in tap order, + 0.5,
    /// clamped, truncated. (The tests check this against an independent double-precision
    /// Lanczos-3: within 1.)
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError) {
        let ha = LanczosAxis(input: src.width, output: dst.width),
            va = LanczosAxis(input: src.height, output: dst.height)
        let hw = ha.weights().map { $0.map(Float.init) }, vw = va.weights().map { $0.map(Float.init) }
        var column = [Float](repeating: 0, count: src.width * 4)
        for y in 0..<dst.height {
            for i in 0..<src.width * 4 {
                var sum: Float = 0
                for k in 0..<va.taps { sum = sum + Float(src.row(va.first(y) + k)[i]) * vw[y][k] }
                column[i] = sum
            }
            for x in 0..<dst.width {
                for c in 0..<4 {
                    var sum: Float = 0
                    for k in 0..<ha.taps { sum = sum + column[4 * (ha.first(x) + k) + c] * hw[x][k] }
                    dst.row(y)[4 * x + c] = UInt8(min(max(sum + 0.5, 0), 255))
                }
            }
        }
    }
}

/// The Lanczos-3 taps of one axis, `input` samples to `output`: output sample i is
/// centred at (i + 0.5) · scale in the input; when shrinking, the kernel is stretched by
/// the scale (support 3 · scale). Every output sample reads `taps` consecutive inputs
/// from `first(i)`, zero weights padding the ends.
struct LanczosAxis {
    let input: Int, output: Int
    let scale: Double, filterScale: Double, support: Double
    let taps: Int

    init(input: Int, output: Int) {
        self.input = input
        self.output = output
        scale = Double(input) / Double(output)
        filterScale = max(scale, 1)
        support = 3 * filterScale
        taps = min(input, 2 * Int(support.rounded(.up)) + 1)
    }

    /// The inputs with a weight, before padding to `taps`.
    func span(_ i: Int) -> Range<Int> {
        let center = (Double(i) + 0.5) * scale
        let lower = max(0, Int(center - support + 0.5)), upper = min(input, Int(center + support + 0.5))
        return lower..<max(lower + 1, upper)
    }

    func first(_ i: Int) -> Int { min(span(i).lowerBound, input - taps) }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let a = Double.pi * x
        return 3 * sin(a) * sin(a / 3) / (a * a)
    }

    /// Normalised weights, `taps` per output sample.
    func weights() -> [[Double]] {
        (0..<output).map { i in
            let center = (Double(i) + 0.5) * scale, span = span(i), start = first(i)
            var w = [Double](repeating: 0, count: taps)
            for j in span { w[j - start] = Self.lanczos3((Double(j) - center + 0.5) / filterScale) }
            let total = w.reduce(0, +)
            return total == 0 ? w : w.map { $0 / total }
        }
    }
}

/// The two passes with their weights, and the float row between them.
final class ResizeKernel: SpatialKernel {
    let horizontal: LanczosAxis, vertical: LanczosAxis
    private let hFirst: [Int32], hWeights: [Float], vWeights: [Float]
    private var row: [Float]

    init(horizontal: LanczosAxis, vertical: LanczosAxis) {
        self.horizontal = horizontal
        self.vertical = vertical
        hFirst = (0..<horizontal.output).map { Int32(horizontal.first($0)) }
        hWeights = horizontal.weights().flatMap { $0.map(Float.init) }
        vWeights = vertical.weights().flatMap { $0.map(Float.init) }
        row = [Float](repeating: 0, count: horizontal.input * 4)
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(ImageIOError) {
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
}
