import CatPixels
import CatSupport

/// The decoders a process may run, for services that take files from strangers: as
/// libvips blocks its untrusted loaders (`VIPS_BLOCK_UNTRUSTED`) and ImageMagick's
/// `policy.xml` switches coders off, `CATCTL_FORMATS=jpeg,png,webp` (or `--formats`)
/// leaves every other decoder unreachable. Set once by the executable, before any file
/// is read; nil: every format.
public enum DecoderAllowList {
    private static let lock = Lock()
    nonisolated(unsafe) private static var allowed: (formats: Set<ImageFormat>, source: String)?

    public static var formats: Set<ImageFormat>? { lock.withLock { allowed?.formats } }
    /// Where the list came from, for messages: "--formats" or "CATCTL_FORMATS".
    static var source: String { lock.withLock { allowed?.source ?? "the allow-list" } }

    public static func set(_ formats: Set<ImageFormat>?, source: String) {
        lock.withLock { allowed = formats.map { ($0, source) } }
    }

    /// The formats a list names ("jpeg,png,webp"; names or extensions, any case), or the
    /// first word that names none.
    public static func parse(_ list: String) -> Result<Set<ImageFormat>, ParseFailure> {
        var formats = Set<ImageFormat>()
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.lowercased()
            guard let format = ImageFormat(fileExtension: name) ?? ImageFormat.all.first(where: { $0.name == name })
            else { return .failure(ParseFailure(word: String(word))) }
            formats.insert(format)
        }
        return .success(formats)
    }

    public struct ParseFailure: Error, Sendable {
        public let word: String
    }
}

/// How to decode: limits and size.
public struct DecodeOptions: Sendable {
    /// 100 MP: a 12 MP phone photo is far below it; 400 MB of RGBA is the most it allows.
    /// Animations count every frame.
    public static let defaultMaxPixels = 100_000_000
    /// Frames of an animated GIF or WebP: more than any real animation has (a 10-minute
    /// clip at 15 fps); a hostile file may declare millions of tiny frames.
    public static let defaultMaxFrames = 10_000
    /// More scans than any real progressive JPEG has; a hostile file may have thousands.
    public static let defaultMaxProgressiveScans = 500

    /// Images whose declared width·height exceed this are refused before any pixel
    /// memory is allocated.
    public var maxPixels: Int
    /// Animations with more frames are refused (before decoding any).
    public var maxFrames: Int
    /// JPEG only: decode at 1/1, 1/2, 1/4 or 1/8 size through libjpeg's DCT scaling.
    public var scaleDenominator: Int
    /// JPEG only, shrink-on-load: given the image's upright size (read from the headers),
    /// the DCT scale denominator to decode at; overrides `scaleDenominator`.
    public var shrinkOnLoad: (@Sendable (_ width: Int, _ height: Int) -> Int)?

    /// The largest DCT scale denominator (8, 4 or 2; else 1) that leaves a picture whose long
    /// side is `longSide` at least `side` pixels long: a copy for a measure that reads the
    /// picture at that size.
    public static func denominator(longSide: Int, keeping side: Int) -> Int {
        [8, 4, 2].first { longSide / $0 >= side } ?? 1
    }
    /// Apply the EXIF orientation of a JPEG, so the image comes out upright.
    public var applyOrientation: Bool
    public var maxProgressiveScans: Int
    /// Threads a codec whose library decodes in parallel may use (JPEG XL, HEIF).
    public var threads = CPUs.available
    /// The formats whose decoders may run; any other file is refused (65) before its
    /// decoder sees a byte. The process's allow-list (`DecoderAllowList`) unless set.
    public var formats: Set<ImageFormat>? = DecoderAllowList.formats

    public init(
        maxPixels: Int = DecodeOptions.defaultMaxPixels, maxFrames: Int = DecodeOptions.defaultMaxFrames,
        scaleDenominator: Int = 1, applyOrientation: Bool = true,
        maxProgressiveScans: Int = DecodeOptions.defaultMaxProgressiveScans
    ) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.scaleDenominator = scaleDenominator
        self.applyOrientation = applyOrientation
        self.maxProgressiveScans = maxProgressiveScans
    }

    /// Throws unless `formats` allows `format`'s decoder.
    func checkAllowed(_ format: ImageFormat, name: String) throws(ImageIOError) {
        guard let formats, !formats.contains(format) else { return }
        let allowed = ImageFormat.all.filter(formats.contains)
        throw .unsupported(
            file: name,
            reason: "\(format.displayName) files are not allowed here (\(DecoderAllowList.source) allows "
                + "\(allowed.isEmpty ? "none" : ImageFormat.names(of: allowed, "and")))")
    }

    /// The error for an animation with more than `maxFrames` frames.
    func tooManyFrames(name: String) -> ImageIOError {
        .limitExceeded(file: name, reason: "more than \(maxFrames) frames (raise the limit with --max-frames)")
    }

    /// Throws when a declared size is empty, has a side over `PixelError.maxSide` or is over
    /// `maxPixels`: codecs call this on the header, before allocating any pixel memory.
    func checkLimit(_ width: Int, _ height: Int, frames: Int = 1, name: String) throws(ImageIOError) {
        guard width > 0, height > 0 else {
            throw .corrupt(file: name, reason: "declared size \(width)x\(height)")
        }
        if frames > maxFrames { throw tooManyFrames(name: name) }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (all, o2) = pixels.multipliedReportingOverflow(by: max(1, frames))
        if o1 || o2 || all > maxPixels {
            throw .tooLarge(file: name, width: width, height: height, frames: max(1, frames), limit: maxPixels)
        }
        if max(width, height) > PixelError.maxSide {
            throw .limitExceeded(
                file: name, reason: "\(width)x\(height) has a side over 10,000,000 pixels, the longest catctl reads")
        }
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
    /// The file's metadata; its EXIF orientation says 1 once the orientation is applied.
    public let metadata: ImageMetadata
    /// Frames of an animation; `pixels` holds the first.
    public let frameCount: Int

    public init(
        pixels: PixelBuffer, format: ImageFormat, orientation: Int = 1,
        fullWidth: Int? = nil, fullHeight: Int? = nil, metadata: ImageMetadata = .none, frameCount: Int = 1
    ) {
        self.frameCount = frameCount
        self.pixels = pixels
        self.format = format
        self.orientation = orientation
        self.metadata = metadata
        self.fullWidth = fullWidth ?? pixels.width
        self.fullHeight = fullHeight ?? pixels.height
    }
}

public enum ImageDecoder {
    /// Rows decoded between two progress reports.
    static let progressRows = 128

    /// Decodes an image in any format catctl reads (recognised by its first bytes) to RGBA8.
    /// `name` is the file name used in error messages.
    public static func decode(
        _ bytes: [UInt8], name: String,
        options: DecodeOptions = DecodeOptions()
    ) throws(ImageIOError) -> DecodedImage {
        try decode(ImageReader(bytes: bytes, name: name, options: options), options: options)
    }

    /// Reads every row of a reader that has not read any yet (made with the same options).
    /// `progress` hears the fraction of rows decoded, a block of rows at a time.
    public static func decode(
        _ reader: ImageReader, options: DecodeOptions,
        progress: ((Double) -> Void)? = nil
    ) throws(ImageIOError) -> DecodedImage {
        let buffer = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
        }
        if let progress, !reader.interlaced {
            while reader.rowsRead < reader.height {
                try reader.readRows(
                    into: buffer, at: reader.rowsRead, count: min(progressRows, reader.height - reader.rowsRead))
                progress(Double(reader.rowsRead) / Double(reader.height))
            }
        } else {
            try reader.readAll(into: buffer)
        }
        let upright =
            options.applyOrientation
            ? try ImageIOError.allocating { () throws(PixelError) in
                try ExifOrientation.apply(reader.orientation, to: buffer)
            } : buffer
        let swaps = options.applyOrientation && reader.orientation >= 5
        return DecodedImage(
            pixels: upright, format: reader.format, orientation: reader.orientation,
            fullWidth: swaps ? reader.fullHeight : reader.fullWidth,
            fullHeight: swaps ? reader.fullWidth : reader.fullHeight,
            metadata: options.applyOrientation ? reader.metadata.upright() : reader.metadata,
            frameCount: reader.frameCount)
    }
}

/// Decodes an image row by row: the headers are read (and the pixel limit checked) when
/// it is made, rows come out as RGBA8 on demand. The one decoding path: ImageDecoder reads
/// all rows at once, the streaming pipeline a strip at a time. The codec is picked by the
/// first bytes (ImageCodecs).
public final class ImageReader: RowSource {
    public let format: ImageFormat
    /// Size of the rows this reader produces (smaller than the image with DCT scaling).
    public let width: Int
    public let height: Int
    /// The image's stored size (before DCT scaling and orientation).
    public let fullWidth: Int
    public let fullHeight: Int
    public let hasAlpha: Bool
    /// EXIF orientation (JPEG, PNG, WebP stills), not applied by the reader.
    public let orientation: Int
    /// Adam7, WebP: the rows cannot come out one strip at a time.
    public let interlaced: Bool
    /// ICC profile, EXIF (orientation as stored), XMP, comment.
    public let metadata: ImageMetadata
    /// Frames of an animation (1 for a still image); rows come from the first.
    public let frameCount: Int
    /// Pages of a multi-page file (TIFF; 1 for other formats); only the first is read.
    public let pageCount: Int
    public private(set) var rowsRead = 0
    private let decoder: any RowDecoder

    /// Rows can be read a strip at a time and come out upright.
    public var canStream: Bool { !interlaced && orientation == 1 }

    public convenience init(bytes: [UInt8], name: String, options: DecodeOptions = DecodeOptions())
        throws(ImageIOError)
    {
        try self.init(source: ImageSource(bytes: bytes), name: name, options: options)
    }

    /// A reader of a source that may be an open file (`ImageSource.open`), which a codec
    /// that reads as it goes (TIFF) never holds whole in memory.
    public init(source: ImageSource, name: String, options: DecodeOptions = DecodeOptions()) throws(ImageIOError) {
        let head = try source.head(ImageCodecs.headBytes)
        guard let codec = ImageCodecs.codec(recognizing: head) else { throw .notAnImage(file: name, head: head) }
        try options.checkAllowed(codec.format, name: name)
        decoder = try codec.makeDecoder(source: source, name: name, options: options)
        let info = decoder.info
        format = codec.format
        (width, height) = (info.width, info.height)
        (fullWidth, fullHeight) = (info.fullWidth, info.fullHeight)
        hasAlpha = info.hasAlpha
        // JPEG reads its orientation itself (for shrink-on-load); PNG and WebP carry theirs
        // in the same EXIF, applied the same way, as libvips's autorotate does.
        orientation =
            info.orientation != 1 || info.frameCount > 1
            ? info.orientation
            : info.metadata.exif.map { tiff in tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } } ?? 1
        interlaced = info.interlaced
        metadata = info.metadata
        frameCount = info.frameCount
        pageCount = info.pageCount
    }

    /// Every frame of an animation (or the one of a still image), composited as browsers
    /// show them; call instead of reading rows.
    public func readAnimation() throws(ImageIOError) -> Animation {
        precondition(rowsRead == 0, "rows were read already")
        var animation = try decoder.readFrames()
        animation.metadata = metadata
        rowsRead = height
        return animation
    }

    /// Frames read one at a time (`readFrame`).
    public private(set) var framesRead = 0

    /// The next frame of an animation, composited as browsers show it, into `buffer` (the
    /// reader's size): one frame in memory at a time, where `readAnimation` holds them all
    /// (a live scene playing it). Returns the frame's delay in milliseconds. Call instead of
    /// reading rows, at most `frameCount` times.
    public func readFrame(into buffer: PixelBuffer) throws(ImageIOError) -> Int {
        precondition(rowsRead == 0 && framesRead < frameCount && buffer.width == width && buffer.height == height)
        let delay = try decoder.readFrame(into: buffer)
        framesRead += 1
        return delay
    }

    /// Decodes the next `count` rows into rows `at...` of `buffer`; after the last row the
    /// rest of the file is checked.
    public func readRows(into buffer: PixelBuffer, at row: Int = 0, count: Int) throws(ImageIOError) {
        precondition(count >= 0 && rowsRead + count <= height && row + count <= buffer.height && buffer.width == width)
        guard count > 0 else { return }
        try decoder.readRows(into: buffer, at: row, count: count)
        rowsRead += count
        if rowsRead == height { try decoder.finish() }
    }

    /// Decodes the whole image (any interlace) into `buffer`.
    public func readAll(into buffer: PixelBuffer) throws(ImageIOError) {
        if rowsRead == 0 {
            try decoder.readImage(into: buffer)
            rowsRead = height
            return
        }
        try readRows(into: buffer, at: rowsRead, count: height - rowsRead)
    }
}
