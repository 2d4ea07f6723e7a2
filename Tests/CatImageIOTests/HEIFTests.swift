import CHEIFShim
import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// HEIC and AVIF in and out (libheif; AVIF sequences through libavif), against the formats'
/// reference decoders (Tests/Fixtures/heif: make_fixtures.py makes the files with heif-enc,
/// avifenc and Pillow; make_expected.py decodes them with pillow-heif and avifdec), and
/// what catctl writes decoded again by heif-dec.
@Suite("HEIC and AVIF")
struct HEIFTests {
    func pixels(_ relative: String) throws -> [UInt8] { try Fixtures.decode(relative).pixels.packedRGBA() }

    @Test(arguments: [
        "photo.heic", "photo-10bit.heic", "grid.heic", "alpha.heic", "icc.heic", "msf1-still.heic", "photo.avif",
        "photo-10bit.avif", "photo-12bit.avif", "grid.avif", "alpha.avif", "icc.avif", "p3-nclx.avif",
        "exif-xmp.avif",
    ])
    func matchesTheReferenceDecoder(_ name: String) throws {
        let decoded = try Fixtures.decode("heif/\(name)")
        #expect(decoded.format == (name.hasSuffix(".heic") ? .heic : .avif))
        #expect(decoded.pixels.hasAlpha == name.hasPrefix("alpha"))
        let diff = PixelDifference(decoded.pixels.packedRGBA(), try pixels("heif/\(name).expected.png"))
        // Another libheif (pillow-heif's 1.23) or libavif rounds 10/12-bit and YCbCr a little differently.
        #expect(diff.maximum <= 3 && diff.mean < 0.5, "\(diff)")
    }

    @Test func losslessIsTheSource() throws {
        #expect(try pixels("heif/lossless.avif") == (try pixels("heif/lossless.png")))
    }

    /// irot and imir are applied once (the picture is the source turned and mirrored, within
    /// lossy error); an EXIF orientation inside HEIF is reset, not applied again.
    @Test func transformsAreAppliedOnce() throws {
        let decoded = try Fixtures.decode("heif/orient.avif")
        let diff = PixelDifference(decoded.pixels.packedRGBA(), try pixels("heif/orient.expected.png"))
        #expect(diff.mean < 3, "\(diff)")
    }

    @Test func aSequenceReadsAsAnAnimation() throws {
        let reader = try ImageReader(bytes: Fixtures.bytes("heif/seq.avif"), name: "seq.avif")
        #expect(reader.frameCount == 3)
        let animation = try reader.readAnimation()
        #expect(animation.delays == [100, 200, 300])
        for (i, frame) in animation.frames.enumerated() {
            // avifdec's decode of each frame (libavif, as here).
            let diff = PixelDifference(frame.packedRGBA(), try pixels("heif/seq.frame\(i).expected.png"))
            #expect(diff.maximum <= 1, "frame \(i): \(diff)")
        }
        #expect(throws: ImageIOError.self) {
            _ = try ImageReader(bytes: Fixtures.bytes("heif/seq.avif"), name: "s", options: DecodeOptions(maxFrames: 2))
        }
    }

    /// A HEIF image sequence (msf1, an HEVC track: hevc_sequence.c) reads as an animation,
    /// against ffmpeg's decode of the same frames (its chroma upsampling is smoother than the
    /// nearest neighbour used here, as libheif uses for stills).
    @Test func aHEIFSequenceReadsAsAnAnimation() throws {
        let reader = try ImageReader(bytes: Fixtures.bytes("heif/seq.heic"), name: "seq.heic")
        #expect(reader.format == .heic && reader.frameCount == 3 && !reader.hasAlpha)
        let animation = try reader.readAnimation()
        #expect(animation.delays == [100, 200, 300])
        for (i, frame) in animation.frames.enumerated() {
            let diff = PixelDifference(frame.packedRGBA(), try pixels("heif/seq-heic.frame\(i).expected.png"))
            #expect(diff.maximum <= 8 && diff.mean < 2, "frame \(i): \(diff)")
        }
        // The first frame alone, as a still image reads it.
        let still = try ImageDecoder.decode(Fixtures.bytes("heif/seq.heic"), name: "s")
        #expect(still.pixels.packedRGBA() == animation.frames[0].packedRGBA())
        #expect(throws: ImageIOError.self) {
            _ = try ImageReader(bytes: Fixtures.bytes("heif/seq.heic"), name: "s", options: DecodeOptions(maxFrames: 2))
        }
        // An SPS declaring 160x120 in a track that says 32x24: refused before libde265
        // allocates a picture for it.
        #expect(throws: ImageIOError.self) {
            _ = try ImageReader(bytes: Fixtures.bytes("heif/seq-sps-larger.heic"), name: "s").readAnimation()
        }
        #expect(throws: ImageIOError.tooLarge(file: "s", width: 32, height: 24, limit: 700)) {
            _ = try ImageReader(
                bytes: Fixtures.bytes("heif/seq.heic"), name: "s", options: DecodeOptions(maxPixels: 700))
        }
    }

    /// fuzz-heif found libheif 1.15 handing out an nclx profile together with an error; it
    /// was not freed (the LeakSanitizer run of the tests would report it again).
    @Test func anNclxProfileWithAnErrorIsFreed() throws {
        let bytes = try Fixtures.bytes("fuzz/heif-nclx-with-error.avif")
        if let reader = try? ImageReader(bytes: bytes, name: "f") { _ = try? reader.readAnimation() }
    }

    @Test func profilesExifAndXmpAreRead() throws {
        let icc = try ImageReader(bytes: Fixtures.bytes("heif/icc.heic"), name: "icc.heic").metadata
        #expect(icc.iccProfile == (try Fixtures.bytes("heif/srgb.icc")))
        let meta = try ImageReader(bytes: Fixtures.bytes("heif/exif-xmp.avif"), name: "m").metadata
        #expect(meta.exif == (try Fixtures.bytes("heif/exif.tiff")))
        #expect(meta.xmp == (try Fixtures.bytes("heif/meta.xmp")))
        // An nclx box alone (Display P3 primaries) becomes an RGB profile, so colours survive a PNG.
        let p3 = try #require(
            try ImageReader(bytes: Fixtures.bytes("heif/p3-nclx.avif"), name: "p3").metadata.iccProfile)
        #expect(p3[16..<20].elementsEqual("RGB ".utf8))
        // Made with a fixed date (lcms2 stamps the time of making), so the same file gives the
        // same output bytes whenever it is edited: 2000-01-01 00:00:00.
        #expect(Array(p3[24..<36]) == [0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])
    }

    @Test func declaredGiantsAreRefusedBeforeAnyPixel() throws {
        for name in ["huge-ispe.heic", "grid-canvas.heic"] {
            #expect(throws: ImageIOError.self, "\(name)") {
                _ = try ImageDecoder.decode(Fixtures.bytes("heif/\(name)"), name: name)
            }
        }
        #expect(throws: ImageIOError.tooLarge(file: "p", width: 64, height: 48, limit: 1000)) {
            _ = try ImageReader(
                bytes: Fixtures.bytes("heif/photo.heic"), name: "p", options: DecodeOptions(maxPixels: 1000))
        }
    }

    @Test func truncatedAndMutatedFilesAreErrors() throws {
        for name in ["photo.heic", "alpha.avif", "seq.avif", "grid.heic", "seq.heic"] {
            let bytes = try Fixtures.bytes("heif/\(name)")
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 19)) {
                #expect(throws: ImageIOError.self, "\(name) cut at \(cut)") {
                    _ = try ImageReader(bytes: Array(bytes.prefix(cut)), name: name).readAnimation()
                }
            }
            var random = SystemRandomNumberGenerator()
            for _ in 0..<15 {
                var mutated = bytes
                for _ in 0..<3 {
                    mutated[Int.random(in: 32..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255)
                }
                if let reader = try? ImageReader(bytes: mutated, name: name) { _ = try? reader.readAnimation() }
            }
        }
    }

    func encode(_ image: PixelBuffer, _ options: EncodeOptions, metadata: ImageMetadata = .none) throws -> [UInt8] {
        try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(image, to: fd, path: "out", options: options, metadata: metadata)
        }
    }

    @Test(arguments: [ImageFormat.heic, .avif])
    func losslessIsExactAndHeifDecAgrees(_ format: ImageFormat) throws {
        for (w, h, alpha) in [(33, 17, true), (64, 48, false)] {
            let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w + 2 * h))
            image.hasAlpha = alpha
            if !alpha { for y in 0..<h { for x in 0..<w { image.row(y)[4 * x + 3] = 255 } } }
            let bytes = try encode(image, EncodeOptions(format: format, settings: [.lossless: true, .effort: 2]))
            let decoded = try ImageDecoder.decode(bytes, name: "l")
            #expect(decoded.format == format)
            #expect(decoded.pixels.packedRGBA() == image.packedRGBA(), "\(format) \(w)x\(h)")
            guard Oracle.has("heif-dec") else { continue }
            let input = try Oracle.file(bytes, named: "l.\(format.name)"), output = input + ".png"
            #expect(try Oracle.run("heif-dec", [input, output]).status == 0)
            let reference = try ImageDecoder.decode(InputFile.read(output), name: "heif-dec.png")
            #expect(
                PixelDifference(reference.pixels.packedRGBA(), image.packedRGBA(), alpha: alpha).maximum == 0,
                "heif-dec reads what catctl wrote, \(format) \(w)x\(h)")
        }
    }

    /// A large HEVC picture goes through catctl's threaded libde265 decoder
    /// (CHEIFShim/hevc_decoder.c): every worker count gives the same pixels, and so does
    /// heif-dec, which decodes through libheif's own single-worker plugin.
    @Test func aLargePictureDecodesTheSameOnAnyNumberOfThreads() throws {
        let image = try PixelBuffer.random(width: 640, height: 480, seed: 11)
        for y in 0..<480 { for x in 0..<640 { image.row(y)[4 * x + 3] = 255 } }
        image.hasAlpha = false
        let bytes = try encode(image, EncodeOptions(format: .heic, settings: [.quality: 95, .effort: 0]))
        #expect(bytes.count > 256 * 1024, "over the threaded decoder's threshold: \(bytes.count) bytes")
        func options(threads: Int) -> DecodeOptions {
            var options = DecodeOptions()
            options.threads = threads
            return options
        }
        let one = try ImageDecoder.decode(bytes, name: "t", options: options(threads: 1)).pixels.packedRGBA()
        for threads in [2, 4] {
            let many = try ImageDecoder.decode(bytes, name: "t", options: options(threads: threads))
            #expect(many.pixels.packedRGBA() == one, "\(threads) threads")
        }
        guard Oracle.has("heif-dec") else { return }
        let input = try Oracle.file(bytes, named: "large.heic"), output = input + ".png"
        #expect(try Oracle.run("heif-dec", [input, output]).status == 0)
        let reference = try ImageDecoder.decode(InputFile.read(output), name: "heif-dec.png")
        #expect(PixelDifference(reference.pixels.packedRGBA(), one).maximum == 0, "heif-dec agrees")
    }

    @Test(arguments: [ImageFormat.heic, .avif])
    func lossyFollowsQualityAndKeepsMetadata(_ format: ImageFormat) throws {
        let photo = try Fixtures.decode("heif/photo.png").pixels
        let metadata = ImageMetadata(
            iccProfile: try Fixtures.bytes("heif/srgb.icc"), exif: try Fixtures.bytes("heif/exif.tiff"),
            xmp: try Fixtures.bytes("heif/meta.xmp"))
        let high = try encode(
            photo, EncodeOptions(format: format, settings: [.quality: 90, .effort: 2]), metadata: metadata)
        let low = try encode(
            photo, EncodeOptions(format: format, settings: [.quality: 20, .effort: 2]), metadata: metadata)
        #expect(low.count < high.count)
        let decoded = try ImageDecoder.decode(high, name: "h")
        #expect(PixelDifference(decoded.pixels.packedRGBA(), photo.packedRGBA()).mean < 3)
        let kept =
            decoded.metadata.iccProfile == metadata.iccProfile && decoded.metadata.exif == metadata.exif
            && decoded.metadata.xmp == metadata.xmp
        #expect(kept, "ICC, EXIF and XMP survive")
        if Oracle.has("heif-dec") {
            let input = try Oracle.file(high, named: "h.\(format.name)")
            #expect(try Oracle.run("heif-dec", [input, input + ".png"]).status == 0)
        }
    }
}

/// The pre-scan reads every fixture as libheif and libavif read it (HEIFAgreement): the
/// primary, its size, thumbnails, metadata items, every buffer its decode pushes to a codec,
/// a sequence's frames. The heif-agreement fuzz target asks the same of any bytes.
@Suite("HEIF pre-scan and libraries agree")
struct HEIFAgreementTests {
    @Test func everyFixtureIsReadAlike() throws {
        let folders = ["heif", "hostile", "fuzz"]
        var compared = 0
        for folder in folders {
            let dir = Fixtures.path(folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            where name.hasSuffix(".heic") || name.hasSuffix(".avif") || name.hasSuffix(".heif") {
                let bytes = try Fixtures.bytes("\(folder)/\(name)")
                switch HEIFAgreement.check(bytes, maxPixels: DecodeOptions.defaultMaxPixels, maxFrames: 1000) {
                case .agree: compared += 1
                case .nothingToCompare: break
                case let .disagree(why): Issue.record("\(folder)/\(name): \(why)")
                }
            }
        }
        #expect(compared >= 20, "the valid fixtures are compared, not skipped: \(compared)")
    }
}

/// The plugins' registry of predicted buffers is shared by every decode in flight (a
/// batch's jobs): the same bytes registered by two files under different declared sizes are
/// checked against both at once, never against whichever came last (an attack paired a
/// 64x64 tile with an alpha plane declared 1024x1024 over the same bytes).
@Suite("HEIF plugins' registry")
struct HEIFRegistryTests {
    func expectation(_ bytes: [UInt8], width: UInt32, height: UInt32, uses: UInt32) -> ch_expect {
        var h = ch_hash()
        ch_hash_begin(&h)
        ch_hash_add(&h, bytes, bytes.count)
        return ch_expect(
            hash: ch_hash_end(&h), length: UInt64(bytes.count), codec: UInt32(CH_EXPECT_HEVC), item: 1,
            width: width, height: height, cap_width: width, cap_height: height, uses: uses,
            max_pixels: 100_000_000)
    }

    @Test func theSameBytesOfTwoFilesAreCheckedAgainstBoth() throws {
        let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var tile = expectation(bytes, width: 64, height: 64, uses: 4)
        var alpha = expectation(bytes, width: 1024, height: 1024, uses: 1)
        let first = try #require(ch_expect_begin(&tile, 1))
        let second = try #require(ch_expect_begin(&alpha, 1))
        var out = ch_expect()
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), bytes, bytes.count, &out) == 1)
        #expect(out.width == 1024 && out.height == 1024, "never smaller than the greatest declared size")
        #expect(out.cap_width == 64 && out.cap_height == 64, "never larger than the least")
        ch_expect_end(second)
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), bytes, bytes.count, &out) == 1)
        #expect(out.width == 64 && out.cap_width == 64, "one file left: its own size")
        var other = bytes
        other[0] ^= 1
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), other, other.count, &out) == 0, "bytes nobody predicted")
        ch_expect_end(first)
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), bytes, bytes.count, &out) == 0, "no decode under way")
    }

    @Test func aBufferIsTakenNoMoreOftenThanPredicted() throws {
        let bytes = Array("one picture".utf8)
        var once = expectation(bytes, width: 8, height: 8, uses: 1)
        let session = try #require(ch_expect_begin(&once, 1))
        defer { ch_expect_end(session) }
        var out = ch_expect()
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), bytes, bytes.count, &out) == 1)
        #expect(ch_expect_take(UInt32(CH_EXPECT_HEVC), bytes, bytes.count, &out) == 0)
        #expect(ch_expect_take(UInt32(CH_EXPECT_AV1), bytes, bytes.count, &out) == 0, "another codec")
    }
}
