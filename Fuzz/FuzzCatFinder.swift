// libFuzzer target: the cat detector and the face cascades as the scenes run them
// (CatScenes' CatSubjects.find: the copies, CatFaces' CatFinder, the boxes scaled back) on
// pictures of any size and content: the first four bytes give the width and height (1 to
// 4096 each, so that 1 x 4096 strips are among them), the rest fill the pixels, repeated.
// Every box must lie in the picture with a score in 0-1, and the work is bounded by the
// fixed network inputs, not by the picture.
import CatFaces
import CatImageIO
import CatPixels
import CatScenes

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatFinder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 5 else { return 0 }
    let width = 1 + (Int(data[0]) << 8 | Int(data[1])) % 4096
    let height = 1 + (Int(data[2]) << 8 | Int(data[3])) % 4096
    // Up to a megapixel: the finder reads copies at most CatFinder.side long.
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
    let found = CatSubjects.find(in: picture)
    func inside(_ r: ScoredRegion) -> Bool {
        r.x >= 0 && r.y >= 0 && r.width >= 1 && r.height >= 1 && r.x + r.width <= width && r.y + r.height <= height
            && r.score >= 0 && r.score <= 1
    }
    precondition(found.faces.allSatisfy(inside), "a face outside the picture")
    precondition(found.cats.allSatisfy { inside($0.box) && inside($0.head) }, "a cat outside the picture")
    // Both passes together have at most 3 x (15 x 15 + 30 x 30) boxes each (480 x 480).
    precondition(found.cats.count <= 6750, "more cats than the network has boxes")
    return 0
}
