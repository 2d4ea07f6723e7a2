import CatPixels
import CatSupport
import Dispatch

/// Splitting an image into row strips over threads.
enum Strips {
    /// Rows per strip for per-pixel kernels: small enough to balance, large enough to stream.
    static let targetRows = 16

    static func run(height: Int, threads: Int, rowsPerStrip: Int = targetRows, _ body: @Sendable (Range<Int>) -> Void) {
        run(height: height, threads: threads, rowsPerStrip: rowsPerStrip) { _, rows in body(rows) }
    }

    /// The same, telling `body` which of the `threads` workers (0-based) runs the strip.
    static func run(
        height: Int, threads: Int, rowsPerStrip: Int = targetRows,
        _ body: @Sendable (_ worker: Int, _ rows: Range<Int>) -> Void
    ) {
        let threads = max(1, threads)
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        if threads == 1 || strips < 2 {
            body(0, 0..<height)
            return
        }
        // Strips are handed out as threads become free, so uneven cores finish together.
        let next = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: min(threads, strips)) { worker in
            while true {
                let strip = next.next()
                guard strip < strips else { return }
                let start = strip * rowsPerStrip
                body(worker, start..<min(height, start + rowsPerStrip))
            }
        }
    }
}
