import CatImageIO
import CatNetwork
import CatSupport
import FilterCore

/// The Load Cat scene's logic: asks the interactor for a random cat, tells the view each
/// step (loading → title → image → done, or error / cancelled), then saves the cat or
/// hands it, decoded, to the Edit Cat scene. What it shares with the live scene
/// (`LoadCatLivePresenter`) is composed in: `LoadCatSession`.
@MainActor
public final class LoadCatPresenter {
    let session: LoadCatSession
    /// Builds the Edit Cat scene when the cat is to be edited (`load --filter`; the
    /// router's job).
    private let makeEditor: () -> EditCatPresenter
    private var view: any LoadCatView { session.view }

    public init(
        view: any LoadCatView, interactor: any LoadCatInteractorInput,
        makeEditor: @escaping () -> EditCatPresenter
    ) {
        session = LoadCatSession(view: view, interactor: interactor)
        self.makeEditor = makeEditor
    }

    /// Loads one cat and shows, saves or edits it. Returns how the scene ended.
    public func load(_ request: LoadRequest) async -> ExitStatus {
        view.updateLoadingState(.loading(provider: request.provider))
        session.loaded = nil
        session.secrets = request.secrets  // before the checks: their messages are redacted too
        do {
            _ = try FilterChain(specs: request.filters)
            if let output = request.output, output != "-" { try OutputFile.checkCreatable(output) }
        } catch {
            return session.fail(SceneFailure(error))
        }

        await session.loadCat(request, fullImage: !request.filters.isEmpty)
        if let failure = session.failure { return failure.status }
        guard let cat = session.loaded else {
            return session.fail(SceneFailure(status: .software, message: "no cat and no error"))
        }

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
                    try await session.interactor.saveCat(
                        cat, to: output,
                        options: EncodeOptions(format: format, settings: request.encoding),
                        maxPixels: request.maxPixels)
                } catch {
                    return session.fail(SceneFailure(error))
                }
            }
        }
        view.showLoaded(LoadCatResult(cat: session.decoded(cat), output: request.output))
        view.updateLoadingState(.done)
        return .ok
    }

    /// Ctrl-C: stops the transfer; the scene ends as cancelled. False when no load is under
    /// way (the caller must then stop the process itself).
    @discardableResult
    public func cancel() -> Bool { session.interactor.cancelLoad() }

    /// Hands the decoded cat to the Edit Cat scene: no second download, no second decode.
    func edit(_ cat: LoadedCat, _ request: LoadRequest) async -> ExitStatus {
        let (name, input) = session.editInput(cat)
        return await makeEditor().edit(
            input,
            EditRequest(
                input: name, output: request.output ?? "-", filters: request.filters, format: request.format ?? .png,
                encoding: request.encoding, maxPixels: request.maxPixels,
                maxFrames: request.maxFrames))
    }
}
