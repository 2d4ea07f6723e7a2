/// A row encoder for the formats whose libraries take a whole picture at once (WebP, GIF):
/// rows are gathered into one buffer and handed to `encode` at `finish`.
final class WholeImageEncoder: RowEncoder {
    private let image: PixelBuffer
    private var rows = 0
    private let encode: (PixelBuffer) throws(ImageIOError) -> Void

    init(
        width: Int, height: Int, hasAlpha: Bool, encode: @escaping (PixelBuffer) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        image = try PixelBuffer(width: width, height: height, hasAlpha: hasAlpha)
        self.encode = encode
    }

    func write(_ buffer: PixelBuffer, rows range: Range<Int>) throws(ImageIOError) {
        for y in range {
            image.row(rows).update(from: buffer.row(y), count: image.width * 4)
            rows += 1
        }
    }

    func finish() throws(ImageIOError) { try encode(image) }
}
