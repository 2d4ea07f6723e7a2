import CatImageIO
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

    /// The lines below say it all; a progress line only for large images.
    public func updateProcessingState(_ state: EditCatState) {}

    /// Not shown: the saved line gives the size.
    public func showImageInfo(_ info: EditCatImageInfo) {}

    public func updateProgress(_ progress: EditCatProgress) {
        let percent = String(repeating: " ", count: 3 - min(3, String(progress.percent).count)) + "\(progress.percent)%"
        status.show("\(StatusLine.bar(Double(progress.percent) / 100)) \(percent) \(progress.label)")
    }

    /// The gallery's rows (each a picture of its tiles side by side, made by the scene),
    /// each filter's spec under its tile.
    public func showGallery(_ gallery: EditCatGallery) {
        status.clear()
        var out = ""
        let density = gallery.pixelsPerColumn
        for row in gallery.rows {
            out += TerminalPicture.render(
                row.picture, graphics: console.graphics, columns: row.cells.reduce(0, +) + row.cells.count - 1,
                rows: (row.picture.height + 2 * density - 1) / (2 * density))
            out +=
                zip(row.specs, row.cells).map { spec, width in
                    let name = String(ForeignText.visible(spec).prefix(width))
                    let left = (width - name.count) / 2
                    return String(repeating: " ", count: left) + name
                        + String(repeating: " ", count: width - name.count - left)
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
            ForeignText.visible(
                "saved \(output): \(result.width)x\(result.height)\(frames), \(filters), \(result.milliseconds) ms")
                + "\n")
        for note in result.notes { console.stderr.write("note: \(ForeignText.visible(note))\n") }
    }

    public func showError(_ failure: SceneFailure) {
        status.clear()
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
