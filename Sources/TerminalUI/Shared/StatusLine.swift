import CatScenes

/// The one line on stderr that a terminal view rewrites in place (a spinner, a progress
/// bar, a percentage) and clears before anything else is written. Draws nothing when
/// stderr is not a terminal.
@MainActor
final class StatusLine {
    private let console: Console
    private var shown = false

    init(console: Console) { self.console = console }

    func show(_ text: String) {
        guard console.stderrIsTerminal else { return }
        console.stderr.write("\(ANSI.clearLine)\(ForeignText.visible(text))")
        shown = true
    }

    func clear() {
        guard shown else { return }
        console.stderr.write(ANSI.clearLine)
        shown = false
    }

    /// `████░░░░`: `fraction` (0…1) of `width` cells filled.
    static func bar(_ fraction: Double, width: Int = 24) -> String {
        let filled = Int(Double(width) * min(1, max(0, fraction)))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }
}
