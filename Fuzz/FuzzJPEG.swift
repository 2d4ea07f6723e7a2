import CatImageIO
// libFuzzer target: the JPEG decoder (libjpeg behind CJPEGShim, EXIF parsing, orientation,
// limits) on any bytes that start like a JPEG. Must never crash, hang or leak.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ImageFormat.sniff(bytes) == .jpeg else { return -1 }  // not kept in the corpus
    for scale in [1, 8] {
        if let image = try? ImageDecoder.decode(
            bytes, name: "fuzz.jpg",
            options: DecodeOptions(maxPixels: 4_000_000, scaleDenominator: scale))
        {
            precondition(image.pixels.width > 0 && image.pixels.height > 0)
        }
    }
    return 0
}
