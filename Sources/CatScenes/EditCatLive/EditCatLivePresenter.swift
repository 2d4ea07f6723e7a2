import CatFaces
import CatImageIO
import CatPixels
import CatSupport
import FilterCore

/// The live editor's state: the cat at preview size, the chain so far, every filter's
/// value and which one is highlighted.
final class LiveEdit {
    /// What a save reads: the same input `catctl edit` would.
    let input: EditInput
    /// The command line's choices (encoding, limits); `output` is the path last saved to,
    /// or OUTPUT from the command line, or "" for none yet.
    var request: EditRequest
    let format: ImageFormat
    let width: Int, height: Int, frames: Int
    var preview: PixelBuffer
    var thumbnail: PixelBuffer
    var palette: FilterPalette
    var highlighted = 0
    /// The highlighted filter is on the preview (not right after the chain changed).
    var trying = true
    var chain: [String]
    /// Each filter's thumbnail for the current chain; nil: to be made.
    var thumbnails: [PixelBuffer?]
    /// The cats and faces found on the preview are outlined on it (`f`).
    var showFaces = false
    /// The session's changes to the chain and the values, the latest last, each as the
    /// state before it and what it did ("add sepia:1"); `undone`: those undone since, each
    /// as the state after it, the latest undone last. Any new change drops `undone`.
    var history: [(state: Snapshot, what: String)] = []
    var undone: [(state: Snapshot, what: String)] = []
    /// What the last `u` or `U` did, for the status line, until the next change.
    var note: String?
    /// The chain as last saved (at first: as opened); quitting with another one asks first.
    var savedChain: [String]
    /// `q` found unsaved changes and asked; another `q` quits. Any other input forgets it.
    var askedToQuit = false
    /// `space`: the original is shown instead of the chain.
    var showOriginal = false
    /// `c`: the shape chosen (`cropPresets`) and the window placed on the chain's result,
    /// or nil (the window is nil while the cats are being found).
    var cropShape: Int?
    var crop: CropDraft?
    /// Enter came before the frame was placed: it crops once it is.
    var cropWhenPlaced = false
    /// `t`: the caption being typed, or nil; `typed`: a key changed it since the last preview
    /// (which then waits until 50 ms after the one before).
    var caption: String?
    var typed = false
    /// `z`: asked for, and the part of the full-size result shown at 1:1 once it is made.
    var zoomWanted = false
    var zoom: ZoomView?
    /// The view's picture sizes (the zoom's window is the preview's size).
    var sizes: EditCatPictureSizes
    /// The last chain drawn on the preview and its picture; the cats found on it, once
    /// asked for (crops and captions are placed with them without finding them again).
    var drawn: (chain: [String], picture: PixelBuffer)?
    var subjects: (chain: [String], found: CatFinding, width: Int)?
    /// The full-size input, decoded once for `z`, and the full-size result of a chain.
    var full: PixelBuffer?
    var fullResult: (chain: [String], picture: PixelBuffer)?
    /// The full-size decode under way: a `z` meanwhile waits for it, not a second one.
    var fullDecode: Task<PixelBuffer, any Error>?
    /// An animation plays (`p` pauses it), and its player.
    var playing = false
    let player: LivePlayer

    /// A crop being placed: a preset's shape (`LiveEdit.cropPresets`), its window on the
    /// chain's full-size result, and that result's size.
    struct CropDraft: Equatable {
        var preset: Int
        var x: Int, y: Int, width: Int, height: Int
        var imageWidth: Int, imageHeight: Int
        var spec: String { "crop:\(width)x\(height)+\(x)+\(y)" }
    }

    /// `z`'s window: its centre in the full-size result's pixels.
    struct ZoomView: Equatable {
        var x: Int, y: Int
    }

    /// What `c` goes through after free: width and height of each shape.
    static let cropPresets: [(name: String, width: Int, height: Int)] = [
        ("1:1", 1, 1), ("4:5", 4, 5), ("9:16", 9, 16), ("16:9", 16, 9),
    ]

    /// What an undo brings back: the chain, every filter's value, the highlight.
    struct Snapshot: Equatable {
        var chain: [String]
        var palette: FilterPalette
        var highlighted: Int
    }

    var snapshot: Snapshot { Snapshot(chain: chain, palette: palette, highlighted: highlighted) }

    func restore(_ state: Snapshot) {
        (chain, palette, highlighted) = (state.chain, state.palette, state.highlighted)
        dropCrop()
        trying = false
        thumbnails = Array(repeating: nil, count: palette.count)
    }

    /// A crop frame is placed on the chain's result: another chain drops it.
    func dropCrop() { (crop, cropShape, cropWhenPlaced) = (nil, nil, false) }

    /// Records a change about to be made from `before`. A run of value changes to the same
    /// filter is one change: undone all at once, as a held key made it.
    func record(_ before: Snapshot, _ what: String) {
        undone.removeAll()
        note = nil
        showOriginal = false
        if let last = history.last, last.what == what, what.hasPrefix("change "), last.state.chain == before.chain {
            return
        }
        history.append((before, what))
    }

    init(
        input: EditInput, request: EditRequest, opened: DecodedImage, thumbnail: PixelBuffer,
        sizes: EditCatPictureSizes, player: LivePlayer
    ) {
        self.player = player
        self.input = input
        self.request = request
        self.sizes = sizes
        savedChain = request.filters
        format = opened.format
        width = opened.fullWidth
        height = opened.fullHeight
        frames = opened.frameCount
        preview = opened.pixels
        self.thumbnail = thumbnail
        palette = FilterPalette(width: opened.fullWidth, height: opened.fullHeight)
        chain = request.filters
        thumbnails = Array(repeating: nil, count: palette.count)
    }
}

/// The live Edit Cat scene's logic (`catctl edit --interactive`, and `e` in the live Load
/// Cat scene): the seed app's Edit Cat inputs. Every input changes the state at once and
/// then refreshes the preview; inputs that arrive during a refresh are folded into the
/// next one, so the picture never lags behind a held key. Previews are made from a
/// preview-size copy (`openLive`), never from the full image; a save runs the same use
/// case as `catctl edit` (`EditRun`).
@MainActor
public final class EditCatLivePresenter: EditCatLiveViewOutput {
    let view: any EditCatLiveView
    let interactor: any EditCatLiveInteractorInput
    /// Back to the scene the editor was opened from (Load Cat's); nil for `edit -i`.
    weak var router: (any EditCatLiveRouting)?
    let now: @MainActor () -> Duration
    /// The editor's state, once `openLive` has opened a cat.
    var live: LiveEdit?
    /// A refresh of the preview is under way / another is wanted after it.
    var refreshing = false, refreshWanted = false
    /// When the last preview was shown (`now`).
    var lastDrawn: Duration?
    /// Esc went back from this editor: an animation opening meanwhile does not play.
    var left = false
    /// The cat finder of every chain the previews run: each picture is looked at once.
    let subjects = RememberingCatSubjects()

    /// `now` reads a monotonic clock (tests pass a fake one).
    public init(
        view: any EditCatLiveView, interactor: any EditCatLiveInteractorInput,
        router: (any EditCatLiveRouting)? = nil, now: (@MainActor () -> Duration)? = nil
    ) {
        self.view = view
        self.interactor = interactor
        self.router = router
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
        view.attach(self)
    }

    /// Opens `input` for live editing (the view's picture sizes, `request`'s limits and
    /// encoding; `request.filters` is the chain to start from). Returns the failure when the
    /// cat cannot be opened: the editor is then not usable.
    public func openLive(_ input: EditInput, _ request: EditRequest) async -> SceneFailure? {
        view.updateState(.opening)
        do {
            _ = try FilterChain(specs: request.filters)
            let sizes = view.livePictureSizes
            let (opened, thumbnail) = try await interactor.openLive(
                input, sizes: sizes, options: DecodeOptions(maxPixels: request.maxPixels, maxFrames: request.maxFrames))
            view.showImageInfo(
                EditCatImageInfo(
                    input: request.input, format: opened.format.name, width: opened.fullWidth,
                    height: opened.fullHeight))
            let live = LiveEdit(
                input: input, request: request, opened: opened, thumbnail: thumbnail, sizes: sizes,
                player: LivePlayer(now: now))
            self.live?.player.stop()
            self.live = live
            live.playing = live.frames > 1
            await refresh()
            view.updateState(.ready)
            if live.playing, self.live === live, !left { play(live) }
            return nil
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            view.updateState(.ready)
            return failure
        }
    }

    /// Highlights filter `index` (in the order of `catctl filters`).
    public func highlight(at index: Int) async {
        guard let live, index != live.highlighted, live.palette.values.indices.contains(index) else { return }
        live.highlighted = index
        live.trying = true
        await refresh()
    }

    /// Moves the highlight `delta` filters on, round the ends.
    public func moveHighlight(by delta: Int) async {
        guard let live else { return }
        // While a crop frame or the zoom is up (asked for, perhaps not shown yet), ← → move it.
        if live.cropShape != nil { return await nudgeCrop(x: delta.signum(), y: 0) }
        if live.zoomWanted { return await pan(x: delta.signum(), y: 0) }
        let count = live.palette.count
        await highlight(at: ((live.highlighted + delta) % count + count) % count)
    }

    /// Changes the highlighted filter's value by `steps` of its step (see `FilterPalette`).
    public func changeValue(by steps: Int) async {
        guard let live else { return }
        if live.cropShape != nil { return await nudgeCrop(x: 0, y: -steps.signum()) }  // ↑ moves it up
        if live.zoomWanted { return await pan(x: 0, y: -steps.signum()) }
        let before = live.snapshot
        guard live.palette.step(live.highlighted, by: steps) else { return }
        live.record(before, "change \(FilterRegistry.all[live.highlighted].name)")
        live.thumbnails[live.highlighted] = nil
        live.trying = true
        await refresh()
    }

    /// Adds the highlighted filter, at its value, to the chain — unless it cannot apply
    /// (a crop larger than the image so far): that is shown as an error. The preview then
    /// shows the chain as it is now, until the highlight moves or a value changes.
    public func addHighlighted() async {
        guard let live else { return }
        if live.cropShape != nil { return await applyCrop() }  // Enter on a crop frame crops
        let chain = live.chain + [live.palette.spec(live.highlighted)]
        if let problem = problem(with: chain, live) {
            view.showError(SceneFailure(status: .usage, message: problem))
            return
        }
        live.record(live.snapshot, "add \(chain.last ?? "")")
        live.chain = chain
        live.trying = false
        live.thumbnails = Array(repeating: nil, count: live.palette.count)
        await refresh()
    }

    /// Removes the chain's last filter; the preview shows the chain without it.
    public func removeLast() async {
        guard let live, let last = live.chain.last else { return }
        live.record(live.snapshot, "remove \(last)")
        live.chain.removeLast()
        live.dropCrop()
        live.trying = false
        live.thumbnails = Array(repeating: nil, count: live.palette.count)
        await refresh()
    }

    /// `u`: undoes the session's last change to the chain or a value (the status line says
    /// which); nothing when there is none.
    public func undo() async { await travel(from: \.history, to: \.undone, "undid") }

    /// `U` or Ctrl-R: does again the change undone last.
    public func redo() async { await travel(from: \.undone, to: \.history, "redid") }

    /// Brings back the state on top of `from`, keeping the present one on top of `to`.
    private func travel(
        from: ReferenceWritableKeyPath<LiveEdit, [(state: LiveEdit.Snapshot, what: String)]>,
        to: ReferenceWritableKeyPath<LiveEdit, [(state: LiveEdit.Snapshot, what: String)]>, _ verb: String
    ) async {
        guard let live, let last = live[keyPath: from].popLast() else { return }
        live[keyPath: to].append((live.snapshot, last.what))
        live.restore(last.state)
        live.note = "\(verb): \(last.what)"
        await refresh()
    }

    /// `f`: outlines the cats and faces found on the preview, or stops.
    public func toggleFaces() async {
        guard let live else { return }
        live.showFaces.toggle()
        await refresh()
    }

    /// The view's picture sizes changed (the window was resized): new copies, new previews.
    public func resized() async {
        guard let live else { return }
        let sizes = view.livePictureSizes
        do {
            let (opened, thumbnail) = try await interactor.openLive(
                live.input, sizes: sizes,
                options: DecodeOptions(maxPixels: live.request.maxPixels, maxFrames: live.request.maxFrames))
            // Another cat by now, or another resize on its way (its pictures will do): drop these.
            guard self.live === live, view.livePictureSizes == sizes else { return }
            live.preview = opened.pixels
            live.thumbnail = thumbnail
            live.sizes = sizes
            live.thumbnails = Array(repeating: nil, count: live.palette.count)
            await refresh()
        } catch {
            view.showError(SceneFailure(error))
        }
    }

    /// Esc in the editor: back to the scene it was opened from; nothing for `edit -i`.
    public func goBack() {
        left = true
        live?.player.stop()  // the scene is gone: nothing plays in it
        router?.closeEditScene()
    }

    public var canGoBack: Bool { router != nil }

    /// `s`: asks the view where to save the chain, suggesting the path saved to last, else
    /// OUTPUT from the command line, else `<input>-<filters>.<format>` in the current folder
    /// (never a file that is there already). A crop frame being placed is applied first.
    public func requestSave() async {
        guard let live else { return }
        if live.crop != nil { await applyCrop() }  // the frame on screen is what is saved
        if !live.request.output.isEmpty {
            view.askForOutput(suggested: live.request.output)
            return
        }
        let stem = SavePath.stem(live.request.input)
        var names: [String] = []
        for spec in live.chain {
            let name = String(spec.prefix { $0 != ":" })
            if !names.contains(name) { names.append(name) }
        }
        let filters = names.prefix(3).map { "-" + $0 }.joined()
        let suggestion = await interactor.unusedName("\(stem)\(filters).\(live.format.fileExtension)")
        view.askForOutput(suggested: suggestion)
    }

    /// Saves the chain applied to the full input at `output` (its extension gives the
    /// format) through the same use case, and so with the same pixels, as `catctl edit`.
    @discardableResult
    public func save(to output: String) async -> ExitStatus {
        guard let live else { return .software }
        let path: String, format: ImageFormat
        switch SavePath.parse(output) {
        case let .success(target): (path, format) = target
        case let .failure(failure):
            view.showError(failure)
            return failure.status
        }
        var request = live.request
        request.output = path
        request.format = format
        request.filters = live.chain
        view.updateState(.saving)
        defer { view.updateState(.ready) }
        do {
            let result = try await EditRun.perform(
                interactor, input: live.input, request: request, now: now, opened: { _ in },  // the title shows it
                progress: { [view] in view.updateProgress($0) })
            live.request.output = path
            live.savedChain = request.filters
            view.showSaved(result)
            return .ok
        } catch {
            let failure = SceneFailure(error)
            view.showError(failure)
            return failure.status
        }
    }

    // MARK: The preview

    /// Makes the preview (and the thumbnails not made yet) for the state as it is now and
    /// shows them; when state changes meanwhile, once more for the latest state.
    func refresh() async {
        live?.askedToQuit = false  // an input came (not a pass of the loop below)
        refreshWanted = true
        guard !refreshing else { return }
        refreshing = true
        defer { refreshing = false }
        var previewOnly = false
        while refreshWanted, let live {
            refreshWanted = false
            // A caption being typed redraws at most every 50 ms: keys meanwhile fold in.
            if live.typed, let last = lastDrawn, now() - last < .milliseconds(50) {
                try? await Task.sleep(for: .milliseconds(50) - (now() - last))
                refreshWanted = false
            }
            live.typed = false
            let start = now()
            let specs = live.palette.specs, highlighted = live.highlighted, chain = live.chain
            let trying = live.trying && live.caption == nil && live.cropShape == nil
            let problem = trying ? problem(with: chain + [specs[highlighted]], live) : nil
            let shown = shownChain(live)
            // A new chain needs every thumbnail again: the preview is shown first, alone,
            // and the thumbnails in the next pass (meanwhile the strip shows the plain copy).
            var missing = live.thumbnails.indices.filter { live.thumbnails[$0] == nil }
            previewOnly = !previewOnly && missing.count > 4
            if previewOnly {
                missing = []
                refreshWanted = true
            }
            let subjects = self.subjects, none = try? FilterChain(specs: [])
            let previewChain = (try? FilterChain(specs: shown, subjects: subjects)) ?? none
            let source = live.preview, thumbnailSource = live.thumbnail, fullWidth = live.width
            let interactor = self.interactor
            let original = live.showOriginal && live.zoom == nil
            async let preview = interactor.renderLive(
                source, fullWidth: fullWidth, chains: original ? [] : previewChain.map { [$0] } ?? [])
            let thumbnailChains = missing.compactMap { i in
                (try? FilterChain(specs: chain + [specs[i]], subjects: subjects))
                    ?? (try? FilterChain(specs: chain, subjects: subjects)) ?? none
            }
            let made = await interactor.renderLive(thumbnailSource, fullWidth: fullWidth, chains: thumbnailChains)
            let rendered = await preview.first
            // What changed while this ran (another cat, new sizes, another chain or value)
            // makes its results stale: only what still holds is kept; the loop runs again.
            guard self.live === live, live.preview === source else { continue }
            if live.chain == chain, live.thumbnail === thumbnailSource, made.count == missing.count {
                for (i, result) in zip(missing, made) where live.palette.spec(i) == specs[i] {
                    live.thumbnails[i] = (try? result.get()) ?? live.thumbnail
                }
            }
            var picture = live.preview, renderProblem: String?
            switch rendered {
            case let .success(image)?:
                picture = image
                live.drawn = (shown, image)
            case let .failure(error)?: renderProblem = SceneFailure(error).message
            case nil: break
            }
            var zoomed: EditCatLiveZoom?
            if let zoom = live.zoom {
                do {
                    (picture, zoomed) = try await zoomWindow(zoom, shown, live)
                } catch {
                    renderProblem = SceneFailure(error).message
                }
            }
            let size = try? FilterChain(specs: shown).outputSize(width: live.width, height: live.height)
            let found = live.showFaces && zoomed == nil && !original ? await interactor.cats(in: picture) : nil
            guard self.live === live, live.preview === source else { continue }
            let crop = live.crop.map { crop in
                let factor = Double(picture.width) / Double(max(1, crop.imageWidth))
                func px(_ v: Int) -> Int { Int((Double(v) * factor).rounded()) }
                return EditCatLiveCrop(
                    shape: LiveEdit.cropPresets[crop.preset].name, x: crop.x, y: crop.y, width: crop.width,
                    height: crop.height,
                    frame: ScoredRegion(
                        x: px(crop.x), y: px(crop.y), width: max(1, px(crop.width)), height: max(1, px(crop.height)),
                        score: 1))
            }
            lastDrawn = now()
            view.showLiveEdit(
                EditCatLive(
                    input: live.request.input, format: live.format.name, width: live.width, height: live.height,
                    frames: live.frames, chain: chain, filters: specs, highlighted: highlighted, trying: trying,
                    preview: picture,
                    outputWidth: problem == nil ? size?.width : nil, outputHeight: problem == nil ? size?.height : nil,
                    thumbnails: live.thumbnails.map { $0 ?? live.thumbnail },
                    milliseconds: Int(((now() - start) / .milliseconds(1)).rounded()),
                    problem: problem ?? renderProblem, found: found,
                    // A caption character no installed font has is said as it is typed (before
                    // what the last undo did), not only when the picture is saved.
                    note: previewChain?.notices.first ?? live.note, original: original,
                    crop: crop, caption: live.caption, zoom: zoomed, playing: live.frames > 1 ? live.playing : nil))
        }
    }

    /// The zoom's window: `shown` run once on the full-size input (kept while the chain is
    /// the same), and the part of it the size of the preview around the zoom's centre.
    private func zoomWindow(_ zoom: LiveEdit.ZoomView, _ shown: [String], _ live: LiveEdit) async throws -> (
        PixelBuffer, EditCatLiveZoom
    ) {
        guard let full = live.full else { throw SceneFailure(status: .software, message: "no full-size picture") }
        var result: PixelBuffer
        if let kept = live.fullResult, kept.chain == shown {
            result = kept.picture
        } else {
            let chain = try FilterChain(catSpecs: shown)
            result = try await interactor.renderLive(full, fullWidth: full.width, chains: [chain]).first?.get() ?? full
            live.fullResult = (shown, result)
        }
        let w = min(live.sizes.preview.width, result.width), h = min(live.sizes.preview.height, result.height)
        let x = min(max(0, zoom.x - w / 2), result.width - w), y = min(max(0, zoom.y - h / 2), result.height - h)
        let window = try FilterChain(specs: ["crop:\(w)x\(h)+\(x)+\(y)"])
        let picture = try await interactor.renderLive(result, fullWidth: result.width, chains: [window]).first?.get()
        return (
            picture ?? result,
            EditCatLiveZoom(x: x, y: y, width: w, height: h, fullWidth: result.width, fullHeight: result.height)
        )
    }

    /// Why `chain` cannot run on the full image (a crop outside it, over the pixel limit), or nil.
    func problem(with chain: [String], _ live: LiveEdit) -> String? {
        do {
            let sizes = try FilterChain(specs: chain).sizes(width: live.width, height: live.height)
            if sizes.largestPixels > live.request.maxPixels {
                return "\(sizes.largestWidth)x\(sizes.largestHeight) is over the pixel limit"
            }
            if max(sizes.longest.width, sizes.longest.height) > PixelError.maxSide {
                return PixelError.outputTooLong(width: sizes.longest.width, height: sizes.longest.height).description
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The live editor is left for good (another cat is being edited): a refresh or a
    /// resize still under way shows nothing more.
    func closeLive() {
        live?.player.stop()
        live = nil
    }
}
