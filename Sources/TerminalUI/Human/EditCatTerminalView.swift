import CatScenes

/// The human view of Edit Cat: concise lines on stderr; on a terminal, a progress line
/// (a bar and the percentage) that is rewritten in place and cleared at the end.
@MainActor
public final class EditCatTerminalView: EditCatView {
    private let console: Console
    private let wording: FailureWording
    private let status: StatusLine

    public init(console: Console, wording: FailureWording = FailureWording()) {
        self.console = console
        self.wording = wording
        status = StatusLine(console: console)
    }

    public func updateProgress(_ progress: EditCatProgress) {
        let percent = String(repeating: " ", count: 3 - min(3, String(progress.percent).count)) + "\(progress.percent)%"
        status.show("\(StatusLine.bar(Double(progress.percent) / 100)) \(percent) \(progress.label)")
    }

    /// The tiles side by side, a row of the sheet at a time, each filter's spec under its tile.
    public func showGallery(_ gallery: EditCatGallery) {
        status.clear()
        var out = ""
        for start in stride(from: 0, to: gallery.tiles.count, by: gallery.columns) {
            let tiles = Array(gallery.tiles[start..<min(start + gallery.columns, gallery.tiles.count)])
            let pictures = tiles.map { TerminalPicture.lines($0, depth: console.colorDepth) }
            for line in 0..<(pictures.map(\.count).max() ?? 0) {
                out +=
                    pictures.enumerated().map { i, rows in
                        line < rows.count ? rows[line] : String(repeating: " ", count: tiles[i].width)
                    }.joined(separator: " ") + "\n"
            }
            out +=
                tiles.enumerated().map { i, tile in
                    let name = String(gallery.specs[start + i].prefix(tile.width))
                    let left = (tile.width - name.count) / 2
                    return String(repeating: " ", count: left) + name
                        + String(repeating: " ", count: tile.width - name.count - left)
                }.joined(separator: " ") + "\n"
        }
        console.stdout.write(out)
    }

    public func showSaved(_ result: EditCatResult) {
        status.clear()
        let filters =
            result.isGallery ? "gallery of \(result.filters.count) filters" : result.filters.joined(separator: " → ")
        let output = result.output == "-" ? "stdout" : result.output
        let frames = result.frames > 1 ? ", \(result.frames) frames" : ""
        console.stderr.write(
            "saved \(output): \(result.width)x\(result.height)\(frames), \(filters), \(result.milliseconds) ms\n")
        if result.frames < result.inputFrames {
            console.stderr.write(
                "note: \(output) holds the first of the \(result.inputFrames) frames; "
                    + "write .gif or .webp to keep the animation\n")
        }
    }

    public func showError(_ failure: SceneFailure) {
        status.clear()
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
