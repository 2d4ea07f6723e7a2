import CatImageIO
// libFuzzer target: the metadata parsers and writers on hostile bytes: the EXIF (TIFF)
// orientation reader and rewriter, and every metadata container catctl writes (JPEG
// APP1/APP2/COM, PNG iCCP/eXIf/iTXt/tEXt, WebP ICCP/EXIF/XMP) read back by the decoders.
import CatPixels
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // As TIFF data: parse, reset, parse again (reset must leave 1 or nothing).
    var tiff = bytes
    _ = tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) }
    ExifOrientation.reset(&tiff)
    let after = tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) }
    if after != 1 { fatalError("orientation \(after) after reset") }
    // As every kind of metadata, through every format.
    let third = bytes.count / 3
    let metadata = ImageMetadata(
        iccProfile: Array(bytes.prefix(third)), exif: [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0] + bytes,
        xmp: Array(bytes.dropFirst(third)), comment: Array(bytes.suffix(third)))
    guard let image = try? PixelBuffer(width: 3, height: 2) else { return 0 }
    image.fill(r: 200, g: 100, b: 50)
    for format in [ImageFormat.jpeg, .png, .webp] {
        let path = NSTemporaryDirectory() + "fuzz-metadata-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(fd)
            unlink(path)
        }
        guard
            (try? ImageEncoder.encode(
                image, to: fd, path: path, options: EncodeOptions(format: format), metadata: metadata))
                != nil,
            let written = try? InputFile.read(path)
        else { continue }
        _ = try? ImageDecoder.decode(written, name: "written")
    }
    return 0
}
