import CatPixels
import CatSupport

/// One filter's speed: the fast kernels and the scalar reference, on the same buffer.
public struct FilterBenchmarkResult: Sendable {
    /// The spec exactly as asked for (`blur:3`).
    public let filter: String
    public let megapixelsPerSecond: Double
    public let scalarMegapixelsPerSecond: Double?
}

public struct FilterBenchmarkReport: Sendable {
    public let width: Int
    public let height: Int
    public let threads: Int
    public let repetitions: Int
    /// The kernel build that ran ("avx2", "sse4.1", "sse2", "neon").
    public let kernels: String
    /// A plain copy of the same buffer into another, on the same threads.
    public let baselineCopyMegapixelsPerSecond: Double
    public let results: [FilterBenchmarkResult]
}

/// `catctl bench`: times filters on a synthetic image against a copy of it. Honest by
/// construction: every repetition reads the same source and writes the whole
/// destination (nothing cached between runs), the destination is read back after each
/// run, and the median of several runs is reported.
public enum FilterBenchmark {
    public static func run(
        specs: [String], width: Int, height: Int, threads: Int, repetitions: Int = 7,
        scalarRepetitions: Int = 3, includeScalar: Bool = true, subjects: (any SubjectFinder)? = nil,
        progress: (String) -> Void = { _ in }
    ) throws -> FilterBenchmarkReport {
        let chains = try specs.map { try FilterChain(specs: [$0], subjects: subjects) }
        let source = try noiseImage(width: width, height: height)
        let copyDestination = try FilterError.allocating { () throws(PixelError) in
            try PixelBuffer(width: width, height: height, hasAlpha: true)
        }
        let megapixels = Double(width * height) / 1_000_000

        progress("copy")
        let copy = median(repetitions) {
            Strips.run(height: height, threads: threads) { rows in
                for y in rows { copyDestination.row(y).update(from: source.row(y), count: source.stride) }
            }
            consume(copyDestination)
        }

        var results: [FilterBenchmarkResult] = []
        for (spec, chain) in zip(specs, chains) {
            progress(spec)
            let size = try chain.outputSize(width: width, height: height)
            let destination = try FilterError.allocating { () throws(PixelError) in
                try PixelBuffer(width: size.width, height: size.height, hasAlpha: true)
            }
            try chain.apply(from: source, into: destination, threads: threads)  // warm-up, page faults
            var failure: (any Error)?
            let fast = median(repetitions) {
                do { try chain.apply(from: source, into: destination, threads: threads) } catch { failure = error }
                consume(destination)
            }
            var scalar: Double?
            if includeScalar {
                progress("\(spec) (scalar)")
                scalar = median(scalarRepetitions) {
                    do { try chain.applyReference(from: source, into: destination) } catch { failure = error }
                    consume(destination)
                }
            }
            if let failure { throw failure }
            results.append(
                FilterBenchmarkResult(
                    filter: spec, megapixelsPerSecond: megapixels / fast,
                    scalarMegapixelsPerSecond: scalar.map { megapixels / $0 }))
        }
        return FilterBenchmarkReport(
            width: width, height: height, threads: threads, repetitions: repetitions,
            kernels: KernelISA.active.name,
            baselineCopyMegapixelsPerSecond: megapixels / copy, results: results)
    }

    /// Seconds: the median of `count` timed runs of `body`.
    static func median(_ count: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<max(1, count) {
            let elapsed = clock.measure(body)
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Reads a few bytes of every row so the work cannot be skipped as unused.
    nonisolated(unsafe) static var sink: UInt64 = 0
    static func consume(_ image: PixelBuffer) {
        var sum: UInt64 = 0
        for y in stride(from: 0, to: image.height, by: 7) { sum &+= UInt64(image.row(y)[(y * 13) % (image.width * 4)]) }
        sink &+= sum
    }

    /// A photo-like test image: smooth gradients plus noise, deterministic.
    static func noiseImage(width: Int, height: Int) throws -> PixelBuffer {
        let image = try FilterError.allocating { () throws(PixelError) in
            try PixelBuffer(width: width, height: height, hasAlpha: true)
        }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for y in 0..<height {
            let row = image.row(y)
            for x in 0..<width {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let noise = Int(state & 31) - 16
                row[4 * x] = UInt8(clamping: x * 255 / width + noise)
                row[4 * x + 1] = UInt8(clamping: y * 255 / height + noise)
                row[4 * x + 2] = UInt8(clamping: (x + y) * 255 / (width + height) - noise)
                row[4 * x + 3] = 255
            }
        }
        return image
    }
}
