internal import CPNGShim
import CatPixels

extension ImageFormat {
    public static let png = ImageFormat("png")
}

/// PNG: decoded through libpng (CPNGShim) — every colour type and bit depth, tRNS, Adam7,
/// 16-bit rounded to 8 — and written by PNGStreamWriter (adaptive filters, parallel deflate).
struct PNGCodec: ImageCodec {
    var format: ImageFormat { .png }
    var displayName: String { "PNG" }
    var fileExtensions: [String] { ["png"] }
    /// zlib level 3 with adaptive row filters by default: smaller than libvips's default
    /// PNGs, in half the time (see Benchmarks/compare-vips.sh).
    var controls: EncoderControls { [.level: .integer(0...9, default: 3)] }
    var shrinksOnLoad: Bool { false }

    /// Only "\x89PNG" is checked, so that libpng can say what is wrong with the rest of a
    /// damaged signature (e.g. "corrupted by ASCII conversion").
    func recognizes(_ head: [UInt8]) -> Bool {
        head.starts(with: [0x89, 0x50, 0x4E, 0x47])
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try PNGRowDecoder(bytes: bytes, name: name, options: options)
    }

    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        try PNGStreamWriter(
            fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha, grey: options.grey,
            level: options.integer(.level), threads: options.threads, metadata: metadata)
    }
}

final class PNGRowDecoder: RowDecoder {
    let info: RowDecoderInfo
    private let decoder: OpaquePointer
    private let name: String

    init(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        guard let d = bytes.withUnsafeBufferPointer({ cp_decoder_create($0.baseAddress, $0.count) }) else {
            throw .pixels(.outOfMemory(bytes: bytes.count))
        }
        var header = cp_info()
        cp_decoder_set_max_pixels(d, UInt64(options.maxPixels))
        let code = cp_decoder_read_header(d, &header)
        if code == ShimCode.limit {
            defer { cp_decoder_destroy(d) }
            try options.checkLimit(Int(header.width), Int(header.height), name: name)
        }
        guard code == ShimCode.ok else {
            defer { cp_decoder_destroy(d) }
            throw ShimCode.decodeError(code, message: String(cString: cp_decoder_message(d)), name: name)
        }
        do {
            try options.checkLimit(Int(header.width), Int(header.height), name: name)
        } catch {
            cp_decoder_destroy(d)
            throw error
        }
        let (width, height) = (Int(header.width), Int(header.height))
        info = RowDecoderInfo(
            width: width, height: height, fullWidth: width, fullHeight: height, hasAlpha: header.has_alpha != 0,
            interlaced: header.interlaced != 0,
            metadata: ImageMetadata(shim: header.metadata))
        decoder = d
        self.name = name
    }

    deinit { cp_decoder_destroy(decoder) }

    func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws(ImageIOError) {
        try check(cp_decoder_read_rows(decoder, buffer.row(row), buffer.stride, UInt32(count)))
    }

    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        try check(cp_decoder_read_image(decoder, buffer.base, buffer.stride))
        try finish()
    }

    func finish() throws(ImageIOError) { try check(cp_decoder_finish(decoder)) }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.decodeError(code, message: String(cString: cp_decoder_message(decoder)), name: name)
    }
}
