import CatImageIO

// libFuzzer target: the HEIC and AVIF decoders (libheif, and libavif for sequences, behind
// CHEIFShim: boxes, grids, transforms, alpha, colour boxes, EXIF/XMP items, limits) on any
// bytes that start like HEIF; row reading and every frame too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let heic = fuzzDecoder(data, size, format: .heic)
    return heic == 0 ? 0 : fuzzDecoder(data, size, format: .avif)
}
