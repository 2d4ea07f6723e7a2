// libFuzzer target: the cat detector and the face cascades as the scenes run them
// (CatScenes' CatSubjects.find: the copies, CatFaces' CatFinder, the boxes scaled back) on
// pictures of any size and content (`fuzzPicture`, Fuzz/PictureFuzzing.swift).
// Every box must lie in the picture with a score in 0-1, and the work is bounded by the
// fixed network inputs, not by the picture.
import CatFaces
import CatImageIO
import CatPixels
import CatScenes

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatFinder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let picture = fuzzPicture(data, size) else { return 0 }
    let (width, height) = (picture.width, picture.height)
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
