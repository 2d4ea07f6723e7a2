import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// The parallel PNG writer against libpng's decoder and pngcheck.
@Suite("Parallel PNG encoder")
struct PNGEncoderTests {
    @Test(
        "parallel PNG round-trips through libpng exactly",
        arguments: [(1, 1), (5, 1), (1, 7), (33, 17), (300, 541), (97, 1025), (1, 40000), (3, 17000), (5, 9000)])
    func pngRoundTrip(_ size: (Int, Int)) throws {
        for alpha in [false, true] {
            let image = try PixelBuffer.random(width: size.0, height: size.1, seed: UInt64(size.0 * 7 + size.1))
            image.hasAlpha = alpha
            if !alpha { for y in 0..<image.height { for x in 0..<image.width { image.row(y)[4 * x + 3] = 255 } } }
            for (threads, level) in [(1, 3), (2, 6), (5, 9), (3, 0)] {
                let bytes = try Fixtures.writtenBytes { fd in
                    try ImageEncoder.encode(
                        image, to: fd, path: "o",
                        options: EncodeOptions(format: .png, settings: [.level: .integer(level)], threads: threads))
                }
                let back = try ImageDecoder.decode(bytes, name: "o").pixels
                #expect(
                    back.packedRGBA() == image.packedRGBA(), "\(size) alpha \(alpha) threads \(threads) level \(level)")
                #expect(back.hasAlpha == alpha)
            }
        }
    }

    @Test func pngcheckAcceptsTheOutput() throws {
        guard
            let pngcheck = ["/usr/bin/pngcheck", "/usr/local/bin/pngcheck"].first(
                where: FileManager.default.isExecutableFile)
        else { return }  // scripts/test installs it; elsewhere libpng's own checks above must do
        let dir = try Fixtures.temporaryDirectory()
        let image = try PixelBuffer.random(width: 640, height: 481, seed: 9)
        let path = dir.appendingPathComponent("p.png").path
        try OutputFile.write(to: path) { (fd: Int32) throws(ImageIOError) in
            try ImageEncoder.encode(image, to: fd, path: path, options: EncodeOptions(format: .png, threads: 4))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pngcheck)
        process.arguments = ["-q", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
