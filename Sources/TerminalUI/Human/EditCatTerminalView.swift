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

    /// The tiles side by side, a row of the sheet at a time, each filter's spec under its tile.
    public func showGallery(_ gallery: EditCatGallery) {
        clearProgress()
        var out = ""
        for start in stride(from: 0, to: gallery.tiles.count, by: gallery.columns) {
            let tiles = Array(gallery.tiles[start..<min(start + gallery.columns, gallery.tiles.count)])
            let pictures = tiles.map { TerminalPicture.lines($0, depth: console.colorDepth) }
            for line in 0..<(pictures.map(\.count).max() ?? 0) {
                out += pictures.enumerated().map { i, rows in
                    line < rows.count ? rows[line] : String(repeating: " ", count: tiles[i].width)
                }.joined(separator: " ") + "\n"
            }
            out += tiles.enumerated().map { i, tile in
                let name = String(gallery.specs[start + i].prefix(tile.width))
                let left = (tile.width - name.count) / 2
                return String(repeating: " ", count: left) + name + String(repeating: " ", count: tile.width - name.count - left)
            }.joined(separator: " ") + "\n"
        }
        console.stdout.write(out)
    }

    public func showSaved(_ result: EditCatResult) {
        clearProgress()
        let filters = result.isGallery ? "gallery of \(result.filters.count) filters" : result.filters.joined(separator: " → ")
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
