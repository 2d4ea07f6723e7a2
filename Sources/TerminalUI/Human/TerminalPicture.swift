import ImageIO

/// Draws a small image in a terminal: each character cell is two pixels stacked, the
/// upper half block "▀" in the top pixel's colour over the bottom pixel's colour.
public enum TerminalPicture {
    public static func render(_ image: PixelBuffer, depth: ColorDepth) -> String {
        lines(image, depth: depth).map { $0 + "\n" }.joined()
    }

    /// One string per text row (each ends with a colour reset), `image.width` cells wide.
    public static func lines(_ image: PixelBuffer, depth: ColorDepth) -> [String] {
        var lines: [String] = []
        for y in stride(from: 0, to: image.height, by: 2) {
            var out = ""
            var last: (String, String) = ("", "")
            for x in 0..<image.width {
                let top = image.pixel(x, y)
                let bottom = y + 1 < image.height ? image.pixel(x, y + 1) : top
                switch depth {
                case .none:
                    out.append(Self.ramp(luma(top) / 2 + luma(bottom) / 2))
                case .trueColor, .ansi256:
                    let fg = code(top, depth: depth, foreground: true),
                        bg = code(bottom, depth: depth, foreground: false)
                    if (fg, bg) != last { out += "\u{1B}[\(fg);\(bg)m"; last = (fg, bg) }
                    out += "▀"
                }
            }
            if depth != .none { out += "\u{1B}[0m" }
            lines.append(out)
        }
        return lines
    }

    static func code(_ p: (UInt8, UInt8, UInt8, UInt8), depth: ColorDepth, foreground: Bool) -> String {
        let (r, g, b) = blendOnBlack(p)
        if depth == .trueColor { return "\(foreground ? 38 : 48);2;\(r);\(g);\(b)" }
        return "\(foreground ? 38 : 48);5;\(ansi256(r, g, b))"
    }

    /// Transparent pixels drawn over a black terminal.
    static func blendOnBlack(_ p: (UInt8, UInt8, UInt8, UInt8)) -> (Int, Int, Int) {
        let a = Int(p.3)
        return ((Int(p.0) * a + 127) / 255, (Int(p.1) * a + 127) / 255, (Int(p.2) * a + 127) / 255)
    }

    /// The nearest of xterm's 6x6x6 colour cube and 24 greys.
    static func ansi256(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func nearest(_ v: Int) -> Int { levels.indices.min { abs(levels[$0] - v) < abs(levels[$1] - v) }! }
        let (ri, gi, bi) = (nearest(r), nearest(g), nearest(b))
        let cube = 16 + 36 * ri + 6 * gi + bi
        let cubeError = sq(levels[ri] - r) + sq(levels[gi] - g) + sq(levels[bi] - b)
        let grey = min(23, max(0, ((r + g + b) / 3 - 3) / 10))
        let gv = 8 + 10 * grey
        let greyError = sq(gv - r) + sq(gv - g) + sq(gv - b)
        return greyError < cubeError ? 232 + grey : cube
    }

    static func sq(_ v: Int) -> Int { v * v }

    static func luma(_ p: (UInt8, UInt8, UInt8, UInt8)) -> Int {
        let (r, g, b) = blendOnBlack(p)
        return (2126 * r + 7152 * g + 722 * b) / 10000
    }

    static let characters = Array(" .:-=+*#%@")
    static func ramp(_ luma: Int) -> Character { characters[min(characters.count - 1, luma * characters.count / 256)] }
}
