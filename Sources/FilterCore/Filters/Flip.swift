import CatPixels

extension FilterDefinition {
    static let flip = FilterDefinition(
        name: "flip", parameter: .none, kind: .geometry, description: "Mirror top to bottom (exact)",
        stage: { _ in FlipStage(vertical: true) })

    static let flop = FilterDefinition(
        name: "flop", parameter: .none, kind: .geometry, description: "Mirror left to right (exact)",
        stage: { _ in FlipStage(vertical: false) })
}

/// A mirror image. `flop` (left↔right) works row by row, so it streams and runs in
/// place; `flip` (top↔bottom) needs the last row first, so it takes the whole-image path.
struct FlipStage: SpatialStage {
    let vertical: Bool

    var inPlace: Bool { !vertical }
    var streams: Bool { !vertical }

    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel {
        FlipKernel(vertical: vertical, width: width, height: height)
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        Geometry.move(from: src, into: dst) { x, y in vertical ? (x, src.height - 1 - y) : (src.width - 1 - x, y) }
    }
}

final class FlipKernel: SpatialKernel {
    let vertical: Bool
    let width: Int, height: Int

    init(vertical: Bool, width: Int, height: Int) {
        self.vertical = vertical
        self.width = width
        self.height = height
    }

    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int
    ) throws(FilterError) {
        for y in rows {
            let d = destination.row(y - destinationRow)
            if vertical {
                d.update(from: source.row(height - 1 - y - sourceRow), count: width * 4)
                continue
            }
            // Pixel by pixel, swapping the two ends, so that source and destination may be one
            // row (rows need not be 4-byte aligned: loads and stores are unaligned).
            let s = UnsafeMutableRawPointer(source.row(y - sourceRow)), to = UnsafeMutableRawPointer(d)
            var left = 0, right = width - 1
            while left <= right {
                let a = s.loadUnaligned(fromByteOffset: 4 * left, as: UInt32.self)
                let b = s.loadUnaligned(fromByteOffset: 4 * right, as: UInt32.self)
                to.storeBytes(of: b, toByteOffset: 4 * left, as: UInt32.self)
                to.storeBytes(of: a, toByteOffset: 4 * right, as: UInt32.self)
                left += 1
                right -= 1
            }
        }
    }
}
