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
        try decode(ImageReader(bytes: bytes, name: name, options: options), options: options)
    }

    /// Reads every row of a reader that has not read any yet (made with the same options).
    public static func decode(_ reader: ImageReader, options: DecodeOptions) throws(ImageIOError) -> DecodedImage {
        let buffer = try PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
        try reader.readAll(into: buffer)
        let upright = options.applyOrientation ? try ExifOrientation.apply(reader.orientation, to: buffer) : buffer
        let swaps = options.applyOrientation && reader.orientation >= 5
        return DecodedImage(pixels: upright, format: reader.format, orientation: reader.orientation,
                            fullWidth: swaps ? reader.fullHeight : reader.fullWidth,
                            fullHeight: swaps ? reader.fullWidth : reader.fullHeight)
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
}

/// Decodes a JPEG or PNG row by row: the headers are read (and the pixel limit checked)
/// when it is made, rows come out as RGBA8 on demand. The one decoding path: ImageDecoder
/// reads all rows at once, the streaming pipeline a strip at a time.
public final class ImageReader {
    public let format: ImageFormat
    /// Size of the rows this reader produces (smaller than the image with DCT scaling).
    public let width: Int
    public let height: Int
    /// The image's stored size (before DCT scaling and orientation).
    public let fullWidth: Int
    public let fullHeight: Int
    public let hasAlpha: Bool
    /// EXIF orientation (JPEG), not applied by the reader.
    public let orientation: Int
    /// Adam7: the rows cannot come out one strip at a time.
    public let interlaced: Bool
    public private(set) var rowsRead = 0
    let name: String
    private let jpeg: OpaquePointer?
    private let png: OpaquePointer?

    /// Rows can be read a strip at a time and come out upright.
    public var canStream: Bool { !interlaced && orientation == 1 }

    public init(bytes: [UInt8], name: String, options: DecodeOptions = DecodeOptions()) throws(ImageIOError) {
        self.name = name
        switch ImageFormat.sniff(bytes) {
        case .jpeg?:
            guard let d = bytes.withUnsafeBufferPointer({ cj_decoder_create($0.baseAddress, $0.count) }) else {
                throw .outOfMemory(bytes: bytes.count)
            }
            func fail(_ code: Int32) -> ImageIOError {
                defer { cj_decoder_destroy(d) }
                return Self.jpegError(code, message: String(cString: cj_decoder_message(d)), name: name)
            }
            var info = cj_info()
            var code = cj_decoder_read_header(d, &info)
            guard code == Int32(CJ_OK) else { throw fail(code) }
            do { try ImageDecoder.checkLimit(Int(info.width), Int(info.height), name: name, limit: options.maxPixels) } catch {
                cj_decoder_destroy(d)
                throw error
            }
            orientation = info.exif_length > 0
                ? ExifOrientation.parse(UnsafeBufferPointer(start: info.exif, count: info.exif_length)) : 1
            code = cj_decoder_start(d, Int32(options.scaleDenominator), Int32(options.maxProgressiveScans), &info)
            guard code == Int32(CJ_OK) else { throw fail(code) }
            format = .jpeg
            (width, height) = (Int(info.output_width), Int(info.output_height))
            (fullWidth, fullHeight) = (Int(info.width), Int(info.height))
            hasAlpha = false
            interlaced = false
            jpeg = d
            png = nil
        case .png?:
            guard let d = bytes.withUnsafeBufferPointer({ cp_decoder_create($0.baseAddress, $0.count) }) else {
                throw .outOfMemory(bytes: bytes.count)
            }
            var info = cp_info()
            let code = cp_decoder_read_header(d, &info)
            guard code == Int32(CP_OK) else {
                defer { cp_decoder_destroy(d) }
                throw Self.pngError(code, message: String(cString: cp_decoder_message(d)), name: name)
            }
            do { try ImageDecoder.checkLimit(Int(info.width), Int(info.height), name: name, limit: options.maxPixels) } catch {
                cp_decoder_destroy(d)
                throw error
            }
            format = .png
            (width, height) = (Int(info.width), Int(info.height))
            (fullWidth, fullHeight) = (width, height)
            hasAlpha = info.has_alpha != 0
            orientation = 1
            interlaced = info.interlaced != 0
            jpeg = nil
            png = d
        case nil:
            throw .notAnImage(file: name, head: Array(bytes.prefix(4)))
        }
    }

    deinit {
        if let jpeg { cj_decoder_destroy(jpeg) }
        if let png { cp_decoder_destroy(png) }
    }

    /// Decodes the next `count` rows into rows `at...` of `buffer`; after the last row the
    /// rest of the file is checked.
    public func readRows(into buffer: PixelBuffer, at row: Int = 0, count: Int) throws(ImageIOError) {
        precondition(count >= 0 && rowsRead + count <= height && row + count <= buffer.height && buffer.width == width)
        guard count > 0 else { return }
        if let jpeg {
            var read: UInt32 = 0
            let code = cj_decoder_read_rows(jpeg, buffer.row(row), buffer.stride, UInt32(count), &read)
            guard code == Int32(CJ_OK) else {
                throw Self.jpegError(code, message: String(cString: cj_decoder_message(jpeg)), name: name)
            }
        } else if let png {
            let code = cp_decoder_read_rows(png, buffer.row(row), buffer.stride, UInt32(count))
            guard code == Int32(CP_OK) else { throw Self.pngError(code, message: String(cString: cp_decoder_message(png)), name: name) }
        }
        rowsRead += count
        if rowsRead == height { try finish() }
    }

    /// Decodes the whole image (any interlace) into `buffer`.
    public func readAll(into buffer: PixelBuffer) throws(ImageIOError) {
        if let png, interlaced {
            var code = cp_decoder_read_image(png, buffer.base, buffer.stride)
            if code == Int32(CP_OK) { code = cp_decoder_finish(png) }
            guard code == Int32(CP_OK) else { throw Self.pngError(code, message: String(cString: cp_decoder_message(png)), name: name) }
            rowsRead = height
            return
        }
        try readRows(into: buffer, at: 0, count: height - rowsRead)
    }

    private func finish() throws(ImageIOError) {
        if let jpeg {
            let code = cj_decoder_finish(jpeg)
            guard code == Int32(CJ_OK) else { throw Self.jpegError(code, message: String(cString: cj_decoder_message(jpeg)), name: name) }
        } else if let png {
            let code = cp_decoder_finish(png)
            guard code == Int32(CP_OK) else { throw Self.pngError(code, message: String(cString: cp_decoder_message(png)), name: name) }
        }
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

    static func pngError(_ code: Int32, message: String, name: String) -> ImageIOError {
        switch code {
        case Int32(CP_ERR_TRUNCATED): return .truncated(file: name)
        case Int32(CP_ERR_NOMEM): return .outOfMemory(bytes: 0)
        default: return .corrupt(file: name, reason: message)
        }
    }
}
