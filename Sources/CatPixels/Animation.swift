/// The frames of an animated GIF or WebP, each a whole canvas as browsers show it (the
/// decoders composite frame rectangles and disposal), with their timing: the one shape
/// animations take between decoding, the filter core and encoding.
public struct Animation: Sendable {
    /// Every frame the same size.
    public var frames: [PixelBuffer]
    /// How long each frame shows, in milliseconds (0: as fast as the viewer goes).
    public var delays: [Int]
    /// nil: no loop count in the file (GIF plays once); 0: forever; n: as the file says.
    public var loopCount: Int?
    public var metadata: ImageMetadata

    public init(frames: [PixelBuffer], delays: [Int], loopCount: Int?, metadata: ImageMetadata = .none) {
        precondition(!frames.isEmpty && frames.count == delays.count)
        self.frames = frames
        self.delays = delays
        self.loopCount = loopCount
        self.metadata = metadata
    }

    public var width: Int { frames[0].width }
    public var height: Int { frames[0].height }
    public var hasAlpha: Bool { frames.contains { $0.hasAlpha } }
}
