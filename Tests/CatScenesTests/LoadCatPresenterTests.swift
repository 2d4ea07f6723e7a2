import CatImageIO
import CatNetwork
import CatPixels
import CatScenes
import FilterCore
import TestSupport
import Testing

@MainActor
final class RecordingLoadCatView: LoadCatLiveView {
    enum Call: Equatable {
        case state(LoadCatState)
        case progress(LoadCatProgress)
        case found(LoadCatFound)
        case decoded(LoadCatDecoded)
        case image(width: Int, height: Int)
        case loaded(LoadCatResult)
        case error(SceneFailure)
        case ask(String)
        case count(Int)
    }
    private(set) var calls: [Call] = []
    func attach(_ presenter: any LoadCatLiveViewOutput) {}
    func updateCatCount(_ count: Int) { calls.append(.count(count)) }
    func askForOutput(suggested: String) { calls.append(.ask(suggested)) }
    private(set) var frames: [Int] = []
    func showFrame(_ picture: PixelBuffer, index: Int, count: Int) { frames.append(index) }
    func updateLoadingState(_ state: LoadCatState) { calls.append(.state(state)) }
    func updateProgress(_ progress: LoadCatProgress) { calls.append(.progress(progress)) }
    func showCatFound(_ cat: LoadCatFound) { calls.append(.found(cat)) }
    func showCatDecoded(_ cat: LoadCatDecoded) { calls.append(.decoded(cat)) }
    func updateImage(_ image: LoadCatPreview) {
        calls.append(.image(width: image.pixels.width, height: image.pixels.height))
    }
    func showLoaded(_ result: LoadCatResult) { calls.append(.loaded(result)) }
    func showError(_ failure: SceneFailure) { calls.append(.error(failure)) }
}

/// Plays a scripted load through its events, as the real interactor would.
@MainActor
final class FakeLoadCatInteractor: LoadCatInteractorInput {
    enum Ending {
        case image(LoadedCat)
        case failure(any Error)
        case cancelled
    }
    let reference: CatReference
    var ending: Ending
    private(set) var useCases: [LoadCatUseCase] = []
    private(set) var saved: [(String, ImageFormat)] = []
    private(set) var cancelCalls = 0

    init(reference: CatReference, ending: Ending) {
        self.reference = reference
        self.ending = ending
    }

    func loadCat(_ useCase: LoadCatUseCase, events: @escaping @MainActor (LoadCatEvent) -> Void) async throws
        -> LoadedCat
    {
        useCases.append(useCase)
        events(.found(reference))
        events(.received(LoadCatProgress(received: 100, expected: 200)))
        events(.received(LoadCatProgress(received: 200, expected: 200)))
        switch ending {
        case let .image(cat):
            events(.decoding)
            return cat
        case let .failure(error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    func cancelLoad() -> Bool {
        cancelCalls += 1
        return true
    }

    func saveCat(_ cat: LoadedCat, to output: String, options: EncodeOptions, maxPixels: Int) async throws {
        saved.append((output, options.format))
    }
}

@MainActor
@Suite("Load Cat presenter: the exact sequence of view calls")
struct LoadCatPresenterTests {
    let decoded = LoadCatDecoded(
        provider: "thecatapi", id: "abc", url: "https://cats.example/abc.jpg", width: 64, height: 48, bytes: 200,
        breed: "Bengal", temperament: "Alert, Agile")
    let reference = CatReference(
        provider: "thecatapi", id: "abc", url: "https://cats.example/abc.jpg", width: 640, height: 480,
        breed: CatBreed(name: "Bengal", temperament: "Alert, Agile"))

    func cat(preview: Bool = true) throws -> LoadedCat {
        let pixels = try PixelBuffer(width: 64, height: 48)
        pixels.fill(r: 100, g: 150, b: 200)
        let small = try PixelBuffer(width: 16, height: 12)
        return LoadedCat(
            reference: reference, bytes: [UInt8](repeating: 1, count: 200),
            image: DecodedImage(pixels: pixels, format: .jpeg), isFullSize: true,
            preview: preview ? small : nil)
    }

    func scene(_ interactor: FakeLoadCatInteractor, editor: FakeEditCatInteractor? = nil)
        -> (LoadCatPresenter, RecordingLoadCatView, RecordingEditCatView)
    {
        let view = RecordingLoadCatView(), editView = RecordingEditCatView()
        let editInteractor = editor ?? FakeEditCatInteractor(image: try! makeImage(width: 1, height: 1))
        let presenter = Router.makeLoadCat(
            view: view, interactor: interactor, editView: editView,
            editInteractor: editInteractor)
        return (presenter, view, editView)
    }

    /// The live scene, its view, and the router that records the editors it showed.
    func liveScene(_ interactor: FakeLoadCatInteractor) -> (LoadCatLivePresenter, RecordingLoadCatView, RecordingRouter)
    {
        let view = RecordingLoadCatView(), router = RecordingRouter()
        return (Router.makeLoadCatLive(view: view, interactor: interactor, router: router), view, router)
    }

    @Test func success() async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat()))
        let (presenter, view, _) = scene(interactor)
        let status = await presenter.load(LoadRequest(previewWidth: 80, previewHeight: 40))
        #expect(status == .ok)
        #expect(
            view.calls == [
                .state(.loading(provider: "thecatapi")),
                .found(LoadCatFound(provider: "thecatapi", id: "abc", url: reference.url, width: 640, height: 480)),
                .state(.downloading),
                .progress(LoadCatProgress(received: 100, expected: 200)),
                .progress(LoadCatProgress(received: 200, expected: 200)),
                .state(.decoding),
                .decoded(decoded),
                .image(width: 16, height: 12),
                .loaded(LoadCatResult(cat: decoded, output: nil)),
                .state(.done),
            ])
        #expect(
            interactor.useCases == [
                LoadCatUseCase(
                    needsFullImage: false, previewSize: (80, 40),
                    maxPixels: DecodeOptions.defaultMaxPixels)
            ])
        #expect(interactor.saved.isEmpty)
    }

    @Test func savesWhenAskedTo() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat(preview: false)))
        let (presenter, view, _) = scene(interactor)
        let output = dir.appendingPathComponent("cat.png").path
        #expect(await presenter.load(LoadRequest(output: output, format: .png)) == .ok)
        #expect(interactor.saved.map(\.0) == [output] && interactor.saved.map(\.1) == [.png])
        #expect(view.calls.contains(.state(.saving(output: output))))
        #expect(
            view.calls.suffix(2).first
                == .loaded(LoadCatResult(cat: decoded, output: output)))
    }

    @Test(
        "each failure ends with the error and its exit code",
        arguments: [
            (NetworkError.httpStatus(url: "https://x/y", status: 404), CatScenes.ExitStatus.unavailable),
            (NetworkError.timedOut(url: "https://x/y", seconds: 1), .unavailable),
            (
                NetworkError.badReply(provider: "cataas", url: "https://x", reason: "the reply is not JSON"),
                .unavailable
            ),
            (NetworkError.unsupportedScheme(url: "file:///etc/passwd"), .unavailable),
            (
                NetworkError.notAnImage(
                    url: "https://x/page", contentType: "text/html", head: [], expected: "JPEG or PNG"), .dataError
            ),
            (NetworkError.tooLarge(url: "https://x/huge.jpg", limit: 10), .unavailable),
        ])
    func failures(_ error: NetworkError, _ status: CatScenes.ExitStatus) async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .failure(error))
        let (presenter, view, _) = scene(interactor)
        #expect(await presenter.load(LoadRequest()) == status)
        #expect(view.calls.suffix(2) == [.error(SceneFailure(error)), .state(.failed)])
        #expect(SceneFailure(error).status == status && SceneFailure(error).message == error.description)
        #expect(!view.calls.contains { if case .loaded = $0 { true } else { false } })
    }

    @Test func cancelled() async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .cancelled)
        let (presenter, view, _) = scene(interactor)
        presenter.cancel()
        #expect(interactor.cancelCalls == 1)
        #expect(await presenter.load(LoadRequest()) == .interrupted)
        #expect(
            view.calls.suffix(2) == [
                .error(SceneFailure(status: .interrupted, message: "cancelled")), .state(.cancelled),
            ])
    }

    @Test func usageErrorsBeforeAnyNetwork() async throws {
        for request in [LoadRequest(output: "x.png", format: .png, filters: ["nope"]), LoadRequest(filters: ["sepai"])]
        {
            let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat()))
            let (presenter, view, _) = scene(interactor)
            #expect(await presenter.load(request) == .usage)
            #expect(interactor.useCases.isEmpty)
            #expect(view.calls.count == 3)
        }
    }

    @Test func routerHandsEditCatTheSamePixels() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let loaded = try cat()
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(loaded))
        let editor = FakeEditCatInteractor(image: try makeImage(width: 1, height: 1))
        let (presenter, view, editView) = scene(interactor, editor: editor)
        let output = dir.appendingPathComponent("edited.jpg").path
        #expect(await presenter.load(LoadRequest(output: output, format: .jpeg, filters: ["sepia"])) == .ok)
        #expect(interactor.useCases.first?.needsFullImage == true)
        // No second download or decode: the edit scene filtered the very buffer the load decoded.
        #expect(editor.filtered === loaded.image.pixels)
        #expect(
            editor.calls == [
                .edit(
                    input: "(in hand)", output: output, filters: ["sepia"], format: .jpeg, settings: [:],
                    maxPixels: DecodeOptions.defaultMaxPixels, force: false)
            ])
        #expect(editView.calls.last == .state(.done))
        #expect(interactor.saved.isEmpty)
        #expect(view.calls.last == .state(.done))
    }

    // MARK: The live scene (load --interactive)

    @Test func liveLoadsAtFullSizeAndStaysAfterAFailure() async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat()))
        let (presenter, view, _) = liveScene(interactor)
        await presenter.startLive(LoadRequest(previewWidth: 80, previewHeight: 40))
        #expect(interactor.useCases.first?.needsFullImage == true)
        #expect(view.calls.first == .state(.loading(provider: "thecatapi")))
        #expect(view.calls.last == .state(.done))
        #expect(view.calls.contains(.decoded(decoded)))
        #expect(view.calls.contains(.count(1)) && decoded.title == "thecatapi cat abc, Bengal")

        interactor.ending = .failure(NetworkError.httpStatus(url: "https://cats.example/", status: 500))
        await presenter.nextCat()
        #expect(view.calls.last == .state(.failed))
        // The cat shown before is still in hand: it can be saved.
        #expect(await presenter.save(to: "kept.png") == .ok)
        #expect(interactor.saved.last?.0 == "kept.png" && interactor.saved.last?.1 == .png)
        #expect(view.calls.suffix(2) == [.loaded(LoadCatResult(cat: decoded, output: "kept.png")), .state(.done)])
    }

    @Test func liveSaveSuggestsAndRefusesBadNames() async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat()))
        let (presenter, view, _) = liveScene(interactor)
        await presenter.startLive(LoadRequest())
        await presenter.requestSave()
        #expect(view.calls.last == .ask("cat-abc.jpg"))
        #expect(await presenter.save(to: "cat.bmp") == .usage)
        #expect(interactor.saved.isEmpty)
        guard case let .error(failure) = view.calls.dropLast().last else {
            Issue.record("no error: \(view.calls.suffix(2))")
            return
        }
        #expect(failure.message.contains("unknown output extension in 'cat.bmp'"))
    }

    @Test func liveEditHandsTheDecodedCatToALiveEditor() async throws {
        let interactor = FakeLoadCatInteractor(reference: reference, ending: .image(try cat()))
        let (presenter, _, router) = liveScene(interactor)
        #expect(await presenter.editCat() != nil)  // no cat yet: no editor shown
        #expect(router.editViews.isEmpty)
        await presenter.startLive(LoadRequest())
        #expect(await presenter.editCat() == nil)
        #expect(router.editViews.count == 1)  // the router showed the editor: the presenter navigated
        let live = try #require(router.editViews.last?.live)
        #expect(live.input == "thecatapi cat abc" && (live.width, live.height) == (64, 48) && live.chain == [])
    }

    /// An animated cat plays in the scene at the preview's size; `e` stops it (the editor
    /// plays it), and back from the editor it plays again.
    @Test func liveAnimatedCatPlaysUntilEditedAndAfter() async throws {
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")
        let image = try ImageDecoder.decode(bytes, name: "anim.gif")
        let animated = LoadedCat(reference: reference, bytes: bytes, image: image, isFullSize: true, preview: nil)
        let (presenter, view, router) = liveScene(
            FakeLoadCatInteractor(reference: reference, ending: .image(animated)))
        await presenter.startLive(LoadRequest(previewWidth: 24, previewHeight: 24))
        for _ in 0..<500 where view.frames.count < 6 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(view.frames.prefix(6) == [0, 1, 2, 3, 4, 0])
        #expect(await presenter.editCat() == nil)
        let stopped = view.frames.count
        try await Task.sleep(for: .milliseconds(400))
        #expect(view.frames.count <= stopped + 1)
        router.closed?()
        for _ in 0..<500 where view.frames.count < stopped + 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(view.frames.count >= stopped + 3)
        await presenter.nextCat()  // the next cat (the same, here) starts a player of its own
        await presenter.endPlaying()
    }
}

/// The live scene's router: shows each editor on a recording view of its own.
@MainActor
final class RecordingRouter: LoadCatLiveRouting {
    private(set) var editViews: [RecordingEditCatLiveView] = []
    /// What the scene asked to hear when the editor shown last closes (Esc there).
    private(set) var closed: (@MainActor () -> Void)?

    func showEditScene(closed: @escaping @MainActor () -> Void) -> EditCatLivePresenter {
        let view = RecordingEditCatLiveView()
        editViews.append(view)
        self.closed = closed
        return Router.makeEditCatLive(
            view: view, interactor: FakeEditCatInteractor(image: try! makeImage(width: 1, height: 1)))
    }
}
