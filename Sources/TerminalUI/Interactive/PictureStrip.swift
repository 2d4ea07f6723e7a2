import CatImageIO

/// The live screens' widgets of labelled pictures: a strip (a row of them around the
/// highlighted one) and a grid (scrolled to the highlighted one). Each picture has its
/// label centred under it, the highlighted one in reverse video.
struct PictureStrip {
    let pictures: [PixelBuffer]
    let labels: [String]
    let highlighted: Int
    /// Each picture's size in cells, and the cache of pictures as chafa drew them.
    let tileColumns: Int, tileRows: Int
    let cache: PictureCache

    /// `count` pictures in a row (an odd number puts the highlighted one in the middle),
    /// their tops at `top`, centred across the screen.
    func drawStrip(count: Int, top: Int, into frame: inout ScreenFrame) {
        let n = min(count, pictures.count)
        let start = min(max(0, highlighted - n / 2), pictures.count - n)
        let used = n * (tileColumns + 1) - 1
        let left = 1 + max(0, (frame.columns - used) / 2)
        for (slot, i) in (start..<start + n).enumerated() {
            tile(i, top: top, left: left + slot * (tileColumns + 1), into: &frame)
        }
    }

    /// `columns` pictures a row from row 2 down, as many rows as fit, scrolled so the
    /// highlighted one shows.
    func drawGrid(columns: Int, into frame: inout ScreenFrame) {
        let fit = max(1, (frame.rows - 3) / (tileRows + 1))
        let gridRows = (pictures.count + columns - 1) / columns
        let firstRow = min(max(0, highlighted / columns - fit / 2), max(0, gridRows - fit))
        let left = 1 + max(0, (frame.columns - (columns * (tileColumns + 1) - 1)) / 2)
        for gridRow in firstRow..<min(gridRows, firstRow + fit) {
            let top = 2 + (gridRow - firstRow) * (tileRows + 1)
            for column in 0..<columns {
                let i = gridRow * columns + column
                guard i < pictures.count else { break }
                tile(i, top: top, left: left + column * (tileColumns + 1), into: &frame)
            }
        }
    }

    private func tile(_ i: Int, top: Int, left: Int, into frame: inout ScreenFrame) {
        frame.picture(pictures[i], top: top, left: left, width: tileColumns, height: tileRows, cache: cache)
        let name = String(ForeignText.visible(labels[i]).prefix(tileColumns))
        let pad = (tileColumns - name.count) / 2
        let text =
            String(repeating: " ", count: pad) + name + String(repeating: " ", count: tileColumns - name.count - pad)
        frame.put(
            text, row: top + tileRows, column: left, style: i == highlighted ? .reverse : .dim, neutralised: true)
    }
}
