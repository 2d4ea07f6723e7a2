import CatImageIO
import CatSupport
import FilterCore

/// The live Load Cat scene (`catctl load --interactive`): the seed app's Load, Cancel, Save
/// and Edit buttons as inputs. A failed load is shown and the scene stays usable (the
/// cat shown before stays in hand); every cat is decoded at full size, ready to edit.
/// The presenter decides what each input does now: `e` and `s` do nothing while a cat
/// loads or before one is in hand. What it shares with the one-shot scene is composed in
/// (`LoadCatSession`), not inherited.
@MainActor
public final class LoadCatLivePresenter: LoadCatLiveViewOutput {
    let session: LoadCatSession
    let view: any LoadCatLiveView
    let router: any LoadCatLiveRouting
    /// The scene's request, a load under way, the cats shown, the editor the cat was handed to.
    var liveRequest: LoadRequest?
    var loading = false
    var count = 0
    var editor: EditCatLivePresenter?
    /// The cat in hand's animation, playing while it is on screen.
    var player: LivePlayer?

    public init(view: any LoadCatLiveView, interactor: any LoadCatInteractorInput, router: any LoadCatLiveRouting) {
        session = LoadCatSession(view: view, interactor: interactor)
        self.view = view
        self.router = router
        session.onCatDecoded = { [unowned self] _ in
            count += 1
            view.updateCatCount(count)
        }
        view.attach(self)
    }

    /// Starts the scene with `request` (its provider, preview size, limits and encoding)
    /// and loads the first cat.
    public func startLive(_ request: LoadRequest) async {
        liveRequest = request
        await nextCat()
    }

    /// Loads another cat (nothing when one is loading already). Returns when it is shown,
    /// has failed or was cancelled (`cancel()`).
    public func nextCat() async {
        guard let request = liveRequest, !loading else { return }
        loading = true
        defer { loading = false }
        view.updateLoadingState(.loading(provider: request.provider))
        let previous = session.loaded
        await session.loadCat(request, fullImage: true)
        if session.failure != nil {
            session.loaded = previous
        } else if let cat = session.loaded {
            view.updateLoadingState(.done)
            play(cat, request)
        }
    }

    /// Stops the animations of this scene and of the editor it opened, and waits for their
    /// frames in the making (the app is ending).
    public func endPlaying() async {
        await player?.end()
        player = nil
        await editor?.endPlaying()
        await LivePlayer.endAll()  // those of cats shown before, too
    }

    /// An animated cat plays at its own delays, a frame made at a time at the preview's
    /// size (`LivePlayer`); the next cat stops it.
    func play(_ cat: LoadedCat, _ request: LoadRequest) {
        player?.stop()
        player = nil
        guard cat.image.frameCount > 1, let width = request.previewWidth else { return }
        let origin = ContinuousClock.now
        let player = LivePlayer(now: { ContinuousClock.now - origin })
        self.player = player
        let bytes = cat.bytes, name = cat.reference.id ?? "cat"
        let options = DecodeOptions(maxPixels: request.maxPixels, maxFrames: request.maxFrames)
        let box = (width: width, height: request.previewHeight), fullWidth = cat.image.fullWidth
        player.play(
            open: { try await LiveFrames.open(bytes: bytes, name: name, options: options) },
            make: { frames in
                Task { try await frames.make(fitting: box, chain: try FilterChain(specs: []), fullWidth: fullWidth) }
            },
            show: { [weak self] frame, count in
                guard let self, self.player === player else { return player.stop() }
                view.showFrame(frame.picture, index: frame.index, count: count)
            },
            failed: { _ in })  // the cat stays shown still
    }

    /// Esc or Ctrl-C: stops the load under way; false when none is.
    @discardableResult
    public func cancel() -> Bool { session.interactor.cancelLoad() }

    /// `s`: asks the view where to save the cat as it is: `cat-<id>.<format>` to begin with.
    /// Nothing while a cat loads.
    public func requestSave() async {
        guard !loading, let cat = session.loaded else { return }
        let id = cat.reference.id.map { SavePath.stem($0) } ?? "cat"
        view.askForOutput(
            suggested: await session.interactor.unusedName("cat-\(id).\(cat.image.format.fileExtension)"))
    }

    /// Saves the cat in hand as it is at `output` (its bytes when the extension is the
    /// cat's format). A failure is shown; the scene stays.
    @discardableResult
    public func save(to output: String) async -> ExitStatus {
        guard let cat = session.loaded, let request = liveRequest else { return .software }
        let path: String, format: ImageFormat
        switch SavePath.parse(output) {
        case let .success(target): (path, format) = target
        case let .failure(failure): return session.fail(failure)
        }
        view.updateLoadingState(.saving(output: path))
        do {
            try OutputFile.checkCreatable(path)
            try await session.interactor.saveCat(
                cat, to: path, options: EncodeOptions(format: format, settings: request.encoding),
                maxPixels: request.maxPixels)
        } catch {
            return session.fail(SceneFailure(error))
        }
        view.showLoaded(LoadCatResult(cat: session.decoded(cat), output: path))
        if !loading { view.updateLoadingState(.done) }  // a load started meanwhile goes on showing
        return .ok
    }

    /// `e`: hands the cat in hand, decoded, to a live Edit Cat scene the router shows (an
    /// animation as its bytes, so a save keeps every frame). Returns the failure when it
    /// cannot be opened (the editor shows it), or why there is nothing to edit yet (a cat
    /// loading, or none in hand: then the scene stays).
    @discardableResult
    public func editCat() async -> SceneFailure? {
        guard !loading, let cat = session.loaded, let request = liveRequest else {
            return SceneFailure(status: .usage, message: loading ? "a cat is loading" : "no cat to edit yet")
        }
        let (name, input) = session.editInput(cat)
        player?.stop()  // the editor plays it now
        self.editor?.closeLive()
        // Back from the editor, the cat plays here again.
        let editor = router.showEditScene { [weak self] in
            guard let self, let cat = session.loaded, let request = liveRequest, !loading else { return }
            play(cat, request)
        }
        self.editor = editor
        return await editor.openLive(
            input,
            EditRequest(
                input: name, output: "", filters: [], format: cat.image.format, encoding: request.encoding,
                maxPixels: request.maxPixels, maxFrames: request.maxFrames))
    }
}
