import CatImageIO
import CatPixels

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

    /// Where each shown picture goes: its index and its top-left cell.
    typealias Place = (index: Int, top: Int, left: Int)

    /// `count` pictures in a row (an odd number puts the highlighted one in the middle),
    /// their tops at `top`, centred across a screen `screenColumns` wide.
    func stripPlaces(count: Int, top: Int, screenColumns: Int) -> [Place] {
        let n = min(count, pictures.count)
        let start = min(max(0, highlighted - n / 2), pictures.count - n)
        let used = n * (tileColumns + 1) - 1
        let left = 1 + max(0, (screenColumns - used) / 2)
        return (start..<start + n).enumerated().map { slot, i in (i, top, left + slot * (tileColumns + 1)) }
    }

    /// `columns` pictures a row from row 2 down, as many rows as fit on a screen of
    /// `screenColumns` x `screenRows`, scrolled so the highlighted one shows.
    func gridPlaces(columns: Int, screenColumns: Int, screenRows: Int) -> [Place] {
        let fit = max(1, (screenRows - 3) / (tileRows + 1))
        let gridRows = (pictures.count + columns - 1) / columns
        let firstRow = min(max(0, highlighted / columns - fit / 2), max(0, gridRows - fit))
        let left = 1 + max(0, (screenColumns - (columns * (tileColumns + 1) - 1)) / 2)
        var places: [Place] = []
        for gridRow in firstRow..<min(gridRows, firstRow + fit) {
            let top = 2 + (gridRow - firstRow) * (tileRows + 1)
            for column in 0..<columns where gridRow * columns + column < pictures.count {
                places.append((gridRow * columns + column, top, left + column * (tileColumns + 1)))
            }
        }
        return places
    }

    func draw(_ places: [Place], into frame: inout ScreenFrame) {
        for place in places { tile(place.index, top: place.top, left: place.left, into: &frame) }
    }

    func drawStrip(count: Int, top: Int, into frame: inout ScreenFrame) {
        draw(stripPlaces(count: count, top: top, screenColumns: frame.columns), into: &frame)
    }

    func drawGrid(columns: Int, into frame: inout ScreenFrame) {
        draw(gridPlaces(columns: columns, screenColumns: frame.columns, screenRows: frame.rows), into: &frame)
    }

    /// The picture whose tile (picture and label) holds the cell at `column`, `row`.
    func index(at column: Int, row: Int, in places: [Place]) -> Int? {
        places.first { place in
            (place.left..<place.left + tileColumns).contains(column) && (place.top...place.top + tileRows).contains(row)
        }?.index
    }

    private func tile(_ i: Int, top: Int, left: Int, into frame: inout ScreenFrame) {
        frame.picture(pictures[i], top: top, left: left, width: tileColumns, height: tileRows, cache: cache)
        let name = CellWidth.prefix(ForeignText.visible(labels[i]), fitting: tileColumns)
        let cells = CellWidth.of(name), pad = (tileColumns - cells) / 2
        let text =
            String(repeating: " ", count: pad) + name + String(repeating: " ", count: tileColumns - cells - pad)
        frame.put(
            text, row: top + tileRows, column: left, style: i == highlighted ? .reverse : .dim, neutralised: true)
    }
}
