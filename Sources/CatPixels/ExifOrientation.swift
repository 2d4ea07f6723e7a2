/// EXIF orientation (TIFF tag 0x0112): which way the camera was held.
public enum ExifOrientation {
    /// The orientation 1–8 in an EXIF block (the TIFF data after "Exif\0\0"), or 1 when
    /// there is none or the block is malformed. Every offset is bounds-checked.
    public static func parse(_ tiff: UnsafeBufferPointer<UInt8>) -> Int {
        guard let (offset, little) = valueOffset(tiff) else { return 1 }
        let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
        let value = little ? a | b << 8 : a << 8 | b
        return (1...8).contains(value) ? value : 1
    }

    /// Sets the orientation tag of TIFF data to 1 (top-left), when it has one.
    public static func reset(_ tiff: inout [UInt8]) {
        guard let (offset, little) = tiff.withUnsafeBufferPointer({ valueOffset($0) }) else { return }
        tiff[offset] = little ? 1 : 0
        tiff[offset + 1] = little ? 0 : 1
    }

    /// Where the orientation's 16-bit value is in the first IFD, and the byte order.
    private static func valueOffset(_ tiff: UnsafeBufferPointer<UInt8>) -> (Int, little: Bool)? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0..<min(count, 512) {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            guard u16(entry + 2) == 3, u16(entry + 8) != nil else { return nil }  // SHORT, inline
            return (entry + 8, little)
        }
        return nil
    }

    /// The upright image for an orientation: a new buffer, or `image` itself for 1.
    public static func apply(_ orientation: Int, to image: PixelBuffer) throws(PixelError) -> PixelBuffer {
        guard (2...8).contains(orientation) else { return image }
        let w = image.width, h = image.height
        let swaps = orientation >= 5
        let out = try PixelBuffer(width: swaps ? h : w, height: swaps ? w : h, hasAlpha: image.hasAlpha)
        let srcStride = image.stride / 4
        image.base.withMemoryRebound(to: UInt32.self, capacity: image.byteCount / 4) { src in
            for y in 0..<out.height {
                out.row(y).withMemoryRebound(to: UInt32.self, capacity: out.width) { dst in
                    for x in 0..<out.width {
                        // (sx, sy): the stored pixel shown at (x, y) once upright.
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)  // mirrored
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)  // upside down
                        case 4: (sx, sy) = (x, h - 1 - y)  // mirrored vertically
                        case 5: (sx, sy) = (y, x)  // transposed
                        case 6: (sx, sy) = (y, h - 1 - x)  // needs 90° clockwise
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)  // transversed
                        default: (sx, sy) = (w - 1 - y, x)  // 8: needs 90° counter-clockwise
                        }
                        dst[x] = src[sy * srcStride + sx]
                    }
                }
            }
        }
        return out
    }
}
