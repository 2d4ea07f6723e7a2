import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// WebP in and out (libwebp), against Pillow's decodes of files Pillow wrote
/// (Tests/Fixtures/webp, make_webp_fixtures.py; manifest.json has frames, durations, loops).
@Suite("WebP")
struct WebPTests {
    struct Manifest: Decodable {
        struct File: Decodable {
            var frames: Int?
            var durations: [Int]?
            var loop: Int?
            enum CodingKeys: String, CodingKey {
                case frames, loop
                case durations = "durations_ms"
            }
        }
        var files: [String: File]
    }
    let manifest = try? JSONDecoder().decode(
        Manifest.self, from: Data(Fixtures.bytes("webp/manifest.json")))

    func pixels(_ relative: String) throws -> [UInt8] { try Fixtures.decode(relative).pixels.packedRGBA() }

    @Test(arguments: ["lossless", "lossless-alpha", "lossy", "lossy-alpha", "with-metadata"])
    func stillsMatchPillow(_ name: String) throws {
        let decoded = try Fixtures.decode("webp/\(name).webp")
        #expect(decoded.format == .webp)
        #expect(decoded.pixels.hasAlpha == name.hasSuffix("alpha"))
        let diff = PixelDifference(decoded.pixels.packedRGBA(), try pixels("webp/\(name).expected.png"))
        if name.hasPrefix("lossy") {
            // Pillow bundles another libwebp: lossy decodes may differ by rounding.
            #expect(diff.mean < 1 && diff.maximum <= 8, "\(diff)")
        } else {
            #expect(diff.maximum == 0, "lossless is exact: \(diff)")
        }
    }

    @Test(arguments: ["animated", "animated-lossy"])
    func animationsMatchPillow(_ name: String) throws {
        let reader = try ImageReader(bytes: Fixtures.bytes("webp/\(name).webp"), name: name)
        let expected = try #require(manifest?.files["\(name).webp"])
        #expect(reader.frameCount == expected.frames)
        let animation = try reader.readAnimation()
        #expect(animation.delays == expected.durations)
        #expect(animation.loopCount == expected.loop)
        for (i, frame) in animation.frames.enumerated() {
            let diff = PixelDifference(frame.packedRGBA(), try pixels("webp/\(name).frame\(i).png"))
            #expect(diff.maximum <= (name.hasSuffix("lossy") ? 8 : 0), "frame \(i): \(diff)")
        }
    }

    @Test func metadataChunksAreRead() throws {
        let metadata = try ImageReader(bytes: Fixtures.bytes("webp/with-metadata.webp"), name: "m").metadata
        #expect(metadata.iccProfile.map { $0[16..<20].elementsEqual("RGB ".utf8) } == true)
        #expect(metadata.exif.map { String(decoding: $0, as: UTF8.self).contains("catctl test") } == true)
        #expect(metadata.xmp.map { String(decoding: $0, as: UTF8.self).contains("x:xmpmeta") } == true)
    }

    func encode(_ image: PixelBuffer, _ options: EncodeOptions, metadata: ImageMetadata = .none) throws -> [UInt8] {
        try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(image, to: fd, path: "out.webp", options: options, metadata: metadata)
        }
    }

    @Test func losslessGivesThePixelsPNGGives() throws {
        for (w, h, alpha) in [(1, 1, false), (97, 61, true), (300, 7, false)] {
            let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w + h))
            image.hasAlpha = alpha
            if !alpha { for y in 0..<h { for x in 0..<w { image.row(y)[4 * x + 3] = 255 } } }
            let webp = try ImageDecoder.decode(
                encode(image, EncodeOptions(format: .webp, settings: [.lossless: true])), name: "l.webp")
            let png = try ImageDecoder.decode(
                Fixtures.writtenBytes { fd in
                    try ImageEncoder.encode(image, to: fd, path: "o.png", options: EncodeOptions(format: .png))
                }, name: "o.png")
            #expect(webp.pixels.packedRGBA() == png.pixels.packedRGBA(), "\(w)x\(h)")
            #expect(webp.pixels.hasAlpha == alpha)
        }
    }

    @Test func lossyFollowsTheQuality() throws {
        let cat = try Fixtures.decode("photos/chelsea.png").pixels
        let q80 = try encode(cat, EncodeOptions(format: .webp))
        let q30 = try encode(cat, EncodeOptions(format: .webp, settings: [.quality: 30]))
        #expect(q30.count < q80.count)
        let back = try ImageDecoder.decode(q80, name: "q80.webp").pixels
        let diff = PixelDifference(back.packedRGBA(), cat.packedRGBA(), alpha: false)
        #expect(diff.mean < 4, "\(diff)")
        #expect(!back.hasAlpha)
    }

    @Test func rowsInAnyBlocksGiveTheSameFile() throws {
        // Lossy opaque WebP converts rows to YUV as they come, in pairs: blocks of any size
        // (odd ones carry a row over) must give the bytes of one whole-image write.
        for (w, h) in [(97, 61), (5, 2), (1, 9)] {
            let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w * 31 + h))
            image.hasAlpha = false
            let options = EncodeOptions(format: .webp, settings: [.quality: 70])
            let whole = try encode(image, options)
            let blocks = try Fixtures.writtenBytes { fd in
                let writer = try ImageWriter(
                    fd: fd, path: "b.webp", width: w, height: h, hasAlpha: false, options: options)
                var y = 0, size = 1
                while y < h {
                    let n = min(size, h - y)
                    try writer.write(image, rows: y..<y + n)
                    (y, size) = (y + n, size % 4 + 1)
                }
                try writer.finish()
            }
            #expect(blocks == whole, "\(w)x\(h)")
        }
    }

    @Test func metadataRoundTrips() throws {
        let source = try Fixtures.decode("metadata/meta.jpg")
        let kept = try ImageReader(
            bytes: encode(source.pixels, EncodeOptions(format: .webp), metadata: source.metadata), name: "k"
        ).metadata
        // WebP has no comment chunk; everything else stays, orientation 1.
        #expect(kept.iccProfile == source.metadata.iccProfile && kept.xmp == source.metadata.xmp)
        #expect(kept.exif == source.metadata.exif && kept.comment == nil)
        let stripped = try ImageReader(
            bytes: encode(
                source.pixels, EncodeOptions(format: .webp, settings: EncodeSettings([:], metadata: .strip)),
                metadata: source.metadata),
            name: "s"
        ).metadata
        #expect(stripped == ImageMetadata(iccProfile: source.metadata.iccProfile))
    }

    @Test func animationRoundTrips() throws {
        let source = try ImageReader(bytes: Fixtures.bytes("webp/animated.webp"), name: "a").readAnimation()
        let bytes = try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(
                source, to: fd, path: "a.webp", options: EncodeOptions(format: .webp, settings: [.lossless: true]))
        }
        let back = try ImageReader(bytes: bytes, name: "back").readAnimation()
        #expect(back.delays == source.delays && back.loopCount == source.loopCount)
        #expect(back.frames.map { $0.packedRGBA() } == source.frames.map { $0.packedRGBA() })
    }

    @Test func declaredGiantsAreRefusedBeforeDecoding() throws {
        for (name, size) in [
            ("huge-vp8l", "16383x16383 is 268.4 MP"), ("huge-vp8x", "16383x16383 is 268.4 MP"),
            ("huge-anim", "4000x4000 x 10 frames is 160.0 MP"),
        ] {
            #expect(throws: ImageIOError.self) { try Fixtures.decode("webp/\(name).webp") }
            do {
                _ = try Fixtures.decode("webp/\(name).webp")
            } catch {
                #expect("\(error)".contains(size), "\(error)")
            }
        }
    }

    @Test func everyTruncationIsAnError() throws {
        let whole = try Fixtures.bytes("webp/animated-lossy.webp")
        for length in stride(from: 0, to: whole.count, by: 7) {
            #expect(throws: ImageIOError.self, "\(length) bytes") {
                let reader = try ImageReader(bytes: Array(whole.prefix(length)), name: "t")
                _ = try reader.readAnimation()
            }
        }
    }
}
