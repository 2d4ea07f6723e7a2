internal import CChafaShim
import CatImageIO
import CatPixels

/// Draws an image in a terminal through libchafa (CChafaShim): Unicode symbols in colour,
/// or the terminal's own graphics protocol (kitty, iTerm2, sixel), as `TerminalGraphics`
/// says.
public enum TerminalPicture {
    /// What to write for `image` to fit `columns` x `rows` cells (keeping its shape, cells
    /// counted 1:2), ending with a newline; "" when no picture is to be drawn.
    public static func render(
        _ image: PixelBuffer, graphics: TerminalGraphics, columns: Int, rows: Int
    ) -> String {
        guard let picture = draw(image, graphics: graphics, columns: columns, rows: rows) else { return "" }
        return picture.text + "\n"
    }

    /// The picture and the cells it covers; nil for `.none` (or when chafa fails).
    /// `cell`: a cell's size in pixels when the terminal said (else cells count as 1:2).
    static func draw(
        _ image: PixelBuffer, graphics: TerminalGraphics, columns: Int, rows: Int,
        cell: (width: Int, height: Int)? = nil
    ) -> (text: String, columns: Int, rows: Int)? {
        let mode: Int32
        switch graphics.kind {
        case .none: return nil
        case .symbols: mode = Int32(CC_MODE_SYMBOLS)
        case .kitty: mode = Int32(CC_MODE_KITTY)
        case .iterm: mode = Int32(CC_MODE_ITERM)
        case .sixel: mode = Int32(CC_MODE_SIXEL)
        }
        let colors: Int32
        switch graphics.colors {
        case .none: colors = Int32(CC_COLORS_NONE)
        case .ansi16: colors = Int32(CC_COLORS_16)
        case .ansi256: colors = Int32(CC_COLORS_256)
        case .trueColor: colors = Int32(CC_COLORS_TRUECOLOR)
        }
        var outColumns: Int32 = 0, outRows: Int32 = 0
        guard
            let text = cc_render(
                image.base, UInt32(image.width), UInt32(image.height), image.stride, mode, colors,
                Int32(max(1, min(columns, Int(CC_MAX_CELLS)))), Int32(max(1, min(rows, Int(CC_MAX_CELLS)))),
                Int32(min(512, cell?.width ?? 0)), Int32(min(512, cell?.height ?? 0)),
                graphics.inTmux ? 1 : 0, &outColumns, &outRows)
        else { return nil }
        defer { cc_free(text) }
        return (String(cString: text), Int(outColumns), Int(outRows))
    }
}
