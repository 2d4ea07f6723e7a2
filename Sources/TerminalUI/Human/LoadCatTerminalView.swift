import CatScenes

/// The Load Cat scene in a terminal: a spinner, then a progress bar on stderr; the cat's
/// title and its picture on stdout.
@MainActor
public final class LoadCatTerminalView: LoadCatView {
    private let console: Console
    private let wording: FailureWording
    private let status: StatusLine
    private var spinner = 0
    static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
        status = StatusLine(console: console)
    }

    public func updateLoadingState(_ state: LoadCatState) {
        switch state {
        case let .loading(provider): spin("asking \(provider) for a cat")
        case .downloading: spin("downloading")
        case .decoding: spin("decoding")
        case let .saving(output): spin("saving \(output)")
        case .done, .failed, .cancelled: status.clear()
        }
    }

    public func updateProgress(_ progress: LoadCatProgress) {
        guard let expected = progress.expected, expected > 0 else {
            spin("downloading \(Bytes.format(progress.received))")
            return
        }
        let bar = StatusLine.bar(Double(progress.received) / Double(expected))
        spin("downloading \(bar) \(Bytes.format(progress.received)) / \(Bytes.format(expected))")
    }

    /// Not shown: the decoded cat's title comes next, with its real size.
    public func showCatFound(_ cat: LoadCatFound) {}

    public func showCatDecoded(_ cat: LoadCatDecoded) {
        status.clear()
        let name = ForeignText.visible(cat.title)
        let heading = console.color ? ANSI.bold(name) : name
        console.stdout.write(
            "\(heading)  \(cat.width)x\(cat.height), \(Bytes.format(Int64(cat.bytes)))\n\(ForeignText.visible(cat.url))\n"
        )
    }

    public func updateImage(_ image: LoadCatPreview) {
        status.clear()
        console.stdout.write(
            TerminalPicture.render(
                image.pixels, graphics: console.graphics, columns: console.columns - 1, rows: console.rows - 4))
    }

    public func showLoaded(_ result: LoadCatResult) {
        status.clear()
        if let output = result.output, output != "-" { console.stderr.write("saved \(ForeignText.visible(output))\n") }
    }

    public func showError(_ failure: SceneFailure) {
        status.clear()
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }

    private func spin(_ text: String) {
        spinner = (spinner + 1) % Self.frames.count
        status.show("\(Self.frames[spinner]) \(text)")
    }
}

enum Bytes {
    static func format(_ n: Int64) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(printf: "%.0f KB", Double(n) / 1024) }
        return String(printf: "%.1f MB", Double(n) / 1_048_576)
    }
}
