internal import CFilterKernels
import CatPixels

extension FilterDefinition {
    static let convolve = FilterDefinition(
        name: "convolve", valueName: "K1,...,K9[:SCALE[:OFFSET]]", kind: .spatial,
        description:
            "Convolve with a 3x3 (9 values) or 5x5 (25) integer kernel, as vips conv and ImageMagick -convolve: "
            + "the sum divided by SCALE (default: the kernel's sum, 1 when it is 0), plus OFFSET, clamped; "
            + "alpha untouched",
        showcase: "-2,-1,0,-1,1,1,0,1,2",
        presets: { _, _ in ConvolveStage.presets },
        parse: { text throws(FilterError) in [.spatial(try ConvolveStage(parsing: text))] })
}

/// An integer convolution (CFilterKernels' ck_convolve_rows): each of R, G and B of an
/// output pixel is the kernel's weighted sum of its neighbourhood, over `scale`, plus
/// `offset`; edges repeat the border pixel. Streams: each output row needs the rows
/// within the kernel's radius.
struct ConvolveStage: SpatialStage {
    /// The largest |value| of a kernel entry: the sum then stays exact in a float.
    static let maximumEntry = 1000
    /// What ↑/↓ go through in the live editor: sharpen (the libvips benchmark's), edges,
    /// emboss, a box blur.
    static let presets = [
        "-1,-1,-1,-1,16,-1,-1,-1,-1:8", "0,-1,0,-1,5,-1,0,-1,0", "-1,-1,-1,-1,8,-1,-1,-1,-1",
        "-2,-1,0,-1,1,1,0,1,2", "1,1,1,1,1,1,1,1,1",
    ]

    let kernel: [Int32]
    let size: Int
    let scale: Double, offset: Double

    init(kernel: [Int32], scale: Double? = nil, offset: Double = 0) {
        self.kernel = kernel
        size = kernel.count == 25 ? 5 : 3
        let sum = kernel.reduce(0) { $0 + Double($1) }
        self.scale = scale ?? (sum == 0 ? 1 : sum)
        self.offset = offset
    }

    /// `K1,...,K9[:SCALE[:OFFSET]]` (or 25 values).
    init(parsing text: String) throws(FilterError) {
        func bad(_ reason: String) -> FilterError { .badValue(filter: "convolve", value: text, reason: reason) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 3 else { throw bad("a kernel is K1,...,K9[:SCALE[:OFFSET]]") }
        let values = parts[0].split(separator: ",", omittingEmptySubsequences: false)
        guard values.count == 9 || values.count == 25 else {
            throw bad("a kernel has 9 values (3x3) or 25 (5x5), not \(values.count)")
        }
        var kernel: [Int32] = []
        for value in values {
            guard value.allSatisfy(\.isASCII), let k = Int(value), k.magnitude <= Self.maximumEntry else {
                throw bad("'\(value)' is not a whole number from -\(Self.maximumEntry) to \(Self.maximumEntry)")
            }
            kernel.append(Int32(k))
        }
        func number(_ text: String, _ what: String) throws(FilterError) -> Double {
            guard text.allSatisfy(\.isASCII), let v = Double(text), v.isFinite, abs(v) <= 1e6 else {
                throw bad("'\(text)' is not a number for the \(what)")
            }
            return v
        }
        let scale = parts.count > 1 ? try number(parts[1], "scale") : nil
        if scale == 0 { throw bad("the scale cannot be 0") }
        self.init(kernel: kernel, scale: scale, offset: parts.count > 2 ? try number(parts[2], "offset") : 0)
    }

    var halo: Int { size / 2 }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        ConvolveKernel(stage: self, width: width, height: height)
    }

    /// Each channel: the weighted sum over the clamped neighbourhood, in Int32, as a Float
    /// × (1 / scale) + offset + 0.5, clamped and truncated (the kernel's arithmetic).
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        let r = size / 2, inverse = Float(1 / scale), plus = Float(offset)
        for y in 0..<src.height {
            for x in 0..<src.width {
                for c in 0..<3 {
                    var sum: Int32 = 0
                    for ky in 0..<size {
                        let sy = min(max(y + ky - r, 0), src.height - 1)
                        for kx in 0..<size {
                            let sx = min(max(x + kx - r, 0), src.width - 1)
                            sum += kernel[ky * size + kx] * Int32(src.row(sy)[4 * sx + c])
                        }
                    }
                    dst.row(y)[4 * x + c] = UInt8(Reference.quantize(Float(sum) * inverse + plus + 0.5))
                }
                dst.row(y)[4 * x + 3] = src.row(y)[4 * x + 3]
            }
        }
    }
}

final class ConvolveKernel: SpatialKernel {
    let stage: ConvolveStage
    let width: Int, height: Int

    init(stage: ConvolveStage, width: Int, height: Int) {
        self.stage = stage
        self.width = width
        self.height = height
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        stage.kernel.withUnsafeBufferPointer { k in
            ck_convolve_rows(
                source.base, source.stride, destination.base, destination.stride, width, height, rows.lowerBound,
                rows.upperBound, sourceRow, destinationRow, k.baseAddress, Int32(stage.size), Float(1 / stage.scale),
                Float(stage.offset))
        }
    }
}
