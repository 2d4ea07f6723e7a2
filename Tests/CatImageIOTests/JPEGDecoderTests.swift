import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

@Suite("JPEG decoding (libjpeg-turbo)")
struct JPEGDecoderTests {
    /// Decodes `name` and compares it with Pillow's decode of the same file.
    func compare(_ name: String, maxDifference: Int, maxMean: Double) throws {
        let decoded = try Fixtures.decode("jpeg/\(name).jpg")
        let expected = try Fixtures.decode("jpeg/\(name).expected.png")
        #expect(decoded.format == .jpeg)
        #expect(!decoded.pixels.hasAlpha)
        #expect(decoded.pixels.width == expected.pixels.width && decoded.pixels.height == expected.pixels.height)
        let diff = PixelDifference(decoded.pixels.packedRGBA(), expected.pixels.packedRGBA())
        #expect(diff.maximum <= maxDifference && diff.mean <= maxMean, "\(name): \(diff)")
    }

    @Test(
        "libjpeg-turbo test images: baseline, progressive, arithmetic",
        arguments: ["testorig", "testimgint", "testimgari"])
    func libjpegTestImages(_ name: String) throws {
        let decoded = try Fixtures.decode("jpeg/\(name).jpg")
        #expect(decoded.pixels.width == 227 && decoded.pixels.height == 149)
        try compare(name, maxDifference: 3, maxMean: 0.5)
    }

    @Test(
        "chroma subsampling, greyscale, progressive",
        arguments: ["chelsea-444", "chelsea-422", "chelsea-420", "chelsea-gray", "chelsea-progressive"])
    func variants(_ name: String) throws {
        try compare(name, maxDifference: 3, maxMean: 0.5)
    }

    @Test func greyscaleComesOutAsEqualChannels() throws {
        let image = try Fixtures.decode("jpeg/chelsea-gray.jpg").pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (r, g, b, a) = image.pixel(x, y)
                #expect(r == g && g == b && a == 255)
            }
        }
    }

    /// Pillow's Adobe-inverted CMYK, plain CMYK without an Adobe marker, and Adobe YCCK
    /// (the last two written by libjpeg itself, Tests/Fixtures/tools/make_cmyk.c).
    @Test("CMYK and YCCK become RGB", arguments: ["chelsea-cmyk", "cmyk-plain", "ycck-adobe"])
    func cmykBecomesRGB(_ name: String) throws {
        let image = try Fixtures.decode("jpeg/\(name).jpg").pixels
        #expect(image.width == 40 && image.height == 40)
        // Quadrant centres: cyan, magenta, yellow, white.
        let expected: [(Int, Int, (Int, Int, Int))] = [
            (10, 10, (0, 255, 255)), (30, 10, (255, 0, 255)), (10, 30, (255, 255, 0)), (30, 30, (255, 255, 255)),
        ]
        for (x, y, rgb) in expected {
            let (r, g, b, a) = image.pixel(x, y)
            #expect(
                abs(Int(r) - rgb.0) <= 4 && abs(Int(g) - rgb.1) <= 4 && abs(Int(b) - rgb.2) <= 4 && a == 255,
                "(\(x),\(y)) = \(r),\(g),\(b)")
        }
    }

    @Test("EXIF orientation is applied", arguments: 1...8)
    func orientation(_ n: Int) throws {
        let decoded = try Fixtures.decode("jpeg/orient-\(n).jpg")
        #expect(decoded.orientation == n)
        let expected = try Fixtures.decode("jpeg/orient-\(n).expected.png").pixels
        #expect(decoded.pixels.width == expected.width && decoded.pixels.height == expected.height)
        let diff = PixelDifference(decoded.pixels.packedRGBA(), expected.packedRGBA())
        #expect(diff.maximum <= 8, "orientation \(n): \(diff)")
    }

    @Test func orientationCanBeLeftAlone() throws {
        let raw = try Fixtures.decode("jpeg/orient-6.jpg", options: DecodeOptions(applyOrientation: false))
        #expect(raw.orientation == 6 && raw.pixels.width == 24 && raw.pixels.height == 16)
    }

    @Test func twelveBitIsRefusedCleanly() throws {
        do {
            _ = try Fixtures.decode("jpeg/monkey12.jpg")
            Issue.record("a 12-bit JPEG decoded")
        } catch let error as ImageIOError {
            guard case .unsupported = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains("12-bit"))
            #expect(error.description.contains("monkey12.jpg"))
        }
    }

    @Test func dctScaling() throws {
        let half = try Fixtures.decode("jpeg/testorig.jpg", options: DecodeOptions(scaleDenominator: 2)).pixels
        #expect(half.width == 114 && half.height == 75)
        let eighth = try Fixtures.decode("jpeg/testorig.jpg", options: DecodeOptions(scaleDenominator: 8)).pixels
        #expect(eighth.width == 29 && eighth.height == 19)
    }

    @Test func truncatedJPEGThrows() throws {
        let bytes = try Fixtures.bytes("jpeg/testorig.jpg")
        for cut in [2, 3, 20, 200, bytes.count / 2, bytes.count - 2] {
            #expect(throws: ImageIOError.self, "cut at \(cut)") {
                try ImageDecoder.decode(Array(bytes.prefix(cut)), name: "cut.jpg")
            }
        }
        #expect(throws: ImageIOError.truncated(file: "half.jpg")) {
            try ImageDecoder.decode(Array(bytes.prefix(bytes.count / 2)), name: "half.jpg")
        }
    }

    @Test func progressiveTruncatedThrows() throws {
        let bytes = try Fixtures.bytes("jpeg/testimgint.jpg")
        #expect(throws: ImageIOError.self) {
            try ImageDecoder.decode(Array(bytes.prefix(bytes.count * 2 / 3)), name: "p.jpg")
        }
    }

    @Test func garbageThrowsNeverCrashes() throws {
        var rng = SeededRandom(seed: 7)
        #expect(throws: ImageIOError.notAnImage(file: "empty", head: [])) { try ImageDecoder.decode([], name: "empty") }
        #expect(throws: ImageIOError.notAnImage(file: "bmp", head: Array("BM....".utf8))) {
            try ImageDecoder.decode(Array("BM....".utf8), name: "bmp")
        }
        #expect(throws: ImageIOError.truncated(file: "gif")) {
            try ImageDecoder.decode(Array("GIF89a....".utf8), name: "gif")
        }
        #expect(
            ImageIOError.notAnImage(file: "cat.gif", head: Array("GIF8".utf8)).description
                == "cannot decode cat.gif: not a JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF file "
                + "(starts with 47 49 46 38)")
        // Well-known formats catctl does not read are named.
        for (head, name) in [("BM6", "BMP"), ("8BPS", "Photoshop (PSD)")] {
            #expect(
                ImageIOError.notAnImage(file: "x", head: Array(head.utf8)).description
                    == "cannot decode x: \(name) is not supported (catctl reads JPEG, PNG, WebP, GIF, HEIC, AVIF, "
                    + "JPEG XL or TIFF)")
        }
        for i in 0..<200 {
            let body = (0..<Int.random(in: 0...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let jpeg = [0xFF, 0xD8, 0xFF] + body
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + body
            #expect(throws: ImageIOError.self, "jpeg \(i)") { try ImageDecoder.decode(jpeg, name: "r.jpg") }
            #expect(throws: ImageIOError.self, "png \(i)") { try ImageDecoder.decode(png, name: "r.png") }
        }
    }

    @Test func hugeDeclaredJPEGIsRefusedBeforeAllocating() throws {
        var bytes = try Fixtures.bytes("jpeg/testorig.jpg")
        // Patch the frame header (SOF0) to claim 65000x65000.
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xFD; bytes[sof + 6] = 0xE8  // height 65000
        bytes[sof + 7] = 0xFD; bytes[sof + 8] = 0xE8  // width 65000
        #expect(
            throws: ImageIOError.tooLarge(
                file: "big.jpg", width: 65000, height: 65000,
                limit: DecodeOptions.defaultMaxPixels)
        ) {
            try ImageDecoder.decode(bytes, name: "big.jpg")
        }
    }

    @Test func exifParserSurvivesMalformedData() {
        let cases: [[UInt8]] = [
            [], [0x49, 0x49], [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F],
            [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0xFF, 0xFF],
        ]
        for data in cases {
            data.withUnsafeBufferPointer { #expect(ExifOrientation.parse($0) == 1) }
        }
    }

    /// `catctl edit` reads a JPEG from the open file as libjpeg goes (ImageSource): every
    /// JPEG fixture, hostile and cut ones included, gives the same pixels, metadata or error
    /// as from bytes, also with DCT scaling.
    @Test func readingFromTheFileIsTheSameAsFromBytes() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("jpeg"))
            .filter { $0.hasSuffix(".jpg") }.map { "jpeg/" + $0 }
        files += [
            "hostile/jpeg-many-scans-32.jpg", "hostile/jpeg-many-scans-33.jpg", "hostile/jpeg-many-scans-500.jpg",
        ]
        #expect(files.count > 20)
        struct Outcome: Equatable {
            var pixels: [UInt8] = [], metadata: ImageMetadata? = nil, error = ""
        }
        func outcome(_ reader: () throws -> ImageReader, scale: Int) -> Outcome {
            var options = DecodeOptions()
            options.scaleDenominator = scale
            do {
                let decoded = try ImageDecoder.decode(try reader(), options: options)
                return Outcome(pixels: decoded.pixels.packedRGBA(), metadata: decoded.metadata)
            } catch {
                return Outcome(error: "\(error)")
            }
        }
        for file in files {
            let bytes = try Fixtures.bytes(file)
            for (label, data) in [("whole", bytes), ("cut", Array(bytes.prefix(bytes.count * 2 / 3)))] {
                let path = folder.appendingPathComponent("in.jpg").path
                try Data(data).write(to: URL(fileURLWithPath: path))
                for scale in [1, 4] {
                    var options = DecodeOptions()
                    options.scaleDenominator = scale
                    let fromBytes = outcome(
                        { try ImageReader(bytes: data, name: "in", options: options) }, scale: scale)
                    let fromFile = outcome(
                        { try ImageReader(source: ImageSource.open(path), name: "in", options: options) }, scale: scale)
                    #expect(fromBytes == fromFile, "\(file), \(label), 1/\(scale)")
                }
            }
        }
    }
}
