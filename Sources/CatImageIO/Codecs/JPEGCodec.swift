internal import CJPEGShim
import CatPixels
import CatSupport

extension ImageFormat {
    public static let jpeg = ImageFormat("jpeg")
}

/// JPEG through libjpeg-turbo (CJPEGShim): baseline, progressive, arithmetic, greyscale,
/// CMYK/YCCK; DCT scaling; the EXIF orientation is read (ImageReader applies it). Written
/// as baseline 4:2:0 at a quality of 1–100.
struct JPEGCodec: ImageCodec {
    /// libjpeg's largest dimension.
    static let maxDimension = 65500

    var format: ImageFormat { .jpeg }
    var displayName: String { "JPEG" }
    var fileExtensions: [String] { ["jpg", "jpeg"] }
    var controls: EncoderControls { [.quality: .integer(1...100, default: 90)] }
    var shrinksOnLoad: Bool { true }
    var keepsAlpha: Bool { false }

    func recognizes(_ head: [UInt8]) -> Bool {
        head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try JPEGRowDecoder(source: ImageSource(bytes: bytes), name: name, options: options)
    }

    func makeDecoder(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError)
        -> any RowDecoder
    {
        try JPEGRowDecoder(source: source, name: name, options: options)
    }

    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        try JPEGRowEncoder(
            fd: fd, path: path, width: width, height: height,
            quality: options.integer(.quality), metadata: metadata)
    }

    /// As every shim's (`ShimCode.decodeError`), but libjpeg's word for a 12-bit file is made plain.
    static func error(_ code: Int32, message: String, name: String) -> ImageIOError {
        if code == ShimCode.unsupported, message.contains("precision 12") {
            return .unsupported(file: name, reason: "12-bit JPEG is not supported (\(message))")
        }
        return ShimCode.decodeError(code, message: message, name: name)
    }
}

final class JPEGRowDecoder: RowDecoder {
    let info: RowDecoderInfo
    private let decoder: OpaquePointer
    private let name: String
    /// The open file libjpeg reads as it goes (kept open while the decoder lives).
    private let source: ImageSource

    init(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError) {
        let made: OpaquePointer?
        if let fd = source.fileDescriptor {
            made = cj_decoder_create_file(fd, source.count)
        } else {
            made = try source.bytes().withUnsafeBufferPointer { cj_decoder_create($0.baseAddress, $0.count) }
        }
        guard let d = made else { throw .pixels(.outOfMemory(bytes: source.count)) }
        func fail(_ error: ImageIOError) -> ImageIOError {
            cj_decoder_destroy(d)
            return error
        }
        func fail(_ code: Int32) -> ImageIOError {
            fail(JPEGCodec.error(code, message: String(cString: cj_decoder_message(d)), name: name))
        }
        var header = cj_info()
        var code = cj_decoder_read_header(d, &header)
        guard code == ShimCode.ok else { throw fail(code) }
        do {
            try options.checkLimit(Int(header.width), Int(header.height), name: name)
        } catch {
            throw fail(error)
        }
        let orientation =
            header.metadata.exif_length > 0
            ? ExifOrientation.parse(
                UnsafeBufferPointer(start: header.metadata.exif, count: header.metadata.exif_length))
            : 1
        let upright =
            orientation >= 5 ? (Int(header.height), Int(header.width)) : (Int(header.width), Int(header.height))
        let denominator = options.shrinkOnLoad?(upright.0, upright.1) ?? options.scaleDenominator
        code = cj_decoder_start(d, Int32(denominator), Int32(options.maxProgressiveScans), &header)
        guard code == ShimCode.ok else { throw fail(code) }
        info = RowDecoderInfo(
            width: Int(header.output_width), height: Int(header.output_height),
            fullWidth: Int(header.width), fullHeight: Int(header.height), hasAlpha: false, orientation: orientation,
            // A CMYK profile converted the pixels; ImageMetadata keeps RGB profiles only.
            metadata: ImageMetadata(shim: header.metadata))
        decoder = d
        self.name = name
        self.source = source
    }

    deinit { cj_decoder_destroy(decoder) }

    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws(ImageIOError) {
        var read: UInt32 = 0
        try check(cj_decoder_read_rows(decoder, buffer.row(row), buffer.stride, UInt32(count), &read))
    }

    func finish() throws(ImageIOError) { try check(cj_decoder_finish(decoder)) }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw JPEGCodec.error(code, message: String(cString: cj_decoder_message(decoder)), name: name)
    }
}

final class JPEGRowEncoder: RowEncoder {
    private let encoder: OpaquePointer
    private let path: String

    init(fd: Int32, path: String, width: Int, height: Int, quality: Int, metadata: ImageMetadata) throws(ImageIOError) {
        guard width <= JPEGCodec.maxDimension, height <= JPEGCodec.maxDimension else {
            throw .cannotCreate(
                path: path,
                reason: "JPEG cannot hold \(width)x\(height) pixels (\(JPEGCodec.maxDimension) at most); use .png")
        }
        guard let e = cj_encoder_create() else { throw .pixels(.outOfMemory(bytes: 0)) }
        encoder = e
        self.path = path
        try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            try check(cj_encoder_start(e, fd, UInt32(width), UInt32(height), Int32(quality), m))
        }
    }

    deinit { cj_encoder_destroy(encoder) }

    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        var y = rows.lowerBound
        while y < rows.upperBound {
            let n = min(64, rows.upperBound - y)
            try check(cj_encoder_write_rows(encoder, buffer.row(y), buffer.stride, UInt32(n)))
            y += n
        }
    }

    func finish() throws(ImageIOError) { try check(cj_encoder_finish(encoder)) }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        let message = String(cString: cj_encoder_message(encoder))
        if code == ShimCode.io {
            throw .writeFailed(path: path, reason: errnoReason(cj_encoder_errno(encoder), fallback: message))
        }
        throw .writeFailed(path: path, reason: "JPEG encoder: \(message)")
    }
}
