// libFuzzer target: the cat filters (cutout, portrait, sticker) as `edit` runs them, on
// pictures of any size and content (`fuzzPicture`, Fuzz/PictureFuzzing.swift; the fifth
// byte also chooses the filter).
// The mask is made on the copy (the detector, the second look and the mask network, as
// CatScenes' CatSubjects runs them) and the chain placed: `cutout` and `portrait` keep the
// size, `sticker` gives 512 x 512 or the picture as it is; the work is bounded by the fixed
// network inputs and the mask's copy, not by the picture.
import CatPixels
import CatScenes
import FilterCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatFilters(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let picture = fuzzPicture(data, size) else { return 0 }
    let (width, height) = (picture.width, picture.height)
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
