import CatScenes

/// `load --json`: JSON lines on stdout, the last one `loaded` or `error`.
@MainActor
public final class LoadCatJSONView: LoadCatView {
    private let json: JSONLineWriter
    private let stderr: any TextSink
    private let wording: FailureWording

    public init(console: Console, wording: FailureWording = FailureWording()) {
        json = JSONLineWriter(sink: console.stdout)
        stderr = console.stderr
        self.wording = wording
    }

    public func showCatFound(_ cat: LoadCatFound) {
        json.emit([
            ("event", .string("cat")), ("provider", .string(cat.provider)),
            ("id", cat.id.map { .string($0) } ?? .null), ("url", .string(cat.url)),
        ])
    }

    public func showLoaded(_ result: LoadCatResult) {
        json.emit([
            ("event", .string("loaded")), ("provider", .string(result.provider)),
            ("id", result.id.map { .string($0) } ?? .null), ("url", .string(result.url)),
            ("width", .int(result.width)), ("height", .int(result.height)), ("bytes", .int(result.bytes)),
            ("output", result.output.map { .string($0) } ?? .null),
        ])
    }

    public func showError(_ failure: SceneFailure) {
        json.emitFailure(failure, wording: wording, stderr: stderr)
    }
}
