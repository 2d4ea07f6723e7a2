import CatImageIO
import CatPixels
import CatSupport

let bombMode = getenv("CATCTL_FUZZ_LIMITS").map { String(cString: $0) == "default" } ?? false

/// What every decoder's libFuzzer target does with bytes that start like its format: the
/// whole-image decode, rows a strip at a time, and every frame; compiled beside each
/// decoder's driver (Fuzz/build.sh). Must never crash, hang or leak.
func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int, format: ImageFormat) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard ImageFormat.sniff(bytes) == format else { return -1 }  // not kept in the corpus
    let name = "fuzz.\(format.name)"
    // Small limits keep the runs fast; CATCTL_FUZZ_LIMITS=default is the bomb mode (Fuzz/run.sh):
    // the real default limits, under libFuzzer's -rss_limit_mb and -timeout, where a file
    // that costs far more than its size can show.
    let options = bombMode ? DecodeOptions() : DecodeOptions(maxPixels: 2_000_000, maxFrames: 64)
    if bombMode {
        // What a file costs a user: one decode of every frame (the three passes below would
        // triple it, and -timeout is for one).
        if let reader = try? ImageReader(bytes: bytes, name: name, options: options) { _ = try? reader.readAnimation() }
        return 0
    }
    _ = try? ImageDecoder.decode(bytes, name: name, options: options)
    if let reader = try? ImageReader(bytes: bytes, name: name, options: options),
        let strip = try? PixelBuffer(width: reader.width, height: 5, hasAlpha: reader.hasAlpha)
    {
        while reader.rowsRead < reader.height {
            guard (try? reader.readRows(into: strip, count: min(5, reader.height - reader.rowsRead))) != nil else {
                break
            }
        }
    }
    if let reader = try? ImageReader(bytes: bytes, name: name, options: options) {
        _ = try? reader.readAnimation()
    }
    readFrames(bytes, name: name, options: options)
    return 0
}

/// The live scenes' path (`LiveFrames`): one frame at a time into one canvas, as far as
/// the frames decode.
func readFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) {
    guard let reader = try? ImageReader(bytes: bytes, name: name, options: options),
        let canvas = try? PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
    else { return }
    for _ in 0..<reader.frameCount {
        guard (try? reader.readFrame(into: canvas)) != nil else { return }
    }
}
