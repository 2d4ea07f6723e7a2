import CatScenes

/// The Load Cat scene in a terminal: a spinner, then a progress bar on stderr; the cat's
/// title and its picture on stdout.
@MainActor
public final class LoadCatTerminalView: LoadCatView {
    private let console: Console
    private var spinner = 0
    private var statusShown = false
    private var status = ""
    static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    public init(console: Console) { self.console = console }

    public func updateLoadingState(_ state: LoadCatState) {
        switch state {
        case let .loading(provider): status = "asking \(provider) for a cat"
        case .downloading: status = "downloading"
        case .decoding: status = "decoding"
        case let .saving(output): status = "saving \(output)"
        case .done, .failed, .cancelled:
            clearStatus()
            return
        }
        drawStatus(status)
    }

    public func updateProgress(_ progress: LoadCatProgress) {
        guard let expected = progress.expected, expected > 0 else {
            drawStatus("downloading \(Bytes.format(progress.received))")
            return
        }
        let width = 24, filled = Int(Double(width) * min(1, Double(progress.received) / Double(expected)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        drawStatus("downloading \(bar) \(Bytes.format(progress.received)) / \(Bytes.format(expected))")
    }

    public func updateTitle(_ title: LoadCatTitle) {
        guard let width = title.width, let height = title.height, let bytes = title.bytes else { return }
        clearStatus()
        let name = title.id.map { "\(title.provider) cat \($0)" } ?? "\(title.provider) cat"
        let heading = console.color ? ANSI.bold(name) : name
        console.stdout.write("\(heading)  \(width)x\(height), \(Bytes.format(Int64(bytes)))\n\(title.url)\n")
    }

    public func updateImage(_ image: LoadCatPreview) {
        clearStatus()
        console.stdout.write(TerminalPicture.render(image.pixels, depth: console.colorDepth))
    }

    public func showLoaded(_ result: LoadCatResult) {
        clearStatus()
        if let output = result.output, output != "-" { console.stderr.write("saved \(output)\n") }
    }

    public func showError(_ failure: SceneFailure) {
        clearStatus()
        let label = failure.status == .interrupted ? "" : (console.color ? ANSI.red("error:") + " " : "error: ")
        console.stderr.write("catctl: \(label)\(failure.message)\n")
    }

    private func drawStatus(_ text: String) {
        guard console.stderrIsTerminal else { return }
        spinner = (spinner + 1) % Self.frames.count
        console.stderr.write("\(ANSI.clearLine)\(Self.frames[spinner]) \(text)")
        statusShown = true
    }

    private func clearStatus() {
        guard statusShown else { return }
        console.stderr.write(ANSI.clearLine)
        statusShown = false
    }
}

/// The Load Cat scene when stdout is not a terminal: no escape codes, one line per fact.
@MainActor
public final class LoadCatPlainView: LoadCatView {
    private let console: Console

    public init(console: Console) { self.console = console }

    public func updateLoadingState(_ state: LoadCatState) {}
    public func updateProgress(_ progress: LoadCatProgress) {}
    public func updateTitle(_ title: LoadCatTitle) {}
    public func updateImage(_ image: LoadCatPreview) {}

    public func showLoaded(_ result: LoadCatResult) {
        var lines = ["provider: \(result.provider)"]
        if let id = result.id { lines.append("id: \(id)") }
        lines += ["url: \(result.url)", "size: \(result.width)x\(result.height)", "bytes: \(result.bytes)"]
        if let output = result.output, output != "-" { lines.append("saved: \(output)") }
        let target = result.output == "-" ? console.stderr : console.stdout
        target.write(lines.joined(separator: "\n") + "\n")
    }

    public func showError(_ failure: SceneFailure) {
        console.stderr.write("catctl: \(failure.status == .interrupted ? "" : "error: ")\(failure.message)\n")
    }
}

enum Bytes {
    static func format(_ n: Int64) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(format: "%.0f KB", Double(n) / 1024) }
        return String(format: "%.1f MB", Double(n) / 1_048_576)
    }
}
