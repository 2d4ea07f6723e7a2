import CatImageIO
import CatScenes
import CatSupport

/// `catctl bench --live IMAGE`: the live Edit Cat scene's keystroke latency, measured on
/// the real presenter, interactor and view (chafa drawing the whole frame into memory)
/// for a screen of `columns` x `rows`: from each input to the frame that shows it.
@MainActor
public enum LiveBenchmark {
    public struct Report: Sendable {
        public let width: Int, height: Int
        /// Opening the image: the preview-size decode and every thumbnail.
        public let openMilliseconds: Double
        /// Each input's time to its frame, in the order made.
        public let keystrokes: [Double]
        /// The last chain run on the full image once, for comparison: what each keystroke
        /// would cost a tool that refilters the full image.
        public let fullImageMilliseconds: Double
        public let chain: [String]

        public func percentile(_ p: Double) -> Double {
            let sorted = keystrokes.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
    }

    /// The inputs timed: along the filters, values up and down, add, remove — 40 in all
    /// with today's registry.
    enum Input {
        case move(Int)
        case value(Int)
        case add, remove
    }
    static var script: [Input] {
        // From the first filter past the colour filters to the first spatial one (blur), and back to the second (sepia).
        let spatial = FilterCatalog.entries.firstIndex(where: \.isSpatial) ?? 1
        return Array(repeating: .move(1), count: spatial)
            + Array(repeating: .value(1), count: 4) + [.add]
            + Array(repeating: .move(-1), count: spatial - 1)
            + Array(repeating: .value(-1), count: 3) + [.add, .remove]
            + Array(repeating: .move(1), count: 3)
    }

    static func send(_ input: Input, to presenter: EditCatLivePresenter) async {
        switch input {
        case let .move(delta): await presenter.moveHighlight(by: delta)
        case let .value(steps): await presenter.changeValue(by: steps)
        case .add: await presenter.addHighlighted()
        case .remove: await presenter.removeLast()
        }
    }

    public static func run(
        input: String, columns: Int, rows: Int, graphics: TerminalGraphics, threads: Int
    ) async throws -> Report {
        let console = Console(
            stdout: MemorySink(), stderr: MemorySink(), stderrIsTerminal: false, color: true,
            stdoutIsTerminal: false, graphics: graphics, columns: columns, rows: rows)
        let app = LiveApp(console: console, wording: FailureWording())
        let view = EditCatLiveScreen(app: app)
        let presenter = Router.makeEditCatLive(view: view, interactor: EditCatLiveInteractor(threads: threads))
        app.push(view)  // on top, so it draws (into memory: the terminal is not taken)
        let clock = ContinuousClock()
        let start = clock.now
        if let failure = await presenter.openLive(
            .file(input), EditRequest(input: input, output: "", filters: [], format: .png))
        {
            throw failure
        }
        let open = clock.now - start
        var times: [Double] = []
        for input in script {
            let t0 = clock.now
            await send(input, to: presenter)  // returns once the view has drawn the frame
            times.append(Self.milliseconds(clock.now - t0))
        }
        guard let live = view.lastLive else { throw SceneFailure(status: .software, message: "nothing shown") }
        // The reference: the same chain on the full image, as a tool without a preview copy would run it.
        let chain = live.chain + [live.highlightedSpec]
        let full = try FilterBench.fullImage(input: input, specs: chain, threads: threads)
        return Report(
            width: live.width, height: live.height, openMilliseconds: Self.milliseconds(open), keystrokes: times,
            fullImageMilliseconds: Self.milliseconds(full), chain: chain)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000
    }
}
