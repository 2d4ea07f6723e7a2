internal import CWebPShim
import CatPixels

extension ImageFormat {
    public static let webp = ImageFormat("webp")
}

/// WebP through libwebp (CWebPShim): lossy, lossless, alpha and animated files in (an
/// animation's frames composited by libwebp's WebPAnimDecoder); lossy at a quality, or
/// lossless, out, still or animated; ICCP, EXIF and XMP chunks through WebPMux. libwebp
/// decodes a whole picture at once, so WebP never streams.
struct WebPCodec: AnimationCodec {

    var format: ImageFormat { .webp }
    var displayName: String { "WebP" }
    var fileExtensions: [String] { ["webp"] }
    /// Quality 80 by default, as libvips and most web tools (cwebp's own is 75); or lossless.
    /// Effort 0-9 is libwebp's method 0-6 (`method`); the default 6 is method 4, cwebp's.
    var controls: EncoderControls {
        [.quality: .integer(1...100, default: 80), .lossless: .flag, .effort: .integer(0...9, default: 6)]
    }

    /// libwebp's method for an effort: 0...9 spread over 0...6.
    static func method(_ options: EncodeOptions) -> Int32 {
        Int32((Double(options.integer(.effort)) * 6 / 9).rounded())
    }
    var shrinksOnLoad: Bool { false }
    /// WebP's largest dimension.
    var maxDimension: Int { 16383 }

    func recognizes(_ head: [UInt8]) -> Bool {
        head.count >= 12 && head.starts(with: Array("RIFF".utf8)) && head[8..<12].elementsEqual("WEBP".utf8)
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try WebPRowDecoder(bytes: bytes, name: name, options: options)
    }

    /// Lossy opaque stills (photos) are converted to YUV a block of rows at a time as they
    /// come; lossless and alpha need the whole RGBA picture.
    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        guard !options.lossless, !hasAlpha else {
            return try wholeImageEncoder(
                fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha, metadata: metadata,
                options: options)
        }
        try checkSize(width, height, path: path)
        return try WebPRowsEncoder(
            fd: fd, path: path, width: width, height: height, metadata: metadata, options: options)
    }

    func write(
        _ animation: Animation, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        try checkSize(animation.width, animation.height, path: path)
        guard
            let encoder = cw_anim_encoder_create(
                UInt32(animation.width), UInt32(animation.height), Int32(clamping: animation.loopCount ?? 1),
                options.lossless ? 1 : 0, Int32(options.integer(.quality)), Self.method(options),
                options.threads > 1 ? 1 : 0)
        else { throw .pixels(.outOfMemory(bytes: animation.width * animation.height * 4)) }
        defer { cw_anim_encoder_destroy(encoder) }
        func check(_ code: Int32, _ errorNumber: Int32 = 0) throws(ImageIOError) {
            guard code != ShimCode.ok else { return }
            throw ShimCode.encodeError(
                code, message: String(cString: cw_anim_encoder_message(encoder)), errorNumber: errorNumber,
                path: path, format: "WebP")
        }
        for (frame, delay) in zip(animation.frames, animation.delays) {
            try check(cw_anim_encoder_add(encoder, frame.base, frame.stride, Int32(min(max(0, delay), 16_777_215))))
        }
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            cw_anim_encoder_finish(encoder, fd, m, &errorNumber)
        }
        try check(code, errorNumber)
    }

    /// A still through libwebp's own encoder (not the animation encoder).
    func writeStill(
        _ image: PixelBuffer, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        var message = [CChar](repeating: 0, count: 256)
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            cw_encode_image(
                fd, image.base, image.stride, UInt32(image.width), UInt32(image.height), image.hasAlpha ? 1 : 0,
                options.lossless ? 1 : 0, Int32(options.integer(.quality)), Self.method(options),
                options.threads > 1 ? 1 : 0, m, &message, message.count, &errorNumber)
        }
        try Self.check(code, message: message, errorNumber: errorNumber, path: path, bytes: image.byteCount)
    }

    /// An encoder's result as an error.
    static func check(
        _ code: Int32, message: [CChar], errorNumber: Int32, path: String, bytes: Int
    ) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.encodeError(
            code, message: ShimCode.text(message), errorNumber: errorNumber, path: path, format: "WebP", bytes: bytes)
    }
}

/// A lossy opaque WebP, its rows converted to YUV as they come (CWebPShim's rows encoder).
final class WebPRowsEncoder: RowEncoder {
    private let encoder: OpaquePointer
    private let fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions

    init(
        fd: Int32, path: String, width: Int, height: Int, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        guard let e = cw_rows_encoder_create(UInt32(width), UInt32(height)) else {
            throw .pixels(.outOfMemory(bytes: width * height * 3 / 2))
        }
        encoder = e
        (self.fd, self.path, self.metadata, self.options) = (fd, path, metadata, options)
    }

    deinit { cw_rows_encoder_destroy(encoder) }

    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        let code = cw_rows_encoder_add(encoder, buffer.row(rows.lowerBound), buffer.stride, UInt32(rows.count))
        guard code == ShimCode.ok else {
            throw code == ShimCode.noMemory
                ? .pixels(.outOfMemory(bytes: 0)) : .writeFailed(path: path, reason: "WebP rows")
        }
    }

    func finish() throws(ImageIOError) {
        var message = [CChar](repeating: 0, count: 256)
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            cw_rows_encoder_finish(
                encoder, fd, Int32(options.integer(.quality)), WebPCodec.method(options), options.threads > 1 ? 1 : 0,
                m, &message, message.count, &errorNumber)
        }
        try WebPCodec.check(code, message: message, errorNumber: errorNumber, path: path, bytes: 0)
    }
}

final class WebPRowDecoder: WholePictureDecoder {
    let info: RowDecoderInfo
    let loopCount: Int?
    var rows = WholeImageRows()
    private let decoder: OpaquePointer
    private let name: String

    init(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        guard let d = bytes.withUnsafeBufferPointer({ cw_decoder_create($0.baseAddress, $0.count) }) else {
            throw .pixels(.outOfMemory(bytes: bytes.count))
        }
        var header = cw_info()
        // No limit in C: the declared size and frame count are checked here, with the same message as other formats.
        let code = cw_decoder_read_header(d, UInt64.max, UInt32.max, &header)
        guard code == ShimCode.ok else {
            defer { cw_decoder_destroy(d) }
            throw ShimCode.decodeError(code, message: String(cString: cw_decoder_message(d)), name: name)
        }
        let (width, height, frames) = (Int(header.width), Int(header.height), Int(header.frame_count))
        do {
            try options.checkLimit(width, height, frames: frames, name: name)
        } catch {
            cw_decoder_destroy(d)
            throw error
        }
        info = RowDecoderInfo(
            width: width, height: height, fullWidth: width, fullHeight: height, hasAlpha: header.has_alpha != 0,
            interlaced: true,
            metadata: ImageMetadata(shim: header.metadata),
            frameCount: frames)
        loopCount = Int(header.loop_count)
        decoder = d
        self.name = name
    }

    deinit { cw_decoder_destroy(decoder) }

    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        try check(cw_decoder_read_image(decoder, buffer.base, buffer.stride, 1))
    }

    func nextFrame(into frame: PixelBuffer) throws(ImageIOError) -> Int {
        var delay: Int32 = 0
        try check(cw_decoder_next_frame(decoder, frame.base, frame.stride, 1, &delay))
        return Int(delay)
    }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.decodeError(code, message: String(cString: cw_decoder_message(decoder)), name: name)
    }
}
