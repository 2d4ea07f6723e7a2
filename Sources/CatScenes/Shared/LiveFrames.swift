import CatImageIO
import CatPixels
import CatSupport
import FilterCore

/// An animation's frames for a live scene, made one at a time: each decoded into one
/// canvas, fitted to the preview and put through the chain. The whole animation is never
/// in memory (a 400-frame GIF at 4K would be 13 GB): only the canvas, the compressed file
/// and the frames a player holds. After the last frame the file is read again from its
/// first: the scenes loop. One caller at a time (a player makes each frame after the last).
public final class LiveFrames: @unchecked Sendable {
    /// Frames in a loop.
    public let count: Int
    private let bytes: [UInt8], name: String, options: DecodeOptions
    private var reader: ImageReader
    private let canvas: PixelBuffer
    /// The chain with its gravity placed on the first frame it ran on (one window, one
    /// caption side for every frame, as `catctl edit` does), for the chain and size it was.
    private var placed: (specs: [String], width: Int, chain: FilterChain)?
    /// The last frame could not be decoded.
    private var failed = false

    /// The frames of `bytes`, or nil for a still image. The limits are the reader's (the
    /// canvas within `maxPixels`, the frames within `maxFrames`).
    public init?(bytes: [UInt8], name: String, options: DecodeOptions) throws(ImageIOError) {
        let reader = try ImageReader(bytes: bytes, name: name, options: options)
        guard reader.frameCount > 1 else { return nil }
        self.reader = reader
        (self.bytes, self.name, self.options) = (bytes, name, options)
        count = reader.frameCount
        canvas = try ImageIOError.allocating { () throws(PixelError) in
            try PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
        }
    }

    /// The next frame, upright, fitted to `box` and through `chain` (its values in pixels
    /// scaled from `fullWidth`, as the preview's are). Its delay is the file's, except that
    /// one under 20 ms is 100 ms, as browsers show GIFs.
    public func next(fitting box: (width: Int, height: Int), chain: FilterChain, fullWidth: Int, threads: Int)
        throws -> LiveFrame
    {
        if reader.framesRead == count || failed {
            reader = try ImageReader(bytes: bytes, name: name, options: options)
            failed = false
        }
        let index = reader.framesRead
        let delay: Int
        do {
            delay = try reader.readFrame(into: canvas)
        } catch {
            failed = true  // a decoder stays failed: the next call starts the loop again
            throw error
        }
        let upright = try ExifOrientation.apply(reader.orientation, to: canvas)
        let (w, h) = upright.fittingSize(maxWidth: box.width, maxHeight: box.height)
        let fitted =
            (w, h) == (upright.width, upright.height)
            ? try upright.copy() : try FilterChain.resize(fitting: w, h).apply(to: upright, threads: threads)
        let specs = chain.specs
        if placed?.specs != specs || placed?.width != fitted.width {
            let scaled = chain.scaled(by: Double(fitted.width) / Double(max(1, fullWidth)))
            placed = (specs, fitted.width, try scaled.resolvingGravity(picture: fitted, width: w, height: h))
        }
        let picture = try placed?.chain.apply(to: fitted, threads: threads) ?? fitted
        return LiveFrame(picture: picture, index: index, delay: delay < 20 ? 100 : delay)
    }
}

extension LiveFrames {
    /// The frames of `bytes` to play, or nil for a still image (decoding off the main actor).
    @concurrent
    public static func open(bytes: [UInt8], name: String, options: DecodeOptions) async throws -> LiveFrames? {
        try LiveFrames(bytes: bytes, name: name, options: options)
    }

    /// The next frame (`next`), made off the main actor on one thread: the scene stays quick to keys.
    @concurrent
    public func make(fitting box: (width: Int, height: Int), chain: FilterChain, fullWidth: Int) async throws
        -> LiveFrame
    {
        try next(fitting: box, chain: chain, fullWidth: fullWidth, threads: 1)
    }
}

/// One frame a live scene plays: the picture, its place in the loop, how long it shows.
public struct LiveFrame: Sendable {
    public let picture: PixelBuffer
    public let index: Int
    /// Milliseconds.
    public let delay: Int
}
