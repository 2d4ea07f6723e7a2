import CatFaces
import CatImageIO
import CatScenes
import FilterCore
import TestSupport
import Testing

/// The live Edit Cat scene's presenter inputs (issue 12), with a recording view: the seed
/// app's select filter, change value, add, remove and save.
@MainActor
@Suite("Edit Cat presenter: live inputs")
struct EditCatLiveTests {
    let names = FilterRegistry.names

    func open(filters: [String] = [], output: String = "") async throws -> (
        EditCatLivePresenter, RecordingEditCatLiveView, FakeEditCatInteractor
    ) {
        let cat = DecodedImage(
            pixels: try PixelBuffer.random(width: 400, height: 300, seed: 7), format: .jpeg, orientation: 1)
        let view = RecordingEditCatLiveView(), interactor = FakeEditCatInteractor(image: cat)
        let presenter = Router.makeEditCatLive(view: view, interactor: interactor)
        let failure = await presenter.openLive(
            .image(cat),
            EditRequest(input: "photos/chelsea.jpg", output: output, filters: filters, format: .png))
        #expect(failure == nil)
        return (presenter, view, interactor)
    }

    @Test func opensAtPreviewSizeWithEveryFiltersThumbnail() async throws {
        let (_, view, _) = try await open(filters: ["sepia"])
        #expect(view.calls.first == .state(.opening))
        #expect(view.calls.last == .state(.ready))
        let live = try #require(view.live)
        #expect(live.chain == ["sepia"] && live.highlighted == 0 && live.highlightedSpec == "mono")
        #expect(live.filters.count == names.count && live.thumbnails.count == names.count)
        #expect((live.preview.width, live.preview.height) == (200, 150))  // fitted to the view's size
        #expect((live.thumbnails[0].width, live.thumbnails[0].height) == (40, 30))
        #expect(live.thumbnails[names.firstIndex(of: "rotate")!].width == 30)  // each its own result
        #expect((live.width, live.height, live.outputWidth, live.outputHeight) == (400, 300, 400, 300))
        // Values start where the gallery shows them; sizes are parts of this image.
        #expect(live.filters.contains("blur:3") && live.filters.contains("hue-rotate:90"))
        #expect(live.filters.contains("resize:200") && live.filters.contains("crop:200x150:cat"))
    }

    @Test func thePreviewIsTheChainOnThePreviewCopy() async throws {
        let cat = try PixelBuffer.random(width: 400, height: 300, seed: 7)
        let (presenter, view, _) = try await open(filters: ["sepia:0.5"])
        await presenter.highlight(at: names.firstIndex(of: "blur")!)
        let live = try #require(view.live)
        #expect(live.highlightedSpec == "blur:3")
        // The copy is half the size, so blur's sigma is halved: blur:1.5 on the copy.
        let copy = try FilterChain(specs: ["resize:200x150"]).apply(to: cat, threads: 1)
        let expected = try FilterChain(specs: ["sepia:0.5", "blur:1.5"]).apply(to: copy, threads: 1)
        #expect(live.preview.packedRGBA() == expected.packedRGBA())
    }

    @Test func highlightMovesRoundTheEndsAndValuesStep() async throws {
        let (presenter, view, _) = try await open()
        await presenter.moveHighlight(by: -1)
        #expect(view.live?.highlightedSpec == "caption-bottom:BOTTOM TEXT")
        await presenter.moveHighlight(by: 2)
        #expect(view.live?.highlightedSpec == "sepia:1")
        let shown = view.calls.count
        await presenter.changeValue(by: 1)  // at its most: nothing to show
        #expect(view.calls.count == shown)
        await presenter.changeValue(by: -3)
        #expect(view.live?.highlightedSpec == "sepia:0.7")
        #expect(view.live?.filters[1] == "sepia:0.7")
        await presenter.highlight(at: names.firstIndex(of: "hue-rotate")!)
        await presenter.changeValue(by: -7)  // 90 - 105 wraps to 345
        #expect(view.live?.highlightedSpec == "hue-rotate:345")
        await presenter.highlight(at: names.firstIndex(of: "resize")!)
        await presenter.changeValue(by: 5)  // through the presets, stopping at 3/4
        #expect(view.live?.highlightedSpec == "resize:300")
        #expect(view.live?.outputWidth == 300 && view.live?.outputHeight == 225)
        await presenter.highlight(at: 0)
        await presenter.changeValue(by: 1)  // mono takes no value
        #expect(view.live?.highlightedSpec == "mono")
    }

    /// `f`: the faces found on the preview go to the view, and away again.
    @Test func facesAreShownOnAskingAndHiddenAgain() async throws {
        let (presenter, view, _) = try await open()
        #expect(view.live?.found == nil)
        await presenter.toggleFaces()
        #expect(view.live?.found == CatFinding(cats: [], faces: []), "noise holds no cat")
        await presenter.toggleFaces()
        #expect(view.live?.found == nil)
    }

    /// `u` undoes the session's changes one at a time (a run of value steps to one filter
    /// at once), the status line says which, and `U` does them again; a new change drops
    /// what was undone.
    @Test func undoAndRedo() async throws {
        let (presenter, view, _) = try await open()
        let sepia = names.firstIndex(of: "sepia")!
        await presenter.highlight(at: sepia)
        await presenter.changeValue(by: -1)
        await presenter.changeValue(by: -1)  // one change with the step before
        await presenter.addHighlighted()
        #expect(view.live?.chain == ["sepia:0.8"])
        await presenter.highlight(at: names.firstIndex(of: "grayscale")!)
        await presenter.addHighlighted()
        await presenter.removeLast()
        #expect(view.live?.chain == ["sepia:0.8"])
        await presenter.undo()
        #expect(view.live?.chain == ["sepia:0.8", "grayscale:1"] && view.live?.note == "undid: remove grayscale:1")
        await presenter.undo()
        #expect(view.live?.chain == ["sepia:0.8"] && view.live?.note == "undid: add grayscale:1")
        await presenter.undo()
        #expect(view.live?.chain == [] && view.live?.filters[sepia] == "sepia:0.8")
        await presenter.undo()
        #expect(view.live?.filters[sepia] == "sepia:1" && view.live?.note == "undid: change sepia")
        #expect(view.live?.highlighted == sepia, "the highlight comes back with the value")
        let shown = view.calls.count
        await presenter.undo()  // nothing left
        #expect(view.calls.count == shown)
        await presenter.redo()
        #expect(view.live?.filters[sepia] == "sepia:0.8" && view.live?.note == "redid: change sepia")
        await presenter.redo()
        #expect(view.live?.chain == ["sepia:0.8"])
        // A new change: what was undone is gone, and the note with it.
        await presenter.removeLast()
        #expect(view.live?.chain == [] && view.live?.note == nil)
        await presenter.redo()
        #expect(view.live?.chain == [])
    }

    @Test func addAndRemoveStages() async throws {
        let (presenter, view, _) = try await open()
        await presenter.highlight(at: names.firstIndex(of: "resize")!)
        await presenter.changeValue(by: -2)  // resize:50, an eighth
        await presenter.addHighlighted()
        #expect(view.live?.chain == ["resize:50"] && view.live?.trying == false)
        #expect(view.live?.outputWidth == 50)  // the chain alone, not resize twice
        // A crop of half the original no longer fits: refused, shown, chain kept.
        await presenter.highlight(at: names.firstIndex(of: "crop")!)
        #expect(view.live?.problem?.contains("does not fit the 50x38 image") == true)
        #expect(view.live?.outputWidth == nil)
        await presenter.addHighlighted()
        guard case let .error(failure)? = view.calls.last else {
            Issue.record("no error shown")
            return
        }
        #expect(failure.status == .usage && failure.message.contains("crop:200x150"))
        #expect(view.live?.chain == ["resize:50"])
        await presenter.moveHighlight(by: 1)
        await presenter.addHighlighted()
        #expect(view.live?.chain == ["resize:50", "rotate:90"])
        #expect((view.live?.outputWidth, view.live?.outputHeight) == (38, 50))
        await presenter.removeLast()
        await presenter.removeLast()
        await presenter.removeLast()  // nothing left: nothing happens
        #expect(view.live?.chain == [])
    }

    @Test func savesTheChainThroughTheEditUseCase() async throws {
        let (presenter, view, interactor) = try await open(filters: ["sepia"])
        await presenter.requestSave()
        #expect(view.calls.last == .ask("chelsea-sepia.jpg"))  // the input's format
        #expect(await presenter.save(to: "out.bmp") == .usage)
        #expect(view.calls.last.map { if case .error = $0 { true } else { false } } == true)
        #expect(await presenter.save(to: "  /tmp/live-out.webp ") == .ok)
        #expect(
            interactor.calls.last
                == .edit(
                    input: "(in hand)", output: "/tmp/live-out.webp", filters: ["sepia"], format: .webp,
                    settings: [:], maxPixels: DecodeOptions.defaultMaxPixels,
                    force: false))
        guard case let .saved(result)? = view.calls.dropLast().last else {
            Issue.record("not saved: \(view.calls.suffix(3))")
            return
        }
        #expect(result.output == "/tmp/live-out.webp" && result.filters == ["sepia"])
        await presenter.requestSave()  // the path saved to last
        #expect(view.calls.last == .ask("/tmp/live-out.webp"))
    }

    @Test func outputFromTheCommandLineIsSuggested() async throws {
        let (presenter, view, _) = try await open(output: "mine.jpg")
        await presenter.requestSave()
        #expect(view.calls.last == .ask("mine.jpg"))
    }

    /// Inputs that come while a preview is being made are folded into the next one: the
    /// last picture shown is the last state, and fewer pictures than inputs are made.
    @Test func inputsDuringARefreshFoldIntoTheNext() async throws {
        let (presenter, view, _) = try await open()
        let before = view.calls.count
        let moves = (0..<6).map { _ in Task { await presenter.moveHighlight(by: 1) } }
        for move in moves { await move.value }
        #expect(view.live?.highlighted == 6)
        #expect(view.calls.count - before < 6)
    }

    /// Esc goes back through the presenter to the router that opened the editor (Load
    /// Cat's); with none (`edit -i`) it does nothing. The view knows no navigation.
    @Test func escGoesBackThroughTheRouter() async throws {
        @MainActor final class Back: EditCatLiveRouting {
            var closed = 0
            func closeEditScene() { closed += 1 }
        }
        let back = Back()
        let view = RecordingEditCatLiveView()
        let presenter = Router.makeEditCatLive(
            view: view,
            interactor: FakeEditCatInteractor(
                image: try DecodedImage(
                    pixels: PixelBuffer.random(width: 40, height: 30, seed: 1), format: .png, orientation: 1)),
            router: back)
        #expect(view.presenter === presenter)
        view.presenter?.goBack()
        #expect(back.closed == 1)
        let (alone, _, _) = try await open()
        alone.goBack()  // no router: nothing to go back to, and no crash
        #expect(back.closed == 1)
    }

    @Test func aFailedOpenSaysWhy() async throws {
        let view = RecordingEditCatLiveView()
        let presenter = Router.makeEditCatLive(
            view: view, interactor: FakeEditCatInteractor(image: try makeImage(width: 1, height: 1)))
        let failure = await presenter.openLive(
            .file("/nonexistent/cat.jpg"),
            EditRequest(input: "/nonexistent/cat.jpg", output: "", filters: [], format: .png))
        #expect(failure?.status == .noInput)
        #expect(view.calls.suffix(2) == [.error(failure!), .state(.ready)])
        let bad = await presenter.openLive(
            .image(try makeImage(width: 4, height: 4)),
            EditRequest(input: "x", output: "", filters: ["nope"], format: .png))
        #expect(bad?.status == .usage)
    }
}

@Suite("Preview chains and filter values")
struct PreviewChainTests {
    @Test func valuesInPixelsScaleWithThePreview() throws {
        let chain = try FilterChain(specs: ["resize:800x600", "crop:400x200+100+50", "blur:4", "sepia"])
        let half = chain.scaled(by: 0.5)
        #expect(try half.outputSize(width: 1000, height: 750) == (200, 100))
        let image = try PixelBuffer.random(width: 500, height: 375, seed: 3)
        let expected = try FilterChain(specs: ["resize:400x300", "crop:200x100+50+25", "blur:2", "sepia"])
            .apply(to: try image.copy(), threads: 1)
        #expect(try half.apply(to: try image.copy(), threads: 1).packedRGBA() == expected.packedRGBA())
        #expect(chain.scaled(by: 0.5).specs == chain.specs)  // what it says stays as typed
    }

    /// A preview's size is rounded on each side, so a crop touching the image's edge may
    /// reach a pixel past the copy: the preview's crop keeps inside it (a typed one must fit).
    @Test func aPreviewCropStaysInsideTheRoundedCopy() throws {
        let chain = try FilterChain(specs: ["crop:1005x1500+0+1500"])
        #expect(try chain.outputSize(width: 1005, height: 3000) == (1005, 1500))
        let preview = chain.scaled(by: 101.0 / 1005)  // 1005x3000 fitted into 300 rows: 101x300
        // 1500 x 0.1005 = 150.75 rows from row 150 would reach row 301: the last 151 rows instead.
        #expect(try preview.outputSize(width: 101, height: 300) == (101, 151))
        let copy = try PixelBuffer.random(width: 101, height: 300, seed: 9)
        let cut = try preview.apply(to: copy, threads: 1)
        #expect((cut.width, cut.height) == (101, 151))
        #expect(cut.pixel(0, 0) == copy.pixel(0, 149) && cut.pixel(100, 150) == copy.pixel(100, 299))
        #expect(throws: FilterError.self) { try chain.outputSize(width: 101, height: 300) }
    }

    @Test func stepsAndPresetsLiveInTheFilterDefinitions() throws {
        let blur = try #require(FilterRegistry.definition(named: "blur"))
        #expect(blur.step == 0.5 && blur.spec(value: 2.5) == "blur:2.5" && blur.spec(value: 3) == "blur:3")
        #expect(FilterRegistry.definition(named: "hue-rotate")?.step == 15)
        #expect(FilterRegistry.definition(named: "mono")?.step == nil)
        #expect(FilterRegistry.definition(named: "rotate")?.presets(width: 10, height: 10) == ["90", "180", "270"])
        #expect(
            FilterRegistry.definition(named: "crop")?.presets(width: 400, height: 300) == [
                "50x37:cat", "100x75:cat", "200x150:cat", "300x225:cat",
            ])
        #expect(FilterRegistry.definition(named: "caption")?.presets(width: 400, height: 300) == [])
        for definition in FilterRegistry.all {  // every preset is a valid spec
            for preset in definition.presets(width: 451, height: 300) {
                #expect(throws: Never.self) { try FilterChain(specs: ["\(definition.name):\(preset)"]) }
            }
        }
    }
}
