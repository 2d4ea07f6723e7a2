import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// Files that ask for far more work or memory than their size (Tests/Fixtures/hostile,
/// made by make_hostile.py): each is refused on a stated limit before the work, or the
/// work it asks for is skipped. SECURITY.md's "every input costs bounded work".
@Suite("Hostile files cost bounded work")
struct HostileFileTests {
    func reader(_ name: String, maxPixels: Int = DecodeOptions.defaultMaxPixels) throws -> ImageReader {
        try ImageReader(
            bytes: Fixtures.bytes("hostile/\(name)"), name: name, options: DecodeOptions(maxPixels: maxPixels))
    }

    /// Five 65535x1525 frames on a 1x1525 screen: 499.7 MP of LZW for one visible column,
    /// refused on the work before any is done (it took 3.8 s when frames were decompressed in full).
    @Test func gifFramesWiderThanTheScreenCountAgainstTheLimit() throws {
        #expect(
            throws: ImageIOError.limitExceeded(
                file: "gif-wide-frames.gif",
                reason: "the frames hold 499.7 MP of pixel data to decompress (rows wider than the screen count "
                    + "in full), more than the limit of 100.0 MP")
        ) { _ = try reader("gif-wide-frames.gif") }
    }

    /// Frames wholly off the screen, whose LZW data is garbage, are never decompressed.
    @Test func gifFramesOutsideTheScreenAreSkipped() throws {
        let animation = try reader("gif-outside-frames.gif").readAnimation()
        #expect(animation.frames.count == 5)
        let first = animation.frames[0].packedRGBA()
        #expect(first[0..<4] == [255, 0, 0, 255] || first[0..<4] == [0, 255, 0, 255])
        for frame in animation.frames.dropFirst() { #expect(frame.packedRGBA() == first) }
    }

    /// A frame's data is abandoned after its last row on the screen (plain and interlaced):
    /// the garbage after it is never read.
    @Test func gifRowsBelowTheScreenAreNotDecompressed() throws {
        let animation = try reader("gif-rows-below-screen.gif").readAnimation()
        #expect(animation.frames.count == 3 && animation.width == 16 && animation.height == 8)
        let (red, green, blue):
            ((UInt8, UInt8, UInt8, UInt8), (UInt8, UInt8, UInt8, UInt8), (UInt8, UInt8, UInt8, UInt8)) =
                ((255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255))
        for y in 0..<8 {
            #expect(animation.frames[0].pixel(3, y) == blue && animation.frames[0].pixel(12, y) == blue)
            #expect(animation.frames[1].pixel(3, y) == red && animation.frames[1].pixel(12, y) == blue)
            #expect(animation.frames[2].pixel(3, y) == red && animation.frames[2].pixel(12, y) == green)
        }
    }

    /// 40 zTXt chunks of 8 MiB each: the text chunks share one 8 MiB budget, so the image
    /// decodes with the XMP that came first and without the hostile comments.
    @Test func pngTextChunksShareOneBudget() throws {
        let decoded = try ImageDecoder.decode(Fixtures.bytes("hostile/png-many-ztxt.png"), name: "png-many-ztxt.png")
        #expect(decoded.pixels.width == 32 && decoded.pixels.height == 32)
        let xmp = try #require(decoded.metadata.xmp)
        #expect(String(decoding: xmp, as: UTF8.self).contains("x:xmpmeta"))
        #expect(decoded.metadata.comment == nil, "the comments are past the budget")
    }

    /// Scans that together visit the image's blocks more than 32 times are refused before
    /// any is decoded; 32 passes still decode.
    @Test func jpegScanWorkIsBounded() throws {
        let ok = try ImageDecoder.decode(Fixtures.bytes("hostile/jpeg-many-scans-32.jpg"), name: "ok.jpg")
        #expect(ok.pixels.width == 512 && ok.pixels.height == 512)
        for name in ["jpeg-many-scans-33.jpg", "jpeg-many-scans-500.jpg"] {
            do {
                _ = try ImageDecoder.decode(Fixtures.bytes("hostile/\(name)"), name: name)
                Issue.record("\(name) decoded")
            } catch {
                #expect(
                    "\(error)".contains("the progressive scans cover the image more than 32 times over"), "\(error)")
            }
        }
    }
}

@Suite("limit messages")
struct LimitMessageTests {
    /// Finding 11: the product of a size is checked at every step ("4294967295x4294967295
    /// is -8589934591 pixels" before).
    @Test func aSizeThatOverflowsIsTooManyPixels() {
        let message = ImageIOError.tooLarge(file: "x", width: 4_294_967_295, height: 4_294_967_295, limit: 100)
            .description
        #expect(message.contains("is too many pixels"), "\(message)")
        #expect(!message.contains("-"), "\(message)")
        let frames = ImageIOError.tooLarge(file: "x", width: 1 << 31, height: 1 << 31, frames: 3, limit: 1).description
        #expect(frames.contains("too many pixels"), "\(frames)")
        let output = PixelError.outputTooLarge(width: Int.max, height: 2, limit: 1).description
        #expect(output.contains("too many pixels"), "\(output)")
        #expect(ImageIOError.tooLarge(file: "x", width: 4000, height: 3000, limit: 1).description.contains("12.0 MP"))
    }
}

/// An output that holds one frame takes the first, decoded alone: the still read (what
/// `edit` to a still format and `detect` use) gives the first frame the animation read
/// gives, for every animated format.
@Suite("the first frame, read alone")
struct FirstFrameTests {
    @Test(arguments: [
        "gif/anim-delays-loop.gif", "gif/anim-transparent.gif", "gif/edge-dispose-previous.gif",
        "webp/animated.webp", "jxl/animated.jxl", "heif/seq.avif", "heif/seq.heic",
    ])
    func theStillIsTheAnimationsFirstFrame(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        let still = try ImageDecoder.decode(bytes, name: name, options: DecodeOptions())
        let reader = try ImageReader(bytes: bytes, name: name, options: DecodeOptions())
        #expect(reader.frameCount > 1, "\(name) is animated")
        let first = try #require(reader.readAnimation().frames.first)
        #expect(still.pixels.width == first.width && still.pixels.height == first.height)
        #expect(still.pixels.packedRGBA() == first.packedRGBA(), "\(name)")
        // Row by row (the streaming edit) too.
        let rows = try ImageReader(bytes: bytes, name: name, options: DecodeOptions())
        let strips = try PixelBuffer(width: rows.width, height: rows.height, hasAlpha: rows.hasAlpha)
        while rows.rowsRead < rows.height {
            try rows.readRows(into: strips, at: rows.rowsRead, count: min(7, rows.height - rows.rowsRead))
        }
        #expect(strips.packedRGBA() == first.packedRGBA(), "\(name), row by row")
    }
}
