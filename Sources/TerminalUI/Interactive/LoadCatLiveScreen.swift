import CatImageIO
import CatPixels
import CatScenes
import CatSupport
import Dispatch

/// The live Load Cat scene (`catctl load --interactive`): a spinner and the download's
/// progress while a cat loads, then the cat and its title (provider, id, breed, size,
/// URL). A passive view: keys go to the presenter (next, cancel, save, edit), which
/// decides what they do; `e` reaches the live Edit Cat scene through the router.
@MainActor
public final class LoadCatLiveScreen: LoadCatLiveView, LiveScene {
    /// The app owns its screens (its stack of scenes), so they hold it unowned: else each
    /// would keep the other alive.
    private unowned let host: any LiveHost
    private weak var presenter: (any LoadCatLiveViewOutput)?
    private var found: LoadCatFound?
    private var cat: LoadCatDecoded?
    private var picture: PixelBuffer?
    private var state: LoadCatState = .loading(provider: "")
    private var progress: LoadCatProgress?
    private var message: LiveChrome.Message?
    private var prompt: LinePrompt?
    private var help = false
    private var spinner = 0
    private var count = 0
    private var ticker: Task<Void, Never>?

    public convenience init(app: LiveApp) { self.init(host: app) }

    init(host: any LiveHost) { self.host = host }

    /// The preview's size in pixels for this screen (the request's preview size).
    public var previewPixels: (width: Int, height: Int) {
        ScreenFrame(host: host).pixels(columns: host.columns, rows: pictureRows)
    }

    private var pictureRows: Int { max(1, host.rows - 5) }

    /// The spinner turns while the state is one of loading.
    private var isLoading: Bool {
        switch state {
        case .loading, .downloading, .decoding: return true
        case .saving, .done, .failed, .cancelled: return false
        }
    }

    // MARK: LoadCatLiveView

    public func attach(_ presenter: any LoadCatLiveViewOutput) { self.presenter = presenter }

    public func updateLoadingState(_ state: LoadCatState) {
        self.state = state
        switch state {
        case .loading:
            progress = nil
            message = nil
            found = nil
            startTicking()
        case let .saving(output): message = LiveChrome.Message(text: "saving \(output)…", style: .bold)
        case .cancelled: message = LiveChrome.Message(text: "cancelled; n loads another cat", style: .bold)
        case .downloading, .decoding, .done, .failed: break
        }
        if !isLoading { ticker?.cancel() }
        draw()
    }

    public func updateProgress(_ progress: LoadCatProgress) {
        self.progress = progress
        draw()
    }

    public func showCatFound(_ cat: LoadCatFound) {
        found = cat
        draw()
    }

    public func updateCatCount(_ count: Int) { self.count = count }

    public func showCatDecoded(_ cat: LoadCatDecoded) {
        self.cat = cat
        picture = nil
    }

    public func updateImage(_ image: LoadCatPreview) {
        picture = image.pixels
        draw()
    }

    public func showFrame(_ picture: PixelBuffer, index: Int, count: Int) {
        self.picture = picture
        if !help { draw() }  // the ? screen shows no picture
    }

    public func showLoaded(_ result: LoadCatResult) {
        if let output = result.output { message = LiveChrome.Message(text: "saved \(output)", style: .bold) }
        draw()
    }

    public func showError(_ failure: SceneFailure) {
        guard failure.status != .interrupted else { return }  // shown by the state: cancelled
        message = LiveChrome.Message(text: host.wording.message(failure), style: .error)
        draw()
    }

    public func askForOutput(suggested: String) {
        prompt = LinePrompt(label: "save the cat as: ", text: suggested)
        draw()
    }

    /// Pasted text goes into the save prompt when it is open; else it is no keys.
    public func paste(_ text: String) {
        if var open = prompt {
            open.paste(text)
            prompt = open
        } else {
            message = LiveChrome.Message(text: "pasted text left out: keys are commands here", style: .error)
        }
        draw()
    }

    // MARK: Keys

    enum Action: Equatable { case next, cancel, edit, save, help, quit, interrupt }

    static let keys = KeyMap<Action>([
        KeyBinding([.char("n"), .char(" ")], "n or Space", "load another cat", footer: "n next", action: .next),
        KeyBinding([.escape], "Esc", "cancel a load under way", footer: "Esc cancel", action: .cancel),
        KeyBinding(
            [.char("e"), .enter], "e or Enter", "edit this cat (Esc in the editor comes back here)",
            footer: "e edit", action: .edit),
        KeyBinding(
            [.char("s")], "s", "save the cat as it is (a prompt: Enter writes, Ctrl-U clears, Esc cancels)",
            footer: "s save", action: .save),
        KeyBinding([.char("?")], "?", "this list", footer: "? keys", action: .help),
        KeyBinding([.char("q"), .ctrl("d")], "q", "quit", footer: "q quit", action: .quit, docs: "q or Ctrl-D"),
        KeyBinding(
            [.ctrl("c")], "Ctrl-C", "quit (status 130), from anywhere", action: .interrupt, listed: false,
            anywhere: true),
    ])

    public func handle(_ key: Key) {
        // The mouse: a click on a key named in the footer runs it.
        if case let .mouse(mouse) = key {
            guard prompt == nil, !help, let action = Self.keys.footerAction(for: mouse, rows: host.rows) else { return }
            perform(action)
            return draw()
        }
        switch Self.keys.route(
            key, prompt: &prompt, helpShown: help, answer: { path in act { await $0.save(to: path) } })
        {
        case let .anywhere(action): perform(action)
        case .prompt: draw()
        case .closeHelp:
            help = false
            draw()
        case let .binding(action):
            if let action { perform(action) }
            draw()
        }
    }

    private func perform(_ action: Action) {
        switch action {
        case .next: act { await $0.nextCat() }
        case .cancel: presenter?.cancel()
        case .edit: act { await $0.editCat() }
        case .save: act { await $0.requestSave() }
        case .help: help = true
        case .quit:
            presenter?.cancel()
            host.quit(.ok)
        case .interrupt:
            presenter?.cancel()
            host.quit(.interrupted)
        }
    }

    public func screenChanged() { draw() }

    private func act(_ input: @escaping @MainActor (any LoadCatLiveViewOutput) async -> Void) {
        guard let presenter else { return }
        host.perform { await input(presenter) }
    }

    /// The spinner turns while a cat loads, even when no byte comes.
    private func startTicking() {
        ticker?.cancel()
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                guard let self, self.isLoading else { return }
                self.spinner = (self.spinner + 1) % LoadCatTerminalView.frames.count
                self.draw()
            }
        }
    }

    // MARK: Drawing

    public func draw() {
        guard host.isOnTop(self) else { return }  // the editor is on screen
        var frame = ScreenFrame(host: host)
        if help {
            LiveChrome.help("catctl load", keys: Self.keys, into: &frame)
            host.write(frame.output)
            return
        }
        LiveChrome.title("catctl load" + (count > 0 ? " · cat \(count)" : ""), right: "? keys", into: &frame)
        if let picture {
            frame.picture(picture, top: 2, left: 1, width: host.columns, height: pictureRows)
        }
        if let cat {
            frame.put(
                "\(cat.title)  \(cat.width)x\(cat.height), \(Bytes.format(Int64(cat.bytes)))", row: host.rows - 3,
                style: .bold)
            frame.put(cat.url, row: host.rows - 2, style: .dim)
        }
        if isLoading {
            LiveChrome.status(
                LiveChrome.Message(text: "\(LoadCatTerminalView.frames[spinner]) \(loadingText)", style: .bold),
                into: &frame)
        } else if let message {
            LiveChrome.status(message, into: &frame)
        }
        LiveChrome.footer(Self.keys, prompt: prompt, into: &frame)
        host.write(frame.output)
    }

    private var loadingText: String {
        switch state {
        case let .loading(provider): return "asking \(provider) for a cat… (Esc cancels)"
        case .decoding: return "decoding…"
        case .downloading, .saving, .done, .failed, .cancelled:
            let url = found.map { " \($0.url)" } ?? ""
            guard let progress else { return "downloading\(url)…" }
            guard let expected = progress.expected, expected > 0 else {
                return "downloading \(Bytes.format(progress.received))\(url)"
            }
            return "downloading \(StatusLine.bar(Double(progress.received) / Double(expected))) "
                + "\(Bytes.format(progress.received)) / \(Bytes.format(expected))\(url)"
        }
    }
}
