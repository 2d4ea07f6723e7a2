import CatImageIO
// libFuzzer target: the WebP decoder (libwebp, WebPDemux and WebPAnimDecoder behind
// CWebPShim: the container, still and animated pictures, metadata chunks, limits) on any
// bytes that start like a WebP; row reading and every frame too.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ImageFormat.sniff(bytes) == .webp else { return -1 }
    let options = DecodeOptions(maxPixels: 2_000_000, maxFrames: 64)
    _ = try? ImageDecoder.decode(bytes, name: "fuzz.webp", options: options)
    if let reader = try? ImageReader(bytes: bytes, name: "fuzz.webp", options: options),
        let strip = try? PixelBuffer(width: reader.width, height: 5, hasAlpha: reader.hasAlpha)
    {
        while reader.rowsRead < reader.height {
            guard (try? reader.readRows(into: strip, count: min(5, reader.height - reader.rowsRead))) != nil else {
                break
            }
        }
    }
    if let reader = try? ImageReader(bytes: bytes, name: "fuzz.webp", options: options) {
        _ = try? reader.readAnimation()
    }
    return 0
}
