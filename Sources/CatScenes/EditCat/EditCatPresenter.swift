import CatImageIO
import CatSupport
import FilterCore

/// The one-shot Edit Cat scene's logic (`catctl edit`, `load --filter`): parses the chain,
/// runs the edit use case, and tells the view every state change, in the same order
/// whichever way the interactor works. No file I/O, no terminal codes here. The live
/// editor is `EditCatLivePresenter`.
@MainActor
public final class EditCatPresenter {
    /// Images from this many pixels up get progress.
    public static let progressThreshold = 4_000_000

    let view: any EditCatView
    let interactor: any EditCatInteractorInput
    let now: @MainActor () -> Duration

    /// `now` reads a monotonic clock (tests pass a fake one).
    public init(
        view: any EditCatView, interactor: any EditCatInteractorInput,
        now: (@MainActor () -> Duration)? = nil
    ) {
        self.view = view
        self.interactor = interactor
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
    }

    /// Edits the file `request.input`. Returns how the scene ended.
    public func edit(_ request: EditRequest) async -> ExitStatus {
        await run(request, input: .file(request.input))
    }

    /// Edits an image already decoded by another scene (Load Cat → Edit Cat): no
    /// re-read, no re-decode. `request.input` names it in messages.
    public func edit(_ image: DecodedImage, _ request: EditRequest) async -> ExitStatus {
        await run(request, input: .image(image))
    }

    /// Edits any input: a file, an image in hand, or a file's bytes in hand (an animation
    /// another scene downloaded: every frame is edited, not only the decoded first one).
    public func edit(_ input: EditInput, _ request: EditRequest) async -> ExitStatus {
        await run(request, input: input)
    }

    /// `edit --gallery`: one contact sheet with every named filter (in the order of
    /// `catctl filters`) applied to `request.input`; `previewColumns`: the terminal's width
    /// for a preview of the tiles, nil for none; `pixelsPerColumn`: how many pixels across
    /// each column of the preview shows (chafa's symbols make shapes of several).
    public func gallery(_ request: EditRequest, previewColumns: Int?, pixelsPerColumn: Int = 1) async -> ExitStatus {
        view.updateProcessingState(.processing)
        let start = now()
        do {
            let specs = FilterRegistry.all.map(\.showcaseSpec)
            let chains = try specs.map { spec throws(FilterError) in try FilterChain(catSpecs: [spec]) }
            try await interactor.prepareOutput(request.output, input: request.input, force: request.force)
            let decoded = try await interactor.loadImage(
                from: request.input,
                options: DecodeOptions(maxPixels: request.maxPixels, maxFrames: request.maxFrames))
            view.showImageInfo(
                EditCatImageInfo(
                    input: request.input, format: decoded.format.name,
                    width: decoded.pixels.width, height: decoded.pixels.height))
            let columns = max(1, min(ContactSheet.maxColumns, chains.count))
            let previewWidth = previewColumns.map { max(6, ($0 - columns) / columns) * max(1, pixelsPerColumn) }
            let contact = try await interactor.makeContactSheet(
                of: decoded.pixels, chains: chains, previewWidth: previewWidth)
            if !contact.previews.isEmpty {
                view.showGallery(
                    try EditCatGallery(
                        specs: specs, tiles: contact.previews, columns: contact.columns,
                        pixelsPerColumn: max(1, pixelsPerColumn)))
            }
            try await interactor.save(contact.sheet, to: request.output, options: request.encodeOptions)
            view.showSaved(
                EditRun.result(
                    request, width: contact.sheet.width, height: contact.sheet.height, specs: specs,
                    elapsed: now() - start, gallery: true))
            view.updateProcessingState(.done)
            return .ok
        } catch {
            return fail(error)
        }
    }

    func run(_ request: EditRequest, input: EditInput) async -> ExitStatus {
        view.updateProcessingState(.processing)
        do {
            let result = try await EditRun.perform(
                interactor, input: input, request: request, now: now,
                opened: { [view] in view.showImageInfo($0) }, progress: { [view] in view.updateProgress($0) })
            view.showSaved(result)
            view.updateProcessingState(.done)
            return .ok
        } catch {
            return fail(error)
        }
    }

    func fail(_ error: any Error) -> ExitStatus {
        let failure = SceneFailure(error)
        view.showError(failure)
        view.updateProcessingState(.failed)
        return failure.status
    }
}
