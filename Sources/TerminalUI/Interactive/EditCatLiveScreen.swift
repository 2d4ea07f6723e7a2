import CatImageIO
import CatScenes
import CatSupport

/// The live Edit Cat scene (`catctl edit --interactive`, `e` in the live Load Cat scene):
/// the cat through the chain and the highlighted filter, a strip of every filter's
/// thumbnail around the highlighted one (the seed app's gallery), the chain and the
/// result's size on the status line. A passive view: it draws what the presenter tells
/// it and sends every key to the presenter; `g` (the gallery grid), `?` and the save
/// prompt are only ways of showing.
@MainActor
public final class EditCatLiveScreen: EditCatLiveView, LiveScene {
    /// The app owns its screens (its stack of scenes), so they hold it unowned: else each
    /// would keep the other alive.
    private unowned let host: any LiveHost
    private weak var presenter: (any EditCatLiveViewOutput)?
    private var info: EditCatImageInfo?
    private var live: EditCatLive?
    private var state = EditCatLiveState.ready
    /// The status line's message until the next key (an error, "saved …"), or progress.
    private var message: LiveChrome.Message?
    private var prompt: LinePrompt?
    /// The animation's frame shown in the preview's place, while one plays.
    private var animationFrame: EditCatLiveFrame?
    private enum Mode { case editor, gallery, help }
    private var mode = Mode.editor
    /// The thumbnails as chafa drew them, while they are the ones shown.
    private let pictures = PictureCache()
    /// The picture sizes the presenter was last given: new ones only when they change.
    private var sizesGiven: EditCatPictureSizes?

    public convenience init(app: LiveApp) { self.init(host: app) }

    init(host: any LiveHost) { self.host = host }

    /// What the view was told last (for the benchmark).
    var lastLive: EditCatLive? { live }

    // MARK: EditCatLiveView

    /// A new presenter is a new cat: nothing of the one before stays.
    public func attach(_ presenter: any EditCatLiveViewOutput) {
        self.presenter = presenter
        (info, live, message, prompt, mode, sizesGiven, state) = (nil, nil, nil, nil, .editor, nil, .ready)
        animationFrame = nil
    }

    public var livePictureSizes: EditCatPictureSizes {
        let layout = Layout(host)
        let frame = ScreenFrame(host: host)
        let sizes = EditCatPictureSizes(
            preview: frame.pixels(columns: host.columns, rows: layout.previewRows),
            thumbnail: frame.pixels(columns: layout.tileColumns, rows: max(3, layout.tileRows)))
        sizesGiven = sizes
        return sizes
    }

    public func updateState(_ state: EditCatLiveState) {
        self.state = state
        if state == .saving { message = LiveChrome.Message(text: "saving…", style: .bold) }
        draw()
    }

    public func updateProgress(_ progress: EditCatProgress) {
        message = LiveChrome.Message(
            text: "\(StatusLine.bar(Double(progress.percent) / 100)) \(progress.percent)% \(progress.label)",
            style: .bold)
        draw()
    }

    public func showImageInfo(_ info: EditCatImageInfo) {
        self.info = info
    }

    public func showFrame(_ frame: EditCatLiveFrame) {
        animationFrame = frame
        guard mode == .editor else { return }  // the gallery and the ? screen show no preview
        // In kitty, the frame replaces the preview's pixels in place, and the status line is
        // drawn again; elsewhere (or when the preview is not the one placed) the whole screen.
        if let placed = ownPreview, placed == (frame.picture.width, frame.picture.height), host.isOnTop(self),
            mode == .editor, let live, live.found == nil, !live.showsStill
        {
            var partial = ScreenFrame(host: host, whole: false)
            partial.replaceOwnPicture(frame.picture, id: KittyPicture.previewID)
            drawStatus(&partial, footer: false)
            host.write(partial.output)
        } else {
            draw()
        }
        shown?()
    }

    /// The size of the preview placed as kitty picture of catctl's own (an animation's), or nil.
    private var ownPreview: (width: Int, height: Int)?

    public func showLiveEdit(_ live: EditCatLive) {
        self.live = live
        if live.playing == nil { animationFrame = nil }
        pictures.keep(only: live.thumbnails)
        draw()
        shown?()
    }

    /// Told after each frame `showLiveEdit` or `showFrame` drew (the benchmark's clock).
    var shown: (@MainActor () -> Void)?

    public func showSaved(_ result: EditCatResult) {
        let frames = result.frames > 1 ? ", \(result.frames) frames" : ""
        let notes = result.notes.isEmpty ? "" : " — " + result.notes.joined(separator: "; ")
        message = LiveChrome.Message(
            text: "saved \(result.output): \(result.width)x\(result.height)\(frames), "
                + "\(result.filters.isEmpty ? "no filters" : result.filters.joined(separator: " → ")), "
                + "\(result.milliseconds) ms\(notes)", style: .bold)
        draw()
    }

    public func showError(_ failure: SceneFailure) {
        message = LiveChrome.Message(text: host.wording.message(failure), style: .error)
        draw()
    }

    public func askForOutput(suggested: String) {
        let chain = live?.chain.joined(separator: " → ") ?? ""
        prompt = LinePrompt(label: "save \(chain.isEmpty ? "the cat as it is" : chain) as: ", text: suggested)
        draw()
    }

    // MARK: Keys

    enum Action: Equatable {
        case previous, next, up, down, add, remove, undo, redo, original, crop, caption, zoom, play, gallery, faces
        case save
        case help, back, quit, interrupt
    }

    /// The editor's keys; `back`: Esc goes back to Load Cat (the editor came from there).
    static func keys(back: Bool) -> KeyMap<Action> {
        let move = "highlight the previous / next filter; the preview shows chain + it"
        let value = "change the highlighted filter's value (in the gallery: move a row)"
        return KeyMap([
            KeyBinding([.left, .char("h")], "← → or h l", move, footer: "←→↑↓ pick", action: .previous),
            KeyBinding([.right, .char("l")], "← → or h l", move, action: .next),
            KeyBinding([.up, .char("k")], "↑ ↓ or k j", value, action: .up),
            KeyBinding([.down, .char("j")], "↑ ↓ or k j", value, action: .down),
            KeyBinding(
                [.enter], "Enter", "add the highlighted filter to the chain (cropping: crop)",
                footer: "Enter add", action: .add),
            KeyBinding(
                [.backspace, .delete], "Backspace", "remove the chain's last filter", action: .remove,
                docs: "Backspace or Delete"),
            KeyBinding(
                [.char("u")], "u", "undo the last change to the chain or a value (the status line says which)",
                footer: "u undo", action: .undo),
            KeyBinding(
                [.char("U"), .ctrl("r")], "U", "redo what was undone last", action: .redo, docs: "U or Ctrl-R"),
            KeyBinding(
                [.char(" ")], "Space", "show the original (Space again: the chain)", action: .original),
            KeyBinding(
                [.char("c")], "c",
                "a crop frame on the cat: 1:1, 4:5, 9:16, 16:9, none; arrows move it, Enter crops",
                footer: "c crop", action: .crop),
            KeyBinding(
                [.char("t")], "t",
                "type a caption (Enter keeps it, Esc drops it)", footer: "t text",
                action: .caption),
            KeyBinding(
                [.char("z")], "z", "1:1 pixels of the full-size result at the cat's face; arrows pan",
                footer: "z zoom", action: .zoom),
            KeyBinding([.char("p")], "p", "pause an animation, or play it again", action: .play),
            KeyBinding(
                [.char("g")], "g", "a gallery of every filter on this cat (g or Esc: back)", action: .gallery),
            KeyBinding(
                [.char("f")], "f", "outline the cats (blue) and faces (yellow) found (f again: hide)",
                action: .faces),
            KeyBinding(
                [.char("s")], "s", "save the chain at full size (a prompt: Enter writes, Ctrl-U clears, Esc cancels)",
                footer: "s save", action: .save),
            KeyBinding([.char("?")], "?", "this list", action: .help),
            KeyBinding(
                [.escape], "Esc", "back to Load Cat", footer: back ? "Esc back" : nil, action: .back, listed: back),
            KeyBinding(
                [.char("q"), .ctrl("d")], "q", "quit (asks once when changes are not saved)", footer: "q quit",
                action: .quit, docs: "q or Ctrl-D"),
            KeyBinding(
                [.ctrl("c")], "Ctrl-C", "quit (status 130), from anywhere", action: .interrupt, listed: false,
                anywhere: true),
        ])
    }

    private var keys: KeyMap<Action> { Self.keys(back: presenter?.canGoBack ?? false) }

    public func handle(_ key: Key) {
        if case let .mouse(mouse) = key { return click(mouse) }
        if prompt?.purpose == .caption, keys.binding(for: key)?.anywhere != true, var open = prompt {
            return typeCaption(key, &open)
        }
        switch keys.route(
            key, prompt: &prompt, helpShown: mode == .help, answer: { path in act { await $0.save(to: path) } })
        {
        case let .anywhere(action): perform(action)
        case .prompt: draw()
        case .closeHelp:
            mode = .editor
            draw()
        case let .binding(action):
            if message != nil && state == .ready { message = nil }
            if let action, !perform(action) { return }
            draw()
        }
    }

    /// Pasted text goes into the open prompt (the caption's text goes to the presenter once,
    /// whole); elsewhere it is no keys (a paste ran as commands before), and says so.
    public func paste(_ text: String) {
        guard var open = prompt else {
            message = LiveChrome.Message(
                text: "pasted text left out: keys are commands here (t types a caption)", style: .error)
            return draw()
        }
        let before = open.text
        open.paste(text)
        prompt = open
        if open.purpose == .caption, open.text != before {
            let typed = open.text
            act { await $0.typeCaption(typed) }
        }
        draw()
    }

    /// A key for the caption's line editor; its text goes to the presenter as it changes.
    private func typeCaption(_ key: Key, _ open: inout LinePrompt) {
        let before = open.text
        switch open.handle(key) {
        case .editing:
            prompt = open
            let text = open.text
            if text != before { act { await $0.typeCaption(text) } }
        case let .answered(text):
            prompt = nil
            act { await $0.keepCaption(text) }
        case .cancelled:
            prompt = nil
            act { await $0.dropCaption() }
        }
        draw()
    }

    /// What the live state says the arrows move: the crop frame, the zoomed window, or the highlight.
    private enum Arrows { case highlight, crop, zoom }
    private var arrows: Arrows { live?.crop != nil ? .crop : live?.zoom != nil ? .zoom : .highlight }

    /// Does what `action` asks; false when another scene is on screen now (nothing to draw).
    @discardableResult
    private func perform(_ action: Action, times: Int = 1) -> Bool {
        let columns = Layout(host).galleryColumns
        // The arrows move the crop frame or the zoomed window when one is on (not in the gallery).
        func moved(_ x: Int, _ y: Int) -> Bool {
            guard mode != .gallery, arrows != .highlight else { return false }
            if arrows == .crop {
                act { await $0.nudgeCrop(x: x, y: y) }
            } else {
                act { await $0.pan(x: x, y: y) }
            }
            return true
        }
        switch action {
        case .previous: if !moved(-times, 0) { act { await $0.moveHighlight(by: -times) } }
        case .next: if !moved(times, 0) { act { await $0.moveHighlight(by: times) } }
        case .up:
            if moved(0, -times) {
                break
            } else if mode == .gallery {
                act { await $0.moveHighlight(by: -columns * times) }
            } else {
                act { await $0.changeValue(by: times) }
            }
        case .down:
            if moved(0, times) {
                break
            } else if mode == .gallery {
                act { await $0.moveHighlight(by: columns * times) }
            } else {
                act { await $0.changeValue(by: -times) }
            }
        case .add:
            mode = .editor
            if arrows == .crop { act { await $0.applyCrop() } } else { act { await $0.addHighlighted() } }
        case .remove: act { await $0.removeLast() }
        case .undo: act { await $0.undo() }
        case .redo: act { await $0.redo() }
        case .original: act { await $0.toggleOriginal() }
        case .crop:
            mode = .editor
            act { await $0.cycleCrop() }
        case .caption:
            mode = .editor
            prompt = LinePrompt(label: "caption: ", limit: EditCatLive.captionLimit, purpose: .caption)
            act { await $0.startCaption() }
        case .zoom:
            mode = .editor
            act { await $0.toggleZoom() }
        case .play: act { await $0.togglePlaying() }
        case .gallery: mode = mode == .gallery ? .editor : .gallery
        case .faces: act { await $0.toggleFaces() }
        case .save: act { await $0.requestSave() }
        case .help: mode = .help
        case .back:
            if mode != .editor {
                mode = .editor
            } else if arrows == .crop {
                act { await $0.cancelCrop() }
            } else if arrows == .zoom {
                act { await $0.toggleZoom() }
            } else if presenter?.canGoBack == true {
                presenter?.goBack()  // its router takes this screen away
                return false
            }
        case .quit: act { await $0.requestQuit() }
        case .interrupt: host.quit(.interrupted)
        }
        return true
    }

    /// The mouse: a click on a thumbnail highlights its filter (in the gallery, too), the
    /// wheel changes the highlighted value, a click on the footer runs the key named there.
    private func click(_ mouse: MouseEvent) {
        guard mode != .help, prompt == nil, let live else { return }
        switch mouse.action {
        case .wheelUp: perform(.up, times: mouse.count)
        case .wheelDown: perform(.down, times: mouse.count)
        case .press where mouse.button == 0:
            if let action = keys.footerAction(for: mouse, rows: host.rows) {
                if message != nil && state == .ready { message = nil }
                if !perform(action) { return }
            } else if let index = tile(at: mouse.column, row: mouse.row, live) {
                act { await $0.highlight(at: index) }
            }
        case .press, .release, .drag: return
        }
        draw()
    }

    /// The filter whose thumbnail is at a cell, in the strip or the gallery.
    private func tile(at column: Int, row: Int, _ live: EditCatLive) -> Int? {
        guard let (strip, places) = tiles(live) else { return nil }
        return strip.index(at: column, row: row, in: places)
    }

    /// The thumbnails on screen and where each goes: the gallery's grid, or the editor's
    /// strip (none on a screen too small for one).
    private func tiles(_ live: EditCatLive) -> (PictureStrip, [PictureStrip.Place])? {
        let layout = Layout(host)
        if mode == .gallery {
            let strip = strip(live, layout, tileRows: max(2, layout.tileRows))
            return (
                strip,
                strip.gridPlaces(columns: layout.galleryColumns, screenColumns: host.columns, screenRows: host.rows)
            )
        }
        guard layout.tileRows > 0 else { return nil }
        let strip = strip(live, layout, tileRows: layout.tileRows)
        return (
            strip,
            strip.stripPlaces(
                count: layout.stripCount, top: host.rows - 2 - layout.tileRows, screenColumns: host.columns)
        )
    }

    public func askBeforeQuitting() {
        message = LiveChrome.Message(text: "unsaved: s save, q quit anyway", style: .error)
        draw()
    }

    public func quit() { host.quit(.ok) }

    public func screenChanged() {
        draw()
        let given = sizesGiven
        if given != nil, given != livePictureSizes { act { await $0.resized() } }  // the getter records the new sizes
    }

    /// Sends an input to the presenter (in the order keys came: tasks on the main actor start in order).
    private func act(_ input: @escaping @MainActor (any EditCatLiveViewOutput) async -> Void) {
        guard let presenter else { return }
        host.perform { await input(presenter) }
    }

    // MARK: Drawing

    /// Where things go on a screen of this size.
    struct Layout {
        let columns: Int, rows: Int
        /// The strip of thumbnails (0 rows on a screen too small for one).
        let tileRows: Int, tileColumns: Int
        let previewRows: Int

        @MainActor init(_ host: any LiveHost) {
            columns = host.columns
            rows = host.rows
            tileRows = rows >= 16 ? max(3, min(8, (rows - 8) / 4)) : 0
            tileColumns = max(10, max(3, tileRows) * 3)
            previewRows = max(1, rows - 4 - (tileRows > 0 ? tileRows + 2 : 0))
        }

        /// Tiles in the strip: an odd number, the highlighted one in the middle.
        var stripCount: Int {
            let n = max(1, (columns + 1) / (tileColumns + 1))
            return n > 1 && n % 2 == 0 ? n - 1 : n
        }

        var galleryColumns: Int { max(1, (columns + 1) / (tileColumns + 1)) }
    }

    public func draw() {
        guard host.isOnTop(self) else { return }  // a save ending after Esc must not paint over Load Cat
        ownPreview = nil
        var frame = ScreenFrame(host: host)
        let layout = Layout(host)
        switch mode {
        case .help:
            LiveChrome.help("catctl edit", keys: keys, into: &frame)
        case .gallery:
            drawTitle(&frame)
            if let live, let (strip, places) = tiles(live) { strip.draw(places, into: &frame) }
            drawStatus(&frame)
        case .editor:
            drawTitle(&frame)
            if let live {
                // A frame of the animation playing, unless the preview shows a still (crop, zoom, original).
                let picture = live.showsStill ? live.preview : animationFrame?.picture ?? live.preview
                var preview = live.found.map { CatOutlines.draw($0, on: picture) } ?? picture
                if let crop = live.crop { preview = CatOutlines.frame(crop.frame, on: preview) }
                if live.playing != nil, frame.placesOwnPictures {
                    frame.ownPicture(
                        preview, id: KittyPicture.previewID, top: 2, left: 1, width: host.columns,
                        height: layout.previewRows)
                    ownPreview = (preview.width, preview.height)
                } else {
                    frame.picture(preview, top: 2, left: 1, width: host.columns, height: layout.previewRows)
                }
                if let (strip, places) = tiles(live) { strip.draw(places, into: &frame) }
            } else if state != .ready {
                frame.put("opening…", row: 2 + layout.previewRows / 2, column: max(1, host.columns / 2 - 4))
            }
            drawStatus(&frame)
        }
        host.write(frame.output)
    }

    private func strip(_ live: EditCatLive, _ layout: Layout, tileRows: Int) -> PictureStrip {
        PictureStrip(
            pictures: live.thumbnails, labels: live.filters, highlighted: live.highlighted,
            tileColumns: layout.tileColumns, tileRows: tileRows, cache: pictures)
    }

    private func drawTitle(_ frame: inout ScreenFrame) {
        guard let info else { return LiveChrome.title("catctl edit", right: "", into: &frame) }
        let frames = live.map { $0.frames > 1 ? ", \($0.frames) frames" : "" } ?? ""
        LiveChrome.title(
            "catctl edit · \(info.input) · \(info.width)x\(info.height) \(info.format)\(frames)",
            right: mode == .gallery ? "gallery · g or Esc: back" : "? keys", into: &frame)
    }

    private func drawStatus(_ frame: inout ScreenFrame, footer: Bool = true) {
        if let message {
            LiveChrome.status(message, into: &frame)
        } else if let live {
            let chain = live.chain.isEmpty ? "(none)" : live.chain.joined(separator: " → ")
            var status = "chain: \(chain)" + (live.trying ? "  + \(live.highlightedSpec)" : "")
            if let crop = live.crop {
                status =
                    "crop \(crop.shape): \(crop.spec.dropFirst(5))  · arrows move, Enter crops, c next shape, Esc drops"
            } else if let zoom = live.zoom {
                status =
                    "1:1 at \(zoom.x),\(zoom.y) of \(zoom.fullWidth)x\(zoom.fullHeight)  · arrows pan, z back  · chain: \(chain)"
            } else if live.original {
                status = "original  · Space: back to the chain"
            } else if live.caption != nil {
                status = "caption: Enter keeps it, Esc drops it  · chain: \(chain)"
            }
            if let playing = live.playing {
                status +=
                    playing ? "  · frame \((animationFrame?.index ?? 0) + 1)/\(live.frames)" : "  · paused (p plays)"
            }
            if let width = live.outputWidth, let height = live.outputHeight {
                status += "  · \(live.width)x\(live.height) → \(width)x\(height)"
            }
            if let problem = live.problem { status += "  · \(problem)" }
            if let note = live.note { status += "  · \(ForeignText.visible(note))" }
            status += "  · \(live.milliseconds) ms"
            LiveChrome.status(
                LiveChrome.Message(text: status, style: live.problem == nil ? .plain : .error), into: &frame)
        }
        if footer { LiveChrome.footer(keys, prompt: prompt, into: &frame) }
    }
}
