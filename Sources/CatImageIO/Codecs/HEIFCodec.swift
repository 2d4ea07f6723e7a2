internal import CHEIFShim
import CatPixels

extension ImageFormat {
    public static let heic = ImageFormat("heic")
    public static let avif = ImageFormat("avif")
}

/// HEIC (HEVC in HEIF, as iPhones write it) and AVIF (AV1 in HEIF) through libheif
/// (CHEIFShim), and AVIF sequences through libavif. Read: the primary image, grids
/// assembled, irot/imir applied (an EXIF orientation inside HEIF is informational and is
/// reset), 10- and 12-bit down to 8, alpha from its auxiliary image, the ICC profile (or
/// one made from the nclx colour box), EXIF and XMP; an AVIF sequence (libavif) or a HEIF
/// image sequence (its HEVC track, CHEIFShim/hevc_sequence.c) reads as an animation. Written: lossy at a quality, or lossless (4:4:4, identity matrix), at an
/// effort; one frame (libheif 1.15 writes no sequence). libheif decodes a whole picture at
/// once, so HEIF never streams in; rows stream out into libheif's own image.
struct HEIFCodec: ImageCodec {
    /// Why HEIC and AVIF cannot be read or written here (libheif, libavif or libde265 could
    /// not be loaded: on Linux they are loaded when first needed), or nil.
    static func missingLibraries() -> String? {
        ShimCode.missingLibraries(
            { ch_available($0, $1) }, format: "HEIC and AVIF", libraries: "libheif, libavif, libde265 and dav1d")
    }

    enum Kind: Sendable { case heic, avif }
    let kind: Kind

    var format: ImageFormat { kind == .heic ? .heic : .avif }
    var displayName: String { kind == .heic ? "HEIC" : "AVIF" }
    var fileExtensions: [String] { kind == .heic ? ["heic", "heif"] : ["avif"] }
    /// Quality 50 for HEIC and AVIF as libvips (heifsave's default Q): both codecs look good
    /// far lower on their scale than JPEG. Effort 4 is libvips's default too.
    var controls: EncoderControls {
        [.quality: .integer(1...100, default: 50), .lossless: .flag, .effort: .integer(0...9, default: 4)]
    }
    var shrinksOnLoad: Bool { false }

    /// Major brands of HEVC-coded HEIF files, and of AV1-coded (AVIF) ones.
    static let heicBrands = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    static let avifBrands = ["avif", "avis"]

    func recognizes(_ head: [UInt8]) -> Bool {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let major = String(decoding: head[8..<12], as: UTF8.self)
        // The generic brands (mif1, msf1) say HEIF, not which codec: the compatible brands
        // that follow (as far as the head reaches) tell AVIF apart.
        let compatible = stride(from: 16, to: head.count - 3, by: 4).map {
            String(decoding: head[$0..<$0 + 4], as: UTF8.self)
        }
        let isAVIF =
            Self.avifBrands.contains(major)
            || ["mif1", "msf1"].contains(major) && compatible.contains(where: Self.avifBrands.contains)
        let isHEIF = isAVIF || Self.heicBrands.contains(major) || ["mif1", "msf1"].contains(major)
        return isHEIF && (kind == .avif) == isAVIF
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try HEIFRowDecoder(bytes: bytes, name: name, options: options)
    }

    func makeEncoder(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) -> any RowEncoder {
        guard width <= 65535, height <= 65535 else {
            throw .cannotCreate(
                path: path, reason: "\(displayName) cannot hold \(width)x\(height) pixels (65535 at most); use .png")
        }
        return try HEIFRowsEncoder(
            fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha, metadata: metadata,
            settings: ch_encode_options(
                format: Int32(kind == .heic ? CH_FORMAT_HEIC : CH_FORMAT_AVIF),
                quality: Int32(options.integer(.quality)),
                lossless: options.lossless ? 1 : 0, effort: Int32(options.integer(.effort)),
                threads: Int32(clamping: min(16, options.threads))),
            format: displayName)
    }
}

final class HEIFRowDecoder: WholePictureDecoder {
    let info: RowDecoderInfo
    var rows = WholeImageRows()
    private let decoder: OpaquePointer
    private let name: String
    private let threads: Int32

    /// A sequence loops forever, as browsers play one.
    var loopCount: Int? { info.frameCount > 1 ? 0 : nil }

    init(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        if let missing = HEIFCodec.missingLibraries() { throw .unsupported(file: name, reason: missing) }
        guard let d = bytes.withUnsafeBufferPointer({ ch_decoder_create($0.baseAddress, $0.count) }) else {
            throw .pixels(.outOfMemory(bytes: bytes.count))
        }
        // The allow-list names HEIC and AVIF apart; the file's brand does not decide the codec.
        let allows = { (format: ImageFormat) in options.formats?.contains(format) ?? true }
        ch_decoder_allow_codecs(
            d, (allows(.heic) ? UInt32(CH_CODEC_HEVC) : 0) | (allows(.avif) ? UInt32(CH_CODEC_AV1) : 0))
        var header = ch_info()
        let code = ch_decoder_read_header(
            d, UInt64(options.maxPixels), UInt32(clamping: options.maxFrames), &header)
        let (width, height, frames) = (Int(header.width), Int(header.height), max(1, Int(header.frame_count)))
        do throws(ImageIOError) {
            if code == ShimCode.limit {
                // The message of other formats where the size is known; libheif's own words where
                // its parse stopped first.
                if frames > options.maxFrames { throw options.tooManyFrames(name: name) }
                if width > 0, height > 0 { try options.checkLimit(width, height, frames: frames, name: name) }
            }
            guard code == ShimCode.ok else {
                throw ShimCode.decodeError(code, message: String(cString: ch_decoder_message(d)), name: name)
            }
            try options.checkLimit(width, height, frames: frames, name: name)
        } catch {
            ch_decoder_destroy(d)
            throw error
        }
        info = RowDecoderInfo(
            width: width, height: height, fullWidth: width, fullHeight: height, hasAlpha: header.has_alpha != 0,
            interlaced: true,
            metadata: ImageMetadata(shim: header.metadata, uprightExif: true),
            frameCount: frames)
        threads = options.threads > 1 ? 1 : 0
        decoder = d
        self.name = name
    }

    deinit { ch_decoder_destroy(decoder) }

    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        try check(ch_decoder_read_image(decoder, buffer.base, buffer.stride, threads))
    }

    func nextFrame(into frame: PixelBuffer) throws(ImageIOError) -> Int {
        var delay: Int32 = 0
        try check(ch_decoder_next_frame(decoder, frame.base, frame.stride, threads, &delay))
        return Int(delay)
    }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.decodeError(code, message: String(cString: ch_decoder_message(decoder)), name: name)
    }
}

/// Rows copied into libheif's own image as they come, encoded at `finish`.
final class HEIFRowsEncoder: RowEncoder {
    private let encoder: OpaquePointer
    private let fd: Int32, path: String, metadata: ImageMetadata
    private var settings: ch_encode_options
    private let format: String

    init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool, metadata: ImageMetadata,
        settings: ch_encode_options, format: String
    ) throws(ImageIOError) {
        if let missing = HEIFCodec.missingLibraries() { throw .cannotCreate(path: path, reason: missing) }
        guard let e = ch_rows_encoder_create(UInt32(width), UInt32(height), hasAlpha ? 1 : 0) else {
            throw .pixels(.outOfMemory(bytes: width * height * 4))
        }
        encoder = e
        (self.fd, self.path, self.metadata, self.settings, self.format) = (fd, path, metadata, settings, format)
    }

    deinit { ch_rows_encoder_destroy(encoder) }

    func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        let code = ch_rows_encoder_add(encoder, buffer.row(rows.lowerBound), buffer.stride, UInt32(rows.count))
        guard code == ShimCode.ok else {
            throw ShimCode.encodeError(code, message: "rows", errorNumber: 0, path: path, format: format)
        }
    }

    func finish() throws(ImageIOError) {
        var message = [CChar](repeating: 0, count: 256)
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { m throws(ImageIOError) in
            ch_rows_encoder_finish(encoder, fd, &settings, m, &message, message.count, &errorNumber)
        }
        guard code != ShimCode.ok else { return }
        throw ShimCode.encodeError(
            code, message: ShimCode.text(message), errorNumber: errorNumber, path: path, format: format)
    }
}
