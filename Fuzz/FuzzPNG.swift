import CatImageIO
// libFuzzer target: the PNG decoder (libpng behind CPNGShim, whole-image and row-by-row
// reading, limits) on any bytes that start like a PNG.
import CatPixels
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ImageFormat.sniff(bytes) == .png else { return -1 }
    _ = try? ImageDecoder.decode(bytes, name: "fuzz.png", options: DecodeOptions(maxPixels: 4_000_000))
    // The streaming path: a strip of rows at a time.
    if let reader = try? ImageReader(bytes: bytes, name: "fuzz.png", options: DecodeOptions(maxPixels: 4_000_000)),
        reader.canStream, let strip = try? PixelBuffer(width: reader.width, height: 7, hasAlpha: reader.hasAlpha)
    {
        while reader.rowsRead < reader.height {
            guard (try? reader.readRows(into: strip, count: min(7, reader.height - reader.rowsRead))) != nil else {
                break
            }
        }
    }
    return 0
}
