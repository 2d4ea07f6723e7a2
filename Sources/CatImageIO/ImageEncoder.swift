import CatPixels
import CatSupport

/// The encoding settings asked for (`--quality 85`, `--lossless`, ...), the same for every
/// output of a run whatever its format, and which metadata the output keeps. A setting not
/// asked for is the output codec's default (`EncodeOptions`).
public struct EncodeSettings: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public var values: [EncoderSetting: SettingValue]
    public var metadata: MetadataPolicy

    public init(_ values: [EncoderSetting: SettingValue], metadata: MetadataPolicy = .keep) {
        self.values = values
        self.metadata = metadata
    }

    public init(dictionaryLiteral elements: (EncoderSetting, SettingValue)...) {
        self.init(Dictionary(uniqueKeysWithValues: elements))
    }

    public subscript(_ setting: EncoderSetting) -> SettingValue? {
        get { values[setting] }
        set { values[setting] = newValue }
    }
}

/// How to encode one output: its format, the settings asked for, and threads for the PNG
/// encoder's stripes, WebP's threading and GIF's frames.
public struct EncodeOptions: Sendable, Equatable {
    public var format: ImageFormat
    public var settings: EncodeSettings
    public var threads: Int
    /// The picture is grey (R = G = B, opaque): a PNG is written with one 8-bit channel (a
    /// mask); other formats write it as they write any picture.
    public var grey = false

    public init(
        format: ImageFormat, settings: EncodeSettings = [:],
        threads: Int = CPUs.available
    ) {
        self.format = format
        self.settings = settings
        self.threads = threads
    }

    public var metadata: MetadataPolicy { settings.metadata }

    /// A number setting as asked for, else the format's default (0 for a format without it).
    public func integer(_ setting: EncoderSetting) -> Int {
        if case let .integer(value)? = settings[setting] { return value }
        return format.controls.integer(setting)?.default ?? 0
    }

    /// A named setting as asked for, else the format's default ("" for a format without it).
    public func choice(_ setting: EncoderSetting) -> String {
        if case let .choice(value)? = settings[setting] { return value }
        return format.controls.choices(setting)?.default ?? ""
    }

    /// Lossless asked for (for a format that has both).
    public var lossless: Bool { settings[.lossless] == .flag(true) }
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
public final class ImageWriter: RowSink {
    private let encoder: any RowEncoder
    public let width: Int, height: Int
    public private(set) var rowsWritten = 0

    /// `metadata`: the input's, written as `options.metadata` says.
    public init(
        fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
        metadata: ImageMetadata = .none, options: EncodeOptions
    ) throws(ImageIOError) {
        (self.width, self.height) = (width, height)
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

extension ImageEncoder {
    /// Writes an animation to `fd`: every frame when the format holds animations (GIF,
    /// WebP), else the first frame alone. Returns the number of frames written.
    @discardableResult
    public static func encode(
        _ animation: Animation, to fd: Int32, path: String, options: EncodeOptions
    ) throws(ImageIOError) -> Int {
        let metadata = animation.metadata.kept(by: options.metadata)
        // Every frame is the animation's size: a codec reads each as width x height pixels.
        for frame in animation.frames where frame.width != animation.width || frame.height != animation.height {
            throw .writeFailed(
                path: path,
                reason: "a \(frame.width)x\(frame.height) frame in a \(animation.width)x\(animation.height) animation")
        }
        if let codec = ImageCodecs.codec(for: options.format) as? any AnimationCodec {
            try codec.write(animation, fd: fd, path: path, metadata: metadata, options: options)
            return animation.frames.count
        }
        try encode(animation.frames[0], to: fd, path: path, options: options, metadata: animation.metadata)
        return 1
    }
}
