import CatImageIO
import FilterCore
import Foundation

/// The Edit Cat scene's logic: parses the chain, runs the edit use case, and tells the
/// view every state change, in the same order whichever way the interactor works. No
/// file I/O, no terminal codes here.
@MainActor
public final class EditCatPresenter {
    /// Images from this many pixels up get progress.
    public static let progressThreshold = 4_000_000

    let view: any EditCatView
    let interactor: any EditCatInteractorInput
    let now: @MainActor () -> Duration
    /// The live editor's state, once `openLive` has opened a cat (EditCatPresenter+Live.swift).
    var live: LiveEdit?
    /// A refresh of the live preview is under way / another is wanted after it.
    var refreshing = false, refreshWanted = false

    /// `now` reads a monotonic clock (tests pass a fake one).
    public init(
        view: any EditCatView, interactor: any EditCatInteractorInput,
        now: (@MainActor () -> Duration)? = nil
    ) {
        self.view = view
        self.interactor = interactor
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
        view.attach(self)
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
            let chains = try specs.map { spec throws(FilterError) in try FilterChain(specs: [spec]) }
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
                    EditCatGallery(
                        specs: specs, tiles: contact.previews, columns: contact.columns,
                        pixelsPerColumn: max(1, pixelsPerColumn)))
            }
            try await interactor.save(contact.sheet, to: request.output, options: request.encodeOptions)
            return finish(
                request, width: contact.sheet.width, height: contact.sheet.height, specs: specs, start: start,
                gallery: true)
        } catch {
            return fail(error)
        }
    }

    func run(_ request: EditRequest, input: EditInput) async -> ExitStatus {
        view.updateProcessingState(.processing)
        let start = now()
        do {
            let chain = try FilterChain(specs: request.filters)
            let outcome = try await edit(input, request, chain: chain)
            return finish(
                request, width: outcome.width, height: outcome.height, specs: chain.specs, start: start,
                frames: (outcome.frames, outcome.inputFrames))
        } catch {
            return fail(error)
        }
    }

    /// Runs the use case, showing its events as they come: the image's facts, then (for
    /// large images) the percentage done.
    private func edit(_ input: EditInput, _ request: EditRequest, chain: FilterChain) async throws -> EditOutcome {
        let (events, sink) = AsyncStream.makeStream(of: EditEvent.self)
        let interactor = self.interactor
        let options = EditOptions(
            encode: request.encodeOptions, maxPixels: request.maxPixels, maxFrames: request.maxFrames,
            force: request.force)
        let work = Task {
            defer { sink.finish() }
            return try await interactor.edit(
                input, to: request.output, chain: chain, options: options,
                events: { sink.yield($0) })
        }
        var label: String?
        for await event in events {
            switch event {
            case let .opened(format, width, height):
                view.showImageInfo(
                    EditCatImageInfo(input: request.input, format: format.name, width: width, height: height))
                if width * height >= Self.progressThreshold {
                    let mp = String(format: "%.1f MP", Double(width * height) / 1_000_000)
                    label =
                        "\(mp), \(chain.specs.joined(separator: " → ")) → \(request.output == "-" ? "stdout" : request.output)"
                }
            case let .progress(percent):
                if let label { view.updateProgress(EditCatProgress(percent: percent, label: label)) }
            }
        }
        return try await work.value
    }

    private func finish(
        _ request: EditRequest, width: Int, height: Int, specs: [String], start: Duration,
        gallery: Bool = false, frames: (written: Int, input: Int) = (1, 1)
    ) -> ExitStatus {
        let elapsed = now() - start
        view.showSaved(
            EditCatResult(
                input: request.input, output: request.output, width: width,
                height: height, filters: specs,
                milliseconds: Int((elapsed / .milliseconds(1)).rounded()), isGallery: gallery,
                frames: frames.written, inputFrames: frames.input))
        view.updateProcessingState(.done)
        return .ok
    }

    func fail(_ error: any Error) -> ExitStatus {
        let failure = SceneFailure(error)
        view.showError(failure)
        view.updateProcessingState(.failed)
        return failure.status
    }
}
