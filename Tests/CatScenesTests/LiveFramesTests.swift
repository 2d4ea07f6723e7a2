import CatImageIO
import CatScenes
import FilterCore
import TestSupport
import Testing

/// An animation's frames one at a time for the live scenes (issue 35): the same frames,
/// delays and loop as the whole animation read at once, in every animated format, within
/// the reader's limits.
@Suite("Live frames: an animation a frame at a time")
struct LiveFramesTests {
    @Test(arguments: [
        "gif/anim-delays-loop.gif", "webp/animated.webp", "jxl/animated.jxl", "heif/seq.avif", "heif/seq.heic",
    ])
    func framesAreTheAnimationsRoundTheLoop(_ fixture: String) throws {
        let bytes = try Fixtures.bytes(fixture)
        let whole = try ImageReader(bytes: bytes, name: fixture).readAnimation()
        let frames = try #require(try LiveFrames(bytes: bytes, name: fixture, options: DecodeOptions()))
        #expect(frames.count == whole.frames.count && frames.count > 1)
        let none = try FilterChain(specs: [])
        for i in 0..<(frames.count + 2) {
            let frame = try frames.next(
                fitting: (whole.width, whole.height), chain: none, fullWidth: whole.width, threads: 1)
            let expected = whole.frames[i % frames.count]
            #expect(frame.index == i % frames.count)
            #expect(frame.delay == (whole.delays[frame.index] < 20 ? 100 : whole.delays[frame.index]))
            let same = frame.picture.packedRGBA() == expected.packedRGBA()
            #expect(same, "\(fixture) frame \(i)")
        }
    }

    /// Fitted to a box and through a chain whose values scale with it, as the preview is.
    @Test func framesAreFittedAndFiltered() throws {
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")  // 48x32
        let whole = try ImageReader(bytes: bytes, name: "a").readAnimation()
        let frames = try #require(try LiveFrames(bytes: bytes, name: "a", options: DecodeOptions()))
        let frame = try frames.next(
            fitting: (24, 24), chain: try FilterChain(specs: ["blur:2", "sepia"]), fullWidth: 48, threads: 1)
        let fitted = try FilterChain(specs: ["resize:24x16"]).apply(to: whole.frames[0], threads: 1)
        let expected = try FilterChain(specs: ["blur:1", "sepia"]).apply(to: fitted, threads: 1)
        let same = frame.picture.packedRGBA() == expected.packedRGBA()
        #expect(same && (frame.picture.width, frame.picture.height) == (24, 16))
    }

    /// A still image has no frames to play; the reader's limits hold (frames, pixels).
    @Test func stillsAndLimits() throws {
        #expect(
            try LiveFrames(bytes: Fixtures.bytes("gif/still-global-palette.gif"), name: "s", options: .init()) == nil)
        let bytes = try Fixtures.bytes("gif/anim-delays-loop.gif")
        #expect(throws: ImageIOError.self) {
            _ = try LiveFrames(bytes: bytes, name: "a", options: DecodeOptions(maxFrames: 2))
        }
        #expect(throws: ImageIOError.self) {
            _ = try LiveFrames(bytes: bytes, name: "a", options: DecodeOptions(maxPixels: 7000))
        }
        #expect(throws: ImageIOError.self) {
            _ = try LiveFrames(bytes: Fixtures.bytes("webp/huge-anim.webp"), name: "h", options: DecodeOptions())
        }
    }
}
