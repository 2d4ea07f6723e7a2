import CatImageIO
import FilterCore
import Foundation

/// The live Load Cat scene (`catctl load --interactive`): the seed app's Load, Cancel, Save
/// and Edit buttons as inputs. A failed load is shown and the scene stays usable (the
/// cat shown before stays in hand); every cat is decoded at full size, ready to edit.
extension LoadCatPresenter {
    /// Starts the scene with `request` (its provider, preview size, limits and encoding)
    /// and loads the first cat.
    public func startLive(_ request: LoadRequest) async {
        liveRequest = request
        secrets = request.secrets
        await nextCat()
    }

    /// Loads another cat (nothing when one is loading already). Returns when it is shown,
    /// has failed or was cancelled (`cancel()`).
    public func nextCat() async {
        guard let request = liveRequest, !loading else { return }
        loading = true
        defer { loading = false }
        failure = nil
        view.updateLoadingState(.loading(provider: request.provider))
        let previous = loaded
        interactor.output = self
        await interactor.loadCat(
            LoadCatUseCase(
                needsFullImage: true,
                previewSize: request.previewWidth.map { (max(8, $0), max(8, request.previewHeight)) },
                maxPixels: request.maxPixels, maxFrames: request.maxFrames))
        if failure != nil {
            loaded = previous
        } else if loaded != nil {
            view.updateLoadingState(.done)
        }
    }

    /// Whether a load is under way (Esc cancels it).
    public var isLoading: Bool { loading }

    /// `s`: asks the view where to save the cat as it is: `cat-<id>.<format>` to begin with.
    public func requestSave() async {
        guard let cat = loaded else { return }
        let id = cat.reference.id.map { EditCatPresenter.fileStem($0) } ?? "cat"
        view.askForOutput(
            suggested: await interactor.unusedName("cat-\(id).\(cat.image.format.fileExtension)"))
    }

    /// Saves the cat in hand as it is at `output` (its bytes when the extension is the
    /// cat's format). A failure is shown; the scene stays.
    @discardableResult
    public func save(to output: String) async -> ExitStatus {
        guard let cat = loaded, let request = liveRequest else { return .software }
        let path: String, format: ImageFormat
        switch SavePath.parse(output) {
        case let .success(target): (path, format) = target
        case let .failure(failure): return fail(failure)
        }
        view.updateLoadingState(.saving(output: path))
        do {
            try OutputFile.checkCreatable(path)
            try await interactor.saveCat(
                cat, to: path, options: EncodeOptions(format: format, settings: request.encoding),
                maxPixels: request.maxPixels)
        } catch {
            return fail(SceneFailure(error))
        }
        view.showLoaded(LoadCatResult(cat: decoded(cat), output: path))
        if !loading { view.updateLoadingState(.done) }  // a load started meanwhile goes on showing
        return .ok
    }

    /// `e`: hands the cat in hand, decoded, to a live Edit Cat scene (an animation as its
    /// bytes, so a save keeps every frame). Returns the failure when it cannot be opened.
    public func editCat() async -> SceneFailure? {
        guard let cat = loaded, let request = liveRequest else {
            return SceneFailure(status: .usage, message: "no cat to edit yet")
        }
        let name = cat.reference.id.map { "\(cat.reference.provider) cat \($0)" } ?? cat.reference.url
        let input: EditInput = cat.image.frameCount > 1 ? .bytes(cat.bytes, name: name) : .image(cat.image)
        self.editor?.closeLive()
        let editor = makeEditor()
        self.editor = editor
        return await editor.openLive(
            input,
            EditRequest(
                input: name, output: "", filters: [], format: cat.image.format, encoding: request.encoding,
                maxPixels: request.maxPixels, maxFrames: request.maxFrames))
    }
}
