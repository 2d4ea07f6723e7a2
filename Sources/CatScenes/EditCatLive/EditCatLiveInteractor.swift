import CatFaces
import CatImageIO
import CatPixels
import CatSupport
import FilterCore

/// The live Edit Cat use cases: a preview-size copy of the cat, the chain run on it, a
/// name to suggest, and the edit itself for a save.
public protocol EditCatLiveInteractorInput: EditCatUseCase {
    /// `input` decoded just large enough for a preview of `sizes.preview` (a JPEG at a DCT
    /// scale, never 12 MP when 1 MP will do), upright and fitted to it, with the input's
    /// facts (full size, format, frames); and a smaller copy fitted to `sizes.thumbnail`.
    func openLive(_ input: EditInput, sizes: EditCatPictureSizes, options: DecodeOptions) async throws
        -> (preview: DecodedImage, thumbnail: PixelBuffer)
    /// Each chain run on a copy of `image`, a small copy of a picture `fullWidth` pixels
    /// wide, its values in pixels scaled to match (`FilterChain.scaled`); a chain that
    /// fails gives its error.
    func renderLive(_ image: PixelBuffer, fullWidth: Int, chains: [FilterChain]) async -> [Result<
        PixelBuffer, any Error
    >]
    /// `input` decoded at full size, upright (within `options`' limits): what `z` shows at 1:1.
    func openFull(_ input: EditInput, options: DecodeOptions) async throws -> PixelBuffer
    /// A name to suggest for saving: `path`, or `stem-2.ext`… when a file is there.
    func unusedName(_ path: String) async -> String
    /// The cats and their faces in `image` (a preview), in its pixels.
    func cats(in image: PixelBuffer) async -> CatFinding
    /// `input`'s frames to play, one at a time, or nil for a still image (or an image in hand).
    func openFrames(_ input: EditInput, options: DecodeOptions) async throws -> LiveFrames?
}

extension EditCatLiveInteractorInput {
    @concurrent
    public func cats(in image: PixelBuffer) async -> CatFinding { CatSubjects.find(in: image) }

    @concurrent
    public func openFrames(_ input: EditInput, options: DecodeOptions) async throws -> LiveFrames? {
        switch input {
        case .image: return nil
        case let .file(path):
            // A regular file only: a pipe read at the opening cannot be read again.
            return try await LiveFrames.open(
                bytes: try InputFile.read(path, special: .none), name: path, options: options)
        case let .bytes(data, label): return try await LiveFrames.open(bytes: data, name: label, options: options)
        }
    }
}

/// The real live interactor: the codecs and the filter core off the main actor; a save
/// is the one-shot scene's edit (`EditCatInteractor`), so it writes the same file.
public struct EditCatLiveInteractor: EditCatLiveInteractorInput {
    /// Threads for the filters.
    public let threads: Int
    private let edits: EditCatInteractor

    public init(threads: Int = CPUs.available) {
        self.threads = threads
        edits = EditCatInteractor(threads: threads)
    }

    public func edit(
        _ input: EditInput, to output: String, chain: FilterChain, options: EditOptions,
        events: @escaping @Sendable (EditEvent) -> Void
    ) async throws -> EditOutcome {
        try await edits.edit(input, to: output, chain: chain, options: options, events: events)
    }

    @concurrent
    public func openLive(_ input: EditInput, sizes: EditCatPictureSizes, options: DecodeOptions) async throws
        -> (preview: DecodedImage, thumbnail: PixelBuffer)
    {
        var options = options
        let box = sizes.preview
        // The smallest DCT scale that still covers the preview, whichever way the EXIF turns it.
        options.shrinkOnLoad = { width, height in
            [8, 4, 2].first { d in
                [(width, height), (height, width)].allSatisfy { w, h in
                    let scale = min(1, min(Double(box.width) / Double(w), Double(box.height) / Double(h)))
                    return Double(w / d) >= Double(w) * scale && Double(h / d) >= Double(h) * scale
                }
            } ?? 1
        }
        return try Self.pictures(of: Self.decode(input, options: options), sizes: sizes, threads: threads)
    }

    @concurrent
    public func openFull(_ input: EditInput, options: DecodeOptions) async throws -> PixelBuffer {
        try Self.decode(input, options: options).pixels
    }

    /// `input` decoded (an image in hand as it is).
    static func decode(_ input: EditInput, options: DecodeOptions) throws -> DecodedImage {
        switch input {
        case let .image(image): return image
        case let .file(path):
            return try ImageDecoder.decode(
                try InputFile.read(path), name: path == "-" ? "(stdin)" : path, options: options)
        case let .bytes(data, label): return try ImageDecoder.decode(data, name: label, options: options)
        }
    }

    @concurrent
    public func renderLive(_ image: PixelBuffer, fullWidth: Int, chains: [FilterChain]) async
        -> [Result<PixelBuffer, any Error>]
    {
        Self.render(image, fullWidth: fullWidth, chains: chains, threads: threads)
    }

    @concurrent
    public func unusedName(_ path: String) async -> String { OutputFile.unusedName(path) }

    // The pixel work, without files: what `openLive` and `renderLive` do with an image in
    // hand (test interactors call these too).

    /// `decoded` fitted to the preview size (its facts kept), and the preview fitted to the thumbnail size.
    public static func pictures(of decoded: DecodedImage, sizes: EditCatPictureSizes, threads: Int) throws
        -> (preview: DecodedImage, thumbnail: PixelBuffer)
    {
        func fit(_ image: PixelBuffer, _ box: (width: Int, height: Int)) throws -> PixelBuffer {
            let (w, h) = image.fittingSize(maxWidth: box.width, maxHeight: box.height)
            if (w, h) == (image.width, image.height) { return image }
            return try FilterChain.resize(fitting: w, h).apply(to: image, threads: threads)
        }
        let preview = try fit(decoded.pixels, sizes.preview)
        let thumbnail = try fit(preview, sizes.thumbnail)
        let fitted = DecodedImage(
            pixels: preview, format: decoded.format, orientation: decoded.orientation, fullWidth: decoded.fullWidth,
            fullHeight: decoded.fullHeight, metadata: decoded.metadata, frameCount: decoded.frameCount)
        return (fitted, thumbnail)
    }

    /// Each chain on a copy of `image`, its values in pixels scaled from `fullWidth` to `image`'s width.
    public static func render(_ image: PixelBuffer, fullWidth: Int, chains: [FilterChain], threads: Int)
        -> [Result<PixelBuffer, any Error>]
    {
        let factor = Double(image.width) / Double(max(1, fullWidth))
        return FilterChain.applyEach(chains.map { $0.scaled(by: factor) }, to: image, threads: threads)
    }
}
