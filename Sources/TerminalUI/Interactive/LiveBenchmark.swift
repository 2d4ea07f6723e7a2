import CatImageIO
import CatScenes
import CatSupport

/// `catctl bench --live IMAGE`: the live Edit Cat scene's keystroke latency, measured on
/// the real presenter, interactor and view (chafa drawing the whole frame into memory)
/// for a screen of `columns` x `rows`: from each input to the first frame that shows it.
@MainActor
public enum LiveBenchmark {
    public struct Report: Sendable {
        public let width: Int, height: Int
        /// Opening the image: the preview-size decode and every thumbnail.
        public let openMilliseconds: Double
        /// Each input's action and its time to its frame, in the order made.
        public let inputs: [(action: String, milliseconds: Double)]
        /// The seed app's inputs' times (the first `seedCount`: moves, values, add, remove).
        public var keystrokes: [Double] { inputs.prefix(LiveBenchmark.seedCount).map(\.milliseconds) }
        /// The last chain run on the full image once, for comparison: what each keystroke
        /// would cost a tool that refilters the full image.
        public let fullImageMilliseconds: Double
        public let chain: [String]

        public func percentile(_ p: Double) -> Double { Self.percentile(p, of: keystrokes) }

        /// Each action in the order first made, with its inputs' times.
        public var actions: [(action: String, milliseconds: [Double])] {
            var order: [String] = [], times: [String: [Double]] = [:]
            for input in inputs {
                if times[input.action] == nil { order.append(input.action) }
                times[input.action, default: []].append(input.milliseconds)
            }
            return order.map { ($0, times[$0] ?? []) }
        }

        public static func percentile(_ p: Double, of values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
    }

    /// The inputs timed: along the filters, values up and down, add, remove (the seed
    /// app's), then undo and redo, the original, the crop shapes and moving the frame, a
    /// caption typed (at 16 characters a second, as a person types: the preview follows at
    /// most every 50 ms), the zoom (its first time apart: it decodes the full image) and
    /// panning. The action names are those of `--json`'s `actions`.
    enum Input {
        case move(Int)
        case value(Int)
        case add, remove, undo, redo, original, crop, nudge, applyCrop, caption, keepCaption, zoom, pan
        case type(String)

        var action: String {
            switch self {
            case .move: "move"
            case .value: "value"
            case .add: "add"
            case .remove: "remove"
            case .undo: "undo"
            case .redo: "redo"
            case .original: "original"
            case .crop: "crop"
            case .nudge: "crop-move"
            case .applyCrop: "crop-apply"
            case .caption: "caption-open"
            case .type: "caption-type"
            case .keepCaption: "caption-keep"
            case .zoom: "zoom"
            case .pan: "pan"
            }
        }
    }

    static var script: [Input] {
        // From the first filter past the colour filters to the first spatial one (blur), and back to the second (sepia).
        let spatial = FilterCatalog.entries.firstIndex(where: \.isSpatial) ?? 1
        let seed: [Input] =
            Array(repeating: .move(1), count: spatial)
            + Array(repeating: .value(1), count: 4) + [.add]
            + Array(repeating: .move(-1), count: spatial - 1)
            + Array(repeating: .value(-1), count: 3) + [.add, .remove]
            + Array(repeating: .move(1), count: 3)
        let history: [Input] = [.undo, .undo, .redo, .redo, .undo, .redo]
        let compare: [Input] = [.original, .original, .original, .original]
        let crop: [Input] = [
            .crop, .crop, .nudge, .nudge, .nudge, .crop, .crop, .crop, .crop, .nudge, .applyCrop, .undo,
        ]
        let caption: [Input] = [.caption] + "Hello, cat".map { .type(String($0)) } + [.keepCaption, .undo]
        let zoom: [Input] = [.zoom, .pan, .pan, .pan, .pan, .zoom, .zoom, .pan, .pan, .zoom]
        return seed + history + compare + crop + caption + zoom
    }

    /// The seed app's inputs alone (what `inputs`, `median_ms` and `p95_ms` have always counted).
    nonisolated static let seedCount = 40

    static func send(_ input: Input, to presenter: EditCatLivePresenter, typed: inout String) async {
        switch input {
        case let .move(delta): await presenter.moveHighlight(by: delta)
        case let .value(steps): await presenter.changeValue(by: steps)
        case .add: await presenter.addHighlighted()
        case .remove: await presenter.removeLast()
        case .undo: await presenter.undo()
        case .redo: await presenter.redo()
        case .original: await presenter.toggleOriginal()
        case .crop: await presenter.cycleCrop()
        case .nudge: await presenter.nudgeCrop(x: 1, y: 1)
        case .applyCrop: await presenter.applyCrop()
        case .caption:
            typed = ""
            await presenter.startCaption()
        case let .type(text):
            typed += text
            await presenter.typeCaption(typed)
        case .keepCaption: await presenter.keepCaption(typed)
        case .zoom: await presenter.toggleZoom()
        case .pan: await presenter.pan(x: 1, y: 0)
        }
    }

    /// The editor on `input`, drawing into memory on a screen of `columns` x `rows`.
    private static func editor(input: String, columns: Int, rows: Int, graphics: TerminalGraphics, threads: Int)
        -> (LiveApp, EditCatLiveScreen, EditCatLivePresenter)
    {
        let console = Console(
            stdout: MemorySink(), stderr: MemorySink(), stderrIsTerminal: false, color: true,
            stdoutIsTerminal: false, graphics: graphics, columns: columns, rows: rows)
        let app = LiveApp(console: console, wording: FailureWording())
        let view = EditCatLiveScreen(app: app)
        let presenter = Router.makeEditCatLive(view: view, interactor: EditCatLiveInteractor(threads: threads))
        app.push(view)  // on top, so it draws (into memory: the terminal is not taken)
        return (app, view, presenter)
    }

    /// `bench --live IMAGE --play SECONDS`: an animation played for `seconds`.
    public struct PlayReport: Sendable {
        public let width: Int, height: Int, frames: Int
        /// Frames shown, those shown more than 10 ms after their time.
        public let shown: Int, late: Int
        /// The time played, and the file's delays of the frames shown (what it should have taken).
        public let milliseconds: Double, delayMilliseconds: Int
        /// Resident memory paused on the still preview, and the most while playing.
        public let stillBytes: Int?, peakBytes: Int?
    }

    public static func play(
        input: String, columns: Int, rows: Int, graphics: TerminalGraphics, threads: Int, seconds: Double
    ) async throws -> PlayReport {
        let (app, view, presenter) = editor(
            input: input, columns: columns, rows: rows, graphics: graphics, threads: threads)
        if let failure = await presenter.openLive(
            .file(input), EditRequest(input: input, output: "", filters: [], format: .png))
        {
            throw failure
        }
        guard let live = view.lastLive, live.playing != nil else {
            throw SceneFailure(status: .usage, message: "--play: \(input) is not an animation")
        }
        await presenter.togglePlaying()  // paused on the still preview: what it holds without playing
        try? await Task.sleep(for: .milliseconds(300))
        let still = ResidentMemory.bytes
        var peak = still
        view.shown = { if let now = ResidentMemory.bytes { peak = max(peak ?? 0, now) } }
        presenter.resetPlayed()
        let clock = ContinuousClock(), start = clock.now
        await presenter.togglePlaying()
        try? await Task.sleep(for: .seconds(seconds))
        let played = presenter.played, elapsed = clock.now - start
        await presenter.endPlaying()
        view.shown = nil
        withExtendedLifetime(app) {}
        return PlayReport(
            width: live.width, height: live.height, frames: live.frames, shown: played.shown, late: played.late,
            milliseconds: milliseconds(elapsed), delayMilliseconds: played.delays, stillBytes: still, peakBytes: peak)
    }

    public static func run(
        input: String, columns: Int, rows: Int, graphics: TerminalGraphics, threads: Int
    ) async throws -> Report {
        let (app, view, presenter) = editor(
            input: input, columns: columns, rows: rows, graphics: graphics, threads: threads)
        defer { withExtendedLifetime(app) {} }
        let clock = ContinuousClock()
        let start = clock.now
        if let failure = await presenter.openLive(
            .file(input), EditRequest(input: input, output: "", filters: [], format: .png))
        {
            throw failure
        }
        let open = clock.now - start
        var times: [(String, Double)] = [], typed = "", zoomed = false
        var seedChain: [String] = []
        for (i, input) in script.enumerated() {
            if i == seedCount, let live = view.lastLive { seedChain = live.chain + [live.highlightedSpec] }
            if case .type = input { try? await Task.sleep(for: .milliseconds(60)) }  // typing speed
            let t0 = clock.now
            var firstFrame: ContinuousClock.Instant?
            view.shown = { if firstFrame == nil { firstFrame = clock.now } }
            await send(input, to: presenter, typed: &typed)  // returns once the view has drawn every frame
            view.shown = nil
            var action = input.action
            if case .zoom = input, !zoomed {
                action = "zoom-first"
                zoomed = true
            }
            // To the first frame that shows the input (a new chain's thumbnails come in a frame after it).
            times.append((action, Self.milliseconds((firstFrame ?? clock.now) - t0)))
        }
        guard let live = view.lastLive else { throw SceneFailure(status: .software, message: "nothing shown") }
        // The reference: the seed inputs' last chain on the full image, as a tool without a preview copy would run it.
        let chain = seedChain
        let full = try FilterBench.fullImage(input: input, specs: chain, threads: threads)
        return Report(
            width: live.width, height: live.height, openMilliseconds: Self.milliseconds(open), inputs: times,
            fullImageMilliseconds: Self.milliseconds(full), chain: chain)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000
    }
}
