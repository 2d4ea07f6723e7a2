import CatPixels

/// A row encoder for the formats whose libraries take a whole picture at once (WebP, GIF):
/// rows are gathered into one buffer and handed to `encode` at `finish`.
final class WholeImageEncoder: RowEncoder {
    private let image: PixelBuffer
    private var rows = 0
    private let encode: (PixelBuffer) throws(ImageIOError) -> Void

    init(
        width: Int, height: Int, hasAlpha: Bool, encode: @escaping (PixelBuffer) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        image = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: width, height: height, hasAlpha: hasAlpha)
        }
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

/// Rows for the decoders whose libraries give a whole picture at once (WebP, GIF): the
/// picture is decoded when the first rows are asked for, then handed out top to bottom.
struct WholeImageRows {
    private var image: PixelBuffer?
    private var next = 0

    mutating func read(
        into buffer: PixelBuffer, at row: Int, count: Int, info: RowDecoderInfo,
        decode: (PixelBuffer) throws(ImageIOError) -> Void
    ) throws(ImageIOError) {
        let image: PixelBuffer
        if let decoded = self.image {
            image = decoded
        } else {
            image = try ImageIOError.allocating { () throws(PixelError) in
                try PixelBuffer(width: info.width, height: info.height, hasAlpha: info.hasAlpha)
            }
            try decode(image)
            self.image = image
        }
        for y in 0..<count {
            buffer.row(row + y).update(from: image.row(next + y), count: info.width * 4)
        }
        next += count
    }

    /// Lets the picture go once every row is out.
    mutating func release() { image = nil }
}

/// A decoder whose library gives whole pictures (WebP, GIF, JPEG XL, HEIF): rows are handed
/// out from the picture decoded when they are first asked for, frames one after another.
protocol WholePictureDecoder: RowDecoder {
    /// The rows handed out so far (state the decoder keeps for this extension).
    var rows: WholeImageRows { get set }
    /// nil: no loop count in the file; 0: forever.
    var loopCount: Int? { get }
    /// Decodes the next frame (the first: the still image) into `buffer`; returns its delay in ms.
    func nextFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int
}

extension WholePictureDecoder {
    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws(ImageIOError) {
        try rows.read(into: buffer, at: row, count: count, info: info) { (image: PixelBuffer) throws(ImageIOError) in
            try readImage(into: image)
        }
    }

    func finish() throws(ImageIOError) { rows.release() }

    func readFrames() throws(ImageIOError) -> Animation {
        try readFrames(loopCount: loopCount) { (frame: PixelBuffer) throws(ImageIOError) in try nextFrame(into: frame) }
    }

    func readFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int { try nextFrame(into: buffer) }
}

extension RowDecoder {
    /// Every frame of an animation, each a new whole-canvas buffer filled by `next`, which
    /// returns the frame's delay in milliseconds.
    func readFrames(
        loopCount: Int?, next: (PixelBuffer) throws(ImageIOError) -> Int
    ) throws(ImageIOError) -> Animation {
        var frames: [PixelBuffer] = [], delays: [Int] = []
        for _ in 0..<info.frameCount {
            let frame = try ImageIOError.allocating { () throws(PixelError) in
                try PixelBuffer(width: info.width, height: info.height, hasAlpha: info.hasAlpha)
            }
            delays.append(try next(frame))
            frames.append(frame)
        }
        return Animation(frames: frames, delays: delays, loopCount: loopCount)
    }
}

extension AnimationCodec {
    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        try wholeImageEncoder(
            fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha, metadata: metadata, options: options)
    }

    /// A still image through the row interface: gathered whole, then written by `writeStill`.
    func wholeImageEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        try checkSize(width, height, path: path)
        return try WholeImageEncoder(width: width, height: height, hasAlpha: hasAlpha) {
            (image: PixelBuffer) throws(ImageIOError) in
            try writeStill(image, fd: fd, path: path, metadata: metadata, options: options)
        }
    }

    /// One frame, no loop count; formats with a still encoding of their own override it.
    func writeStill(
        _ image: PixelBuffer, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        try write(
            Animation(frames: [image], delays: [0], loopCount: nil), fd: fd, path: path, metadata: metadata,
            options: options)
    }

    /// Refuses a size the format cannot hold, before any encoding.
    func checkSize(_ width: Int, _ height: Int, path: String) throws(ImageIOError) {
        guard width <= maxDimension, height <= maxDimension else {
            throw .cannotCreate(
                path: path,
                reason: "\(displayName) cannot hold \(width)x\(height) pixels (\(maxDimension) at most); use .png")
        }
    }
}
