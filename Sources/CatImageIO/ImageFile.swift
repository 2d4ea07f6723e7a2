import CatPixels
import CatSupport

/// The one way catctl writes an image file: to an output path (`OutputFile`: atomic,
/// links followed, FIFOs straight through, confined to a batch's folder), through the
/// codec of `options.format` (`ImageWriter` rows, or an animating codec's frames), its
/// metadata as `options.metadata` says. Every scene writes through here, whatever the
/// codec and however the pixels come.
public enum ImageFile {
    /// What is written.
    public enum Content {
        /// One picture and the input's metadata.
        case image(PixelBuffer, metadata: ImageMetadata)
        /// Every frame when the format animates, else the first.
        case animation(Animation)
        /// A file already encoded in `options.format` (a download kept as it came).
        case encoded([UInt8])
    }

    /// Writes `content` to `output` ("-": standard output). Returns the frames written.
    /// `progress` hears the fraction of a picture's rows encoded.
    @discardableResult
    public static func write(
        _ content: Content, to output: String, within folder: OutputFolder? = nil, options: EncodeOptions,
        progress: ((Double) -> Void)? = nil
    ) throws(ImageIOError) -> Int {
        try write(content, to: OutputFile.prepare(output, within: folder), options: options, progress: progress)
    }

    /// Writes `content` to an output resolved and checked before the work (`OutputFile.prepare`).
    @discardableResult
    public static func write(
        _ content: Content, to output: PreparedOutput, options: EncodeOptions, progress: ((Double) -> Void)? = nil
    ) throws(ImageIOError) -> Int {
        var frames = 1
        try OutputFile.write(to: output) { (fd: Int32) throws(ImageIOError) in
            let path = displayName(output.path)
            switch content {
            case let .image(image, metadata):
                try ImageEncoder.encode(
                    image, to: fd, path: path, options: options, metadata: metadata, progress: progress)
            case let .animation(animation):
                frames = try ImageEncoder.encode(animation, to: fd, path: path, options: options)
            case let .encoded(bytes):
                try OutputFile.writeAll(bytes, to: fd, path: path)
            }
        }
        return frames
    }

    /// Writes a `width`×`height` picture to `output` a strip at a time: `rows` hands the
    /// writer its rows, top to bottom (the streaming pipeline, which knows no codec). What
    /// `rows` throws is thrown as it is, after the output is removed as on any failure.
    public static func stream(
        to output: PreparedOutput, width: Int, height: Int, hasAlpha: Bool, metadata: ImageMetadata,
        options: EncodeOptions, rows: (ImageWriter) throws -> Void
    ) throws {
        let name = displayName(output.path)
        try OutputFile.write(
            to: output,
            rethrowing: { fd in
                try rows(
                    ImageWriter(
                        fd: fd, path: name, width: width, height: height, hasAlpha: hasAlpha, metadata: metadata,
                        options: options))
            })
    }

    /// What errors call an output: "(stdout)" for "-".
    public static func displayName(_ output: String) -> String { output == "-" ? "(stdout)" : output }
}
