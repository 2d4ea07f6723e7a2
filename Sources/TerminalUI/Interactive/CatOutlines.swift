import CatFaces
import CatImageIO
import CatPixels

/// The live editor's overlays: `f`'s: a copy of the preview with each cat's box drawn in a
/// bright blue line and each face's in yellow, as thick as a 150th of the picture (2 px at
/// least), so that they still show once the picture is made into terminal cells.
enum CatOutlines {
    static func draw(_ found: CatFinding, on picture: PixelBuffer) -> PixelBuffer {
        let boxes =
            found.cats.map { ($0.box, (UInt8(0), UInt8(170), UInt8(255))) }
            + found.faces.map { ($0, (UInt8(255), UInt8(214), UInt8(0))) }
        guard !boxes.isEmpty, let copy = try? picture.copy() else { return picture }
        let line = max(2, max(copy.width, copy.height) / 150)
        for (box, color) in boxes {
            let (x, y, w, h) = (box.x, box.y, box.width, box.height)
            copy.fill(x: x, y: y, width: w, height: line, color: color)
            copy.fill(x: x, y: y + h - line, width: w, height: line, color: color)
            copy.fill(x: x, y: y, width: line, height: h, color: color)
            copy.fill(x: x + w - line, y: y, width: line, height: h, color: color)
        }
        return copy
    }

    /// A copy of the preview with what lies outside `window` darkened and the window
    /// outlined in white (`c`'s crop frame).
    static func frame(_ window: ScoredRegion, on picture: PixelBuffer) -> PixelBuffer {
        guard let copy = try? picture.copy() else { return picture }
        let x0 = min(max(0, window.x), copy.width), y0 = min(max(0, window.y), copy.height)
        let x1 = min(copy.width, max(x0, window.x + window.width)),
            y1 = min(copy.height, max(y0, window.y + window.height))
        for y in 0..<copy.height {
            let row = copy.row(y)
            for x in 0..<copy.width where y < y0 || y >= y1 || x < x0 || x >= x1 {
                for c in 0..<3 { row[x * 4 + c] /= 3 }
            }
        }
        let line = max(1, max(copy.width, copy.height) / 200)
        let white = (UInt8(255), UInt8(255), UInt8(255))
        copy.fill(x: x0, y: y0, width: x1 - x0, height: line, color: white)
        copy.fill(x: x0, y: max(y0, y1 - line), width: x1 - x0, height: line, color: white)
        copy.fill(x: x0, y: y0, width: line, height: y1 - y0, color: white)
        copy.fill(x: max(x0, x1 - line), y: y0, width: line, height: y1 - y0, color: white)
        return copy
    }
}
