import CatScenes
import Foundation

/// Batch for people and scripts: each written file's path on stdout (nothing else goes
/// there), failures and the summary on stderr, and on a terminal a progress bar with
/// files done/total, MPix/s and the time left.
@MainActor
public final class BatchTerminalView: BatchView {
    private let console: Console
    private var barShown = false

    public init(console: Console) { self.console = console }

    public func showPlan(_ plan: BatchPlan) {
        guard console.stderrIsTerminal else { return }
        let others = plan.skipped > 0 ? " (\(plan.skipped) left to other shards)" : ""
        console.stderr.write("\(plan.files) file\(plan.files == 1 ? "" : "s")\(others)\n")
    }

    public func updateProgress(_ progress: BatchProgress) {
        guard console.stderrIsTerminal, progress.total > 0 else { return }
        let width = 24, filled = width * progress.done / progress.total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let eta = progress.remainingSeconds.map { String(format: " ETA %.0fs", $0) } ?? ""
        console.stderr.write("\(ANSI.clearLine)[\(progress.done)/\(progress.total)] \(bar) "
            + String(format: "%.1f MPix/s", progress.megapixelsPerSecond) + eta)
        barShown = true
    }

    public func showFileResult(_ result: BatchFileResult) {
        clearBar()
        if let error = result.error {
            let label = console.color ? ANSI.red("error:") : "error:"
            console.stderr.write("catctl: \(label) \(error)\n")
        } else {
            console.stdout.write("\(result.output)\n")
        }
    }

    public func showSummary(_ summary: BatchSummary) {
        clearBar()
        let end = summary.interrupted ? ", interrupted" : ""
        console.stderr.write("\(summary.ok) written, \(summary.failed) failed in "
            + String(format: "%.1f s", summary.seconds) + "\(end)\n")
    }

    public func showError(_ failure: SceneFailure) {
        clearBar()
        console.stderr.write("catctl: error: \(failure.message)\n")
    }

    private func clearBar() {
        guard barShown else { return }
        console.stderr.write(ANSI.clearLine)
        barShown = false
    }
}
