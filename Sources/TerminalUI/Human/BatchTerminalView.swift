import CatScenes
import CatSupport

/// Batch for people and scripts: each written file's path on stdout (nothing else goes
/// there), failures and the summary on stderr, and on a terminal a progress bar with
/// files done/total, MPix/s and the time left.
@MainActor
public final class BatchTerminalView: BatchView {
    private let console: Console
    private let wording: FailureWording
    private let status: StatusLine

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
        status = StatusLine(console: console)
    }

    public func showPlan(_ plan: BatchPlan) {
        guard console.stderrIsTerminal else { return }
        var notes: [String] = []
        if plan.otherShards > 0 { notes.append("\(plan.otherShards) left to other shards") }
        if plan.existing > 0 { notes.append("\(plan.existing) done already") }
        let others = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
        console.stderr.write("\(plan.files) file\(plan.files == 1 ? "" : "s")\(others)\n")
    }

    public func updateProgress(_ progress: BatchProgress) {
        guard progress.total > 0 else { return }
        let eta = progress.remainingSeconds.map { String(printf: " ETA %.0fs", $0) } ?? ""
        status.show(
            "[\(progress.done)/\(progress.total)] \(StatusLine.bar(Double(progress.done) / Double(progress.total))) "
                + String(printf: "%.1f MPix/s", progress.megapixelsPerSecond) + eta)
    }

    public func showFileResult(_ result: BatchFileResult) {
        guard !result.skipped else { return }  // stdout lists what this run wrote
        status.clear()
        if let error = result.error {
            console.stderr.write(FailureWording.errorLine(error, color: console.color))
        } else {
            console.stdout.write("\(ForeignText.visible(result.output))\n")  // a newline in a name stays on its line
        }
    }

    public func showSummary(_ summary: BatchSummary) {
        status.clear()
        var end = summary.interrupted ? ", interrupted" : ""
        if summary.notStarted > 0 { end += ", \(summary.notStarted) not started" }
        switch summary.stoppedBy {
        case .tempFail?: end += " (stopped: object storage or the network failed; run it again, with --skip-existing)"
        case .noPermission?: end += " (stopped: the credentials were refused)"
        case nil, .ok?, .usage?, .dataError?, .noInput?, .software?, .unavailable?, .cannotCreate?, .ioError?,
            .interrupted?:
            break
        }
        let skipped = summary.skipped > 0 ? "\(summary.skipped) skipped, " : ""
        console.stderr.write(
            "\(summary.ok) written, \(skipped)\(summary.failed) failed in "
                + String(printf: "%.1f s", summary.seconds) + "\(end)\n")
    }

    /// Each path as it is, byte for byte (a manifest is data: a name's bytes must survive),
    /// one a line; on a terminal, made visible instead (a byte that is not UTF-8 could be
    /// read as a control there). Those left out are named on stderr, made visible.
    public func showListing(_ inputs: [String], leftOut: [String]) {
        for input in inputs {
            console.stdout.write((console.stdoutIsTerminal ? ForeignText.visible(input) : input) + "\n")
        }
        for input in leftOut {
            console.stderr.write(
                "catctl: left out \(ForeignText.visible(input)): a control character, or a blank at either end, "
                    + "cannot be in a manifest's line\n"
            )
        }
    }

    public func showNote(_ note: String) {
        status.clear()
        console.stderr.write("note: \(ForeignText.visible(note))\n")
    }

    public func showError(_ failure: SceneFailure) {
        status.clear()
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
