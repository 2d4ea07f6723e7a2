import ArgumentParser
import CatScenes
import CatSupport
import FilterCore
import TerminalUI

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time filters on a synthetic image against a plain copy of it, or the live editor's keystrokes.",
        usage: "catctl bench [<options>]\ncatctl bench --live <image> [<options>]",
        discussion: """
            For each filter: the fast kernels and the scalar reference, median of several runs, \
            in megapixels per second, next to a copy of the same buffer on the same threads.
            With --live IMAGE: the live Edit Cat scene (edit --interactive) on IMAGE, driven \
            through 40 inputs (filters, values, add, remove) on a --columns x --rows screen; \
            each input's time to its frame, drawn by chafa (median, 95th percentile, most), \
            next to the time the same chain takes on the full image.
            Examples:
            \(HelpLayout.examples([
                ("catctl bench --filter sepia --filter blur:3 --threads 1", nil),
                ("catctl bench --live cat-12mp.jpg --columns 160 --rows 48", nil),
                ("catctl bench --live cat.gif --play 10 --columns 100 --rows 30", nil),
            ]))
            """)

    @Option(help: ArgumentHelp("Time the live editor's keystrokes on this image instead.", valueName: "image"))
    var live: String?

    @Option(
        help: ArgumentHelp(
            "--live: play the animation for this many seconds instead (frame rate, late frames, memory).",
            valueName: "seconds"))
    var play: Double?

    @Option(help: "--live: the screen's width in cells.")
    var columns = 160

    @Option(help: "--live: the screen's height in cells.")
    var rows = 48

    @Option(
        help: ArgumentHelp("--live: how pictures are drawn (symbols in 24-bit colour by default).", valueName: "mode"))
    var graphics: GraphicsMode = .symbols

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("A filter spec to time; repeat (default: every filter).", valueName: "spec"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("Image size (default 4032x3024, 12 MP).", valueName: "WxH"))
    var size = "4032x3024"

    @Option(help: "Threads (default: all cores).")
    var threads: Int?

    @Option(help: "Timed runs per filter (the median is reported).")
    var repetitions = 7

    @Option(help: ArgumentHelp("Kernel build (default: the best the CPU has).", valueName: "isa"))
    var kernels: KernelISA?

    @Flag(name: .customLong("no-scalar"), help: "Skip the scalar reference (it is slow).")
    var noScalar = false

    @Flag(help: "One JSON line on stdout.")
    var json = false

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--size must be WxH, e.g. 4032x3024") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
        if let play {
            guard live != nil else { throw ValidationError("--play goes with --live IMAGE") }
            guard (0.5...600).contains(play) else { throw ValidationError("--play must be 0.5-600 seconds") }
        }
        guard (10...1000).contains(columns), (10...1000).contains(rows) else {
            throw ValidationError("--columns and --rows must be 10-1000")
        }
    }

    var parsedSize: (Int, Int)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        let (pixels, overflow) = parts[0].multipliedReportingOverflow(by: parts[1])
        guard !overflow, pixels <= 400_000_000 else { return nil }
        return (parts[0], parts[1])
    }

    func run() async throws {
        if let live {
            try await runLive(live)
            return
        }
        let console = Console.standard()
        let (width, height) = parsedSize!
        if let kernels { KernelISA.select(kernels) }
        let report: BenchSummary
        do {
            report = try FilterBench.run(
                specs: filters, width: width, height: height,
                threads: threads ?? CPUs.available,
                repetitions: repetitions, includeScalar: !noScalar,
                progress: { step in
                    if console.stderrIsTerminal {
                        console.stderr.write("\r\u{1B}[2Ktiming \(ForeignText.visible(step))…")
                    }
                })
        } catch {
            if console.stderrIsTerminal { console.stderr.write("\r\u{1B}[2K") }
            throw ValidationError("\(error)")
        }
        if console.stderrIsTerminal { console.stderr.write("\r\u{1B}[2K") }
        console.stdout.write(json ? BenchListing.json(report).encoded + "\n" : BenchListing.table(report))
    }

    func runPlay(_ input: String, seconds: Double, graphics: TerminalGraphics, threads: Int) async throws {
        let report: LiveBenchmark.PlayReport
        do {
            report = try await LiveBenchmark.play(
                input: input, columns: columns, rows: rows, graphics: graphics, threads: threads, seconds: seconds)
        } catch {
            let failure = SceneFailure(error)
            FileDescriptorSink(fd: STDERR_FILENO).write(FailureWording().errorLine(failure, color: false))
            throw ExitCode(failure.status.rawValue)
        }
        let out = FileDescriptorSink(fd: STDOUT_FILENO)
        let seconds = report.milliseconds / 1000, late = Double(report.late) / Double(max(1, report.shown))
        let fileRate = Double(report.shown) / max(0.001, Double(report.delayMilliseconds) / 1000)
        let rate = Double(report.shown) / max(0.001, seconds)
        if json {
            out.write(
                JSONValue.object([
                    ("event", .string("bench-live-play")), ("width", .int(report.width)),
                    ("height", .int(report.height)), ("frames", .int(report.frames)), ("columns", .int(columns)),
                    ("rows", .int(rows)), ("seconds", .double(seconds)), ("shown", .int(report.shown)),
                    ("late", .int(report.late)), ("file_fps", .double(fileRate)), ("played_fps", .double(rate)),
                    ("still_rss", report.stillBytes.map { .int($0) } ?? .null),
                    ("peak_rss", report.peakBytes.map { .int($0) } ?? .null),
                ]).encoded + "\n")
            return
        }
        func mib(_ bytes: Int?) -> String { bytes.map { String(printf: "%.1f MiB", Double($0) / 1_048_576) } ?? "-" }
        out.write(
            """
            live editor playing \(ForeignText.visible(input)) (\(report.width)x\(report.height), \(report.frames) frames), \
            \(columns)x\(rows) cells, \(String(printf: "%.1f", seconds)) s
              frames shown: \(report.shown), \(report.late) late (\(String(printf: "%.1f", 100 * late))%, more than 10 ms after their time)
              frame rate: \(String(printf: "%.2f", rate)) played, \(String(printf: "%.2f", fileRate)) by the file's delays
              resident memory: \(mib(report.stillBytes)) paused on the still preview, \(mib(report.peakBytes)) at most playing

            """)
    }

    func runLive(_ input: String) async throws {
        let threads = self.threads ?? CPUs.available
        let (columns, rows, json) = (self.columns, self.rows, self.json)
        let kind: TerminalGraphics.Kind
        switch graphics {
        case .kitty: kind = .kitty
        case .iterm: kind = .iterm
        case .sixel: kind = .sixel
        case .auto, .symbols, .none: kind = .symbols
        }
        if let play {
            return try await runPlay(
                input, seconds: play, graphics: TerminalGraphics(kind: kind, colors: .trueColor), threads: threads)
        }
        let report: LiveBenchmark.Report
        do {
            report = try await LiveBenchmark.run(
                input: input, columns: columns, rows: rows,
                graphics: TerminalGraphics(kind: kind, colors: .trueColor), threads: threads)
        } catch {
            let failure = SceneFailure(error)
            FileDescriptorSink(fd: STDERR_FILENO).write(FailureWording().errorLine(failure, color: false))
            throw ExitCode(failure.status.rawValue)
        }
        let (median, p95, most) = (report.percentile(0.5), report.percentile(0.95), report.keystrokes.max() ?? 0)
        let out = FileDescriptorSink(fd: STDOUT_FILENO)
        if json {
            out.write(
                JSONValue.object([
                    ("event", .string("bench-live")), ("width", .int(report.width)), ("height", .int(report.height)),
                    ("columns", .int(columns)), ("rows", .int(rows)), ("threads", .int(threads)),
                    ("inputs", .int(report.keystrokes.count)), ("open_ms", .double(report.openMilliseconds)),
                    ("median_ms", .double(median)), ("p95_ms", .double(p95)), ("max_ms", .double(most)),
                    ("full_image_ms", .double(report.fullImageMilliseconds)),
                    (
                        "actions",
                        .array(
                            report.actions.map { action in
                                .object([
                                    ("action", .string(action.action)), ("inputs", .int(action.milliseconds.count)),
                                    (
                                        "median_ms",
                                        .double(LiveBenchmark.Report.percentile(0.5, of: action.milliseconds))
                                    ),
                                    ("p95_ms", .double(LiveBenchmark.Report.percentile(0.95, of: action.milliseconds))),
                                ])
                            })
                    ),
                ]).encoded + "\n")
            return
        }
        func ms(_ value: Double) -> String { String(printf: "%.1f ms", value) }
        out.write(
            """
            live editor on \(ForeignText.visible(input)) (\(report.width)x\(report.height)), \(columns)x\(rows) cells, \(threads) threads
              open (preview-size decode, \(FilterRegistry.all.count) thumbnails): \(ms(report.openMilliseconds))
              keystroke to frame, \(report.keystrokes.count) inputs: median \(ms(median)), \
            95th percentile \(ms(p95)), most \(ms(most))
              the same chain (\(report.chain.joined(separator: " → "))) on the full image: \
            \(ms(report.fullImageMilliseconds)) a keystroke
              each action (inputs: median / 95th percentile):

            """)
        for action in report.actions {
            let (median, p95) = (
                LiveBenchmark.Report.percentile(0.5, of: action.milliseconds),
                LiveBenchmark.Report.percentile(0.95, of: action.milliseconds)
            )
            out.write(
                "    \(action.action.padded(to: 13)) \(action.milliseconds.count) \(ms(median)) / \(ms(p95))\n")
        }
    }
}
