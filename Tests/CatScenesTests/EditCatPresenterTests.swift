import CatImageIO
import CatScenes
import FilterCore
import TestSupport
import Testing

@MainActor
@Suite("Edit Cat presenter: the exact sequence of view calls")
struct EditCatPresenterTests {
    func scene(_ interactor: FakeEditCatInteractor) -> (EditCatPresenter, RecordingEditCatView) {
        let view = RecordingEditCatView()
        let clock = SteppingClock()
        return (EditCatPresenter(view: view, interactor: interactor, now: { clock.now() }), view)
    }

    @Test func success() async throws {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 40, height: 30))
        let (presenter, view) = scene(interactor)
        let status = await presenter.edit(
            EditRequest(
                input: "cat.jpg", output: "out.png", filters: ["sepia", "invert:0.5"],
                format: .png))
        #expect(status == .ok)
        #expect(
            view.calls == [
                .state(.processing),
                .imageInfo(EditCatImageInfo(input: "cat.jpg", format: "jpeg", width: 40, height: 30)),
                .saved(
                    EditCatResult(
                        input: "cat.jpg", output: "out.png", width: 40, height: 30,
                        filters: ["sepia", "invert:0.5"], milliseconds: 25)),
                .state(.done),
            ])
        #expect(
            interactor.calls == [
                .edit(
                    input: "cat.jpg", output: "out.png", filters: ["sepia", "invert:0.5"], format: .png, settings: [:],
                    maxPixels: DecodeOptions.defaultMaxPixels, force: false)
            ])
        // sepia then invert(0.5) of (100,150,200): everything becomes 127.5 → 128
        let pixel = try #require(interactor.filtered).pixel(0, 0)
        #expect(pixel == (128, 128, 128, 255))
    }

    @Test func largeImagesGetAPercentage() async throws {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 2000, height: 2000))
        let (presenter, view) = scene(interactor)
        let status = await presenter.edit(
            EditRequest(
                input: "big.jpg", output: "big.jpg", filters: ["mono"], format: .jpeg,
                encoding: [.quality: 80], force: true))
        #expect(status == .ok)
        #expect(
            view.calls == [
                .state(.processing),
                .imageInfo(EditCatImageInfo(input: "big.jpg", format: "jpeg", width: 2000, height: 2000)),
                .progress(EditCatProgress(percent: 50, label: "4.0 MP, mono → big.jpg")),
                .progress(EditCatProgress(percent: 100, label: "4.0 MP, mono → big.jpg")),
                .saved(
                    EditCatResult(
                        input: "big.jpg", output: "big.jpg", width: 2000, height: 2000,
                        filters: ["mono"], milliseconds: 25)),
                .state(.done),
            ])
        #expect(
            interactor.calls == [
                .edit(
                    input: "big.jpg", output: "big.jpg", filters: ["mono"], format: .jpeg, settings: [.quality: 80],
                    maxPixels: DecodeOptions.defaultMaxPixels, force: true)
            ])
    }

    @Test func unknownFilterIsAUsageErrorBeforeAnyWork() async throws {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 4, height: 4))
        let (presenter, view) = scene(interactor)
        let status = await presenter.edit(
            EditRequest(
                input: "cat.jpg", output: "out.png", filters: ["sepia", "blurry"],
                format: .png))
        #expect(status == .usage)
        #expect(
            view.calls == [
                .state(.processing),
                .error(SceneFailure(status: .usage, message: FilterError.unknownFilter("blurry").description)),
                .state(.failed),
            ])
        #expect(interactor.calls.isEmpty)
    }

    @Test(
        "each failing step maps to its exit code and message",
        arguments: [
            (
                FakeEditCatInteractor.Step.prepare,
                ImageIOError.cannotCreate(path: "out.png", reason: "the folder x does not exist"),
                CatScenes.ExitStatus.cannotCreate
            ),
            (.prepare, ImageIOError.outputIsInput(path: "out.png"), .cannotCreate),
            (.load, ImageIOError.inputMissing(path: "cat.jpg"), .noInput),
            (.load, ImageIOError.corrupt(file: "cat.jpg", reason: "bad Huffman table"), .dataError),
            (.load, ImageIOError.truncated(file: "cat.jpg"), .dataError),
            (.load, ImageIOError.tooLarge(file: "cat.jpg", width: 60000, height: 60000, limit: 100), .dataError),
            (.save, ImageIOError.writeFailed(path: "out.png", reason: "no space left on the device"), .ioError),
        ])
    func failures(_ step: FakeEditCatInteractor.Step, _ error: ImageIOError, _ status: CatScenes.ExitStatus)
        async throws
    {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 4, height: 4), failing: (step, error))
        let (presenter, view) = scene(interactor)
        #expect(
            await presenter.edit(EditRequest(input: "cat.jpg", output: "out.png", filters: ["noir"], format: .png))
                == status)
        #expect(view.calls.suffix(2) == [.error(SceneFailure(error)), .state(.failed)])
        #expect(SceneFailure(error).status == status && SceneFailure(error).message == error.description)
        #expect(view.calls.first == .state(.processing))
        // Nothing is shown as saved.
        #expect(!view.calls.contains { if case .saved = $0 { true } else { false } })
    }

    @Test func remediesAreNamedNotWorded() {
        #expect(SceneFailure(ImageIOError.tooLarge(file: "a", width: 9, height: 9, limit: 1)).hint == .raisePixelLimit)
        #expect(SceneFailure(ImageIOError.outputIsInput(path: "a")).hint == .overwriteInput)
        #expect(SceneFailure(ImageIOError.truncated(file: "a")).hint == nil)
        #expect(!SceneFailure(ImageIOError.tooLarge(file: "a", width: 9, height: 9, limit: 1)).message.contains("--"))
    }

    @Test func editsAnImageAlreadyInHand() async throws {
        let image = try makeImage(width: 8, height: 2, format: .png)
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 1, height: 1))
        let (presenter, view) = scene(interactor)
        let status = await presenter.edit(
            image,
            EditRequest(
                input: "cat 42", output: "o.jpg", filters: ["invert"],
                format: .jpeg))
        #expect(status == .ok)
        // One edit of the image in hand: the pixels handed over are the ones filtered and saved.
        #expect(
            interactor.calls == [
                .edit(
                    input: "(in hand)", output: "o.jpg", filters: ["invert"], format: .jpeg, settings: [:],
                    maxPixels: DecodeOptions.defaultMaxPixels, force: false)
            ])
        #expect(interactor.filtered === image.pixels)
        #expect(view.calls[1] == .imageInfo(EditCatImageInfo(input: "cat 42", format: "png", width: 8, height: 2)))
    }
}

@MainActor
@Suite("Edit Cat gallery")
struct EditCatGalleryTests {
    @Test func contactSheetOfEveryFilterInOrder() async throws {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 400, height: 300))
        let view = RecordingEditCatView()
        let clock = SteppingClock()
        let presenter = EditCatPresenter(view: view, interactor: interactor, now: { clock.now() })
        let status = await presenter.gallery(
            EditRequest(input: "cat.jpg", output: "sheet.png", filters: [], format: .png), previewColumns: 130)
        #expect(status == .ok)
        let specs = FilterRegistry.all.map(\.showcaseSpec)
        #expect(specs.count == FilterRegistry.names.count && specs.first == "mono" && specs.contains("hue-rotate:90"))
        #expect(interactor.calls.map { "\($0)".prefix(4) } == ["prep", "load", "cont", "save"])
        #expect(interactor.calls[2] == .contactSheet(chains: specs.count, previewWidth: (130 - 6) / 6))
        guard case let .gallery(gallery) = view.calls[2] else { Issue.record("\(view.calls)"); return }
        #expect(gallery.specs == specs && gallery.columns == 6 && gallery.tiles.count == specs.count)
        #expect(gallery.tiles.allSatisfy { $0.width <= (130 - 6) / 6 })
        // 200x150 tiles, 6 columns, 3 rows, 12 px padding, 30 px labels.
        #expect(
            view.calls[3]
                == .saved(
                    EditCatResult(
                        input: "cat.jpg", output: "sheet.png", width: 6 * 212 + 12,
                        height: (specs.count + 5) / 6 * (150 + 30 + 12) + 12, filters: specs,
                        milliseconds: 25, isGallery: true)))
        #expect(view.calls.last == .state(.done))
    }

    @Test func noPreviewWithoutATerminal() async throws {
        let interactor = FakeEditCatInteractor(image: try makeImage(width: 40, height: 30))
        let view = RecordingEditCatView()
        #expect(
            await EditCatPresenter(view: view, interactor: interactor)
                .gallery(EditRequest(input: "a.png", output: "b.jpg", filters: [], format: .jpeg), previewColumns: nil)
                == .ok)
        #expect(!view.calls.contains { if case .gallery = $0 { true } else { false } })
    }
}
