import CatScenes
import CatSupport

/// `batch --json`: one `file` line per file, then `summary` (docs/CLI.md).
@MainActor
public final class BatchJSONView: BatchView {
    private let json: JSONLineWriter

    public init(console: Console, wording: FailureWording = FailureWording()) {
        json = JSONLineWriter(console: console, wording: wording)
    }

    public func showFileResult(_ result: BatchFileResult) {
        var pairs: [(String, JSONValue)] = [
            ("event", .string("file")), ("input", .string(result.input)),
            ("output", .string(result.output)), ("ok", .bool(result.ok)),
        ]
        if let error = result.error { pairs.append(("error", .string(error))) }
        if result.skipped { pairs.append(("skipped", .bool(true))) }
        pairs.append(("ms", .int(result.milliseconds)))
        json.emit(pairs)
    }

    public func showSummary(_ summary: BatchSummary) {
        json.emit([
            ("event", .string("summary")), ("ok", .int(summary.ok)), ("failed", .int(summary.failed)),
            ("skipped", .int(summary.skipped)),
            ("seconds", .double((summary.seconds * 1000).rounded() / 1000)),
            ("interrupted", .bool(summary.interrupted)), ("not_started", .int(summary.notStarted)),
        ])
    }

    public func showListing(_ inputs: [String], leftOut: [String]) {
        for input in inputs { json.emit([("event", .string("listed")), ("input", .string(input))]) }
        for input in leftOut {
            json.emit([("event", .string("listed")), ("input", .string(input)), ("left_out", .bool(true))])
        }
    }

    public func showNote(_ note: String) {
        json.note(note)
    }

    public func showError(_ failure: SceneFailure) {
        json.emitFailure(failure)
    }
}
