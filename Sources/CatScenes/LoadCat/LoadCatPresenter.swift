import CatImageIO
import CatNetwork
import CatSupport
import FilterCore

/// The Load Cat scene's logic: asks the interactor for a random cat, tells the view each
/// step (loading → title → image → done, or error / cancelled), then saves the cat or
/// hands it, decoded, to the Edit Cat scene. The live scene's inputs are its subclass,
/// `LoadCatLivePresenter`.
@MainActor
public class LoadCatPresenter: LoadCatInteractorOutput {
    let view: any LoadCatView
    let interactor: any LoadCatInteractorInput
    /// Builds the Edit Cat scene when the cat is to be edited (`load --filter`; the
    /// router's job); nil in the live scene, whose router shows the live editor.
    private let makeEditor: (() -> EditCatPresenter)?
    var loaded: LoadedCat?
    var failure: SceneFailure?
    var secrets: [String] = []

    public convenience init(
        view: any LoadCatView, interactor: any LoadCatInteractorInput,
        makeEditor: @escaping () -> EditCatPresenter
    ) {
        self.init(view: view, interactor: interactor, editor: makeEditor)
    }

    init(view: any LoadCatView, interactor: any LoadCatInteractorInput, editor: (() -> EditCatPresenter)?) {
        self.view = view
        self.interactor = interactor
        self.makeEditor = editor
    }

    /// Loads one cat and shows, saves or edits it. Returns how the scene ended.
    public func load(_ request: LoadRequest) async -> ExitStatus {
        view.updateLoadingState(.loading(provider: request.provider))
        loaded = nil
        failure = nil
        secrets = request.secrets
        do {
            _ = try FilterChain(specs: request.filters)
            if let output = request.output, output != "-" { try OutputFile.checkCreatable(output) }
        } catch {
            return fail(SceneFailure(error))
        }

        interactor.output = self
        await interactor.loadCat(
            LoadCatUseCase(
                needsFullImage: !request.filters.isEmpty,
                previewSize: request.previewWidth.map { (max(8, $0), max(8, request.previewHeight)) },
                maxPixels: request.maxPixels, maxFrames: request.maxFrames))
        if let failure { return failure.status }
        guard let cat = loaded else { return fail(SceneFailure(status: .software, message: "no cat and no error")) }

        if let output = request.output, let format = request.format {
            if !request.filters.isEmpty {
                let status = await edit(cat, request)
                guard status == .ok else {
                    view.updateLoadingState(.failed)
                    return status
                }
            } else {
                view.updateLoadingState(.saving(output: output))
                do {
                    try await interactor.saveCat(
                        cat, to: output,
                        options: EncodeOptions(format: format, settings: request.encoding),
                        maxPixels: request.maxPixels)
                } catch {
                    return fail(SceneFailure(error))
                }
            }
        }
        view.showLoaded(LoadCatResult(cat: decoded(cat), output: request.output))
        view.updateLoadingState(.done)
        return .ok
    }

    /// Ctrl-C: stops the transfer; the scene ends as cancelled. False when no load is under
    /// way (the caller must then stop the process itself).
    @discardableResult
    public func cancel() -> Bool { interactor.cancelLoad() }

    /// Hands the decoded cat to the Edit Cat scene: no second download, no second decode.
    public func edit(_ cat: LoadedCat, _ request: LoadRequest) async -> ExitStatus {
        guard let makeEditor else { return fail(SceneFailure(status: .software, message: "no Edit Cat scene")) }
        let (name, input) = editInput(cat)
        return await makeEditor().edit(
            input,
            EditRequest(
                input: name, output: request.output ?? "-", filters: request.filters, format: request.format ?? .png,
                encoding: request.encoding, maxPixels: request.maxPixels,
                maxFrames: request.maxFrames))
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

    func fail(_ failure: SceneFailure) -> ExitStatus {
        let failure = SceneFailure(status: failure.status, message: redact(failure.message), hint: failure.hint)
        self.failure = failure
        view.showError(failure)
        view.updateLoadingState(failure.status == .interrupted ? .cancelled : .failed)
        return failure.status
    }

    // MARK: LoadCatInteractorOutput

    public func didLoadCatURL(_ cat: CatReference) {
        view.showCatFound(
            LoadCatFound(
                provider: cat.provider, id: cat.id, url: redact(cat.url), width: cat.width,
                height: cat.height))
        view.updateLoadingState(.downloading)
    }

    public func didReceiveCatBytes(_ received: Int64, expected: Int64?) {
        view.updateProgress(LoadCatProgress(received: received, expected: expected))
    }

    public func willDecodeCat() {
        view.updateLoadingState(.decoding)
    }

    public func didLoadCatImage(_ cat: LoadedCat) {
        loaded = cat
        view.showCatDecoded(decoded(cat))
        if let preview = cat.preview { view.updateImage(LoadCatPreview(pixels: preview)) }
    }

    public func didFailToLoadCat(_ error: any Error) {
        _ = fail(SceneFailure(error))
    }

    public func didCancelLoad() {
        _ = fail(SceneFailure(status: .interrupted, message: "cancelled"))
    }
}
