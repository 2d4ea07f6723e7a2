import FilterCore
import Foundation
import ImageIO

/// The Edit Cat use cases: read and decode an image, filter it, save it.
public protocol EditCatInteractorInput: Sendable {
    /// Fails early when `output` could not be written (folder missing, is the input).
    func prepareOutput(_ output: String, input: String?, force: Bool) async throws
    func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage
    func applyFilters(_ chain: FilterChain, to image: PixelBuffer) async throws -> PixelBuffer
    func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws
    /// Reads `input` once. When the chain and the file allow it, streams it through the
    /// chain into `output` a strip at a time (StreamingPipeline) and returns `.streamed`;
    /// otherwise decodes it whole and returns `.decoded` for the caller to filter and save.
    func open(_ input: String, streamingTo output: String, chain: FilterChain, options: EncodeOptions,
              decode: DecodeOptions) async throws -> EditSource
    /// One contact sheet: every chain applied to a thumbnail of `image`, labelled; and a
    /// smaller preview of each tile, `previewWidth` pixels wide, when asked for.
    func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws -> ContactSheet
}

/// What `open` did with the input.
public enum EditSource: Sendable {
    /// Filtered and saved already, a strip at a time.
    case streamed(DecodedInfo)
    /// Decoded whole: still to be filtered and saved.
    case decoded(DecodedImage)
}

/// What a streaming edit decoded.
public struct DecodedInfo: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

/// The real interactor: files, libjpeg/libpng and the filter core, off the main actor.
public struct EditCatInteractor: EditCatInteractorInput {
    public let threads: Int

    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.threads = threads
    }

    @concurrent
    public func prepareOutput(_ output: String, input: String?, force: Bool) async throws {
        try OutputFile.checkCreatable(output, input: input, force: force)
    }

    @concurrent
    public func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage {
        let bytes = try InputFile.read(input)
        return try ImageDecoder.decode(bytes, name: input == "-" ? "(stdin)" : input, options: options)
    }

    @concurrent
    public func applyFilters(_ chain: FilterChain, to image: PixelBuffer) async throws -> PixelBuffer {
        try chain.apply(to: image, threads: threads)
    }

    @concurrent
    public func open(_ input: String, streamingTo output: String, chain: FilterChain, options: EncodeOptions,
                     decode: DecodeOptions) async throws -> EditSource {
        let bytes = try InputFile.read(input)
        let reader = try ImageReader(bytes: bytes, name: input == "-" ? "(stdin)" : input, options: decode)
        guard StreamingPipeline.canStream(chain, reader) else {
            return .decoded(try ImageDecoder.decode(reader, options: decode))
        }
        let name = output == "-" ? "(stdout)" : output
        try OutputFile.write(to: output) { (fd: Int32) throws(ImageIOError) in
            let writer = try ImageWriter(fd: fd, path: name, width: reader.width, height: reader.height,
                                         hasAlpha: reader.hasAlpha, options: options)
            try StreamingPipeline.run(reader: reader, writer: writer, chain: chain)
        }
        return .streamed(DecodedInfo(format: reader.format, width: reader.width, height: reader.height))
    }

    @concurrent
    public func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws -> ContactSheet {
        try ContactSheet.make(of: image, chains: chains, previewWidth: previewWidth, threads: threads)
    }

    @concurrent
    public func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws {
        let name = output == "-" ? "(stdout)" : output
        try OutputFile.write(to: output) { (fd: Int32) throws(ImageIOError) in
            try ImageEncoder.encode(image, to: fd, path: name, options: options)
        }
    }
}
