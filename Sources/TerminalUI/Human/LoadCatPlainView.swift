import CatScenes

/// The Load Cat scene when stdout is not a terminal: no escape codes, one line per fact.
@MainActor
public final class LoadCatPlainView: LoadCatView {
    private let console: Console
    private let wording: FailureWording

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
    }

    public func showLoaded(_ result: LoadCatResult) {
        var lines = ["provider: \(result.provider)"]
        if let id = result.id { lines.append("id: \(id)") }
        lines += ["url: \(result.url)", "size: \(result.width)x\(result.height)", "bytes: \(result.bytes)"]
        if let output = result.output, output != "-" { lines.append("saved: \(output)") }
        let target = result.output == "-" ? console.stderr : console.stdout
        target.write(lines.joined(separator: "\n") + "\n")
    }

    public func showError(_ failure: SceneFailure) {
        console.stderr.write(wording.errorLine(failure, color: false))
    }
}
