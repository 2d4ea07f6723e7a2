import CatImageIO
import CatPixels

/// One full screen of a live scene, built as one string and written at once (inside a
/// synchronized update, so terminals that know it show no half-drawn frame). Rows and
/// columns count from 1. Every row is drawn over whole, so nothing of the frame before
/// stays; kitty pictures, which are not cells, are deleted first.
struct ScreenFrame {
    let columns: Int, rows: Int
    let graphics: TerminalGraphics
    let cell: (width: Int, height: Int)?
    /// Styles allowed (reverse video and bold always; colours unless NO_COLOR).
    let color: Bool
    private(set) var text: String

    /// `whole`: the screen is cleared first (kitty pictures deleted); else the frame only
    /// draws over the rows it puts (an animation's frame: the picture and the status line).
    @MainActor init(host: any LiveHost, whole: Bool = true) {
        columns = host.columns
        rows = host.rows
        graphics = host.graphics
        cell = host.cell
        color = host.graphics.colors != .none
        text = "\u{1B}[?2026h\u{1B}[0m"
        guard whole else { return }
        if graphics.kind == .kitty { text += Self.kittyDeleteAll(inTmux: graphics.inTmux) }
        text += "\u{1B}[H\u{1B}[2J"
    }

    /// Draws pictures under ids of catctl's own (kitty, not through tmux): an animation's
    /// frames can then replace a picture's pixels in place (`KittyPicture`).
    var placesOwnPictures: Bool { graphics.kind == .kitty && !graphics.inTmux }

    /// `image` through kitty under `id`, centred in the box of `width` x `height` cells at
    /// (top, left), as many cells as its pixels take at the cell size (8x16 when unknown).
    mutating func ownPicture(_ image: PixelBuffer, id: Int, top: Int, left: Int, width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        let size = cell.flatMap { $0.width > 0 && $0.height > 0 ? $0 : nil } ?? (8, 16)
        let columns = min(width, max(1, (image.width + size.0 - 1) / size.0))
        let rows = min(height, max(1, (image.height + size.1 - 1) / size.1))
        let x = left + (width - columns) / 2, y = top + (height - rows) / 2
        text += "\u{1B}[\(y);\(x)H" + KittyPicture.place(image, id: id, columns: columns, rows: rows)
    }

    /// Replaces the pixels of the picture placed under `id` with `image` (the same size).
    mutating func replaceOwnPicture(_ image: PixelBuffer, id: Int) { text += KittyPicture.replace(image, id: id) }

    /// The finished frame.
    var output: String { text + "\u{1B}[0m\u{1B}[?2026l" }

    /// The kitty graphics command that deletes every picture shown (`a=d`).
    static func kittyDeleteAll(inTmux: Bool) -> String {
        inTmux ? "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d\u{1B}\u{1B}\\\u{1B}\\" : "\u{1B}_Ga=d\u{1B}\\"
    }

    enum Style {
        case plain, bold, reverse, dim, error
    }

    /// `string` at (row, column), neutralised (ForeignText: the title holds file names, the
    /// status line server text) and cut to the screen's width. `neutralised`: the caller
    /// passed it through `ForeignText.visible` already, to measure what will be shown.
    mutating func put(
        _ string: String, row: Int, column: Int = 1, style: Style = .plain, width: Int? = nil,
        neutralised: Bool = false
    ) {
        guard row >= 1, row <= rows, column <= columns else { return }
        let room = min(width ?? columns, columns - column + 1)
        var shown = CellWidth.prefix(neutralised ? string : ForeignText.visible(string), fitting: room)
        let cells = CellWidth.of(shown)
        if let width, cells < min(room, width) { shown += String(repeating: " ", count: min(room, width) - cells) }
        text += "\u{1B}[\(row);\(column)H" + Self.styled(shown, style, color: color)
    }

    /// A whole-width bar: `left`, and `right` against the right edge.
    mutating func bar(_ left: String, right: String = "", row: Int, style: Style = .reverse) {
        let (left, right) = (ForeignText.visible(left), ForeignText.visible(right))
        let gap = max(1, columns - CellWidth.of(left) - CellWidth.of(right))
        put(
            left + String(repeating: " ", count: gap) + right, row: row, style: style, width: columns, neutralised: true
        )
    }

    static func styled(_ s: String, _ style: Style, color: Bool) -> String {
        switch style {
        case .plain: return s
        case .bold: return "\u{1B}[1m\(s)\u{1B}[0m"
        case .reverse: return "\u{1B}[7m\(s)\u{1B}[0m"
        case .dim: return color ? "\u{1B}[2m\(s)\u{1B}[0m" : s
        case .error: return color ? "\u{1B}[1;31m\(s)\u{1B}[0m" : "\u{1B}[1m\(s)\u{1B}[0m"
        }
    }

    /// `image` centred in the box of `width` x `height` cells whose top left is (top, left),
    /// through chafa (symbols or the terminal's graphics protocol). `cache` keeps what chafa
    /// made for pictures drawn again unchanged (the thumbnails, as the highlight moves).
    mutating func picture(
        _ image: PixelBuffer, top: Int, left: Int, width: Int, height: Int, cache: PictureCache? = nil
    ) {
        guard width > 0, height > 0 else { return }
        let key = PictureCache.Key(
            image: ObjectIdentifier(image), columns: width, rows: height, graphics: graphics,
            cell: cell.map { [$0.width, $0.height] })
        let drawn =
            cache?.pictures[key]?.drawn
            ?? TerminalPicture.draw(image, graphics: graphics, columns: width, rows: height, cell: cell)
        guard let picture = drawn else { return }
        cache?.pictures[key] = (image, picture)
        let x = left + max(0, (width - picture.columns) / 2), y = top + max(0, (height - picture.rows) / 2)
        if graphics.kind == .symbols {
            for (i, line) in picture.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                text += "\u{1B}[\(y + i);\(x)H" + line
            }
        } else {
            text += "\u{1B}[\(y);\(x)H" + picture.text
        }
        text += "\u{1B}[0m"
    }

    /// Pixels wanted for a picture of `columns` x `rows` cells: a cell's real pixels for
    /// the graphics protocols (8x16 when unknown), 4x8 samples per cell for symbols
    /// (chafa looks at 8x8 per cell; 4 across keeps the render quick).
    func pixels(columns: Int, rows: Int) -> (width: Int, height: Int) {
        let perCell = graphics.kind == .symbols ? (4, 8) : cell ?? (8, 16)
        return (max(1, columns * perCell.0), max(1, rows * perCell.1))
    }
}

/// What chafa made for pictures, kept while they are on screen: a picture drawn again at
/// the same size in the same mode is not made again. Entries hold their image, so an
/// identity never stands for another picture.
final class PictureCache {
    struct Key: Hashable {
        let image: ObjectIdentifier
        let columns: Int, rows: Int
        let graphics: TerminalGraphics
        let cell: [Int]?
    }

    var pictures: [Key: (image: PixelBuffer, drawn: (text: String, columns: Int, rows: Int)?)] = [:]

    /// Forgets every picture but `images`.
    func keep(only images: [PixelBuffer]) {
        let kept = Set(images.map(ObjectIdentifier.init))
        pictures = pictures.filter { kept.contains($0.key.image) }
    }
}
