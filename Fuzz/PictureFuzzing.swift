import CatPixels

/// The picture a cat target reads from its input, compiled beside each driver that uses it
/// (Fuzz/build.sh): the first four bytes give the width and height (1 to 4096 each, so that
/// 1 x 4096 strips are among them), the rest fill the pixels, repeated, opaque. Nil for an
/// input too short, or a picture over a megapixel (the cat finder and the mask read copies
/// of fixed sizes: a larger one tests nothing more, slower).
func fuzzPicture(_ data: UnsafePointer<UInt8>, _ size: Int) -> PixelBuffer? {
    guard size >= 5 else { return nil }
    let width = 1 + (Int(data[0]) << 8 | Int(data[1])) % 4096
    let height = 1 + (Int(data[2]) << 8 | Int(data[3])) % 4096
    guard width * height <= 1 << 20, let picture = try? PixelBuffer(width: width, height: height) else { return nil }
    let pixels = UnsafeBufferPointer(start: data + 4, count: size - 4)
    var i = 0
    for y in 0..<height {
        let row = picture.row(y)
        for x in 0..<(4 * width) {
            row[x] = x % 4 == 3 ? 255 : pixels[i % pixels.count]
            i += 1
        }
    }
    return picture
}
