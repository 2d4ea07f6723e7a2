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

    public func updateProgress(_ progress: EditCatProgress) {
        let percent = String(repeating: " ", count: 3 - min(3, String(progress.percent).count)) + "\(progress.percent)%"
        status.show("\(StatusLine.bar(Double(progress.percent) / 100)) \(percent) \(progress.label)")
    }

    /// The tiles side by side, a row of the sheet at a time (one picture per row, each tile
    /// `pixelsPerColumn` pixels a column across), each filter's spec under its tile.
    public func showGallery(_ gallery: EditCatGallery) {
        status.clear()
        var out = ""
        let density = gallery.pixelsPerColumn
        for start in stride(from: 0, to: gallery.tiles.count, by: gallery.columns) {
            let tiles = Array(gallery.tiles[start..<min(start + gallery.columns, gallery.tiles.count)])
            let cells = tiles.map { ($0.width + density - 1) / density }
            guard let row = try? Self.sideBySide(tiles, cellWidth: density) else { continue }
            out += TerminalPicture.render(
                row, graphics: console.graphics, columns: cells.reduce(0, +) + cells.count - 1,
                rows: (row.height + 2 * density - 1) / (2 * density))
            out +=
                cells.enumerated().map { i, width in
                    let name = String(ForeignText.visible(gallery.specs[start + i]).prefix(width))
                    let left = (width - name.count) / 2
                    return String(repeating: " ", count: left) + name
                        + String(repeating: " ", count: width - name.count - left)
                }.joined(separator: " ") + "\n"
        }
        console.stdout.write(out)
    }

    /// Tiles in one picture, top-aligned, one transparent cell apart. Each tile fills whole
    /// cells (`cellWidth` x 2 `cellWidth` pixels), its last column and row repeated to
    /// reach them: a cell half tile, half transparent would show as a stray sliver.
    static func sideBySide(_ tiles: [PixelBuffer], cellWidth: Int = 1) throws(ImageIOError) -> PixelBuffer {
        let cellHeight = 2 * cellWidth
        func whole(_ n: Int, _ cell: Int) -> Int { (n + cell - 1) / cell * cell }
        let slots = tiles.map { whole($0.width, cellWidth) }
        let width = slots.reduce(0, +) + (tiles.count - 1) * cellWidth
        let height = whole(tiles.map(\.height).max() ?? 1, cellHeight)
        let row = try PixelBuffer(width: width, height: height, hasAlpha: true)
        row.fill(r: 0, g: 0, b: 0, a: 0)
        var x = 0
        for (tile, slot) in zip(tiles, slots) {
            for y in 0..<whole(tile.height, cellHeight) {
                let source = tile.row(min(y, tile.height - 1)), target = row.row(y) + 4 * x
                target.update(from: source, count: tile.width * 4)
                for extra in tile.width..<slot {
                    (target + 4 * extra).update(from: source + 4 * (tile.width - 1), count: 4)
                }
            }
            x += slot + cellWidth
        }
        return row
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
        if result.frames < result.inputFrames {
            console.stderr.write(
                "note: \(ForeignText.visible(output)) holds the first of the \(result.inputFrames) frames; "
                    + "write .gif or .webp to keep the animation\n")
        }
    }

    public func showError(_ failure: SceneFailure) {
        status.clear()
        console.stderr.write(wording.errorLine(failure, color: console.color))
    }
}
