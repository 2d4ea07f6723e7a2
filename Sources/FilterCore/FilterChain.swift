internal import CFilterKernels
import CatImageIO
import Dispatch
import Foundation

/// The filters of one command line, in order, ready to run over a PixelBuffer.
public struct FilterChain: Sendable {
    public let filters: [Filter]
    /// Every stage of every filter, in order.
    public let stages: [FilterStage]

    /// Parses `--filter` arguments; throws on the first bad one.
    public init(specs: [String]) throws(FilterError) {
        var filters: [Filter] = []
        for spec in specs { filters.append(try Filter(parsing: spec)) }
        self.filters = filters
        stages = filters.flatMap(\.stages)
    }

    init(filters: [Filter], stages: [FilterStage]) {
        self.filters = filters
        self.stages = stages
    }

    /// The specs as given, for messages and JSON.
    public var specs: [String] { filters.map(\.spec) }

    /// Shrink-on-load, as libvips's thumbnail does it: when the chain starts with a resize
    /// of an image of `width` × `height` (upright, full size), the JPEG DCT scale (2, 4 or
    /// 8) that still leaves at least twice the target size, and the chain to run on the
    /// image decoded that small (its resize aims at the size the full image would give).
    /// nil when decoding smaller would not help.
    public func shrinkOnLoad(width: Int, height: Int) -> (denominator: Int, chain: FilterChain)? {
        guard case let .spatial(stage)? = stages.first, let resize = stage as? ResizeStage else { return nil }
        let target = resize.outputSize(width: width, height: height)
        guard
            let denominator = [8, 4, 2].first(where: { d in
                (width + d - 1) / d >= 2 * target.width && (height + d - 1) / d >= 2 * target.height
            })
        else { return nil }
        let exact = FilterStage.spatial(ResizeStage(.exact(target.width, target.height)))
        return (denominator, FilterChain(filters: filters, stages: [exact] + stages.dropFirst()))
    }

    /// The chain for a preview: a copy of the image `factor` times the size, with every
    /// value in pixels scaled to match (see `SpatialStage.scaled`).
    public func scaled(by factor: Double) -> FilterChain {
        FilterChain(
            filters: filters,
            stages: stages.map { stage in
                if case let .spatial(spatial) = stage { return .spatial(spatial.scaled(by: factor)) }
                return stage
            })
    }

    /// The size of the result for an input of `width` × `height`, and the largest image any
    /// step makes on the way (a resize before a crop may be far larger than the result);
    /// throws a usage error when a stage cannot apply to the size it gets (a crop outside
    /// the image). Cheap: callers check `largestPixels` against the pixel limit before
    /// allocating anything.
    public func sizes(width: Int, height: Int) throws(FilterError) -> (
        width: Int, height: Int, largestPixels: Int, largestWidth: Int, largestHeight: Int
    ) {
        var size = (width: width, height: height)
        var largest = (pixels: width.multipliedReportingOverflow(by: height).partialValue, width: width, height: height)
        for case let .spatial(stage) in stages where !stage.isIdentity {
            try stage.check(width: size.width, height: size.height)
            size = stage.outputSize(width: size.width, height: size.height)
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            let count = overflow ? Int.max : pixels
            if count > largest.pixels { largest = (count, size.width, size.height) }
        }
        return (size.width, size.height, largest.pixels, largest.width, largest.height)
    }

    /// The size of the result for an input of `width` × `height` (see `sizes`).
    public func outputSize(width: Int, height: Int) throws(FilterError) -> (width: Int, height: Int) {
        let all = try sizes(width: width, height: height)
        return (all.width, all.height)
    }

    /// Runs the chain with the fast kernels over `threads` threads. Colour stages work in
    /// place; the result is `image` itself, or a new buffer when a spatial stage ran.
    public func apply(
        to image: PixelBuffer,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws -> PixelBuffer {
        try Executor.run(stages, source: image, destination: nil, kernels: FastKernels(threads: threads))
    }

    /// Runs the chain with the fast kernels from `source` into `destination` (which has the
    /// chain's output size), leaving `source` as it is.
    public func apply(
        from source: PixelBuffer, into destination: PixelBuffer,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: FastKernels(threads: threads))
    }

    /// Runs the chain on every frame of an animation: frames on `threads` threads at once,
    /// one thread each (frames are independent, and a frame is often too small to split);
    /// `progress` hears how many frames are done. The results are in the frames' order.
    public func apply(
        toFrames frames: [PixelBuffer], threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> [PixelBuffer] {
        if threads <= 1 || frames.count == 1 {
            return try frames.enumerated().map { i, frame in
                defer { progress?(i + 1) }
                return try apply(to: frame, threads: threads)
            }
        }
        let results = FrameResults(count: frames.count), failure = FirstError()
        let workers = min(threads, frames.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in stride(from: worker, to: frames.count, by: workers) where failure.error == nil {
                do {
                    progress?(results.set(i, try apply(to: frames[i], threads: 1)))
                } catch {
                    failure.record(error)
                }
            }
        }
        if let error = failure.error { throw error }
        return results.all
    }

    /// Every chain on its own copy of `image`: one chain gets all `threads`, several (a
    /// gallery's thumbnails) run side by side, one thread each. A chain that fails gives its error.
    public static func applyEach(_ chains: [FilterChain], to image: PixelBuffer, threads: Int) -> [Result<
        PixelBuffer, any Error
    >] {
        let results = LockedArray<Result<PixelBuffer, any Error>>(count: chains.count)
        let each = chains.count == 1 ? max(1, threads) : 1
        DispatchQueue.concurrentPerform(iterations: chains.count) { i in
            results[i] = Result { try chains[i].apply(to: image.copy(), threads: each) }
        }
        return results.values.map { $0 ?? .failure(CancellationError()) }
    }

    /// The same with the plain scalar reference (for tests and `bench`).
    public func applyReference(to image: PixelBuffer) throws -> PixelBuffer {
        try Executor.run(stages, source: image, destination: nil, kernels: Reference())
    }

    public func applyReference(from source: PixelBuffer, into destination: PixelBuffer) throws {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: Reference())
    }
}

/// What a set of kernels provides: the fast C kernels, or the scalar reference.
protocol Kernels {
    /// `coefficients`: stages of ColorMatrix.kernelCoefficients, back to back. dst may be src.
    func color(_ coefficients: [Float], from src: PixelBuffer, into dst: PixelBuffer)
    /// Runs a spatial stage over the whole image (dst has the output size). dst may be src
    /// only for an in-place stage.
    func spatial(_ stage: any SpatialStage, from src: PixelBuffer, into dst: PixelBuffer) throws
}

/// Runs stages with one set of kernels: consecutive colour stages fused into one pass,
/// spatial stages each a pass of their own.
enum Executor {
    static func run(
        _ stages: [FilterStage], source: PixelBuffer, destination: PixelBuffer?,
        kernels: some Kernels
    ) throws -> PixelBuffer {
        var current = source
        var pending: [Float] = []
        /// Where a pass of `width`×`height` writes: the destination (or the image itself),
        /// unless that is what it reads and the pass cannot work in place.
        func target(width: Int, height: Int, inPlace: Bool) throws(ImageIOError) -> PixelBuffer {
            let dst = destination ?? current
            let fits = dst.width == width && dst.height == height
            if fits && (dst !== current || inPlace) { return dst }
            return try PixelBuffer(width: width, height: height, hasAlpha: current.hasAlpha)
        }
        func flush() throws(ImageIOError) {
            guard !pending.isEmpty else { return }
            let dst = try target(width: current.width, height: current.height, inPlace: true)
            kernels.color(pending, from: current, into: dst)
            current = dst
            pending = []
        }
        for stage in stages {
            switch stage {
            case let .color(matrix):
                pending += matrix.kernelCoefficients
            case let .spatial(spatial):
                guard !spatial.isIdentity else { continue }
                try flush()
                try spatial.check(width: current.width, height: current.height)  // before any allocation
                let size = spatial.outputSize(width: current.width, height: current.height)
                let sameSize = size == (current.width, current.height)
                let dst = try target(width: size.width, height: size.height, inPlace: sameSize && spatial.inPlace)
                try kernels.spatial(spatial, from: current, into: dst)
                current = dst
            }
        }
        try flush()
        if let destination, current !== destination {
            // Only when nothing ran (or a no-op blur): the destination still gets the picture.
            precondition(
                destination.width == current.width && destination.height == current.height,
                "the destination must have the chain's output size")
            for y in 0..<current.height { destination.row(y).update(from: current.row(y), count: current.width * 4) }
            return destination
        }
        return current
    }
}

/// The C kernels (CFilterKernels), in row strips over threads.
struct FastKernels: Kernels {
    let threads: Int

    func color(_ coefficients: [Float], from src: PixelBuffer, into dst: PixelBuffer) {
        let count = Int32(coefficients.count / Int(CK_STAGE_FLOATS))
        Strips.run(height: src.height, threads: threads) { rows in
            coefficients.withUnsafeBufferPointer { c in
                ck_color_chain(
                    src.row(rows.lowerBound), src.stride, dst.row(rows.lowerBound), dst.stride,
                    src.width, rows.count, c.baseAddress, count)
            }
        }
    }

    func spatial(_ stage: any SpatialStage, from src: PixelBuffer, into dst: PixelBuffer) throws {
        // In place, short strips handed out as threads free up; otherwise one tall strip
        // per thread (each recomputes what it needs around its edges once).
        let rows =
            stage.inPlace ? Strips.targetRows : max(Strips.targetRows, (dst.height + threads - 1) / max(1, threads))
        let workers = max(1, min(threads, (dst.height + rows - 1) / rows))
        // One kernel (scratch memory) per thread, made up front: running out of memory is an error, not a crash.
        var kernels: [any SpatialKernel] = []
        for _ in 0..<workers { kernels.append(try stage.makeKernel(width: src.width, height: src.height)) }
        let perThread = UncheckedSendable(kernels)
        let failure = FirstError()
        Strips.run(height: dst.height, threads: workers, rowsPerStrip: rows) { worker, strip in
            do {
                try perThread.value[worker].run(strip, from: src, firstRow: 0, into: dst, firstRow: 0)
            } catch {
                failure.record(error)
            }
        }
        if let error = failure.error { throw error }
    }
}

/// The frames filtered so far, set from several threads.
/// Values set from several threads at once, by index.
final class LockedArray<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element?]
    init(count: Int) { storage = Array(repeating: nil, count: count) }
    subscript(i: Int) -> Element? {
        get { lock.withLock { storage[i] } }
        set { lock.withLock { storage[i] = newValue } }
    }
    var values: [Element?] { lock.withLock { storage } }
}

final class FrameResults: @unchecked Sendable {
    private let lock = NSLock()
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
    private let lock = NSLock()
    private var first: (any Error)?
    func record(_ error: any Error) { lock.withLock { if first == nil { first = error } } }
    var error: (any Error)? { lock.withLock { first } }
}

/// Which build of the C kernels runs: the best the CPU has, or a lower one on request.
public enum KernelISA: Int32, Sendable, CaseIterable {
    case baseline = 0
    case sse41 = 1
    case avx2 = 2
    case avx512 = 3

    public static var best: KernelISA { KernelISA(rawValue: ck_isa_best()) ?? .baseline }
    public static var active: KernelISA { KernelISA(rawValue: ck_isa_active()) ?? .baseline }

    /// Switches every later kernel call to `isa` (or the best below it the CPU has).
    @discardableResult
    public static func select(_ isa: KernelISA) -> KernelISA {
        KernelISA(rawValue: ck_isa_select(isa.rawValue)) ?? .baseline
    }

    /// The builds this CPU can run, best first.
    public static var available: [KernelISA] { allCases.filter { $0.rawValue <= best.rawValue }.reversed() }

    public var name: String { String(cString: ck_isa_name(rawValue)) }
}

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
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: min(threads, strips)) { worker in
            while true {
                let strip = next.increment()
                guard strip < strips else { return }
                let start = strip * rowsPerStrip
                body(worker, start..<min(height, start + rowsPerStrip))
            }
        }
    }
}
