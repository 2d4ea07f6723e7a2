import CatImageIO
import CatScenes
import Foundation

/// The live Edit Cat scene (`catctl edit --interactive`, `e` in the live Load Cat scene):
/// the cat through the chain and the highlighted filter, a strip of every filter's
/// thumbnail around the highlighted one (the seed app's gallery), the chain and the
/// result's size on the status line. A passive view: it draws what the presenter tells
/// it and sends every key to the presenter; `g` (the gallery grid), `?` and the save
/// prompt are only ways of showing.
@MainActor
public final class EditCatLiveView: EditCatView, LiveScene {
    private let app: LiveApp
    private weak var presenter: EditCatPresenter?
    private var info: EditCatImageInfo?
    private var live: EditCatLive?
    /// The status line's message until the next key (an error, "saved …"), or progress.
    private var message: (text: String, style: ScreenFrame.Style)?
    private var busy = false
    private var prompt: LinePrompt?
    private enum Mode { case editor, gallery, help }
    private var mode = Mode.editor
    /// The thumbnails as chafa drew them, while they are the ones shown.
    private let pictures = PictureCache()
    /// The picture sizes the presenter was last given: new ones only when they change.
    private var sizesGiven: EditCatPictureSizes?

    public init(app: LiveApp) { self.app = app }

    /// What the view was told last (for the benchmark).
    var lastLive: EditCatLive? { live }

    // MARK: EditCatView

    /// A new presenter is a new cat: nothing of the one before stays.
    public func attach(_ presenter: EditCatPresenter) {
        self.presenter = presenter
        (info, live, message, prompt, mode, sizesGiven) = (nil, nil, nil, nil, .editor, nil)
    }

    public var livePictureSizes: EditCatPictureSizes {
        let layout = Layout(app)
        let frame = ScreenFrame(app: app)
        let sizes = EditCatPictureSizes(
            preview: frame.pixels(columns: app.columns, rows: layout.previewRows),
            thumbnail: frame.pixels(columns: layout.tileColumns, rows: max(3, layout.tileRows)))
        sizesGiven = sizes
        return sizes
    }

    public func updateProcessingState(_ state: EditCatState) {
        busy = state == .processing
        if busy, live != nil { message = ("saving…", .bold) }
        draw()
    }

    public func updateProgress(_ progress: EditCatProgress) {
        message = ("\(StatusLine.bar(Double(progress.percent) / 100)) \(progress.percent)% \(progress.label)", .bold)
        draw()
    }

    public func showImageInfo(_ info: EditCatImageInfo) {
        self.info = info
    }

    public func showLiveEdit(_ live: EditCatLive) {
        self.live = live
        pictures.keep(only: live.thumbnails)
        draw()
    }

    public func showSaved(_ result: EditCatResult) {
        let frames = result.frames > 1 ? ", \(result.frames) frames" : ""
        let first = result.frames < result.inputFrames ? " (the first of \(result.inputFrames) frames)" : ""
        message = (
            "saved \(result.output): \(result.width)x\(result.height)\(frames)\(first), "
                + "\(result.filters.isEmpty ? "no filters" : result.filters.joined(separator: " → ")), "
                + "\(result.milliseconds) ms", .bold
        )
        draw()
    }

    public func showError(_ failure: SceneFailure) {
        message = (app.wording.message(failure), .error)
        draw()
    }

    public func askForOutput(suggested: String) {
        let chain = live?.chain.joined(separator: " → ") ?? ""
        prompt = LinePrompt(label: "save \(chain.isEmpty ? "the cat as it is" : chain) as: ", text: suggested)
        draw()
    }

    // MARK: LiveScene

    public func handle(_ key: Key) {
        if key == .ctrl("c") {  // a way out from anywhere, the prompt and the key list too
            app.quit(.interrupted)
            return
        }
        if LinePrompt.take(key, into: &prompt, answer: { path in act { await $0.save(to: path) } }) {
            draw()
            return
        }
        if mode == .help {
            mode = .editor
            draw()
            return
        }
        if message != nil && !busy { message = nil }
        let columns = Layout(app).galleryColumns
        switch key {
        case .left, .char("h"): act { await $0.moveHighlight(by: -1) }
        case .right, .char("l"): act { await $0.moveHighlight(by: 1) }
        case .up, .char("k"):
            if mode == .gallery {
                act { await $0.moveHighlight(by: -columns) }
            } else {
                act { await $0.changeValue(by: 1) }
            }
        case .down, .char("j"):
            if mode == .gallery {
                act { await $0.moveHighlight(by: columns) }
            } else {
                act { await $0.changeValue(by: -1) }
            }
        case .enter:
            mode = .editor
            act { await $0.addHighlighted() }
        case .backspace, .delete: act { await $0.removeLast() }
        case .char("g"): mode = mode == .gallery ? .editor : .gallery
        case .char("s"): act { await $0.requestSave() }
        case .char("?"): mode = .help
        case .escape:
            if mode != .editor {
                mode = .editor
            } else if app.canGoBack {
                app.goBack()
                return
            }
        case .char("q"), .ctrl("d"): app.quit(.ok)
        case .ctrl("c"): app.quit(.interrupted)
        default: break
        }
        draw()
    }

    public func screenChanged() {
        draw()
        let given = sizesGiven
        if given != nil, given != livePictureSizes { act { await $0.resized() } }  // the getter records the new sizes
    }

    /// Sends an input to the presenter (in the order keys came: tasks on the main actor start in order).
    private func act(_ input: @escaping @MainActor (EditCatPresenter) async -> Void) {
        guard let presenter else { return }
        app.perform { await input(presenter) }
    }

    // MARK: Drawing

    /// Where things go on a screen of this size.
    struct Layout {
        let columns: Int, rows: Int
        /// The strip of thumbnails (0 rows on a screen too small for one).
        let tileRows: Int, tileColumns: Int
        let previewRows: Int

        @MainActor init(_ app: LiveApp) {
            columns = app.columns
            rows = app.rows
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
        guard app.isOnTop(self) else { return }  // a save ending after Esc must not paint over Load Cat
        var frame = ScreenFrame(app: app)
        let layout = Layout(app)
        switch mode {
        case .help:
            KeyHelp.draw("catctl edit", keys: Self.keys(back: app.canGoBack), into: &frame)
        case .gallery:
            drawTitle(&frame)
            if let live { drawGallery(live, layout, &frame) }
            drawStatus(layout, &frame)
        case .editor:
            drawTitle(&frame)
            if let live {
                frame.picture(live.preview, top: 2, left: 1, width: app.columns, height: layout.previewRows)
                if layout.tileRows > 0 { drawStrip(live, layout, &frame) }
            } else if busy {
                frame.put("opening…", row: 2 + layout.previewRows / 2, column: max(1, app.columns / 2 - 4))
            }
            drawStatus(layout, &frame)
        }
        app.write(frame.output)
    }

    private func drawTitle(_ frame: inout ScreenFrame) {
        guard let info else { return frame.bar(" catctl edit", row: 1) }
        let frames = live.map { $0.frames > 1 ? ", \($0.frames) frames" : "" } ?? ""
        frame.bar(
            " catctl edit · \(info.input) · \(info.width)x\(info.height) \(info.format)\(frames)",
            right: mode == .gallery ? "gallery · g or Esc: back " : "? keys ", row: 1)
    }

    /// The strip: thumbnails of the filters around the highlighted one, names under them.
    private func drawStrip(_ live: EditCatLive, _ layout: Layout, _ frame: inout ScreenFrame) {
        let n = min(layout.stripCount, live.filters.count)
        let start = min(max(0, live.highlighted - n / 2), live.filters.count - n)
        let top = app.rows - 2 - layout.tileRows, used = n * (layout.tileColumns + 1) - 1
        let left = 1 + max(0, (app.columns - used) / 2)
        for (slot, i) in (start..<start + n).enumerated() {
            let x = left + slot * (layout.tileColumns + 1)
            frame.picture(
                live.thumbnails[i], top: top, left: x, width: layout.tileColumns, height: layout.tileRows,
                cache: pictures)
            Self.label(
                live.filters[i], highlighted: i == live.highlighted, row: top + layout.tileRows, column: x,
                width: layout.tileColumns, into: &frame)
        }
    }

    /// `g`: every filter's thumbnail in a grid, scrolled to the highlighted one.
    private func drawGallery(_ live: EditCatLive, _ layout: Layout, _ frame: inout ScreenFrame) {
        let columns = layout.galleryColumns
        let tileRows = max(2, layout.tileRows)
        let fit = max(1, (app.rows - 3) / (tileRows + 1))
        let gridRows = (live.filters.count + columns - 1) / columns
        let firstRow = min(max(0, live.highlighted / columns - fit / 2), max(0, gridRows - fit))
        let left = 1 + max(0, (app.columns - (columns * (layout.tileColumns + 1) - 1)) / 2)
        for gridRow in firstRow..<min(gridRows, firstRow + fit) {
            let top = 2 + (gridRow - firstRow) * (tileRows + 1)
            for column in 0..<columns {
                let i = gridRow * columns + column
                guard i < live.filters.count else { break }
                let x = left + column * (layout.tileColumns + 1)
                frame.picture(
                    live.thumbnails[i], top: top, left: x, width: layout.tileColumns, height: tileRows, cache: pictures)
                Self.label(
                    live.filters[i], highlighted: i == live.highlighted, row: top + tileRows, column: x,
                    width: layout.tileColumns, into: &frame)
            }
        }
    }

    static func label(
        _ spec: String, highlighted: Bool, row: Int, column: Int, width: Int, into frame: inout ScreenFrame
    ) {
        let name = String(ForeignText.visible(spec).prefix(width))
        let pad = (width - name.count) / 2
        let text = String(repeating: " ", count: pad) + name + String(repeating: " ", count: width - name.count - pad)
        frame.put(text, row: row, column: column, style: highlighted ? .reverse : .dim, neutralised: true)
    }

    private func drawStatus(_ layout: Layout, _ frame: inout ScreenFrame) {
        if let message {
            frame.put(message.text, row: app.rows - 1, style: message.style)
        } else if let live {
            let chain = live.chain.isEmpty ? "(none)" : live.chain.joined(separator: " → ")
            var status = "chain: \(chain)" + (live.trying ? "  + \(live.highlightedSpec)" : "")
            if let width = live.outputWidth, let height = live.outputHeight {
                status += "  · \(live.width)x\(live.height) → \(width)x\(height)"
            }
            if let problem = live.problem { status += "  · \(problem)" }
            status += "  · \(live.milliseconds) ms"
            frame.put(status, row: app.rows - 1, style: live.problem == nil ? .plain : .error)
        }
        if let prompt {
            prompt.draw(into: &frame, row: app.rows)
        } else {
            let back = app.canGoBack ? "  Esc back" : ""
            frame.put(
                "←→ filter  ↑↓ value  Enter add  Bksp remove  g gallery  s save  ? keys\(back)  q quit",
                row: app.rows, style: .dim)
        }
    }

    static func keys(back: Bool) -> [(String, String)] {
        var keys = [
            ("← → or h l", "highlight the previous / next filter; the preview shows chain + it"),
            ("↑ ↓ or k j", "change the highlighted filter's value (in the gallery: move a row)"),
            ("Enter", "add the highlighted filter to the chain"),
            ("Backspace", "remove the chain's last filter"),
            ("g", "a gallery of every filter on this cat (g or Esc: back)"),
            ("s", "save the chain at full size (a prompt: Enter writes, Ctrl-U clears, Esc cancels)"),
            ("?", "this list"),
            ("q", "quit"),
        ]
        if back { keys.insert(("Esc", "back to Load Cat"), at: 7) }
        return keys
    }
}
