import CatScenes

/// `load --json`: JSON lines on stdout, the last one `loaded` or `error`.
@MainActor
public final class LoadCatJSONView: LoadCatView {
    private let json: JSONLineWriter
    private let stderr: any TextSink

    public init(console: Console) {
        json = JSONLineWriter(sink: console.stdout)
        stderr = console.stderr
    }

    public func updateLoadingState(_ state: LoadCatState) {}
    public func updateProgress(_ progress: LoadCatProgress) {}
    public func updateImage(_ image: LoadCatPreview) {}

    public func updateTitle(_ title: LoadCatTitle) {
        guard title.bytes == nil else { return }  // the final line carries the full facts
        json.emit([("event", .string("cat")), ("provider", .string(title.provider)),
                   ("id", title.id.map { .string($0) } ?? .null), ("url", .string(title.url))])
    }

    public func showLoaded(_ result: LoadCatResult) {
        json.emit([("event", .string("loaded")), ("provider", .string(result.provider)),
                   ("id", result.id.map { .string($0) } ?? .null), ("url", .string(result.url)),
                   ("width", .int(result.width)), ("height", .int(result.height)), ("bytes", .int(result.bytes)),
                   ("output", result.output.map { .string($0) } ?? .null)])
    }

    public func showError(_ failure: SceneFailure) {
        json.emitFailure(failure, stderr: stderr)
    }
}
