/// Simple drawing on a PixelBuffer: rectangles, pasted images and a 5x7 bitmap font
/// (upper-case letters, digits, '-', ':', '.'), enough to label a contact sheet.
extension PixelBuffer {
    public func fill(x: Int, y: Int, width w: Int, height h: Int, color: (UInt8, UInt8, UInt8)) {
        let xs = max(0, x), xe = min(width, x + w), ys = max(0, y), ye = min(height, y + h)
        guard xs < xe, ys < ye else { return }
        for yy in ys..<ye {
            let row = self.row(yy)
            for xx in xs..<xe {
                row[4 * xx] = color.0; row[4 * xx + 1] = color.1; row[4 * xx + 2] = color.2; row[4 * xx + 3] = 255
            }
        }
    }

    /// Copies `image` with its top-left corner at (x, y), clipped to this buffer.
    public func paste(_ image: PixelBuffer, x: Int, y: Int) {
        for sy in 0..<image.height where y + sy >= 0 && y + sy < height {
            for sx in 0..<image.width where x + sx >= 0 && x + sx < width {
                let s = image.row(sy) + 4 * sx, d = row(y + sy) + 4 * (x + sx)
                d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3]
            }
        }
    }
}

public enum BitmapFont {
    public static let glyphWidth = 5, glyphHeight = 7

    /// Rows of five bits, top row first.
    static let glyphs: [Character: [UInt8]] = [
        "A": [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
        "B": [0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110],
        "C": [0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110],
        "D": [0b11110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11110],
        "E": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111],
        "F": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000],
        "G": [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111],
        "H": [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
        "I": [0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "J": [0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100],
        "K": [0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001],
        "L": [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111],
        "M": [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001],
        "N": [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001],
        "O": [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "P": [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000],
        "Q": [0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101],
        "R": [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001],
        "S": [0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110],
        "T": [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100],
        "U": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "V": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100],
        "W": [0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010],
        "X": [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001],
        "Y": [0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100],
        "Z": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111],
        "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        "3": [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
        "-": [0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000],
        ":": [0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000],
        ".": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100],
        ",": [0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b00100, 0b01000],
    ]

    /// Width in pixels of `text` at `scale` (one blank column between letters).
    public static func width(_ text: String, scale: Int) -> Int {
        max(0, text.count * (glyphWidth + 1) * scale - scale)
    }

    /// Draws `text` (upper-cased; unknown characters leave a gap) with its top-left at (x, y).
    public static func draw(
        _ text: String, into image: PixelBuffer, x: Int, y: Int, scale: Int,
        color: (UInt8, UInt8, UInt8)
    ) {
        for (i, character) in text.uppercased().enumerated() {
            guard let rows = glyphs[character] else { continue }
            let left = x + i * (glyphWidth + 1) * scale
            for (r, bits) in rows.enumerated() {
                for c in 0..<glyphWidth where bits & (1 << (glyphWidth - 1 - c)) != 0 {
                    image.fill(x: left + c * scale, y: y + r * scale, width: scale, height: scale, color: color)
                }
            }
        }
    }
}
