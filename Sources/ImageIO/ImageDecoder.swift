import CJPEGShim
import CPNGShim

/// How to decode: limits and size.
public struct DecodeOptions: Sendable, Equatable {
    /// 100 MP: a 12 MP phone photo is far below it; 400 MB of RGBA is the most it allows.
    public static let defaultMaxPixels = 100_000_000
    /// More scans than any real progressive JPEG has; a hostile file may have thousands.
    public static let defaultMaxProgressiveScans = 500

    /// Images whose declared width·height exceed this are refused before any pixel
    /// memory is allocated.
    public var maxPixels: Int
    /// JPEG only: decode at 1/1, 1/2, 1/4 or 1/8 size through libjpeg's DCT scaling.
    public var scaleDenominator: Int
    /// Apply the EXIF orientation of a JPEG, so the image comes out upright.
    public var applyOrientation: Bool
    public var maxProgressiveScans: Int

    public init(maxPixels: Int = DecodeOptions.defaultMaxPixels, scaleDenominator: Int = 1,
                applyOrientation: Bool = true,
                maxProgressiveScans: Int = DecodeOptions.defaultMaxProgressiveScans) {
        self.maxPixels = maxPixels
        self.scaleDenominator = scaleDenominator
        self.applyOrientation = applyOrientation
        self.maxProgressiveScans = maxProgressiveScans
    }
}

/// A decoded image and what was learnt about the file on the way.
public struct DecodedImage: Sendable {
    public let pixels: PixelBuffer
    public let format: ImageFormat
    /// EXIF orientation 1–8 found in the file (1 when none); already applied when asked.
    public let orientation: Int
    /// The image's full size, upright when the orientation was applied (the pixels may be
    /// smaller: a JPEG decoded with DCT scaling).
    public let fullWidth: Int
    public let fullHeight: Int

    public init(pixels: PixelBuffer, format: ImageFormat, orientation: Int = 1,
                fullWidth: Int? = nil, fullHeight: Int? = nil) {
        self.pixels = pixels
        self.format = format
        self.orientation = orientation
        self.fullWidth = fullWidth ?? pixels.width
        self.fullHeight = fullHeight ?? pixels.height
    }
}

public enum ImageDecoder {
    /// Decodes a JPEG or PNG (recognised by its first bytes) to RGBA8.
    /// `name` is the file name used in error messages.
    public static func decode(_ bytes: [UInt8], name: String,
                              options: DecodeOptions = DecodeOptions()) throws(ImageIOError) -> DecodedImage {
        switch ImageFormat.sniff(bytes) {
        case .jpeg?: return try decodeJPEG(bytes, name: name, options: options)
        case .png?: return try decodePNG(bytes, name: name, options: options)
        case nil: throw .notAnImage(file: name, head: Array(bytes.prefix(4)))
        }
    }

    static func checkLimit(_ width: Int, _ height: Int, name: String, limit: Int) throws(ImageIOError) {
        guard width > 0, height > 0 else {
            throw .corrupt(file: name, reason: "declared size \(width)x\(height)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit {
            throw .tooLarge(file: name, width: width, height: height, limit: limit)
        }
    }

    // MARK: JPEG

    static func decodeJPEG(_ bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> DecodedImage {
        let decoder = bytes.withUnsafeBufferPointer { cj_decoder_create($0.baseAddress, $0.count) }
        guard let decoder else { throw .outOfMemory(bytes: bytes.count) }
        defer { cj_decoder_destroy(decoder) }
        func fail(_ code: Int32) -> ImageIOError {
            jpegError(code, message: String(cString: cj_decoder_message(decoder)), name: name)
        }

        var info = cj_info()
        var code = cj_decoder_read_header(decoder, &info)
        guard code == Int32(CJ_OK) else { throw fail(code) }
        try checkLimit(Int(info.width), Int(info.height), name: name, limit: options.maxPixels)
        let orientation = info.exif_length > 0
            ? ExifOrientation.parse(UnsafeBufferPointer(start: info.exif, count: info.exif_length)) : 1

        code = cj_decoder_start(decoder, Int32(options.scaleDenominator), Int32(options.maxProgressiveScans), &info)
        guard code == Int32(CJ_OK) else { throw fail(code) }
        let buffer = try PixelBuffer(width: Int(info.output_width), height: Int(info.output_height))
        var rows: UInt32 = 0
        code = cj_decoder_read_rows(decoder, buffer.base, buffer.stride, UInt32(buffer.height), &rows)
        guard code == Int32(CJ_OK) else { throw fail(code) }
        code = cj_decoder_finish(decoder)
        guard code == Int32(CJ_OK) else { throw fail(code) }

        let upright = options.applyOrientation ? try ExifOrientation.apply(orientation, to: buffer) : buffer
        let swaps = options.applyOrientation && orientation >= 5
        return DecodedImage(pixels: upright, format: .jpeg, orientation: orientation,
                            fullWidth: Int(swaps ? info.height : info.width), fullHeight: Int(swaps ? info.width : info.height))
    }

    static func jpegError(_ code: Int32, message: String, name: String) -> ImageIOError {
        switch code {
        case Int32(CJ_ERR_TRUNCATED): return .truncated(file: name)
        case Int32(CJ_ERR_UNSUPPORTED):
            if message.contains("precision 12") {
                return .unsupported(file: name, reason: "12-bit JPEG is not supported (\(message))")
            }
            return .unsupported(file: name, reason: message)
        case Int32(CJ_ERR_NOMEM): return .outOfMemory(bytes: 0)
        case Int32(CJ_ERR_LIMIT): return .limitExceeded(file: name, reason: message)
        default: return .corrupt(file: name, reason: message)
        }
    }

    // MARK: PNG

    static func decodePNG(_ bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) -> DecodedImage {
        let decoder = bytes.withUnsafeBufferPointer { cp_decoder_create($0.baseAddress, $0.count) }
        guard let decoder else { throw .outOfMemory(bytes: bytes.count) }
        defer { cp_decoder_destroy(decoder) }
        func fail(_ code: Int32) -> ImageIOError {
            let message = String(cString: cp_decoder_message(decoder))
            switch code {
            case Int32(CP_ERR_TRUNCATED): return .truncated(file: name)
            case Int32(CP_ERR_NOMEM): return .outOfMemory(bytes: 0)
            default: return .corrupt(file: name, reason: message)
            }
        }

        var info = cp_info()
        var code = cp_decoder_read_header(decoder, &info)
        guard code == Int32(CP_OK) else { throw fail(code) }
        try checkLimit(Int(info.width), Int(info.height), name: name, limit: options.maxPixels)
        let buffer = try PixelBuffer(width: Int(info.width), height: Int(info.height),
                                     hasAlpha: info.has_alpha != 0)
        code = cp_decoder_read_image(decoder, buffer.base, buffer.stride)
        guard code == Int32(CP_OK) else { throw fail(code) }
        code = cp_decoder_finish(decoder)
        guard code == Int32(CP_OK) else { throw fail(code) }
        return DecodedImage(pixels: buffer, format: .png, orientation: 1)
    }
}
