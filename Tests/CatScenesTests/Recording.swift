import CatFaces
import CatImageIO
import CatPixels
import CatScenes
import FilterCore

/// A view that records every call, in order, as the original app's tests did.
@MainActor
final class RecordingEditCatView: EditCatView {
    enum Call: Equatable {
        case state(EditCatState)
        case progress(EditCatProgress)
        case imageInfo(EditCatImageInfo)
        case gallery(EditCatGallery)
        case saved(EditCatResult)
        case error(SceneFailure)
    }

    private(set) var calls: [Call] = []

    func updateProcessingState(_ state: EditCatState) { calls.append(.state(state)) }
    func updateProgress(_ progress: EditCatProgress) { calls.append(.progress(progress)) }
    func showImageInfo(_ info: EditCatImageInfo) { calls.append(.imageInfo(info)) }
    func showGallery(_ gallery: EditCatGallery) { calls.append(.gallery(gallery)) }
    func showSaved(_ result: EditCatResult) { calls.append(.saved(result)) }
    func showError(_ failure: SceneFailure) { calls.append(.error(failure)) }
}

/// The live editor's recording view.
@MainActor
final class RecordingEditCatLiveView: EditCatLiveView {
    enum Call: Equatable {
        case state(EditCatLiveState)
        case progress(EditCatProgress)
        case imageInfo(EditCatImageInfo)
        case saved(EditCatResult)
        case error(SceneFailure)
        case live(EditCatLive)
        case ask(String)
        case askBeforeQuitting
        case quit
    }

    private(set) var calls: [Call] = []
    private(set) weak var presenter: (any EditCatLiveViewOutput)?
    var livePictureSizes = EditCatPictureSizes(preview: (200, 150), thumbnail: (40, 30))
    /// The last live state shown.
    var live: EditCatLive? {
        for case let .live(live) in calls.reversed() { return live }
        return nil
    }

    func attach(_ presenter: any EditCatLiveViewOutput) { self.presenter = presenter }
    func updateState(_ state: EditCatLiveState) { calls.append(.state(state)) }
    func updateProgress(_ progress: EditCatProgress) { calls.append(.progress(progress)) }
    func showImageInfo(_ info: EditCatImageInfo) { calls.append(.imageInfo(info)) }
    func showSaved(_ result: EditCatResult) { calls.append(.saved(result)) }
    func showError(_ failure: SceneFailure) { calls.append(.error(failure)) }
    func showLiveEdit(_ live: EditCatLive) { calls.append(.live(live)) }
    func askForOutput(suggested: String) { calls.append(.ask(suggested)) }
    func askBeforeQuitting() { calls.append(.askBeforeQuitting) }
    /// The animation frames shown, apart from `calls` (they come on a clock of their own).
    private(set) var frames: [EditCatLiveFrame] = []
    func showFrame(_ frame: EditCatLiveFrame) { frames.append(frame) }
    func quit() { calls.append(.quit) }
}

/// An in-memory interactor: serves one image, records what it is asked, fails on cue. It
/// serves both Edit Cat scenes; the live editor's pixel work (a preview copy, chains run
/// on it) is the filter core's, asked for by name below, and no file is read but the
/// missing one a test names.
final class FakeEditCatInteractor: EditCatInteractorInput, EditCatLiveInteractorInput, @unchecked Sendable {
    /// Where an edit fails: before the input is open (prepare, load) or after it is filtered (save).
    enum Step: Equatable { case prepare, load, filter, save }
    enum Call: Equatable {
        case edit(
            input: String, output: String, filters: [String], format: ImageFormat, settings: EncodeSettings,
            maxPixels: Int, force: Bool)
        case prepare(output: String, input: String?, force: Bool)
        case load(String, maxPixels: Int)
        case save(output: String, format: ImageFormat, settings: EncodeSettings)
        case contactSheet(chains: Int, previewWidth: Int?)
    }

    let image: DecodedImage
    let failure: (Step, any Error)?
    private(set) var calls: [Call] = []
    private(set) var filtered: PixelBuffer?

    init(image: DecodedImage, failing failure: (Step, any Error)? = nil) {
        self.image = image
        self.failure = failure
    }

    private func fail(at step: Step) throws {
        if let failure, failure.0 == step { throw failure.1 }
    }

    /// Tells the events a whole-image edit tells: opened, then progress at half and at the end.
    func edit(
        _ input: EditInput, to output: String, chain: FilterChain, options: EditOptions,
        events: @escaping @Sendable (EditEvent) -> Void
    ) async throws -> EditOutcome {
        let name: String, decoded: DecodedImage
        switch input {
        case let .file(path): (name, decoded) = (path, image)
        case let .bytes(_, label): (name, decoded) = (label, image)
        case let .image(image): (name, decoded) = ("(in hand)", image)
        }
        calls.append(
            .edit(
                input: name, output: output, filters: chain.specs, format: options.encode.format,
                settings: options.encode.settings,
                maxPixels: options.maxPixels, force: options.force))
        try fail(at: .prepare)
        try fail(at: .load)
        events(.opened(format: decoded.format, width: decoded.pixels.width, height: decoded.pixels.height))
        try fail(at: .filter)
        let result = try chain.applyReference(to: decoded.pixels)
        filtered = result
        events(.progress(percent: 50))
        try fail(at: .save)
        events(.progress(percent: 100))
        return EditOutcome(width: result.width, height: result.height, streamed: false)
    }

    func prepareOutput(_ output: String, input: String?, force: Bool) async throws {
        calls.append(.prepare(output: output, input: input, force: force))
        try fail(at: .prepare)
    }

    func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage {
        calls.append(.load(input, maxPixels: options.maxPixels))
        try fail(at: .load)
        return image
    }

    func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws -> ContactSheet
    {
        calls.append(.contactSheet(chains: chains.count, previewWidth: previewWidth))
        try fail(at: .filter)
        return try ContactSheet.make(of: image, chains: chains, previewWidth: previewWidth, threads: 1)
    }

    func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws {
        calls.append(
            .save(output: output, format: options.format, settings: options.settings))
        try fail(at: .save)
    }

    // The live editor: the preview copies and the chains on them are the filter core's
    // pixel work (`EditCatLiveInteractor.pictures`, `.render`); a file is never read: a
    // file input is missing, as far as this interactor knows. A name is suggested as given.

    func openLive(_ input: EditInput, sizes: EditCatPictureSizes, options: DecodeOptions) async throws
        -> (preview: DecodedImage, thumbnail: PixelBuffer)
    {
        switch input {
        case let .image(decoded): return try EditCatLiveInteractor.pictures(of: decoded, sizes: sizes, threads: 1)
        case let .file(path): throw ImageIOError.inputMissing(path: path)
        case let .bytes(data, name):
            return try EditCatLiveInteractor.pictures(
                of: ImageDecoder.decode(data, name: name, options: options), sizes: sizes, threads: 1)
        }
    }

    private(set) var fullDecodes = 0
    /// What `cats(in:)` sees in every picture (in a picture `foundWidth` wide, scaled to
    /// the one asked about), and how often it was asked; nil: the real finder.
    var found: CatFinding?
    var foundWidth = 200
    private(set) var catsAsked = 0

    func cats(in image: PixelBuffer) async -> CatFinding {
        catsAsked += 1
        guard let found else { return CatSubjects.find(in: image) }
        return found.scaled(
            from: (foundWidth, foundWidth * image.height / max(1, image.width)), to: image.width, image.height)
    }

    func openFull(_ input: EditInput, options: DecodeOptions) async throws -> PixelBuffer {
        guard case let .image(decoded) = input else { throw ImageIOError.inputMissing(path: "(not in hand)") }
        fullDecodes += 1
        return decoded.pixels
    }

    func renderLive(_ image: PixelBuffer, fullWidth: Int, chains: [FilterChain]) async
        -> [Result<PixelBuffer, any Error>]
    {
        EditCatLiveInteractor.render(image, fullWidth: fullWidth, chains: chains, threads: 1)
    }

    func unusedName(_ path: String) async -> String { path }
}

/// A clock that advances 25 ms each time it is read.
@MainActor
final class SteppingClock {
    private var ms: Int64 = 0
    func now() -> Duration {
        defer { ms += 25 }
        return .milliseconds(ms)
    }
}

func makeImage(width: Int, height: Int, format: ImageFormat = .jpeg) throws -> DecodedImage {
    let buffer = try PixelBuffer(width: width, height: height)
    buffer.fill(r: 100, g: 150, b: 200)
    return DecodedImage(pixels: buffer, format: format, orientation: 1)
}
