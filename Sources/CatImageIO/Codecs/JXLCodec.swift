internal import CJXLShim
import CatPixels

extension ImageFormat {
    public static let jxl = ImageFormat("jxl")
}

/// JPEG XL through libjxl (CJXLShim): lossy and lossless stills, alpha, and animations
/// (frames coalesced by libjxl, durations in ms) in; lossy at a quality (libvips's
/// quality-to-distance mapping), or exactly lossless, out, at an effort. The ICC profile
/// and the Exif and XMP boxes are kept. libjxl applies the codestream's orientation
/// itself, so pixels come upright. libjxl decodes a whole picture at once, so JPEG XL
/// never streams.
struct JXLCodec: AnimationCodec {
    /// Why JPEG XL cannot be read or written here (libjxl or libjxl_threads could not be
    /// loaded: on Linux they are loaded when first needed), or nil.
    static func missingLibraries() -> String? {
        ShimCode.missingLibraries({ cx_available($0, $1) }, format: "JPEG XL", libraries: "libjxl")
    }

    var format: ImageFormat { .jxl }
    var displayName: String { "JPEG XL" }
    var fileExtensions: [String] { ["jxl"] }
    /// Quality 90 by default: libjxl's own default distance, 1.0 ("visually lossless").
    /// Effort 7 is libjxl's default (cjxl -e 7); 0 and 1 both give its fastest.
    var controls: EncoderControls {
        [.quality: .integer(1...100, default: 90), .lossless: .flag, .effort: .integer(0...9, default: 7)]
    }
    var shrinksOnLoad: Bool { false }
    /// Level 10's limit; beyond level 5 (262144) the file needs the container, which the
    /// encoder writes as needed.
    var maxDimension: Int { 1 << 30 }

    func recognizes(_ head: [UInt8]) -> Bool {
        // A bare codestream, or the ISO BMFF container's first box, "JXL ".
        head.starts(with: [0xFF, 0x0A])
            || head.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    }

    func makeDecoder(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> any RowDecoder {
        try JXLRowDecoder(bytes: bytes, name: name, options: options)
    }

    func write(
        _ animation: Animation, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        try checkSize(animation.width, animation.height, path: path)
        if let missing = Self.missingLibraries() { throw .cannotCreate(path: path, reason: missing) }
        guard
            let encoder = cx_anim_encoder_create(
                UInt32(animation.width), UInt32(animation.height), animation.hasAlpha ? 1 : 0,
                Int32(clamping: animation.loopCount ?? 0), Int32(options.integer(.quality)), options.lossless ? 1 : 0,
                Int32(options.integer(.effort)), Int32(clamping: options.threads))
        else { throw .pixels(.outOfMemory(bytes: animation.width * animation.height * 4)) }
        defer { cx_anim_encoder_destroy(encoder) }
        func check(_ code: Int32, _ errorNumber: Int32 = 0) throws(ImageIOError) {
            guard code != ShimCode.ok else { return }
            throw ShimCode.encodeError(
                code, message: String(cString: cx_anim_encoder_message(encoder)), errorNumber: errorNumber,
                path: path, format: displayName)
        }
        for (frame, delay) in zip(animation.frames, animation.delays) {
            try check(cx_anim_encoder_add(encoder, frame.base, frame.stride, Int32(clamping: max(0, delay))))
        }
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            cx_anim_encoder_finish(encoder, fd, m, &errorNumber)
        }
        try check(code, errorNumber)
    }

    func writeStill(
        _ image: PixelBuffer, fd: Int32, path: String, metadata: ImageMetadata, options: EncodeOptions
    ) throws(ImageIOError) {
        var message = [CChar](repeating: 0, count: 256)
        var errorNumber: Int32 = 0
        let code = try withCMetadata(metadata) { (m: UnsafePointer<cs_metadata>) throws(ImageIOError) in
            cx_encode_image(
                fd, image.base, image.stride, UInt32(image.width), UInt32(image.height), image.hasAlpha ? 1 : 0,
                Int32(options.integer(.quality)), options.lossless ? 1 : 0, Int32(options.integer(.effort)),
                Int32(clamping: options.threads), m, &message, message.count, &errorNumber)
        }
        guard code != ShimCode.ok else { return }
        throw ShimCode.encodeError(
            code, message: ShimCode.text(message), errorNumber: errorNumber, path: path, format: displayName,
            bytes: image.byteCount)
    }
}

final class JXLRowDecoder: WholePictureDecoder {
    let info: RowDecoderInfo
    let loopCount: Int?
    var rows = WholeImageRows()
    private let decoder: OpaquePointer
    private let name: String
    private let threads: Int32

    init(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        if let missing = JXLCodec.missingLibraries() { throw .unsupported(file: name, reason: missing) }
        guard let d = bytes.withUnsafeBufferPointer({ cx_decoder_create($0.baseAddress, $0.count) }) else {
            throw .pixels(.outOfMemory(bytes: bytes.count))
        }
        var header = cx_info()
        // JPEG XL declares no frame count up front: the shim counts frame headers (no pixel
        // is decoded) and stops past `maxFrames`. The sizes are checked here, with the same
        // messages as other formats.
        let code = cx_decoder_read_header(
            d, UInt64(options.maxPixels), UInt32(clamping: options.maxFrames), &header)
        let (width, height, frames) = (Int(header.width), Int(header.height), Int(header.frame_count))
        do throws(ImageIOError) {
            let message = String(cString: cx_decoder_message(d))
            if code == ShimCode.limit {
                try options.checkLimit(width, height, name: name)
                if message.hasPrefix("the file has more than") { throw options.tooManyFrames(name: name) }
            }
            guard code == ShimCode.ok else {
                throw ShimCode.decodeError(code, message: message, name: name)
            }
            try options.checkLimit(width, height, frames: frames, name: name)
        } catch {
            cx_decoder_destroy(d)
            throw error
        }
        info = RowDecoderInfo(
            width: width, height: height, fullWidth: width, fullHeight: height, hasAlpha: header.has_alpha != 0,
            interlaced: true,
            metadata: ImageMetadata(shim: header.metadata, uprightExif: true),
            frameCount: frames)
        loopCount = Int(header.loop_count)
        threads = Int32(clamping: options.threads)
        decoder = d
        self.name = name
    }

    deinit { cx_decoder_destroy(decoder) }

    func readImage(into buffer: PixelBuffer) throws(ImageIOError) {
        try check(cx_decoder_read_image(decoder, buffer.base, buffer.stride, threads))
    }

    func nextFrame(into frame: PixelBuffer) throws(ImageIOError) -> Int {
        var delay: Int32 = 0
        try check(cx_decoder_next_frame(decoder, frame.base, frame.stride, threads, &delay))
        return Int(delay)
    }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != ShimCode.ok else { return }
        throw ShimCode.decodeError(code, message: String(cString: cx_decoder_message(decoder)), name: name)
    }
}
