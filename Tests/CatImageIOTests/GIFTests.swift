import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// GIF in and out (giflib), against Pillow's decodes of files Pillow wrote, and a
/// browser-style compositing model for edge cases Pillow draws differently
/// (Tests/Fixtures/gif, make_gif_fixtures.py; manifest.json has frames, delays, loops).
@Suite("GIF")
struct GIFTests {
    struct Entry: Decodable {
        var frames: Int?
        var delays: [Int]?
        var loop: Int?
        var width: Int?
        var height: Int?
        var error: String?
        var expected: String?
        enum CodingKeys: String, CodingKey {
            case frames, loop, width, height, error, expected
            case delays = "delays_ms"
        }
    }
    static let manifest: [String: Entry] =
        (try? JSONDecoder().decode([String: Entry].self, from: Data(Fixtures.bytes("gif/manifest.json")))) ?? [:]
    static let decodable = manifest.filter { $0.value.error == nil }.keys.sorted()
    static let broken = manifest.filter { $0.value.error != nil }.keys.sorted()

    @Test(arguments: decodable)
    func everyFrameMatchesTheReference(_ name: String) throws {
        let entry = try #require(Self.manifest[name])
        let reader = try ImageReader(bytes: Fixtures.bytes("gif/\(name)"), name: name)
        #expect(reader.format == .gif && reader.frameCount == entry.frames)
        let animation = try reader.readAnimation()
        #expect(animation.delays == entry.delays)
        #expect(animation.loopCount == (entry.loop == -1 ? nil : entry.loop))
        // The expected file stacks every composited frame top to bottom; alpha-0 pixels are 0,0,0,0.
        let expected = try Fixtures.decode("gif/\(try #require(entry.expected))").pixels.packedRGBA()
        let frameBytes = animation.width * animation.height * 4
        for (i, frame) in animation.frames.enumerated() {
            var got = frame.packedRGBA()
            for p in stride(from: 0, to: got.count, by: 4) where got[p + 3] == 0 { got[p..<p + 4] = [0, 0, 0, 0] }
            #expect(got == Array(expected[i * frameBytes..<(i + 1) * frameBytes]), "\(name) frame \(i)")
        }
    }

    @Test(arguments: broken)
    func brokenFilesAreRefused(_ name: String) throws {
        let error = try #require(Self.manifest[name]?.error)
        do {
            let reader = try ImageReader(bytes: Fixtures.bytes("gif/\(name)"), name: name)
            _ = try reader.readAnimation()
            Issue.record("\(name) decoded")
        } catch let failure as ImageIOError {
            switch (error, failure) {
            case ("truncated", .truncated), ("corrupt", .corrupt), ("limit", .tooLarge): break
            default: Issue.record("\(name): expected \(error), got \(failure)")
            }
        }
    }

    @Test func aGiantScreenIsRefusedByItsDeclaredSize() throws {
        #expect(throws: ImageIOError.tooLarge(file: "h", width: 65535, height: 65535, limit: 100_000_000)) {
            _ = try ImageReader(bytes: Fixtures.bytes("gif/bad-huge-screen.gif"), name: "h")
        }
        // Every frame counts: 5 frames of 48x32 are 7680 pixels.
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")
        #expect(throws: ImageIOError.tooLarge(file: "a", width: 48, height: 32, frames: 5, limit: 7000)) {
            _ = try ImageReader(bytes: bytes, name: "a", options: DecodeOptions(maxPixels: 7000))
        }
        #expect(throws: ImageIOError.self) {
            _ = try ImageReader(bytes: bytes, name: "a", options: DecodeOptions(maxFrames: 4))
        }
    }

    @Test func animationsRoundTripWithTheirTiming() throws {
        let source = try ImageReader(bytes: Fixtures.bytes("gif/anim-delays-loop.gif"), name: "a").readAnimation()
        for format in [ImageFormat.gif, .webp] {
            let bytes = try Fixtures.writtenBytes { fd in
                try ImageEncoder.encode(
                    source, to: fd, path: "a", options: EncodeOptions(format: format, settings: [.lossless: true]))
            }
            let back = try ImageReader(bytes: bytes, name: "back").readAnimation()
            #expect(back.frames.count == 5 && back.delays == source.delays && back.loopCount == 3, "\(format)")
            // Few colours: the GIF palette holds them all, so frames come back exactly (WebP lossless too).
            for (a, b) in zip(back.frames, source.frames) {
                let diff = PixelDifference(a.packedRGBA(), b.packedRGBA())
                #expect(diff.maximum == 0 || (a.hasAlpha && diff.mean < 1), "\(format): \(diff)")
            }
        }
    }

    @Test func quantizingTheCatStaysClose() throws {
        // Issue 10: mean absolute difference per channel under 6 against the unquantized frame.
        let cat = try Fixtures.decode("photos/chelsea.png").pixels
        let bytes = try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(cat, to: fd, path: "c.gif", options: EncodeOptions(format: .gif))
        }
        let back = try ImageDecoder.decode(bytes, name: "c.gif").pixels
        let diff = PixelDifference(back.packedRGBA(), cat.packedRGBA(), alpha: false)
        #expect(diff.mean < 6, "\(diff)")
        // The same on 1 and 3 threads (frames are quantized independently).
        let animation = Animation(frames: [cat, cat, cat], delays: [10, 20, 30], loopCount: 0)
        func written(_ threads: Int) throws -> [UInt8] {
            try Fixtures.writtenBytes { fd in
                try ImageEncoder.encode(
                    animation, to: fd, path: "t.gif", options: EncodeOptions(format: .gif, threads: threads))
            }
        }
        #expect(try written(1) == (try written(3)))
    }

    @Test func everyTruncationIsAnErrorOrEndsBetweenFrames() throws {
        let whole = try Fixtures.bytes("gif/anim-transparent.gif")
        // A file cut inside a block is an error. A file cut between two records reads as a
        // GIF without its trailer, as browsers show it: the frames before the cut.
        var cleanCuts = 0, failures = 0
        for length in 0..<whole.count {
            do {
                let frames = try ImageReader(bytes: Array(whole.prefix(length)), name: "t").readAnimation().frames
                #expect(frames.count < 4 || length == whole.count - 1, "\(length) bytes")
                cleanCuts += 1
            } catch {
                failures += 1
            }
        }
        #expect(failures == whole.count - 7)
        #expect(cleanCuts == 7, "the record boundaries after frames 1, 2 and 3 and the missing trailer")
    }
}
