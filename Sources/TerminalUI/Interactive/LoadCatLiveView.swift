import CatImageIO
import CatScenes
import Dispatch
import Foundation

/// The live Load Cat scene (`catctl load --interactive`): a spinner and the download's
/// progress while a cat loads, then the cat and its title (provider, id, breed, size,
/// URL). A passive view: keys go to the presenter (next, cancel, save, edit); `e` shows
/// the live Edit Cat scene, whose Esc comes back here.
@MainActor
public final class LoadCatLiveView: LoadCatView, LiveScene {
    private let app: LiveApp
    private let editView: EditCatLiveView
    private weak var presenter: LoadCatPresenter?
    private var found: LoadCatFound?
    private var cat: LoadCatDecoded?
    private var picture: PixelBuffer?
    private var state: LoadCatState = .loading(provider: "")
    private var progress: LoadCatProgress?
    private var message: (text: String, style: ScreenFrame.Style)?
    private var prompt: LinePrompt?
    private var help = false
    private var spinner = 0
    /// Cats shown so far (the title counts them).
    private var count = 0
    private var ticker: Task<Void, Never>?

    /// `editView`: the Edit Cat scene `e` opens (the router gives the presenter the same view).
    public init(app: LiveApp, editView: EditCatLiveView) {
        self.app = app
        self.editView = editView
    }

    /// The preview's size in pixels for this screen (the request's preview size).
    public var previewPixels: (width: Int, height: Int) {
        ScreenFrame(app: app).pixels(columns: app.columns, rows: pictureRows)
    }

    private var pictureRows: Int { max(1, app.rows - 5) }

    private var isLoading: Bool {
        switch state {
        case .loading, .downloading, .decoding: return true
        default: return false
        }
    }

    // MARK: LoadCatView

    public func attach(_ presenter: LoadCatPresenter) { self.presenter = presenter }

    public func updateLoadingState(_ state: LoadCatState) {
        self.state = state
        switch state {
        case .loading:
            progress = nil
            message = nil
            found = nil
            startTicking()
        case let .saving(output): message = ("saving \(output)…", .bold)
        case .cancelled: message = ("cancelled; n loads another cat", .bold)
        default: break
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

    public func showCatDecoded(_ cat: LoadCatDecoded) {
        self.cat = cat
        count += 1
        picture = nil
    }

    public func updateImage(_ image: LoadCatPreview) {
        picture = image.pixels
        draw()
    }

    public func showLoaded(_ result: LoadCatResult) {
        if let output = result.output { message = ("saved \(output)", .bold) }
        draw()
    }

    public func showError(_ failure: SceneFailure) {
        guard failure.status != .interrupted else { return }  // shown by the state: cancelled
        message = (app.wording.message(failure), .error)
        draw()
    }

    public func askForOutput(suggested: String) {
        prompt = LinePrompt(label: "save the cat as: ", text: suggested)
        draw()
    }

    // MARK: LiveScene

    public func handle(_ key: Key) {
        if key == .ctrl("c") {  // a way out from anywhere, the prompt and the key list too
            presenter?.cancel()
            app.quit(.interrupted)
            return
        }
        if LinePrompt.take(key, into: &prompt, answer: { path in act { await $0.save(to: path) } }) {
            draw()
            return
        }
        if help {
            help = false
            draw()
            return
        }
        switch key {
        case .char("n"), .char(" "): act { await $0.nextCat() }
        case .escape: presenter?.cancel()
        case .char("e"), .enter:
            guard cat != nil, !isLoading else { break }
            app.push(editView)
            let editView = self.editView
            act { presenter in
                if let failure = await presenter.editCat() { editView.showError(failure) }
            }
        case .char("s"): if !isLoading { act { await $0.requestSave() } }
        case .char("?"): help = true
        case .char("q"), .ctrl("d"):
            presenter?.cancel()
            app.quit(.ok)
        case .ctrl("c"):
            presenter?.cancel()
            app.quit(.interrupted)
        default: break
        }
        draw()
    }

    public func screenChanged() { draw() }

    private func act(_ input: @escaping @MainActor (LoadCatPresenter) async -> Void) {
        guard let presenter else { return }
        app.perform { await input(presenter) }
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
        guard app.isOnTop(self) else { return }  // the editor is on screen
        var frame = ScreenFrame(app: app)
        if help {
            KeyHelp.draw("catctl load", keys: Self.keys, into: &frame)
            app.write(frame.output)
            return
        }
        frame.bar(" catctl load" + (count > 0 ? " · cat \(count)" : ""), right: "? keys ", row: 1)
        if let picture {
            frame.picture(picture, top: 2, left: 1, width: app.columns, height: pictureRows)
        }
        if let cat {
            let name =
                (cat.id.map { "\(cat.provider) cat \($0)" } ?? "\(cat.provider) cat")
                + (cat.breed.map { ", \($0)" } ?? "")
            frame.put(
                "\(name)  \(cat.width)x\(cat.height), \(Bytes.format(Int64(cat.bytes)))", row: app.rows - 3,
                style: .bold)
            frame.put(cat.url, row: app.rows - 2, style: .dim)
        }
        if isLoading {
            frame.put("\(LoadCatTerminalView.frames[spinner]) \(loadingText)", row: app.rows - 1, style: .bold)
        } else if let message {
            frame.put(message.text, row: app.rows - 1, style: message.style)
        }
        if let prompt {
            prompt.draw(into: &frame, row: app.rows)
        } else {
            frame.put("n next  Esc cancel  e edit  s save  ? keys  q quit", row: app.rows, style: .dim)
        }
        app.write(frame.output)
    }

    private var loadingText: String {
        switch state {
        case let .loading(provider): return "asking \(provider) for a cat… (Esc cancels)"
        case .decoding: return "decoding…"
        default:
            let url = found.map { " \($0.url)" } ?? ""
            guard let progress else { return "downloading\(url)…" }
            guard let expected = progress.expected, expected > 0 else {
                return "downloading \(Bytes.format(progress.received))\(url)"
            }
            return "downloading \(StatusLine.bar(Double(progress.received) / Double(expected))) "
                + "\(Bytes.format(progress.received)) / \(Bytes.format(expected))\(url)"
        }
    }

    static let keys = [
        ("n or Space", "load another cat"),
        ("Esc", "cancel a load under way"),
        ("e or Enter", "edit this cat (Esc in the editor comes back here)"),
        ("s", "save the cat as it is (a prompt: Enter writes, Ctrl-U clears, Esc cancels)"),
        ("?", "this list"),
        ("q", "quit"),
    ]
}
