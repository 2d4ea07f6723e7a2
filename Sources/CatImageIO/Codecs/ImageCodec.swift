import CatPixels

/// One image file format: how to recognise it, what it is called, how to read and write
/// it. Each format is one file in this folder plus one line in `ImageCodecs.all`; after
/// libvips's `foreign/*load.c` (a loader declares its suffixes and its `is_a` test) and
/// Nuke's `ImageDecoderRegistry` (a decoder says whether it handles the data).
protocol ImageCodec: Sendable {
    var format: ImageFormat { get }
    /// The name people use: "JPEG", "PNG".
    var displayName: String { get }
    /// Lower-case file extensions, the usual one first.
    var fileExtensions: [String] { get }
    /// What the encoder takes: its settings, their ranges and defaults.
    var controls: EncoderControls { get }
    /// The decoder can shrink on load (JPEG's DCT scaling: `DecodeOptions.scaleDenominator`).
    var shrinksOnLoad: Bool { get }
    /// The encoder keeps an alpha channel (JPEG has none; GIF's is on or off).
    var keepsAlpha: Bool { get }
    /// Whether a file starting with `head` (up to `ImageCodecs.headBytes` bytes) is of this format.
    func recognizes(_ head: [UInt8]) -> Bool
    /// Reads the headers of `bytes` (which `recognizes`) and checks the declared size
    /// against `options.maxPixels` before any pixel memory is allocated.
    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder
    /// The same from a source that may be an open file: a codec whose library reads as it
    /// goes reads the file itself (TIFF); the others take its bytes (the default).
    func makeDecoder(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError)
        -> any RowDecoder
    /// Starts a file of `width`×`height` pixels on `fd` holding `metadata` (already filtered
    /// by `options.metadata`); `path` names it in errors.
    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder
}

/// What a codec learnt from the headers.
struct RowDecoderInfo {
    /// Size of the rows the decoder produces (smaller than the image with DCT scaling).
    var width: Int, height: Int
    /// The stored size (before scaling and orientation).
    var fullWidth: Int, fullHeight: Int
    var hasAlpha: Bool
    /// EXIF orientation 1–8, not applied by the decoder.
    var orientation = 1
    /// The rows cannot come out top to bottom a strip at a time (Adam7, WebP).
    var interlaced = false
    /// ICC profile, EXIF (orientation as stored), XMP, comment.
    var metadata = ImageMetadata.none
    /// Frames of an animation; rows and `readImage` give the first.
    var frameCount = 1
    /// Pages of a multi-page file (TIFF); rows come from the first, the only one read.
    var pageCount = 1
}

/// A codec's decoder: RGBA8 rows on demand, top to bottom.
protocol RowDecoder: AnyObject {
    var info: RowDecoderInfo { get }
    /// Decodes the next `count` rows into rows `row...` of `buffer`.
    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws(ImageIOError)
    /// Decodes the whole image (any interlace) into `buffer`, then checks the rest of the file.
    func readImage(into buffer: PixelBuffer) throws(ImageIOError)
    /// Checks the rest of the file once every row is read.
    func finish() throws(ImageIOError)
    /// Every frame, instead of rows (animated formats; a still image is one frame).
    func readFrames() throws(ImageIOError) -> Animation
    /// The next frame alone, instead of rows, composited into `buffer` (the first: the
    /// still image); its delay in milliseconds.
    func readFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int
}

extension RowDecoder {
    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        try readRows(into: buffer, at: 0, count: info.height)
        try finish()
    }

    func readFrames() throws(ImageIOError) -> Animation {
        let buffer = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: info.width, height: info.height, hasAlpha: info.hasAlpha)
        }
        try readImage(into: buffer)
        return Animation(frames: [buffer], delays: [0], loopCount: nil)
    }

    func readFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int {
        try readImage(into: buffer)
        return 0
    }
}

extension ImageCodec {
    /// The format holds animations (its codec is an `AnimationCodec`).
    var animates: Bool { self is any AnimationCodec }
    var keepsAlpha: Bool { true }

    func makeDecoder(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError)
        -> any RowDecoder
    {
        try makeDecoder(bytes: try source.bytes(), name: name, options: options)
    }
}

/// A format that holds animations (GIF, WebP): it writes every frame at once (and a still
/// image as one frame, or its own way: `writeStill`).
protocol AnimationCodec: ImageCodec {
    /// The largest width or height the format holds.
    var maxDimension: Int { get }
    func writeStill(
        _ image: PixelBuffer, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError)
    func write(
        _ animation: Animation, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError)
}

/// A codec's encoder: rows top to bottom, then `finish`.
protocol RowEncoder: AnyObject {
    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError)
    func finish() throws(ImageIOError)
}

/// The codecs catctl has, in the order formats are listed to users.
enum ImageCodecs {
    static let all: [any ImageCodec] = [
        JPEGCodec(),
        PNGCodec(),
        WebPCodec(),
        GIFCodec(),
        HEIFCodec(kind: .heic),
        HEIFCodec(kind: .avif),
        JXLCodec(),
        TIFFCodec(),
    ]

    /// How many leading bytes `recognizes` is shown.
    /// (32: a HEIF file's first compatible brands tell AVIF from HEIC.)
    static let headBytes = 32

    static func codec(for format: ImageFormat) -> any ImageCodec {
        guard let codec = all.first(where: { $0.format == format }) else {
            preconditionFailure("no codec for \(format)")  // formats are only made by codecs
        }
        return codec
    }

    static func codec(forExtension ext: String) -> (any ImageCodec)? {
        let ext = ext.lowercased()
        return all.first { $0.fileExtensions.contains(ext) }
    }

    static func codec(recognizing head: [UInt8]) -> (any ImageCodec)? {
        all.first { $0.recognizes(head) }
    }

    /// The name of a well-known image format catctl does not read, from a file's first
    /// bytes, so that the message can say what the file is.
    static func unsupportedFormat(_ head: [UInt8]) -> String? {
        func at(_ offset: Int, _ text: String) -> Bool { head.dropFirst(offset).starts(with: Array(text.utf8)) }
        if at(0, "BM") { return "BMP" }
        if at(0, "8BPS") { return "Photoshop (PSD)" }
        return nil
    }

    /// "JPEG or PNG", for messages.
    static var displayNames: String { list(all.map(\.displayName), "or") }

    /// ".jpg, .jpeg or .png", for messages.
    static var extensionList: String { list(all.flatMap(\.fileExtensions).map { "." + $0 }, "or") }

    /// "a, b and c": `items` joined by commas and `conjunction`.
    static func list(_ items: [String], _ conjunction: String) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}
