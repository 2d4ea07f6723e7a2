// libFuzzer target: the cat filters (cutout, portrait, sticker) as `edit` runs them, on
// pictures of any size and content: the first four bytes give the width and height (1 to
// 4096 each, so that 1 x 4096 strips are among them), the rest fill the pixels, repeated.
// The mask is made on the copy (the detector, the second look and the mask network, as
// CatScenes' CatSubjects runs them) and the chain placed: `cutout` and `portrait` keep the
// size, `sticker` gives 512 x 512 or the picture as it is; the work is bounded by the fixed
// network inputs and the mask's copy, not by the picture.
import CatPixels
import CatScenes
import FilterCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatFilters(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 5 else { return 0 }
    let width = 1 + (Int(data[0]) << 8 | Int(data[1])) % 4096
    let height = 1 + (Int(data[2]) << 8 | Int(data[3])) % 4096
    guard width * height <= 1 << 20, let picture = try? PixelBuffer(width: width, height: height) else { return 0 }
    let pixels = UnsafeBufferPointer(start: data + 4, count: size - 4)
    var i = 0
    for y in 0..<height {
        let row = picture.row(y)
        for x in 0..<(4 * width) {
            row[x] = x % 4 == 3 ? 255 : pixels[i % pixels.count]
            i += 1
        }
    }
    // One filter an input (the fifth byte chooses): at most 8 cats' masks, some 3 s under
    // AddressSanitizer, against libFuzzer's 10 s timeout of Fuzz/run.sh's first pass.
    let spec = ["cutout", "portrait:3:mono", "sticker:4"][Int(data[4]) % 3]
    guard let chain = try? FilterChain(catSpecs: [spec]),
        let placed = try? chain.resolvingGravity(picture: picture, width: width, height: height),
        let out = try? placed.apply(to: picture, threads: 1)
    else { return 0 }
    let sticker = spec.hasPrefix("sticker") && out.width == 512 && out.height == 512
    precondition(sticker || (out.width == width && out.height == height), "\(spec) changed the size")
    return 0
}
