import CatScenes

/// `load --json`: JSON lines on stdout, the last one `loaded` or `error`.
@MainActor
public final class LoadCatJSONView: LoadCatView {
    private let json: JSONLineWriter

    public init(console: Console, wording: FailureWording = FailureWording()) {
        json = JSONLineWriter(console: console, wording: wording)
    }

    // The lines are `cat` (found), then `loaded` or `error`: no steps, progress or picture.
    public func updateLoadingState(_ state: LoadCatState) {}
    public func updateProgress(_ progress: LoadCatProgress) {}
    public func showCatDecoded(_ cat: LoadCatDecoded) {}
    public func updateImage(_ image: LoadCatPreview) {}

    public func showCatFound(_ cat: LoadCatFound) {
        json.emit([
            ("event", .string("cat")), ("provider", .string(cat.provider)),
            ("id", cat.id.map { .string($0) } ?? .null), ("url", .string(cat.url)),
        ])
    }

    public func showLoaded(_ result: LoadCatResult) {
        let cat = result.cat
        json.emit([
            ("event", .string("loaded")), ("provider", .string(cat.provider)),
            ("id", cat.id.map { .string($0) } ?? .null),
            ("url", .string(cat.url)), ("width", .int(cat.width)), ("height", .int(cat.height)),
            ("bytes", .int(cat.bytes)), ("output", result.output.map { .string($0) } ?? .null),
            ("breed", cat.breed.map { .string($0) } ?? .null),
            ("temperament", cat.temperament.map { .string($0) } ?? .null),
        ])
    }

    public func showError(_ failure: SceneFailure) {
        json.emitFailure(failure)
    }
}
