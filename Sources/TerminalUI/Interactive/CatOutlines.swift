import CatFaces
import CatImageIO

/// The live editor's overlay (`f`): a copy of the preview with each cat's box drawn in a
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
}
