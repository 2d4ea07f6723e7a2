import CatImageIO
import FilterCore

/// The original edit scene's thumbnail strip as one image: a grid of tiles, each a
/// thumbnail of the picture through one filter, with the filter's spec under it.
public struct ContactSheet: @unchecked Sendable {
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

    static func make(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?, threads: Int) throws
        -> ContactSheet
    {
        let (tw, th) = image.fittingSize(maxWidth: tileSize, maxHeight: tileSize)
        let thumbnail = try image.downsampled(width: tw, height: th)
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
                tile = try tile.downsampled(width: fw, height: fh)
            }
            let x = padding + (i % columns) * (tw + padding), y = padding + (i / columns) * (th + labelHeight + padding)
            sheet.paste(tile, x: x + (tw - tile.width) / 2, y: y + (th - tile.height) / 2)
            let label = chain.specs.joined(separator: " ")
            let scale = BitmapFont.width(label, scale: 2) <= tw ? 2 : 1
            BitmapFont.draw(
                label, into: sheet, x: x + max(0, (tw - BitmapFont.width(label, scale: scale)) / 2),
                y: y + th + (labelHeight - BitmapFont.glyphHeight * scale) / 2, scale: scale, color: ink)
            if let previewWidth {
                let (pw, ph) = tile.fittingSize(maxWidth: previewWidth, maxHeight: previewWidth)
                previews.append(try tile.downsampled(width: pw, height: ph))
            }
        }
        sheet.hasAlpha = false
        return ContactSheet(sheet: sheet, previews: previews, columns: columns)
    }
}
