import CatSupport

/// How to encode.
public struct EncodeOptions: Sendable, Equatable {
    /// The compression level written when none is asked for (the codec's: PNG's 3).
    public static var defaultPNGLevel: Int { EncodingHelp.defaultLevel }

    public var format: ImageFormat
    /// The quality of a lossy format (its codec's `controls.quality`); nil: the format's default.
    public var quality: Int?
    /// The compression level of a format that has one (`controls.level`: PNG's zlib level).
    public var pngLevel: Int
    /// Lossless (the pixels a PNG would hold) instead of lossy, for a format that has both.
    public var lossless: Bool
    /// The encoder's effort (its codec's `controls.effort`); nil: the format's default.
    public var effort: Int?
    /// The compression method by name (`controls.compression`); nil: the format's default.
    public var compression: String?
    /// Which of the input's metadata the output keeps.
    public var metadata: MetadataPolicy
    /// Threads for the PNG encoder's stripes, WebP's threading, GIF's frames.
    public var threads: Int

    public init(
        format: ImageFormat, quality: Int? = nil, pngLevel: Int = EncodeOptions.defaultPNGLevel,
        lossless: Bool = false, effort: Int? = nil, compression: String? = nil, metadata: MetadataPolicy = .keep,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.format = format
        self.quality = quality
        self.pngLevel = pngLevel
        self.lossless = lossless
        self.effort = effort
        self.compression = compression
        self.metadata = metadata
        self.threads = threads
    }

    /// The quality asked for, else the codec's default (for codecs that have one).
    var qualityOrDefault: Int { quality ?? ImageCodecs.codec(for: format).controls.quality?.defaultValue ?? 0 }
    /// The effort asked for, else the codec's default.
    var effortOrDefault: Int { effort ?? ImageCodecs.codec(for: format).controls.effort?.defaultValue ?? 0 }
    /// The compression asked for, else the codec's default.
    var compressionOrDefault: String {
        compression ?? ImageCodecs.codec(for: format).controls.compression?.defaultValue ?? ""
    }
}

/// The encoding choices of a command line, the same for every output of a run (whatever
/// its format): scenes take these and make `EncodeOptions` once an output's format is known.
public struct EncodeSettings: Sendable, Equatable {
    public var quality: Int?
    public var pngLevel: Int
    public var lossless: Bool
    public var effort: Int?
    public var compression: String?
    public var metadata: MetadataPolicy

    public init(
        quality: Int? = nil, pngLevel: Int = EncodeOptions.defaultPNGLevel, lossless: Bool = false,
        effort: Int? = nil, compression: String? = nil, metadata: MetadataPolicy = .keep
    ) {
        self.quality = quality
        self.pngLevel = pngLevel
        self.lossless = lossless
        self.effort = effort
        self.compression = compression
        self.metadata = metadata
    }
}

extension EncodeOptions {
    public init(
        format: ImageFormat, settings: EncodeSettings, threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.init(
            format: format, quality: settings.quality, pngLevel: settings.pngLevel, lossless: settings.lossless,
            effort: settings.effort, compression: settings.compression, metadata: settings.metadata, threads: threads)
    }
}

public enum ImageEncoder {
    /// Encodes `image` to the open descriptor `fd`. `path` names the destination in errors.
    /// PNG keeps the alpha channel when the image has one; JPEG has none. `metadata` is
    /// written as `options.metadata` says. `progress` hears the fraction of rows encoded,
    /// a block of rows at a time.
    public static func encode(
        _ image: PixelBuffer, to fd: Int32, path: String, options: EncodeOptions,
        metadata: ImageMetadata = .none, progress: ((Double) -> Void)? = nil
    ) throws(ImageIOError) {
        let writer = try ImageWriter(
            fd: fd, path: path, width: image.width, height: image.height,
            hasAlpha: image.hasAlpha, metadata: metadata, options: options)
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

    /// `metadata`: the input's, written as `options.metadata` says.
    public init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata = .none, options: EncodeOptions
    ) throws(ImageIOError) {
        self.height = height
        encoder = try ImageCodecs.codec(for: options.format).makeEncoder(
            fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha,
            metadata: metadata.kept(by: options.metadata), options: options)
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
