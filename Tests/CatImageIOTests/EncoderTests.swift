import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

@Suite("Encoding and atomic output")
struct EncoderTests {
    func encode(_ image: PixelBuffer, _ options: EncodeOptions, in dir: URL, name: String) throws -> [UInt8] {
        let path = dir.appendingPathComponent(name).path
        try OutputFile.write(to: path) { (fd: Int32) throws(ImageIOError) in
            try ImageEncoder.encode(image, to: fd, path: path, options: options)
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func pngRoundTripKeepsAlphaExactly() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (w, h) in [(1, 1), (7, 3), (97, 61)] {
            let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w * h))
            let bytes = try encode(image, EncodeOptions(format: .png), in: dir, name: "a.png")
            #expect(bytes[25] == 6, "colour type RGBA")
            let back = try ImageDecoder.decode(bytes, name: "a.png").pixels
            #expect(back.hasAlpha)
            #expect(back.packedRGBA() == image.packedRGBA())
        }
    }

    @Test func opaquePNGIsWrittenAsRGB() throws {
        let dir = try Fixtures.temporaryDirectory()
        let image = try Fixtures.decode("photos/chelsea.png").pixels
        #expect(!image.hasAlpha)
        for level in [0, 6, 9] {
            let bytes = try encode(
                image, EncodeOptions(format: .png, settings: [.level: .integer(level)]), in: dir, name: "c.png")
            #expect(bytes[25] == 2, "colour type RGB")
            #expect(try ImageDecoder.decode(bytes, name: "c.png").pixels.packedRGBA() == image.packedRGBA())
        }
    }

    @Test func jpegRoundTripIsClose() throws {
        let dir = try Fixtures.temporaryDirectory()
        let image = try Fixtures.decode("photos/chelsea.png").pixels
        let q90 = try encode(image, EncodeOptions(format: .jpeg), in: dir, name: "c.jpg")
        let q30 = try encode(image, EncodeOptions(format: .jpeg, settings: [.quality: 30]), in: dir, name: "d.jpg")
        #expect(q30.count < q90.count)
        let back = try ImageDecoder.decode(q90, name: "c.jpg").pixels
        #expect(back.width == 451 && back.height == 300)
        let diff = PixelDifference(back.packedRGBA(), image.packedRGBA(), alpha: false)
        #expect(diff.mean < 3, "\(diff)")
    }

    @Test func failedWriteLeavesNothing() throws {
        let dir = try Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("out.png").path
        #expect(throws: ImageIOError.writeFailed(path: path, reason: "boom")) {
            try OutputFile.write(to: path) { (fd: Int32) throws(ImageIOError) in
                _ = Foundation.write(fd, "partial", 7)
                throw .writeFailed(path: path, reason: "boom")
            }
        }
        #expect(Fixtures.contents(of: dir).isEmpty)
    }

    @Test func writingToAFullDiskFailsWithTheReason() throws {
        let image = try PixelBuffer.random(width: 300, height: 300, seed: 1)
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(throws: ImageIOError.writeFailed(path: "/dev/full", reason: "no space left on the device")) {
            try ImageEncoder.encode(image, to: fd, path: "/dev/full", options: EncodeOptions(format: .png))
        }
        #expect(throws: ImageIOError.writeFailed(path: "/dev/full", reason: "no space left on the device")) {
            try ImageEncoder.encode(image, to: fd, path: "/dev/full", options: EncodeOptions(format: .jpeg))
        }
    }

    @Test func outputChecks() throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png").path
        _ = FileManager.default.createFile(atPath: input, contents: Data([1, 2, 3]))
        #expect(throws: ImageIOError.self) { try OutputFile.checkCreatable(dir.path + "/missing/out.png") }
        #expect(throws: ImageIOError.self) { try OutputFile.checkCreatable(input, input: input) }
        #expect(throws: ImageIOError.self) { try OutputFile.checkCreatable(dir.path, input: input) }
        try OutputFile.checkCreatable(input, input: input, force: true)
        try OutputFile.checkCreatable(dir.path + "/new.png", input: input)
        // A relative name and a path through a symlink are the same file too.
        let link = dir.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        #expect(OutputFile.isSameFile(link, input))
    }

    @Test func inputErrors() throws {
        #expect(throws: ImageIOError.inputMissing(path: "/nonexistent/cat.jpg")) {
            try InputFile.read("/nonexistent/cat.jpg")
        }
        #expect(throws: ImageIOError.self) { try InputFile.read("/") }
    }

    @Test func formatFromNameAndBytes() {
        #expect(ImageFormat(path: "a/b/cat.JPEG") == .jpeg)
        #expect(ImageFormat(path: "cat.png") == .png)
        #expect(ImageFormat(path: "cat.gif") == .gif)
        #expect(ImageFormat(path: "cat.WEBP") == .webp)
        #expect(ImageFormat(path: "cat.tiff") == .tiff && ImageFormat(path: "cat.HEIF") == .heic)
        #expect(ImageFormat(path: "cat.bmp") == nil)
        #expect(ImageFormat(path: ".png") == nil)
        #expect(ImageFormat(path: "dir.png/cat") == nil)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff([0x89, 0x50]) == nil)
    }
}

/// Each codec declares its encoder's settings and what it can do; the options' help, their
/// ranges and the defaults written are read from those declarations.
@Suite("Codecs declare their settings")
struct CodecControlsTests {
    @Test func theHelpAndRangesAreTheCodecsDeclarations() {
        let quality = ImageFormat.all.filter { $0.controls[.quality] != nil }
        #expect(quality == [.jpeg, .webp, .heic, .avif, .jxl, .tiff])
        #expect(
            EncoderSetting.quality.help
                == "JPEG, WebP, HEIC, AVIF, JPEG XL and TIFF quality, 1-100 (default: 90 for JPEG, 80 for WebP, "
                + "50 for HEIC, 50 for AVIF, 90 for JPEG XL, 90 for TIFF).")
        for format in quality {
            let control = format.controls.integer(.quality)!
            #expect(EncoderSetting.quality.help.contains("\(control.default) for \(format.displayName)"))
            #expect(EncoderSetting.quality.range.contains(control.range.lowerBound))
            #expect(EncoderSetting.quality.range.contains(control.range.upperBound))
        }
        #expect(EncoderSetting.level.help == "PNG compression level, 0 (fast) to 9 (small) (default: 3 for PNG).")
        #expect(EncoderSetting.level.range == ImageFormat.png.controls.integer(.level)?.range)
        #expect(EncodeOptions(format: .png).integer(.level) == 3)
        #expect(
            EncoderSetting.lossless.help
                == "Write lossless WebP, HEIC, AVIF or JPEG XL (the same pixels as PNG output) instead of lossy.")
        #expect(ImageFormat.all.filter { $0.controls[.lossless] == .flag } == [.webp, .heic, .avif, .jxl])
        #expect(ImageFormat.all.filter { $0.controls[.effort] != nil } == [.webp, .heic, .avif, .jxl])
        #expect(EncoderSetting.effort.range == 0...9 && EncoderSetting.effort.valueName == "0-9")
        #expect(ImageFormat.all.filter { $0.controls[.compression] != nil } == [.tiff])
        #expect(EncoderSetting.compression.choices == ["none", "lzw", "deflate", "jpeg"])
        #expect(EncoderSetting.compression.valueName == "none|lzw|deflate|jpeg")
        #expect(
            EncoderSetting.compression.help == "TIFF compression: none, lzw, deflate or jpeg (default: deflate).")
    }

    /// Each setting's check reads the declared ranges and names.
    @Test func eachSettingChecksItsValues() {
        #expect(EncoderSetting.quality.problem(with: 0) == "--quality must be 1-100, not 0")
        #expect(EncoderSetting.quality.problem(with: 100) == nil)
        #expect(EncoderSetting.level.problem(with: 10) == "--png-level must be 0-9, not 10")
        #expect(EncoderSetting.effort.problem(with: -1) == "--effort must be 0-9, not -1")
        #expect(
            EncoderSetting.compression.problem(with: "zip")
                == "--compression must be none, lzw, deflate or jpeg, not zip")
        #expect(EncoderSetting.compression.problem(with: "lzw") == nil)
        #expect(EncoderSetting.lossless.problem(with: true) == nil)
    }

    /// What an encoder reads: the value asked for, else its format's default.
    @Test func anEncoderReadsTheValueAskedForElseItsDefault() {
        #expect(EncodeOptions(format: .webp).integer(.quality) == 80)
        #expect(EncodeOptions(format: .webp, settings: [.quality: 30]).integer(.quality) == 30)
        #expect(EncodeOptions(format: .jxl).integer(.effort) == 7)
        #expect(EncodeOptions(format: .tiff).choice(.compression) == "deflate")
        #expect(EncodeOptions(format: .tiff, settings: [.compression: "lzw"]).choice(.compression) == "lzw")
        #expect(
            !EncodeOptions(format: .webp).lossless && EncodeOptions(format: .webp, settings: [.lossless: true]).lossless
        )
        #expect(EncodeOptions(format: .gif).integer(.quality) == 0)
    }

    @Test func capabilitiesAreTheCodecs() {
        #expect(ImageFormat.all.filter(\.animates) == [.webp, .gif, .jxl])
        #expect(ImageFormat.all.filter(\.shrinksOnLoad) == [.jpeg])
        #expect(ImageFormat.standardOutput == .png)
        #expect(
            ImageFormat.extensionsWithCommas == ".jpg, .jpeg, .png, .webp, .gif, .heic, .heif, .avif, .jxl, .tif, .tiff"
        )
        #expect(ImageFormat.names == "JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF")
    }

    /// No quality given: the encoder writes its codec's default, byte for byte.
    @Test func anEncoderWithoutAQualityUsesItsDeclaredDefault() throws {
        let dir = try Fixtures.temporaryDirectory()
        let image = try PixelBuffer.random(width: 33, height: 21, seed: 5)
        for format in ImageFormat.all {
            guard let control = format.controls.integer(.quality) else { continue }
            // TIFF's quality is its JPEG compression's.
            let compression: SettingValue? = format == .tiff ? "jpeg" : nil
            func bytes(_ quality: Int?) throws -> [UInt8] {
                try EncoderTests().encode(
                    image,
                    EncodeOptions(
                        format: format,
                        settings: EncodeSettings(
                            [.quality: quality.map(SettingValue.integer), .effort: 2, .compression: compression]
                                .compactMapValues { $0 })),
                    in: dir,
                    name: "q\(quality ?? 0).\(format.fileExtension)")
            }
            #expect(try bytes(nil) == bytes(control.default), "\(format)")
            #expect(try bytes(nil) != bytes(control.range.lowerBound), "\(format)")
        }
    }
}
