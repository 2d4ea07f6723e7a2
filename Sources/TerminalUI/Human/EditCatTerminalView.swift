import CatScenes

/// The human view of Edit Cat: concise lines on stderr; on a terminal, a progress line
/// that is rewritten in place and cleared at the end.
@MainActor
public final class EditCatTerminalView: EditCatView {
    private let console: Console
    private var progressShown = false

    public init(console: Console) { self.console = console }

    public func updateProcessingState(_ state: EditCatState) {}

    public func updateProgress(_ progress: EditCatProgress) {
        guard console.stderrIsTerminal else { return }
        console.stderr.write("\(ANSI.clearLine)[\(progress.step)/\(progress.totalSteps)] \(progress.label)…")
        progressShown = true
    }

    public func showImageInfo(_ info: EditCatImageInfo) {}

    public func showSaved(_ result: EditCatResult) {
        clearProgress()
        let filters = result.filters.joined(separator: " → ")
        let output = result.output == "-" ? "stdout" : result.output
        console.stderr.write("saved \(output): \(result.width)x\(result.height), \(filters), \(result.milliseconds) ms\n")
    }

    public func showError(_ failure: SceneFailure) {
        clearProgress()
        let label = console.color ? ANSI.red("error:") : "error:"
        console.stderr.write("catctl: \(label) \(failure.message)\n")
    }

    private func clearProgress() {
        guard progressShown else { return }
        console.stderr.write(ANSI.clearLine)
        progressShown = false
    }
}
