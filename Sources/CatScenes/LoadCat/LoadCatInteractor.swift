import CatImageIO
import CatNetwork
import CatPixels
import CatSupport
import FilterCore

/// A cat in hand: the provider's reference, the bytes as downloaded, and its pixels.
public struct LoadedCat: Sendable {
    public let reference: CatReference
    public let bytes: [UInt8]
    /// Decoded at full size when an edit or a transcode needs it; otherwise possibly at
    /// reduced size (libjpeg DCT scaling), just enough for the preview.
    public let image: DecodedImage
    public let isFullSize: Bool
    public let preview: PixelBuffer?

    public init(reference: CatReference, bytes: [UInt8], image: DecodedImage, isFullSize: Bool, preview: PixelBuffer?) {
        self.reference = reference
        self.bytes = bytes
        self.image = image
        self.isFullSize = isFullSize
        self.preview = preview
    }
}

/// How to load: what the presenter needs from the cat.
public struct LoadCatUseCase: Sendable, Equatable {
    public var needsFullImage: Bool
    /// The largest preview picture, in pixels; nil: no preview.
    public var previewSize: (width: Int, height: Int)?
    public var maxPixels: Int
    public var maxFrames: Int

    public init(
        needsFullImage: Bool, previewSize: (width: Int, height: Int)?, maxPixels: Int,
        maxFrames: Int = DecodeOptions.defaultMaxFrames
    ) {
        self.needsFullImage = needsFullImage
        self.previewSize = previewSize
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
    }

    public static func == (a: LoadCatUseCase, b: LoadCatUseCase) -> Bool {
        a.needsFullImage == b.needsFullImage && a.maxPixels == b.maxPixels && a.maxFrames == b.maxFrames
            && a.previewSize?.width == b.previewSize?.width && a.previewSize?.height == b.previewSize?.height
    }
}

/// What a load goes through before its cat (or its error) comes back, in order.
public enum LoadCatEvent: Sendable, Equatable {
    /// The provider named a cat; its download starts.
    case found(CatReference)
    /// Bytes in so far.
    case received(LoadCatProgress)
    /// The bytes are in; decoding starts.
    case decoding
}

/// The Load Cat use cases, called by the presenter. The same style as Edit Cat's: each
/// returns its result (or throws), and a load tells `events` its steps as it goes.
@MainActor
public protocol LoadCatInteractorInput: AnyObject {
    /// Finds, downloads and decodes a cat, telling `events` each step. A load cancelled
    /// (`cancelLoad`) throws CancellationError.
    func loadCat(_ useCase: LoadCatUseCase, events: @escaping @MainActor (LoadCatEvent) -> Void) async throws
        -> LoadedCat
    /// Stops a load under way: the transfer is aborted at once. False when none was.
    @discardableResult
    func cancelLoad() -> Bool
    /// Saves the cat: its bytes unchanged when `options.format` is its format, else re-encoded
    /// (decoded again at full size when needed, within `maxPixels`).
    func saveCat(_ cat: LoadedCat, to output: String, options: EncodeOptions, maxPixels: Int) async throws
    /// A name to suggest for saving: `path`, or `stem-2.ext`… when a file is there.
    func unusedName(_ path: String) async -> String
}

extension LoadCatInteractorInput {
    public func unusedName(_ path: String) async -> String { OutputFile.unusedName(path) }
}

/// The real interactor: a provider over libcurl (or a folder), libjpeg/libpng.
@MainActor
public final class LoadCatInteractor: LoadCatInteractorInput {
    private let provider: any CatProvider
    private var task: Task<LoadedCat, any Error>?

    public init(provider: any CatProvider) { self.provider = provider }

    public func loadCat(_ useCase: LoadCatUseCase, events: @escaping @MainActor (LoadCatEvent) -> Void) async throws
        -> LoadedCat
    {
        let task = Task { try await run(useCase, events) }
        self.task = task
        defer { self.task = nil }
        do {
            return try await task.value
        } catch let error as NetworkError where error == .cancelled {
            throw CancellationError()
        } catch {
            if task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    @discardableResult
    public func cancelLoad() -> Bool {
        guard let task else { return false }
        task.cancel()
        return true
    }

    private func run(_ useCase: LoadCatUseCase, _ events: @MainActor (LoadCatEvent) -> Void) async throws
        -> LoadedCat
    {
        let provider = self.provider
        let reference = try await Self.locate(provider)
        events(.found(reference))

        // The transfer runs on its own thread; its progress reaches the events in order,
        // the latest value only when the view is slower than the network.
        let (progress, sink) = AsyncStream.makeStream(of: LoadCatProgress.self, bufferingPolicy: .bufferingNewest(1))
        async let download = Self.fetch(provider, reference, sink)
        for await step in progress { events(.received(step)) }
        let bytes = try await download

        try Task.checkCancellation()
        events(.decoding)
        let cat = try await Self.decode(bytes, reference, useCase)
        try Task.checkCancellation()
        return cat
    }

    @concurrent
    private static func locate(_ provider: any CatProvider) async throws -> CatReference {
        try await provider.locateCat()
    }

    @concurrent
    private static func fetch(
        _ provider: any CatProvider, _ reference: CatReference,
        _ sink: AsyncStream<LoadCatProgress>.Continuation
    ) async throws -> [UInt8] {
        defer { sink.finish() }
        return try await provider.fetchCat(reference) { received, expected in
            sink.yield(LoadCatProgress(received: received, expected: expected))
        }
    }

    /// Full size when needed; else the smallest JPEG DCT scale that still covers the
    /// preview (1/8 when there is no preview: the decode only proves it is a cat).
    @concurrent
    static func decode(_ bytes: [UInt8], _ reference: CatReference, _ useCase: LoadCatUseCase) async throws -> LoadedCat
    {
        let name = CatTitle.decodeName(reference)
        var options = DecodeOptions(maxPixels: useCase.maxPixels, maxFrames: useCase.maxFrames)
        if !useCase.needsFullImage {
            let probe = try ImageDecoder.decode(
                bytes, name: name,
                options: DecodeOptions(
                    maxPixels: useCase.maxPixels, maxFrames: useCase.maxFrames,
                    scaleDenominator: 8))
            let wanted = useCase.previewSize?.width ?? 1
            var scale = 8
            while scale > 1 && probe.fullWidth / scale < wanted { scale /= 2 }
            if scale == 8 || !probe.format.shrinksOnLoad {
                return try finish(probe, bytes, reference, useCase, full: !probe.format.shrinksOnLoad)
            }
            options.scaleDenominator = scale
        }
        let image = try ImageDecoder.decode(bytes, name: name, options: options)
        return try finish(image, bytes, reference, useCase, full: options.scaleDenominator == 1)
    }

    nonisolated private static func finish(
        _ image: DecodedImage, _ bytes: [UInt8], _ reference: CatReference,
        _ useCase: LoadCatUseCase, full: Bool
    ) throws -> LoadedCat {
        var preview: PixelBuffer?
        if let size = useCase.previewSize {
            let (w, h) = image.pixels.fittingSize(maxWidth: size.width, maxHeight: size.height)
            preview = try image.pixels.resampled(width: w, height: h, filter: .box)
        }
        return LoadedCat(reference: reference, bytes: bytes, image: image, isFullSize: full, preview: preview)
    }

    public func saveCat(_ cat: LoadedCat, to output: String, options: EncodeOptions, maxPixels: Int) async throws {
        try await Self.save(cat, to: output, options: options, maxPixels: maxPixels)
    }

    @concurrent
    private static func save(_ cat: LoadedCat, to output: String, options: EncodeOptions, maxPixels: Int) async throws {
        try OutputFile.checkCreatable(output)
        // The bytes as downloaded, unless metadata must go (that takes a new encode).
        if cat.image.format == options.format, options.metadata == .keep || cat.image.metadata.isEmpty {
            try ImageFile.write(.encoded(cat.bytes), to: output, options: options)
        } else {
            let image =
                cat.isFullSize
                ? cat.image
                : try ImageDecoder.decode(
                    cat.bytes, name: CatTitle.decodeName(cat.reference),
                    options: DecodeOptions(maxPixels: maxPixels))
            try ImageFile.write(.image(image.pixels, metadata: image.metadata), to: output, options: options)
        }
    }
}
