import CatImageIO
import CatSupport
import FilterCore

/// The edit use case as both Edit Cat presenters run it (`catctl edit`, and `s` in the live
/// editor): the same interactor call, the same events, the same result, so a live save
/// writes the file `catctl edit` writes.
@MainActor
enum EditRun {
    /// Parses `request.filters`, runs the edit, and tells `opened` the input's facts and
    /// `progress` (for large images) how far it is. `now` reads the presenter's clock.
    static func perform(
        _ interactor: any EditCatUseCase, input: EditInput, request: EditRequest, now: @MainActor () -> Duration,
        opened: @MainActor (EditCatImageInfo) -> Void, progress: @MainActor (EditCatProgress) -> Void
    ) async throws -> EditCatResult {
        let start = now()
        let chain = try FilterChain(catSpecs: request.filters, requireCat: request.requireCat)
        let (events, sink) = AsyncStream.makeStream(of: EditEvent.self)
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
                opened(EditCatImageInfo(input: request.input, format: format.name, width: width, height: height))
                if width * height >= EditCatPresenter.progressThreshold {
                    let mp = String(printf: "%.1f MP", Double(width * height) / 1_000_000)
                    label =
                        "\(mp), \(chain.specs.joined(separator: " → ")) → \(request.output == "-" ? "stdout" : request.output)"
                }
            case let .progress(percent):
                if let label { progress(EditCatProgress(percent: percent, label: label)) }
            }
        }
        let outcome = try await work.value
        return result(
            request, width: outcome.width, height: outcome.height, specs: chain.specs, elapsed: now() - start,
            frames: (outcome.frames, outcome.inputFrames), pages: outcome.inputPages, crop: outcome.crop,
            leftOut: outcome.leftOut,
            notices: chain.notices + (chain.asksSubjects ? CatSubjects.brokenInstallNotes : [])
                + transparencyNotes(chain, request) + outcome.notes)
    }

    /// `cutout` or `sticker` into a format without transparency: on white, and how to choose.
    static func transparencyNotes(_ chain: FilterChain, _ request: EditRequest) -> [String] {
        let format = request.encodeOptions.format
        guard chain.mayMakeAlpha, !format.keepsAlpha else { return [] }
        return [
            "\(format.displayName) has no transparency: the cut-out is on white "
                + "(cutout:COLOR for another colour; PNG, WebP, AVIF, JPEG XL and TIFF keep it transparent)"
        ]
    }

    static func result(
        _ request: EditRequest, width: Int, height: Int, specs: [String], elapsed: Duration,
        gallery: Bool = false, frames: (written: Int, input: Int) = (1, 1), pages: Int = 1, crop: EditCatCrop? = nil,
        leftOut: [String] = [], notices: [String] = []
    ) -> EditCatResult {
        let output = request.output == "-" ? "stdout" : request.output
        var notes = notices  // the chain's (a caption character no font has)
        if frames.written < frames.input {
            let animated = ImageFormat.all.filter(\.animates)
            notes.append(
                "\(output) holds the first of the \(frames.input) frames; "
                    + "write \(ImageFormat.extensions(of: animated)) to keep the animation")
        }
        if pages > 1 {
            notes.append("\(request.input) has \(pages) pages; \(output) holds the first")
        }
        for metadata in leftOut {
            notes.append("\(request.input)'s \(metadata) is over the 8 MiB metadata budget: left out of \(output)")
        }
        return EditCatResult(
            input: request.input, output: request.output, width: width, height: height, filters: specs,
            milliseconds: Int((elapsed / .milliseconds(1)).rounded()), isGallery: gallery,
            frames: frames.written, inputFrames: frames.input, notes: notes, crop: crop)
    }
}
