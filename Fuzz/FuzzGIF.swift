import CatImageIO
// libFuzzer target: the GIF decoder (giflib behind CGIFShim: the record scan, frame
// compositing, disposal, palettes, interlacing, limits) on any bytes that start like a GIF;
// what decodes is encoded again (quantizer and encoder).
import CatPixels
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ImageFormat.sniff(bytes) == .gif else { return -1 }
    let options = DecodeOptions(maxPixels: 2_000_000, maxFrames: 64)
    _ = try? ImageDecoder.decode(bytes, name: "fuzz.gif", options: options)
    guard let reader = try? ImageReader(bytes: bytes, name: "fuzz.gif", options: options),
        let animation = try? reader.readAnimation()
    else { return 0 }
    let fd = open("/dev/null", O_WRONLY)
    defer { close(fd) }
    _ = try? ImageEncoder.encode(animation, to: fd, path: "/dev/null", options: EncodeOptions(format: .gif, threads: 2))
    // The live scenes' path: one frame at a time into one canvas.
    if let frames = try? ImageReader(bytes: bytes, name: "fuzz.gif", options: options),
        let canvas = try? PixelBuffer(width: frames.width, height: frames.height, hasAlpha: frames.hasAlpha)
    {
        for _ in 0..<frames.frameCount {
            guard (try? frames.readFrame(into: canvas)) != nil else { break }
        }
    }
    return 0
}
