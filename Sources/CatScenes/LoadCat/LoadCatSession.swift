import CatImageIO
import CatNetwork
import CatSupport

/// What both Load Cat presenters (the one-shot `LoadCatPresenter` and the live
/// `LoadCatLivePresenter`) share, composed into each: a load's steps turned into view
/// events, the cat in hand, the failure of the last load, and the request's secrets
/// redacted from everything shown.
@MainActor
final class LoadCatSession {
    let view: any LoadCatView
    let interactor: any LoadCatInteractorInput
    var loaded: LoadedCat?
    var failure: SceneFailure?
    var secrets: [String] = []
    /// Told of each cat decoded, before the view is (the live scene counts them: the title's
    /// count is right when the cat is shown).
    var onCatDecoded: ((LoadedCat) -> Void)?

    init(view: any LoadCatView, interactor: any LoadCatInteractorInput) {
        self.view = view
        self.interactor = interactor
    }

    /// Loads one cat for `request` (the full image too when `fullImage`); `loaded` or
    /// `failure` says how it went.
    func loadCat(_ request: LoadRequest, fullImage: Bool) async {
        failure = nil
        secrets = request.secrets
        let useCase = LoadCatUseCase(
            needsFullImage: fullImage,
            previewSize: request.previewWidth.map { (max(8, $0), max(8, request.previewHeight)) },
            maxPixels: request.maxPixels, maxFrames: request.maxFrames)
        do {
            let cat = try await interactor.loadCat(useCase) { [weak self] in self?.show($0) }
            show(cat)
        } catch {
            _ = fail(SceneFailure(error))  // a cancelled load: interrupted, "cancelled"
        }
    }

    /// What the Edit Cat scene is given: the cat's name, and an animation as its bytes
    /// (every frame is edited), a still image as decoded already.
    func editInput(_ cat: LoadedCat) -> (name: String, input: EditInput) {
        let name = CatTitle.editName(cat.reference)
        return (name, cat.image.frameCount > 1 ? .bytes(cat.bytes, name: name) : .image(cat.image))
    }

    /// What the views are told of a cat in hand.
    func decoded(_ cat: LoadedCat) -> LoadCatDecoded {
        LoadCatDecoded(
            provider: cat.reference.provider, id: cat.reference.id, url: redact(cat.reference.url),
            width: cat.image.fullWidth, height: cat.image.fullHeight, bytes: cat.bytes.count,
            breed: cat.reference.breed?.name, temperament: cat.reference.breed?.temperament)
    }

    /// The text with every secret (the API key) replaced.
    private func redact(_ text: String) -> String {
        secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacing($1, with: "[redacted]") }
    }

    /// Shows `failure` (its secrets redacted) and the state it leaves; returns its status.
    func fail(_ failure: SceneFailure) -> ExitStatus {
        let failure = SceneFailure(status: failure.status, message: redact(failure.message), hint: failure.hint)
        self.failure = failure
        view.showError(failure)
        view.updateLoadingState(failure.status == .interrupted ? .cancelled : .failed)
        return failure.status
    }

    /// A step of a load, as the view shows it.
    private func show(_ event: LoadCatEvent) {
        switch event {
        case let .found(cat):
            view.showCatFound(
                LoadCatFound(
                    provider: cat.provider, id: cat.id, url: redact(cat.url), width: cat.width, height: cat.height))
            view.updateLoadingState(.downloading)
        case let .received(progress): view.updateProgress(progress)
        case .decoding: view.updateLoadingState(.decoding)
        }
    }

    /// The cat a load brought: in hand, and shown.
    private func show(_ cat: LoadedCat) {
        onCatDecoded?(cat)
        loaded = cat
        view.showCatDecoded(decoded(cat))
        if let preview = cat.preview { view.updateImage(LoadCatPreview(pixels: preview)) }
    }
}
