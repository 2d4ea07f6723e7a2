import CatImageIO
import CatPixels
import FilterCore

/// The original edit scene's thumbnail strip as one image: a grid of tiles, each a
/// thumbnail of the picture through one filter, with the filter's spec under it.
public struct ContactSheet: Sendable {
    public static let tileSize = 200, padding = 12, labelHeight = 30, maxColumns = 6
    static let background: (UInt8, UInt8, UInt8) = (28, 28, 30)
    static let ink: (UInt8, UInt8, UInt8) = (235, 235, 235)

    public let sheet: PixelBuffer
    public let previews: [PixelBuffer]
    public let columns: Int

    public init(sheet: PixelBuffer, previews: [PixelBuffer], columns: Int) {
        self.sheet = sheet
        self.previews = previews
        self.columns = columns
    }

    public static func make(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?, threads: Int) throws
        -> ContactSheet
    {
        let (tw, th) = image.fittingSize(maxWidth: tileSize, maxHeight: tileSize)
        let thumbnail = try image.resampled(width: tw, height: th, filter: .box)
        let columns = max(1, min(maxColumns, chains.count))
        let rows = (chains.count + columns - 1) / columns
        let sheet = try PixelBuffer(
            width: columns * (tw + padding) + padding,
            height: rows * (th + labelHeight + padding) + padding)
        sheet.fill(x: 0, y: 0, width: sheet.width, height: sheet.height, color: background)
        var previews: [PixelBuffer] = []
        for (i, chain) in chains.enumerated() {
            // A crop bigger than a tiny picture's thumbnail shows the thumbnail as it is.
            var tile = thumbnail
            do {
                tile = try chain.apply(to: try thumbnail.copy(), threads: threads)
            } catch is FilterError {}
            if tile.width > tw || tile.height > th {  // a geometry stage made it larger: fit it in the cell
                let (fw, fh) = tile.fittingSize(maxWidth: tw, maxHeight: th)
                tile = try tile.resampled(width: fw, height: fh, filter: .box)
            }
            if tile.hasAlpha { tile = try Self.onChecks(tile) }  // a cut-out shows its transparency
            let x = padding + (i % columns) * (tw + padding), y = padding + (i / columns) * (th + labelHeight + padding)
            sheet.paste(tile, x: x + (tw - tile.width) / 2, y: y + (th - tile.height) / 2)
            let label = chain.specs.joined(separator: " ")
            let scale = BitmapFont.width(label, scale: 2) <= tw ? 2 : 1
            BitmapFont.draw(
                label, into: sheet, x: x + max(0, (tw - BitmapFont.width(label, scale: scale)) / 2),
                y: y + th + (labelHeight - BitmapFont.glyphHeight * scale) / 2, scale: scale, color: ink)
            if let previewWidth {
                let (pw, ph) = tile.fittingSize(maxWidth: previewWidth, maxHeight: previewWidth)
                previews.append(try tile.resampled(width: pw, height: ph, filter: .box))
            }
        }
        sheet.hasAlpha = false
        return ContactSheet(sheet: sheet, previews: previews, columns: columns)
    }

    /// `tile` over the grey checks image viewers show transparency with (8 px squares), opaque.
    static func onChecks(_ tile: PixelBuffer) throws -> PixelBuffer {
        let out = try PixelBuffer(width: tile.width, height: tile.height)
        for y in 0..<tile.height {
            let s = tile.row(y), d = out.row(y)
            for x in 0..<tile.width {
                let check: Int = (x / 8 + y / 8) % 2 == 0 ? 204 : 153, a = Int(s[4 * x + 3])
                for c in 0..<3 { d[4 * x + c] = UInt8((Int(s[4 * x + c]) * a + check * (255 - a) + 127) / 255) }
                d[4 * x + 3] = 255
            }
        }
        return out
    }

    /// Tiles in one picture (a row of `edit --gallery` for the terminal), top-aligned, one
    /// transparent cell apart. Each tile fills whole cells (`cellWidth` x 2 `cellWidth` pixels), its last column and row repeated to
    /// reach them: a cell half tile, half transparent would show as a stray sliver.
    static func row(_ tiles: [PixelBuffer], cellWidth: Int = 1) throws(ImageIOError) -> PixelBuffer {
        let cellHeight = 2 * cellWidth
        func whole(_ n: Int, _ cell: Int) -> Int { (n + cell - 1) / cell * cell }
        let slots = tiles.map { whole($0.width, cellWidth) }
        let width = slots.reduce(0, +) + (tiles.count - 1) * cellWidth
        let height = whole(tiles.map(\.height).max() ?? 1, cellHeight)
        let row = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: width, height: height, hasAlpha: true)
        }
        row.fill(r: 0, g: 0, b: 0, a: 0)
        var x = 0
        for (tile, slot) in zip(tiles, slots) {
            for y in 0..<whole(tile.height, cellHeight) {
                let source = tile.row(min(y, tile.height - 1)), target = row.row(y) + 4 * x
                target.update(from: source, count: tile.width * 4)
                for extra in tile.width..<slot {
                    (target + 4 * extra).update(from: source + 4 * (tile.width - 1), count: 4)
                }
            }
            x += slot + cellWidth
        }
        return row
    }

}
