import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// JPEG XL in and out (libjxl), against djxl's decodes (Tests/Fixtures/jxl,
/// make_fixtures.py; manifest.json has sizes, frames and durations), and what catctl
/// writes decoded again by djxl.
@Suite("JPEG XL")
struct JXLTests {
    func pixels(_ relative: String) throws -> [UInt8] { try Fixtures.decode(relative).pixels.packedRGBA() }

    /// Each file and its expected pixels: the source of a lossless file, djxl's decode of a lossy one.
    @Test(arguments: [
        ("lossless", "lossless"), ("lossless-alpha", "lossless-alpha"), ("container", "lossless"),
        ("lossy", "lossy"), ("lossy-alpha", "lossy-alpha"), ("p3", "lossless"), ("p3-lossy", "p3-lossy"),
        ("sixteen", "sixteen"), ("jpeg-recompressed", "jpeg-recompressed"),
    ])
    func stillsMatchDjxl(_ name: String, _ expected: String) throws {
        let decoded = try Fixtures.decode("jxl/\(name).jxl")
        #expect(decoded.format == .jxl)
        #expect(decoded.pixels.hasAlpha == name.hasSuffix("alpha"))
        let diff = PixelDifference(decoded.pixels.packedRGBA(), try pixels("jxl/\(expected).expected.png"))
        #expect(diff.maximum == 0, "the same libjxl decodes the same pixels: \(diff)")
    }

    /// A CMYK JPEG XL (the conformance suite's cmyk_layers: a 557 KB print profile, black as
    /// an extra channel, blended layers) comes out as sRGB through its profile, close to the
    /// suite's rendering; it was refused ("implausible ICC profile size"), and djxl 0.7
    /// writes its raw CMY (max 224, mean 6.4 off the reference).
    @Test func aCMYKImageIsRenderedThroughItsProfile() throws {
        let decoded = try Fixtures.decode("jxl/conformance/cmyk_layers.jxl")
        #expect(decoded.pixels.width == 512 && decoded.pixels.height == 512)
        #expect(decoded.metadata.iccProfile == nil, "the pixels are sRGB; the CMYK profile is not carried")
        let diff = PixelDifference(
            decoded.pixels.packedRGBA(), try pixels("jxl/conformance/cmyk_layers.ref.png"), alpha: false)
        #expect(diff.maximum <= 16 && diff.mean < 1.5, "\(diff)")
    }

    /// libjxl 0.7 prints a failure on fd 2 quoting an extra channel's name from the file
    /// (here terminal escapes): the quiet scope catches it, so it is there to be read (and
    /// neutralised), never on the terminal.
    @Test func whatLibjxlPrintsIsCaught() throws {
        // The last 16 KiB are kept: tests decoding broken files at the same time may push a
        // line out, so a few tries.
        var chatter = ""
        for _ in 0..<5 where !chatter.contains("catctl hostile title") {
            _ = SystemCalls.libraryChatter()  // whatever earlier calls left
            #expect(throws: ImageIOError.self) {
                _ = try ImageReader(bytes: Fixtures.bytes("hostile/jxl-terminal-escapes.jxl"), name: "e.jxl")
            }
            chatter = SystemCalls.libraryChatter()
        }
        #expect(chatter.contains("catctl hostile title"), "libjxl's line: \(chatter.debugDescription)")
    }

    @Test func animationFramesAndDurations() throws {
        let reader = try ImageReader(bytes: Fixtures.bytes("jxl/animated.jxl"), name: "animated.jxl")
        #expect(reader.frameCount == 4)
        let animation = try reader.readAnimation()
        #expect(animation.delays == [100, 250, 40, 500])
        #expect(animation.loopCount == 0)
        for (i, frame) in animation.frames.enumerated() {
            #expect(frame.packedRGBA() == (try pixels("jxl/animated.frame\(i).png")), "frame \(i)")
        }
    }

    @Test func metadataBoxesAndProfileAreRead() throws {
        let metadata = try ImageReader(bytes: Fixtures.bytes("jxl/metadata.jxl"), name: "m").metadata
        #expect(metadata.exif == (try Fixtures.bytes("jxl/metadata.exif.bin")))
        #expect(metadata.xmp == (try Fixtures.bytes("jxl/metadata.xmp.xml")))
        let p3 = try ImageReader(bytes: Fixtures.bytes("jxl/p3.jxl"), name: "p3").metadata
        #expect(p3.iccProfile == (try Fixtures.bytes("jxl/display-p3.icc")))
    }

    /// libjxl turns the codestream's orientation itself; the EXIF tag is then 1, so
    /// nothing turns the picture twice.
    @Test func orientationIsAppliedOnce() throws {
        let decoded = try Fixtures.decode("jxl/jpeg-recompressed.jxl")
        #expect(decoded.pixels.width == 48 && decoded.pixels.height == 64)
        #expect(decoded.metadata.exif.map { tiff in tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } } == 1)
    }

    @Test func aDeclaredGiantIsRefusedBeforeAnyPixel() throws {
        #expect(
            throws: ImageIOError.tooLarge(file: "huge.jxl", width: 1_000_000, height: 1_000_000, limit: 100_000_000)
        ) {
            _ = try ImageReader(bytes: Fixtures.bytes("jxl/huge.jxl"), name: "huge.jxl")
        }
        #expect(throws: ImageIOError.self) {
            _ = try ImageReader(
                bytes: Fixtures.bytes("jxl/animated.jxl"), name: "a", options: DecodeOptions(maxFrames: 3))
        }
    }

    @Test func truncatedAndMutatedFilesAreErrors() throws {
        for name in ["lossless", "lossy-alpha", "animated", "metadata"] {
            let bytes = try Fixtures.bytes("jxl/\(name).jxl")
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 23)) {
                #expect(throws: ImageIOError.self, "\(name) cut at \(cut)") {
                    let reader = try ImageReader(bytes: Array(bytes.prefix(cut)), name: name)
                    _ = try reader.readAnimation()
                }
            }
            var random = SystemRandomNumberGenerator()
            for _ in 0..<20 {
                var mutated = bytes
                for _ in 0..<3 { mutated[Int.random(in: 2..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255) }
                // Any outcome but a crash: some flips are harmless.
                if let reader = try? ImageReader(bytes: mutated, name: name) { _ = try? reader.readAnimation() }
            }
        }
    }

    func encode(_ image: PixelBuffer, _ options: EncodeOptions, metadata: ImageMetadata = .none) throws -> [UInt8] {
        try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(image, to: fd, path: "out.jxl", options: options, metadata: metadata)
        }
    }

    @Test func losslessIsExactAndDjxlAgrees() throws {
        for (w, h, alpha) in [(1, 1, false), (97, 61, true), (300, 7, false)] {
            let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w * 3 + h))
            image.hasAlpha = alpha
            if !alpha { for y in 0..<h { for x in 0..<w { image.row(y)[4 * x + 3] = 255 } } }
            let jxl = try encode(image, EncodeOptions(format: .jxl, settings: [.lossless: true, .effort: 3]))
            let decoded = try ImageDecoder.decode(jxl, name: "l.jxl")
            #expect(decoded.pixels.packedRGBA() == image.packedRGBA(), "\(w)x\(h)")
            #expect(decoded.pixels.hasAlpha == alpha)
            guard Oracle.has("djxl") else { continue }
            let input = try Oracle.file(jxl, named: "l.jxl"), output = input + ".png"
            #expect(try Oracle.run("djxl", [input, output]).status == 0)
            let djxl = try ImageDecoder.decode(InputFile.read(output), name: "djxl.png")
            #expect(
                PixelDifference(djxl.pixels.packedRGBA(), image.packedRGBA(), alpha: alpha).maximum == 0,
                "djxl reads what catctl wrote, \(w)x\(h)")
        }
    }

    @Test func lossyFollowsQualityAndEffortAndKeepsMetadata() throws {
        let photo = try Fixtures.decode("photos/chelsea.png").pixels
        let metadata = ImageMetadata(
            iccProfile: try Fixtures.bytes("jxl/display-p3.icc"), exif: try Fixtures.bytes("jxl/metadata.exif.bin"),
            xmp: try Fixtures.bytes("jxl/metadata.xmp.xml"))
        let high = try encode(
            photo, EncodeOptions(format: .jxl, settings: [.quality: 95, .effort: 3]), metadata: metadata)
        let low = try encode(
            photo, EncodeOptions(format: .jxl, settings: [.quality: 40, .effort: 3]), metadata: metadata)
        #expect(low.count < high.count)
        let decoded = try ImageDecoder.decode(high, name: "h.jxl")
        #expect(PixelDifference(decoded.pixels.packedRGBA(), photo.packedRGBA()).mean < 2)
        // Lossy JPEG XL stores the P3 space as an enumerated encoding: libjxl gives back a
        // profile of its own making for the same space, not the bytes that went in.
        let profile = try #require(decoded.metadata.iccProfile)
        #expect(profile[16..<20].elementsEqual("RGB ".utf8))
        #expect(decoded.metadata.exif == metadata.exif && decoded.metadata.xmp == metadata.xmp)
        let lossless = try encode(
            photo, EncodeOptions(format: .jxl, settings: [.lossless: true, .effort: 2]), metadata: metadata)
        let exact = try ImageDecoder.decode(lossless, name: "l.jxl").metadata.iccProfile == metadata.iccProfile
        #expect(exact, "lossless keeps the profile as it is")
        if Oracle.has("djxl") {
            let input = try Oracle.file(high, named: "h.jxl")
            #expect(try Oracle.run("djxl", [input, input + ".png"]).status == 0)
        }
    }

    @Test func animationsRoundTrip() throws {
        let frames = try (0..<3).map { i in try PixelBuffer.random(width: 24, height: 16, seed: UInt64(i + 5)) }
        let animation = Animation(frames: frames, delays: [100, 40, 250], loopCount: 0)
        let bytes = try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(
                animation, to: fd, path: "a.jxl",
                options: EncodeOptions(format: .jxl, settings: [.lossless: true, .effort: 2]))
        }
        let back = try ImageReader(bytes: bytes, name: "a.jxl").readAnimation()
        #expect(back.delays == [100, 40, 250] && back.loopCount == 0)
        #expect(back.frames.map { $0.packedRGBA() } == frames.map { $0.packedRGBA() })
    }
}
