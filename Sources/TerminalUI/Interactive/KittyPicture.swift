import CatImageIO
import CatPixels
import CatSupport

/// A picture of catctl's own through kitty's graphics protocol, under an id: the live
/// editor's preview while an animation plays, so that each frame replaces the picture's
/// pixels in place with kitty's animation commands (`a=f,r=1` edits its root frame, `a=a,c=1`
/// shows it) instead of the whole screen being drawn again. Stills go through chafa.
/// RGBA, base64, in chunks of 4096 bytes as the protocol asks; `q=2`: no replies.
enum KittyPicture {
    /// The id of the live editor's preview.
    static let previewID = 3579

    /// Places `image` at the cursor under `id`, scaled by the terminal to `columns` x `rows` cells.
    static func place(_ image: PixelBuffer, id: Int, columns: Int, rows: Int) -> String {
        // C=1: the cursor stays where it was (the frame goes on drawing from known places).
        chunked("a=T,C=1,f=32,s=\(image.width),v=\(image.height),c=\(columns),r=\(rows),i=\(id),q=2", image)
    }

    /// Replaces the pixels of picture `id` (of the same size) with `image`, and shows them.
    static func replace(_ image: PixelBuffer, id: Int) -> String {
        chunked("a=f,r=1,X=1,f=32,s=\(image.width),v=\(image.height),i=\(id),q=2", image)
            + "\u{1B}_Ga=a,c=1,i=\(id),q=2\u{1B}\\"
    }

    /// The command with `image`'s pixels as its payload, in chunks (`m=1` but for the last).
    private static func chunked(_ control: String, _ image: PixelBuffer) -> String {
        var rgba = [UInt8](repeating: 0, count: image.width * image.height * 4)
        rgba.withUnsafeMutableBufferPointer { out in
            for y in 0..<image.height {
                (out.baseAddress! + y * image.width * 4).update(from: image.row(y), count: image.width * 4)
            }
        }
        let payload = Data(rgba).base64EncodedString()
        var text = "", start = payload.startIndex, first = true
        repeat {
            let end = payload.index(start, offsetBy: 4096, limitedBy: payload.endIndex) ?? payload.endIndex
            let more = end < payload.endIndex ? 1 : 0
            // q=2 on every chunk: older kitty takes the last chunk's.
            text += "\u{1B}_G" + (first ? control + "," : "q=2,") + "m=\(more);" + payload[start..<end] + "\u{1B}\\"
            (start, first) = (end, false)
        } while start < payload.endIndex
        return text
    }
}
