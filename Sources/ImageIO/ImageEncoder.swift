import Foundation

/// How to encode.
public struct EncodeOptions: Sendable, Equatable {
    public static let defaultJPEGQuality = 90
    /// zlib level 3 with adaptive row filters: smaller than libvips's default PNGs, in half the time
    /// (see Benchmarks/compare-vips.sh).
    public static let defaultPNGLevel = 3
    public static let jpegQualityRange = 1...100
    public static let pngLevelRange = 0...9

    public var format: ImageFormat
    /// 1–100 (`jpegQualityRange`).
    public var jpegQuality: Int
    /// zlib level 0–9 (`pngLevelRange`).
    public var pngLevel: Int
    /// Threads for the PNG encoder's stripes.
    public var threads: Int

    public init(
        format: ImageFormat, jpegQuality: Int = EncodeOptions.defaultJPEGQuality,
        pngLevel: Int = EncodeOptions.defaultPNGLevel,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.format = format
        self.jpegQuality = jpegQuality
        self.pngLevel = pngLevel
        self.threads = threads
    }
}

public enum ImageEncoder {
    /// Encodes `image` to the open descriptor `fd`. `path` names the destination in errors.
    /// PNG keeps the alpha channel when the image has one; JPEG has none. `progress` hears
    /// the fraction of rows encoded, a block of rows at a time.
    public static func encode(
        _ image: PixelBuffer, to fd: Int32, path: String, options: EncodeOptions,
        progress: ((Double) -> Void)? = nil
    ) throws(ImageIOError) {
        let writer = try ImageWriter(
            fd: fd, path: path, width: image.width, height: image.height,
            hasAlpha: image.hasAlpha, options: options)
        let block = progress == nil ? image.height : ImageDecoder.progressRows
        var y = 0
        while y < image.height {
            let n = min(block, image.height - y)
            try writer.write(image, rows: y..<y + n)
            y += n
            progress?(Double(y) / Double(image.height))
        }
        try writer.finish()
    }
}

/// Encodes rows as they come (top to bottom) to a file descriptor, through the codec of
/// `options.format`. The one encoding path: ImageEncoder writes all rows at once, the
/// streaming pipeline a strip at a time, so both give the same bytes.
public final class ImageWriter {
    private let encoder: any RowEncoder
    public let height: Int
    public private(set) var rowsWritten = 0

    public init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        options: EncodeOptions
    ) throws(ImageIOError) {
        self.height = height
        encoder = try ImageCodecs.codec(for: options.format).makeEncoder(
            fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha, options: options)
    }

    /// Encodes `rows` of `buffer` as the next rows of the image.
    public func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        try encoder.write(buffer, rows: rows)
        rowsWritten += rows.count
    }

    /// Ends the file; every row must have been written.
    public func finish() throws(ImageIOError) {
        precondition(rowsWritten == height, "\(rowsWritten) of \(height) rows written")
        try encoder.finish()
    }
}

func errnoReason(_ code: Int32, fallback: String = "") -> String {
    switch code {
    case ENOSPC: return "no space left on the device"
    case 0: return fallback
    default: return String(cString: strerror(code))
    }
}
