internal import CTIFFShim
import CatPixels

extension ImageFormat {
    public static let tiff = ImageFormat("tiff")
}

/// TIFF through libtiff (CTIFFShim): strips and tiles, classic and BigTIFF; none, LZW,
/// Deflate, PackBits, JPEG and the rest of what libtiff decodes; grey, palette, RGB(A) and
/// CMYK (through its ICC profile with lcms2) at 1 to 16 bits. Rows stream a strip or a row
/// of tiles at a time, so a large tiled TIFF never sits whole in memory. The first page
/// is read (`pageCount` says how many there are); the orientation tag is applied by the
/// reader. Written as 8-bit RGB(A) strips, Deflate by default.
struct TIFFCodec: ImageCodec {
    var format: ImageFormat { .tiff }
    var displayName: String { "TIFF" }
    var fileExtensions: [String] { ["tif", "tiff"] }
    /// The quality is JPEG compression's; Deflate (with the horizontal predictor) by default,
    /// as libvips's tiffsave users mostly ask for.
    var controls: EncoderControls {
        [
            .quality: .integer(1...100, default: 90),
            .compression: .choice(Self.compressions.map(\.name), default: "deflate"),
        ]
    }
    var shrinksOnLoad: Bool { false }

    static let compressions: [(name: String, code: Int32)] = [
        ("none", Int32(CT_COMPRESSION_NONE)), ("lzw", Int32(CT_COMPRESSION_LZW)),
        ("deflate", Int32(CT_COMPRESSION_DEFLATE)), ("jpeg", Int32(CT_COMPRESSION_JPEG)),
    ]

    func recognizes(_ head: [UInt8]) -> Bool {
        // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
        head.count >= 4
            && (head.starts(with: [0x49, 0x49]) && (head[2] == 42 || head[2] == 43) && head[3] == 0
                || head.starts(with: [0x4D, 0x4D]) && head[2] == 0 && (head[3] == 42 || head[3] == 43))
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try TIFFRowDecoder(source: ImageSource(bytes: bytes), name: name, options: options)
    }

    func makeDecoder(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError)
        -> any RowDecoder
    {
        try TIFFRowDecoder(source: source, name: name, options: options)
    }

    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        let compression =
            Self.compressions.first { $0.name == options.choice(.compression) }?.code ?? Int32(CT_COMPRESSION_DEFLATE)
        // JPEG in TIFF holds no alpha: the alpha is left out, as a .jpg output leaves it.
        let alpha = hasAlpha && compression != Int32(CT_COMPRESSION_JPEG)
        return try TIFFRowEncoder(
            fd: fd, path: path, width: width, height: height, hasAlpha: alpha, compression: compression,
            quality: options.integer(.quality), metadata: metadata)
    }
}

final class TIFFRowDecoder: RowDecoder {
    let info: RowDecoderInfo
    private let decoder: OpaquePointer
    private let name: String
    /// The file the shim reads with pread (kept open while the decoder lives); else its
    /// bytes, handed to each shim call that reads them: the shim keeps no copy.
    private let source: ImageSource
    private let bytes: [UInt8]

    init(source: ImageSource, name: String, options: DecodeOptions) throws(ImageIOError) {
        let fd = source.fileDescriptor ?? -1
        let bytes = fd >= 0 ? [] : try source.bytes()
        guard let d = ct_decoder_create(source.count, fd) else { throw .pixels(.outOfMemory(bytes: source.count)) }
        func fail(_ error: ImageIOError) -> ImageIOError {
            ct_decoder_destroy(d)
            return error
        }
        func fail(_ code: Int32) -> ImageIOError {
            fail(ShimCode.decodeError(code, message: String(cString: ct_decoder_message(d)), name: name))
        }
        var header = ct_info()
        // The shim bounds libtiff's allocations by the limit too; an image over it gets the
        // same message as in other formats.
        var code = bytes.withUnsafeBufferPointer {
            ct_decoder_read_header(d, $0.baseAddress, UInt64(options.maxPixels), &header)
        }
        do throws(ImageIOError) {
            if code == ShimCode.ok || code == ShimCode.limit {
                try options.checkLimit(Int(header.width), Int(header.height), name: name)
            }
        } catch {
            throw fail(error)
        }
        guard code == ShimCode.ok else { throw fail(code) }
        code = bytes.withUnsafeBufferPointer { ct_decoder_start(d, $0.baseAddress, &header) }
        guard code == ShimCode.ok else { throw fail(code) }
        info = RowDecoderInfo(
            width: Int(header.width), height: Int(header.height), fullWidth: Int(header.width),
            fullHeight: Int(header.height), hasAlpha: header.has_alpha != 0, orientation: Int(header.orientation),
            // A CMYK profile converted the pixels; ImageMetadata keeps RGB profiles only.
            metadata: ImageMetadata(shim: header.metadata),
            pageCount: Int(header.page_count))
        decoder = d
        self.name = name
        self.source = source
        self.bytes = bytes
    }

    deinit { ct_decoder_destroy(decoder) }

    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws(ImageIOError) {
        var read: UInt32 = 0
        try check(
            bytes.withUnsafeBufferPointer {
                ct_decoder_read_rows(decoder, $0.baseAddress, buffer.row(row), buffer.stride, UInt32(count), &read)
            })
    }

    func finish() throws(ImageIOError) { try check(ct_decoder_finish(decoder)) }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.decodeError(code, message: String(cString: ct_decoder_message(decoder)), name: name)
    }
}

final class TIFFRowEncoder: RowEncoder {
    private let encoder: OpaquePointer
    private let fd: Int32, path: String

    init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool, compression: Int32, quality: Int,
        metadata: ImageMetadata
    ) throws(ImageIOError) {
        guard let e = ct_encoder_create() else { throw .pixels(.outOfMemory(bytes: 0)) }
        encoder = e
        (self.fd, self.path) = (fd, path)
        let code = try withCMetadata(metadata) { m throws(ImageIOError) in
            ct_encoder_start(e, UInt32(width), UInt32(height), hasAlpha ? 1 : 0, compression, Int32(quality), m)
        }
        try check(code)
    }

    deinit { ct_encoder_destroy(encoder) }

    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        try check(ct_encoder_write_rows(encoder, buffer.row(rows.lowerBound), buffer.stride, UInt32(rows.count)))
    }

    func finish() throws(ImageIOError) { try check(ct_encoder_finish(encoder, fd)) }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.encodeError(
            code, message: String(cString: ct_encoder_message(encoder)), errorNumber: ct_encoder_errno(encoder),
            path: path, format: "TIFF")
    }
}
