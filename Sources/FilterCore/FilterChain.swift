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

    /// Every stage of every filter, in order.
    public var stages: [FilterStage] { filters.flatMap(\.stages) }

    /// Runs the chain with the fast kernels over `threads` threads. Colour stages work in
    /// place; the result is `image` itself, or a new buffer when a spatial stage ran.
    public func apply(to image: PixelBuffer,
                      threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(ImageIOError) -> PixelBuffer {
        try Executor.run(stages, source: image, destination: nil, kernels: FastKernels(threads: threads))
    }

    /// Runs the chain with the fast kernels from `source` into `destination` (same size),
    /// leaving `source` as it is.
    public func apply(from source: PixelBuffer, into destination: PixelBuffer,
                      threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(ImageIOError) {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: FastKernels(threads: threads))
    }

    /// The same with the plain scalar reference (for tests and `bench`).
    public func applyReference(to image: PixelBuffer) throws(ImageIOError) -> PixelBuffer {
        try Executor.run(stages, source: image, destination: nil, kernels: Reference())
    }

    public func applyReference(from source: PixelBuffer, into destination: PixelBuffer) throws(ImageIOError) {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: Reference())
    }
}

/// What a set of kernels provides: the fast C kernels, or the Swift reference.
protocol Kernels {
    /// `coefficients`: stages of ColorMatrix.kernelCoefficients, back to back. dst may be src.
    func color(_ coefficients: [Float], from src: PixelBuffer, into dst: PixelBuffer)
    /// dst must not be src.
    func blur(_ kernel: GaussianKernel, from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError)
    /// `blurred` holds a blur of src and receives the result.
    func unsharp(amount: Float, source src: PixelBuffer, blurred: PixelBuffer)
    /// dst may be src.
    func vignette(amount: Float, from src: PixelBuffer, into dst: PixelBuffer)
}

/// Runs stages with one set of kernels: consecutive colour stages fused into one pass,
/// spatial stages each a pass of their own.
enum Executor {
    static func run(_ stages: [FilterStage], source: PixelBuffer, destination: PixelBuffer?,
                    kernels: some Kernels) throws(ImageIOError) -> PixelBuffer {
        var current = source
        var pending: [Float] = []
        /// Where a pass writes: the destination (or the image itself), unless that is
        /// what it reads and the pass cannot work in place.
        func target(inPlace: Bool) throws(ImageIOError) -> PixelBuffer {
            let dst = destination ?? current
            if dst !== current || inPlace { return dst }
            return try PixelBuffer(width: current.width, height: current.height, hasAlpha: current.hasAlpha)
        }
        func flush() throws(ImageIOError) {
            guard !pending.isEmpty else { return }
            let dst = try target(inPlace: true)
            kernels.color(pending, from: current, into: dst)
            current = dst
            pending = []
        }
        for stage in stages {
            switch stage {
            case let .color(matrix):
                pending += matrix.kernelCoefficients
            case let .blur(sigma):
                try flush()
                let kernel = GaussianKernel(sigma: sigma)
                guard kernel.radius > 0 else { continue }
                let dst = try target(inPlace: false)
                try kernels.blur(kernel, from: current, into: dst)
                current = dst
            case let .sharpen(amount):
                try flush()
                let dst = try target(inPlace: false)
                try kernels.blur(GaussianKernel(sigma: FilterDefinition.sharpenSigma), from: current, into: dst)
                kernels.unsharp(amount: Float(amount), source: current, blurred: dst)
                current = dst
            case let .vignette(amount):
                try flush()
                let dst = try target(inPlace: true)
                kernels.vignette(amount: Float(amount), from: current, into: dst)
                current = dst
            }
        }
        try flush()
        if let destination, current !== destination {
            // Only when nothing ran (or a no-op blur): the destination still gets the picture.
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
                ck_color_chain(src.row(rows.lowerBound), src.stride, dst.row(rows.lowerBound), dst.stride,
                               src.width, rows.count, c.baseAddress, count)
            }
        }
    }

    func blur(_ kernel: GaussianKernel, from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError) {
        // One tall strip per thread: each strip recomputes 2·radius rows at its edges.
        let rows = max(Strips.targetRows, (src.height + threads - 1) / max(1, threads))
        let strips = (src.height + rows - 1) / rows
        let scratchBytes = ck_blur_scratch_bytes(src.width, Int32(kernel.radius))
        // Scratch for every strip up front, so running out of memory is an error, not a crash.
        var scratches: [UnsafeMutableRawPointer] = []
        defer { scratches.forEach { free($0) } }
        for _ in 0..<strips {
            var scratch: UnsafeMutableRawPointer?
            guard posix_memalign(&scratch, 64, scratchBytes) == 0, let scratch else { throw .outOfMemory(bytes: scratchBytes) }
            scratches.append(scratch)
        }
        let pointers = UncheckedPointers(scratches)
        Strips.run(height: src.height, threads: threads, rowsPerStrip: rows) { strip in
            let scratch = pointers.values[strip.lowerBound / rows]
            kernel.weights.withUnsafeBufferPointer { w in
                ck_blur_rows(src.base, src.stride, dst.base, dst.stride, src.width, src.height,
                             strip.lowerBound, strip.upperBound, 0, 0, w.baseAddress, Int32(kernel.radius), scratch)
            }
        }
    }

    func unsharp(amount: Float, source src: PixelBuffer, blurred: PixelBuffer) {
        Strips.run(height: src.height, threads: threads) { rows in
            ck_unsharp(src.row(rows.lowerBound), src.stride, blurred.row(rows.lowerBound), blurred.stride,
                       src.width, rows.count, amount)
        }
    }

    func vignette(amount: Float, from src: PixelBuffer, into dst: PixelBuffer) {
        let dx2 = VignetteTables.squaredDistances(src.width), dy2 = VignetteTables.squaredDistances(src.height)
        Strips.run(height: src.height, threads: threads) { rows in
            dx2.withUnsafeBufferPointer { dx in
                dy2.withUnsafeBufferPointer { dy in
                    ck_vignette(src.row(rows.lowerBound), src.stride, dst.row(rows.lowerBound), dst.stride,
                                src.width, rows.count, dx.baseAddress, dy.baseAddress! + rows.lowerBound, amount)
                }
            }
        }
    }
}

struct UncheckedPointers: @unchecked Sendable {
    let values: [UnsafeMutableRawPointer]
    init(_ values: [UnsafeMutableRawPointer]) { self.values = values }
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
    public static func select(_ isa: KernelISA) -> KernelISA { KernelISA(rawValue: ck_isa_select(isa.rawValue)) ?? .baseline }

    /// The builds this CPU can run, best first.
    public static var available: [KernelISA] { allCases.filter { $0.rawValue <= best.rawValue }.reversed() }

    public var name: String { String(cString: ck_isa_name(rawValue)) }
}

/// Splitting an image into row strips over threads.
enum Strips {
    /// Rows per strip for per-pixel kernels: small enough to balance, large enough to stream.
    static let targetRows = 16

    static func run(height: Int, threads: Int, rowsPerStrip: Int = targetRows, _ body: @Sendable (Range<Int>) -> Void) {
        let threads = max(1, threads)
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        if threads == 1 || strips < 2 {
            body(0..<height)
            return
        }
        // Strips are handed out as threads become free, so uneven cores finish together.
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: min(threads, strips)) { _ in
            while true {
                let strip = next.increment()
                guard strip < strips else { return }
                let start = strip * rowsPerStrip
                body(start..<min(height, start + rowsPerStrip))
            }
        }
    }
}
