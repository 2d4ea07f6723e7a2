import CatFaces
import CatImageIO

/// The live editor's face overlay (`f`): a copy of the preview with each face's box drawn
/// in a bright yellow line, as thick as a 150th of the picture (2 px at least), so that it
/// still shows once the picture is made into terminal cells.
enum FaceOutlines {
    static func draw(_ faces: [CatFace], on picture: PixelBuffer) -> PixelBuffer {
        guard !faces.isEmpty, let copy = try? picture.copy() else { return picture }
        let line = max(2, max(copy.width, copy.height) / 150)
        let yellow: (UInt8, UInt8, UInt8) = (255, 214, 0)
        for face in faces {
            let (x, y, w, h) = (face.x, face.y, face.width, face.height)
            copy.fill(x: x, y: y, width: w, height: line, color: yellow)
            copy.fill(x: x, y: y + h - line, width: w, height: line, color: yellow)
            copy.fill(x: x, y: y, width: line, height: h, color: yellow)
            copy.fill(x: x + w - line, y: y, width: line, height: h, color: yellow)
        }
        return copy
    }
}
