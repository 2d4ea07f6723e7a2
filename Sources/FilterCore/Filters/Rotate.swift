import CatPixels

extension FilterDefinition {
    static let rotate = FilterDefinition(
        name: "rotate", valueName: "90|180|270",
        description: "Rotate clockwise by 90, 180 or 270 degrees (exact)", showcase: "90",
        presets: { _, _ in ["90", "180", "270"] },
        parse: { text throws(FilterError) in
            switch text.trimmingWhitespace().lowercased() {
            case "90", "90deg": return [.spatial(RotateStage(quarterTurns: 1))]
            case "180", "180deg": return [.spatial(RotateStage(quarterTurns: 2))]
            case "270", "270deg", "-90": return [.spatial(RotateStage(quarterTurns: 3))]
            default: throw .badValue(filter: "rotate", value: text, reason: "rotate takes 90, 180 or 270")
            }
        })
}

/// An exact rotation by quarter turns, clockwise. Output rows need input columns (or the
/// last rows first), so it takes the whole-image path.
struct RotateStage: SpatialStage {
    let quarterTurns: Int

    var streams: Bool { false }

    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        quarterTurns == 2 ? (width, height) : (height, width)
    }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        RotateKernel(quarterTurns: quarterTurns, width: width, height: height)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        Geometry.move(from: src, into: dst) { x, y in RotateKernel.source(x, y, quarterTurns, src.width, src.height) }
    }
}

final class RotateKernel: SpatialKernel {
    let quarterTurns: Int, width: Int, height: Int

    init(quarterTurns: Int, width: Int, height: Int) {
        self.quarterTurns = quarterTurns
        self.width = width
        self.height = height
    }

    /// The input pixel shown at output (x, y) of a `w` × `h` input turned clockwise.
    @inline(__always) static func source(_ x: Int, _ y: Int, _ turns: Int, _ w: Int, _ h: Int) -> (Int, Int) {
        switch turns {
        case 1: return (y, h - 1 - x)
        case 2: return (w - 1 - x, h - 1 - y)
        default: return (w - 1 - y, x)
        }
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        let outWidth = quarterTurns == 2 ? width : height
        let from = UnsafeRawPointer(source.base), stride = source.stride
        for y in rows {
            let to = UnsafeMutableRawPointer(destination.row(y - destinationRow))
            for x in 0..<outWidth {
                let (sx, sy) = Self.source(x, y, quarterTurns, width, height)
                let pixel = from.loadUnaligned(fromByteOffset: (sy - sourceRow) * stride + 4 * sx, as: UInt32.self)
                to.storeBytes(of: pixel, toByteOffset: 4 * x, as: UInt32.self)
            }
        }
    }
}
