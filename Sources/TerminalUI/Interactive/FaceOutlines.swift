import CatFaces
import CatImageIO

/// The live editor's face overlay (`f`): a copy of the preview with each face's box drawn
/// in a bright yellow line, as thick as a 150th of the picture (2 px at least), so that it
/// still shows once the picture is made into terminal cells.
enum FaceOutlines {
    static func draw(_ faces: [CatFace], on picture: PixelBuffer) -> PixelBuffer {
        guard !faces.isEmpty, let copy = try? picture.copy() else { return picture }
        let line = max(2, max(copy.width, copy.height) / 150)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) {
            let left = max(0, x0), right = min(copy.width, x1), top = max(0, y0), bottom = min(copy.height, y1)
            guard left < right, top < bottom else { return }
            for y in top..<bottom {
                let row = copy.row(y)
                for x in left..<right {
                    row[4 * x] = 255
                    row[4 * x + 1] = 214
                    row[4 * x + 2] = 0
                    row[4 * x + 3] = 255
                }
            }
        }
        for face in faces {
            let (x, y, w, h) = (face.x, face.y, face.width, face.height)
            fill(x, y, x + w, y + line)
            fill(x, y + h - line, x + w, y + h)
            fill(x, y, x + line, y + h)
            fill(x + w - line, y, x + w, y + h)
        }
        return copy
    }
}
