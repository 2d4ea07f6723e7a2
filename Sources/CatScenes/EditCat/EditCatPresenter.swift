import FilterCore
import Foundation
import ImageIO

/// The Edit Cat scene's logic: validates the request, drives the interactor through
/// decode → filter → save, and tells the view every state change. No file I/O, no
/// terminal codes here.
@MainActor
public final class EditCatPresenter {
    /// Images from this many pixels up get step-by-step progress.
    public static let progressThreshold = 4_000_000

    private let view: any EditCatView
    private let interactor: any EditCatInteractorInput
    private let now: @MainActor () -> Duration

    /// `now` reads a monotonic clock (tests pass a fake one).
    public init(view: any EditCatView, interactor: any EditCatInteractorInput,
                now: (@MainActor () -> Duration)? = nil) {
        self.view = view
        self.interactor = interactor
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
    }

    /// Decodes `request.input`, filters, saves — streaming a strip at a time when the chain
    /// and the file allow it. Returns how the scene ended.
    public func edit(_ request: EditRequest) async -> ExitStatus {
        await run(request, source: nil)
    }

    /// Edits an image already decoded by another scene (Load Cat → Edit Cat): no
    /// re-read, no re-decode. `request.input` names it in messages.
    public func edit(_ image: DecodedImage, _ request: EditRequest) async -> ExitStatus {
        await run(request, source: image)
    }

    /// `edit --gallery`: one contact sheet with every named filter (in the order of
    /// `catctl filters`) applied to `request.input`; `previewColumns`: the terminal's width
    /// for a preview of the tiles, nil for none.
    public func gallery(_ request: EditRequest, previewColumns: Int?) async -> ExitStatus {
        view.updateProcessingState(.processing)
        let start = now()
        do {
            let specs = FilterRegistry.all.map(\.showcaseSpec)
            let chains = try specs.map { spec throws(FilterError) in try FilterChain(specs: [spec]) }
            let encodeOptions = try request.encodeOptions()
            let decoded = try await prepare(request) { interactor, options in
                try await interactor.loadImage(from: request.input, options: options)
            }
            let columns = max(1, min(ContactSheet.maxColumns, chains.count))
            let previewWidth = previewColumns.map { max(6, ($0 - columns) / columns) }
            let contact = try await interactor.makeContactSheet(of: decoded.pixels, chains: chains, previewWidth: previewWidth)
            if !contact.previews.isEmpty {
                view.showGallery(EditCatGallery(specs: specs, tiles: contact.previews, columns: contact.columns))
            }
            try await interactor.save(contact.sheet, to: request.output, options: encodeOptions)
            return finish(request, contact.sheet, specs: specs, start: start, gallery: true)
        } catch {
            return fail(error)
        }
    }

    /// `source`: an image in hand, or nil to open `request.input` (streaming when possible).
    private func run(_ request: EditRequest, source: DecodedImage?) async -> ExitStatus {
        view.updateProcessingState(.processing)
        let start = now()
        do {
            let chain = try FilterChain(specs: request.filters)
            let encodeOptions = try request.encodeOptions()
            try await interactor.prepareOutput(request.output, input: request.input, force: request.force)
            let decoded: DecodedImage
            if let source {
                decoded = source
            } else {
                switch try await interactor.open(request.input, streamingTo: request.output, chain: chain,
                                                 options: encodeOptions, decode: DecodeOptions(maxPixels: request.maxPixels)) {
                case let .streamed(info):
                    view.showImageInfo(EditCatImageInfo(input: request.input, format: info.format.rawValue,
                                                        width: info.width, height: info.height))
                    return finish(request, width: info.width, height: info.height, specs: chain.specs, start: start)
                case let .decoded(image):
                    decoded = image
                }
            }
            let image = decoded.pixels
            view.showImageInfo(EditCatImageInfo(input: request.input, format: decoded.format.rawValue,
                                                width: image.width, height: image.height))

            let showsProgress = image.pixelCount >= Self.progressThreshold
            if showsProgress {
                let mp = String(format: "%.1f", Double(image.pixelCount) / 1_000_000)
                view.updateProgress(EditCatProgress(step: 1, totalSteps: 2, label: "filtering \(mp) MP"))
            }
            let filtered = try await interactor.applyFilters(chain, to: image)
            if showsProgress {
                view.updateProgress(EditCatProgress(step: 2, totalSteps: 2, label: "encoding \(request.output)"))
            }
            try await interactor.save(filtered, to: request.output, options: encodeOptions)
            return finish(request, filtered, specs: chain.specs, start: start)
        } catch {
            return fail(error)
        }
    }

    /// Checks the output can be written, gets the image, shows what it is.
    private func prepare(_ request: EditRequest,
                         source: (any EditCatInteractorInput, DecodeOptions) async throws -> DecodedImage) async throws -> DecodedImage {
        try await interactor.prepareOutput(request.output, input: request.input, force: request.force)
        let decoded = try await source(interactor, DecodeOptions(maxPixels: request.maxPixels))
        view.showImageInfo(EditCatImageInfo(input: request.input, format: decoded.format.rawValue,
                                            width: decoded.pixels.width, height: decoded.pixels.height))
        return decoded
    }

    private func finish(_ request: EditRequest, _ image: PixelBuffer, specs: [String], start: Duration,
                        gallery: Bool = false) -> ExitStatus {
        finish(request, width: image.width, height: image.height, specs: specs, start: start, gallery: gallery)
    }

    private func finish(_ request: EditRequest, width: Int, height: Int, specs: [String], start: Duration,
                        gallery: Bool = false) -> ExitStatus {
        let elapsed = now() - start
        view.showSaved(EditCatResult(input: request.input, output: request.output, width: width,
                                     height: height, filters: specs,
                                     milliseconds: Int((elapsed / .milliseconds(1)).rounded()), isGallery: gallery))
        view.updateProcessingState(.done)
        return .ok
    }

    private func fail(_ error: any Error) -> ExitStatus {
        let failure = SceneFailure(error)
        view.showError(failure)
        view.updateProcessingState(.failed)
        return failure.status
    }
}
