import CatScenes
import FilterCore
import ImageIO

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

/// An in-memory interactor: serves one image, records what it is asked, fails on cue.
final class FakeEditCatInteractor: EditCatInteractorInput, @unchecked Sendable {
    enum Step: Equatable { case prepare, load, filter, save }
    enum Call: Equatable {
        case prepare(output: String, input: String?, force: Bool)
        case load(String, maxPixels: Int)
        case filter([String])
        case save(output: String, format: ImageFormat, quality: Int, level: Int)
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

    func prepareOutput(_ output: String, input: String?, force: Bool) async throws {
        calls.append(.prepare(output: output, input: input, force: force))
        try fail(at: .prepare)
    }

    func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage {
        calls.append(.load(input, maxPixels: options.maxPixels))
        try fail(at: .load)
        return image
    }

    func applyFilters(_ chain: FilterChain, to image: PixelBuffer) async throws -> PixelBuffer {
        calls.append(.filter(chain.specs))
        try fail(at: .filter)
        let result = try chain.applyReference(to: image)
        filtered = result
        return result
    }

    /// Never streams: records a load and hands back the image.
    func open(_ input: String, streamingTo output: String, chain: FilterChain, options: EncodeOptions,
              decode: DecodeOptions) async throws -> EditSource {
        .decoded(try await loadImage(from: input, options: decode))
    }

    func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws -> ContactSheet {
        calls.append(.contactSheet(chains: chains.count, previewWidth: previewWidth))
        try fail(at: .filter)
        return try await EditCatInteractor(threads: 1).makeContactSheet(of: image, chains: chains, previewWidth: previewWidth)
    }

    func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws {
        calls.append(.save(output: output, format: options.format, quality: options.jpegQuality, level: options.pngLevel))
        try fail(at: .save)
    }
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
