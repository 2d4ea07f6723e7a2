import CatScenes

/// `--json`: JSON lines on stdout, the last one the result (`saved` or `error`);
/// the human sentence of an error also goes to stderr.
@MainActor
public final class EditCatJSONView: EditCatView {
    private let json: JSONLineWriter

    public init(console: Console, wording: FailureWording = FailureWording()) {
        json = JSONLineWriter(console: console, wording: wording)
    }

    /// Not a line of its own: the last line (saved or error) says how it ended.
    public func updateProcessingState(_ state: EditCatState) {}

    public func updateProgress(_ progress: EditCatProgress) {
        json.emit([
            ("event", .string("progress")), ("percent", .int(progress.percent)),
            ("label", .string(progress.label)),
        ])
    }

    public func showImageInfo(_ info: EditCatImageInfo) {
        json.emit([
            ("event", .string("decoded")), ("input", .string(info.input)), ("format", .string(info.format)),
            ("width", .int(info.width)), ("height", .int(info.height)),
        ])
    }

    public func showGallery(_ gallery: EditCatGallery) {
        json.emit([
            ("event", .string("gallery")), ("filters", .array(gallery.specs.map { .string($0) })),
            ("columns", .int(gallery.columns)),
        ])
    }

    public func showSaved(_ result: EditCatResult) {
        var fields: [(String, JSONValue)] = [
            ("event", .string("saved")), ("input", .string(result.input)), ("output", .string(result.output)),
            ("width", .int(result.width)), ("height", .int(result.height)),
            ("filters", .array(result.filters.map { .string($0) })), ("ms", .int(result.milliseconds)),
            ("frames", .int(result.frames)), ("inputFrames", .int(result.inputFrames)),
        ]
        if let crop = result.crop {
            fields.append(
                (
                    "crop",
                    .object([
                        ("x", .int(crop.x)), ("y", .int(crop.y)), ("width", .int(crop.width)),
                        ("height", .int(crop.height)),
                    ])
                ))
        }
        json.emit(fields)
        for note in result.notes { json.note(note) }
    }

    public func showError(_ failure: SceneFailure) {
        json.emitFailure(failure)
    }
}
