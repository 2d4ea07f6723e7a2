extension PixelBuffer {
    /// A smaller copy: every output pixel is the average of the source pixels under it
    /// (a box filter over the exact fractional footprint). For previews and thumbnails.
    public func downsampled(width newWidth: Int, height newHeight: Int) throws(ImageIOError) -> PixelBuffer {
        let out = try PixelBuffer(width: newWidth, height: newHeight, hasAlpha: hasAlpha)
        let sx = Double(width) / Double(newWidth), sy = Double(height) / Double(newHeight)
        for oy in 0..<newHeight {
            let y0 = Double(oy) * sy, y1 = y0 + sy
            for ox in 0..<newWidth {
                let x0 = Double(ox) * sx, x1 = x0 + sx
                var sum = (0.0, 0.0, 0.0, 0.0), total = 0.0
                var y = Int(y0)
                while Double(y) < y1 && y < height {
                    let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
                    let row = self.row(y)
                    var x = Int(x0)
                    while Double(x) < x1 && x < width {
                        let w = wy * (min(x1, Double(x + 1)) - max(x0, Double(x)))
                        let p = row + 4 * x
                        sum.0 += w * Double(p[0]); sum.1 += w * Double(p[1])
                        sum.2 += w * Double(p[2]); sum.3 += w * Double(p[3])
                        total += w
                        x += 1
                    }
                    y += 1
                }
                let d = out.row(oy) + 4 * ox
                d[0] = UInt8((sum.0 / total).rounded()); d[1] = UInt8((sum.1 / total).rounded())
                d[2] = UInt8((sum.2 / total).rounded()); d[3] = UInt8((sum.3 / total).rounded())
            }
        }
        return out
    }

    /// The size that fits `maxWidth` x `maxHeight`, keeping the aspect ratio (never larger).
    public func fittingSize(maxWidth: Int, maxHeight: Int) -> (Int, Int) {
        let scale = min(1, min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
