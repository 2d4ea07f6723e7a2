import CatFaces
import CatImageIO
import CatPixels
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

    /// A filter whose value is optional shows as its name alone (`cutout:` was a bad value).
    @Test func anOptionalValueFilterIsItsName() async throws {
        let (presenter, view, _) = try await open()
        await presenter.moveHighlight(by: -3)
        #expect(view.live?.highlightedSpec == "cutout")
    }

    @Test func highlightMovesRoundTheEndsAndValuesStep() async throws {
        let (presenter, view, _) = try await open()
        await presenter.moveHighlight(by: -1)
        #expect(view.live?.highlightedSpec == "portrait:12:mono")
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

    /// `q` quits at once when nothing changed since the last save (or the opening), else
    /// asks once; any other input in between forgets the question.
    @Test func quittingWithUnsavedChangesAsksOnce() async throws {
        let (presenter, view, _) = try await open(filters: ["sepia"])
        await presenter.requestQuit()
        #expect(view.calls.last == .quit, "the chain as opened")
        await presenter.addHighlighted()
        await presenter.requestQuit()
        #expect(view.calls.last == .askBeforeQuitting)
        await presenter.moveHighlight(by: 1)
        await presenter.requestQuit()
        #expect(view.calls.last == .askBeforeQuitting, "asked again after another input")
        await presenter.requestQuit()
        #expect(view.calls.last == .quit)
        #expect(await presenter.save(to: "/tmp/quit-test.png") == .ok)
        await presenter.requestQuit()
        #expect(view.calls.last == .quit, "saved: nothing to lose")
    }

    /// `space` shows the preview copy itself, untouched by the chain, until `space` again
    /// or a change.
    @Test func spaceShowsTheOriginal() async throws {
        let cat = try PixelBuffer.random(width: 400, height: 300, seed: 7)
        let copy = try FilterChain(specs: ["resize:200x150"]).apply(to: cat, threads: 1)
        let (presenter, view, _) = try await open(filters: ["invert"])
        await presenter.toggleOriginal()
        #expect(view.live?.original == true && view.live?.chain == ["invert"])
        let original = view.live?.preview.packedRGBA() == copy.packedRGBA()
        #expect(original)
        await presenter.toggleOriginal()
        let filtered = view.live?.preview.packedRGBA() != copy.packedRGBA()
        #expect(view.live?.original == false && filtered)
        await presenter.toggleOriginal()
        await presenter.addHighlighted()
        #expect(view.live?.original == false, "a change shows the chain again")
    }

    /// `c` goes through the shapes, each as large as the picture holds, placed on the face
    /// found (the `cat` gravity's rule); arrows move the frame; Enter makes it the chain's
    /// `crop:WxH+X+Y`, which `u` takes back and a save writes.
    @Test func cropPresetsPlaceAFrameOnTheCat() async throws {
        let (presenter, view, interactor) = try await open()
        // A face on the right of the 200x150 preview: x 300-360 of the 400x300 image.
        interactor.found = CatFinding(cats: [], faces: [ScoredRegion(x: 150, y: 20, width: 30, height: 30, score: 1)])
        await presenter.cycleCrop()
        var crop = try #require(view.live?.crop)
        #expect(crop.shape == "1:1" && crop.spec == "crop:300x300+100+0")
        #expect(crop.frame == ScoredRegion(x: 50, y: 0, width: 150, height: 150, score: 1))
        #expect(view.live?.trying == false && view.live?.chain == [])
        await presenter.cycleCrop()
        crop = try #require(view.live?.crop)
        #expect(crop.shape == "4:5" && crop.spec == "crop:240x300+160+0")
        let asked = interactor.catsAsked
        await presenter.nudgeCrop(x: -1, y: 0)  // a fiftieth of 400
        #expect(view.live?.crop?.spec == "crop:240x300+152+0")
        await presenter.nudgeCrop(x: 0, y: 1)  // the frame is as tall as the picture: no room
        await presenter.nudgeCrop(x: 100, y: 0)
        #expect(view.live?.crop?.spec == "crop:240x300+160+0")
        #expect(interactor.catsAsked == asked, "the cats are found once per chain")
        await presenter.applyCrop()
        #expect(view.live?.crop == nil && view.live?.chain == ["crop:240x300+160+0"])
        #expect((view.live?.outputWidth, view.live?.outputHeight) == (240, 300))
        #expect(view.live?.preview.width == 120)
        await presenter.undo()
        #expect(view.live?.chain == [] && view.live?.note == "undid: crop 4:5 (crop:240x300+160+0)")
        await presenter.redo()
        // A frame being placed when saving is applied first; 9:16 and 16:9 on the crop.
        for _ in 0..<4 { await presenter.cycleCrop() }
        #expect(view.live?.crop?.shape == "16:9" && view.live?.crop?.spec == "crop:240x135+0+0")
        await presenter.cycleCrop()
        #expect(view.live?.crop == nil, "after 16:9: free")
        await presenter.cycleCrop()
        await presenter.cancelCrop()
        #expect(view.live?.crop == nil && view.live?.chain == ["crop:240x300+160+0"])
        await presenter.cycleCrop()
        await presenter.requestSave()
        #expect(view.live?.chain == ["crop:240x300+160+0", "crop:240x240+0+0"])
        #expect(await presenter.save(to: "/tmp/live-crop.png") == .ok)
        guard case let .edit(_, _, filters, _, _, _, _)? = interactor.calls.last else {
            Issue.record("no edit")
            return
        }
        #expect(filters == ["crop:240x300+160+0", "crop:240x240+0+0"])
    }

    /// A frame placed on one chain is dropped when undo, redo or Backspace changes the chain,
    /// never applied to another.
    @Test func aCropFrameGoesWithItsChain() async throws {
        let (presenter, view, _) = try await open()
        await presenter.highlight(at: names.firstIndex(of: "resize")!)
        await presenter.addHighlighted()  // resize:200 → 200x150
        await presenter.undo()
        await presenter.cycleCrop()
        #expect(view.live?.crop?.spec == "crop:300x300+50+0")
        await presenter.redo()
        #expect(view.live?.crop == nil)
        await presenter.addHighlighted()  // no frame: adds the highlighted filter
        #expect(view.live?.chain == ["resize:200", "resize:200"])
    }

    /// Keys that come while the cats are being found act on what was asked for, not on what
    /// was last shown: `c c Enter` typed at once crops 4:5; arrows meanwhile move no highlight.
    @Test func cropKeysTypedAheadOfTheFrame() async throws {
        let (presenter, view, _) = try await open()
        let keys: [@MainActor () async -> Void] = [
            { await presenter.cycleCrop() }, { await presenter.cycleCrop() }, { await presenter.moveHighlight(by: 1) },
            { await presenter.addHighlighted() },
        ]
        let tasks = keys.map { key in Task { await key() } }
        for task in tasks { await task.value }
        #expect(view.live?.chain == ["crop:240x300+80+0"] && view.live?.highlighted == 0)
    }

    /// `t`: the caption shows as it is typed (found clear of the cats once, not at each
    /// key), Enter adds it to the chain, Esc drops it, one too long is refused.
    @Test func aCaptionTypedShowsAndIsKept() async throws {
        let cat = try PixelBuffer.random(width: 400, height: 300, seed: 7)
        let copy = try FilterChain(specs: ["resize:200x150"]).apply(to: cat, threads: 1)
        let (presenter, view, interactor) = try await open()
        interactor.found = CatFinding(cats: [], faces: [])
        await presenter.startCaption()
        #expect(view.live?.caption == "" && view.live?.trying == false)
        let asked = interactor.catsAsked
        for text in ["H", "HI", "HI ", "HI 🐈 Ünï"] { await presenter.typeCaption(text) }
        #expect(view.live?.caption == "HI 🐈 Ünï" && view.live?.chain == [])
        #expect(interactor.catsAsked == asked)
        let expected = try FilterChain(specs: ["caption-bottom:HI 🐈 Ünï"]).apply(to: copy, threads: 1)
        let captioned = view.live?.preview.packedRGBA() == expected.packedRGBA()
        #expect(captioned)
        await presenter.keepCaption("HI 🐈 Ünï")
        #expect(view.live?.caption == nil && view.live?.chain == ["caption:HI 🐈 Ünï"])
        await presenter.undo()
        #expect(view.live?.chain == [] && view.live?.note == "undid: add caption:HI 🐈 Ünï")
        // A character no installed font has is said as it is typed.
        await presenter.startCaption()
        await presenter.typeCaption("cat \u{E000}")
        #expect(view.live?.note?.contains("no installed font has \u{E000}") == true, "\(view.live?.note ?? "")")
        await presenter.dropCaption()
        #expect(view.live?.note == "undid: add caption:HI 🐈 Ünï")
        await presenter.startCaption()
        await presenter.typeCaption("gone")
        await presenter.dropCaption()
        #expect(view.live?.caption == nil && view.live?.chain == [])
        await presenter.startCaption()
        await presenter.keepCaption(String(repeating: "x", count: 1001))
        #expect(view.calls.contains { if case let .error(failure) = $0 { failure.status == .usage } else { false } })
        #expect(view.live?.chain == [])
    }

    /// `z`: 1:1 pixels of the full-size result around the face (else the centre), decoded
    /// once for the session; arrows pan a quarter of the window, inside the picture.
    @Test func zoomShowsFullSizePixelsAndPans() async throws {
        let cat = try PixelBuffer.random(width: 400, height: 300, seed: 7)
        let (presenter, view, interactor) = try await open(filters: ["invert"])
        interactor.found = CatFinding(cats: [], faces: [])
        await presenter.toggleZoom()
        var zoom = try #require(view.live?.zoom)
        #expect(zoom == EditCatLiveZoom(x: 100, y: 75, width: 200, height: 150, fullWidth: 400, fullHeight: 300))
        // What the preview showed: the chain and the highlighted filter (mono) tried after it.
        let shown = try FilterChain(specs: ["invert", "mono"]).apply(to: try cat.copy(), threads: 1)
        let window = try FilterChain(specs: ["crop:200x150+100+75"]).apply(to: shown, threads: 1)
        let same = view.live?.preview.packedRGBA() == window.packedRGBA()
        #expect(same)
        await presenter.pan(x: 1, y: 0)
        #expect(view.live?.zoom?.x == 150)
        await presenter.pan(x: 9, y: 9)
        zoom = try #require(view.live?.zoom)
        #expect((zoom.x, zoom.y) == (200, 150), "inside the picture")
        await presenter.pan(x: -1, y: 0)
        #expect(view.live?.zoom?.x == 150, "a step back from the edge is a step")
        await presenter.toggleZoom()
        #expect(view.live?.zoom == nil && view.live?.preview.width == 200)
        interactor.found = CatFinding(cats: [], faces: [ScoredRegion(x: 10, y: 10, width: 20, height: 20, score: 1)])
        await presenter.addHighlighted()  // another chain: the cats are found on it
        await presenter.toggleZoom()
        #expect(view.live?.zoom?.x == 0 && view.live?.zoom?.y == 0, "at the face (40,40), held inside")
        #expect(interactor.fullDecodes == 1)
    }

    /// An animation plays at once, frame after frame and round the loop, each frame the
    /// file's through what the preview shows, fitted to the preview; `p` pauses it and
    /// plays it again from where it was.
    @Test func anAnimationPlaysThroughTheChainAndPauses() async throws {
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")  // 5 frames, 48x32, 100-300 ms
        let animation = try ImageReader(bytes: bytes, name: "a").readAnimation()
        let view = RecordingEditCatLiveView()
        view.livePictureSizes = EditCatPictureSizes(preview: (24, 24), thumbnail: (12, 8))
        let presenter = Router.makeEditCatLive(
            view: view, interactor: FakeEditCatInteractor(image: try makeImage(width: 1, height: 1)))
        let failure = await presenter.openLive(
            .bytes(bytes, name: "anim.gif"),
            EditRequest(input: "anim.gif", output: "", filters: ["invert"], format: .gif))
        #expect(failure == nil && view.live?.playing == true && view.live?.frames == 5)
        for _ in 0..<500 where view.frames.count < 7 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(view.frames.prefix(7).map(\.index) == [0, 1, 2, 3, 4, 0, 1])
        for frame in view.frames.prefix(5) {
            let fitted = try FilterChain(specs: ["resize:24x16"]).apply(to: animation.frames[frame.index], threads: 1)
            let expected = try FilterChain(specs: ["invert", "mono"]).apply(to: fitted, threads: 1)
            let same = frame.picture.packedRGBA() == expected.packedRGBA()
            #expect(same && frame.count == 5, "frame \(frame.index)")
        }
        await presenter.togglePlaying()
        #expect(view.live?.playing == false)
        let paused = view.frames.count
        try await Task.sleep(for: .milliseconds(400))
        #expect(view.frames.count <= paused + 1, "a frame made before the pause may still show")
        await presenter.togglePlaying()
        for _ in 0..<500 where view.frames.count < paused + 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(view.frames.count >= paused + 3 && view.live?.playing == true)
        #expect(presenter.played.shown >= 10)
        presenter.goBack()  // the scene is gone (no router here): nothing plays in it
        let gone = view.frames.count
        try await Task.sleep(for: .milliseconds(400))
        #expect(view.frames.count <= gone + 1)
        _ = await presenter.openLive(
            .image(try makeImage(width: 4, height: 4)), EditRequest(input: "x", output: "", filters: [], format: .png))
        #expect(view.live?.playing == nil, "a still image: nothing plays")
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
