import CFilterKernels
import Dispatch
import Foundation
import ImageIO

/// The filters of one command line, in order, ready to run over a PixelBuffer.
public struct FilterChain: Sendable {
    public let filters: [Filter]

    public init(filters: [Filter]) { self.filters = filters }

    /// Parses `--filter` arguments; throws on the first bad one.
    public init(specs: [String]) throws(FilterError) {
        var filters: [Filter] = []
        for spec in specs { filters.append(try Filter(parsing: spec)) }
        self.filters = filters
    }

    /// The specs as given, for messages and JSON.
    public var specs: [String] { filters.map(\.spec) }

    /// Every colour stage of every filter, in order.
    public var colorStages: [ColorMatrix] { filters.flatMap(\.stages) }

    /// Runs the chain in place with the fast kernels, in row strips over `threads` threads.
    public func apply(to image: PixelBuffer, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        let flat = colorStages.flatMap(\.m)
        guard !flat.isEmpty else { return }
        let count = Int32(flat.count / Int(CK_STAGE_FLOATS))
        Strips.run(height: image.height, threads: threads) { rows in
            flat.withUnsafeBufferPointer { m in
                ck_color_chain(image.row(rows.lowerBound), image.stride, image.width, rows.count,
                               m.baseAddress, count)
            }
        }
    }

    /// Runs the chain in place with the plain scalar reference (for tests and `bench`).
    public func applyReference(to image: PixelBuffer) {
        Reference.colorChain(colorStages, on: image)
    }
}

/// Splitting an image into row strips over threads.
enum Strips {
    /// Rows per strip so that a strip of a 4032-pixel-wide image is about 256 KiB.
    static let targetRows = 16

    static func run(height: Int, threads: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let threads = max(1, threads)
        if threads == 1 || height < 2 * targetRows {
            body(0..<height)
            return
        }
        let strips = (height + targetRows - 1) / targetRows
        // Hand out strips dynamically so uneven cores still finish together.
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: min(threads, strips)) { _ in
            while true {
                let strip = next.increment()
                guard strip < strips else { return }
                let start = strip * targetRows
                body(start..<min(height, start + targetRows))
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Returns the current value and adds one.
    func increment() -> Int { lock.withLock { defer { value += 1 }; return value } }
}
