import CatImageIO
import CatSupport

/// The frames filtered so far, set from several threads.
final class FrameResults: @unchecked Sendable {
    private let lock = Lock()
    private var frames: [PixelBuffer?]
    private var done = 0
    init(count: Int) { frames = Array(repeating: nil, count: count) }
    /// Stores frame `i`; returns how many are done.
    func set(_ i: Int, _ frame: PixelBuffer) -> Int {
        lock.withLock {
            frames[i] = frame
            done += 1
            return done
        }
    }
    /// Every frame, once all are set.
    var all: [PixelBuffer] { lock.withLock { frames.map { $0! } } }
}

/// The first error any thread of a parallel pass met.
final class FirstError: @unchecked Sendable {
    private let lock = Lock()
    private var first: (any Error)?
    func record(_ error: any Error) { lock.withLock { if first == nil { first = error } } }
    var error: (any Error)? { lock.withLock { first } }
}
