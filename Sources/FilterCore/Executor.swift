internal import CFilterKernels
import CatPixels
import CatSupport
import Dispatch

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
        func target(width: Int, height: Int, inPlace: Bool) throws(FilterError) -> PixelBuffer {
            let dst = destination ?? current
            let fits = dst.width == width && dst.height == height
            if fits && (dst !== current || inPlace) { return dst }
            return try FilterError.allocating { () throws(PixelError) in
                try PixelBuffer(width: width, height: height, hasAlpha: current.hasAlpha)
            }
        }
        func flush() throws(FilterError) {
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
        let failure = LockedValue<(any Error)?>(nil)
        Strips.run(height: dst.height, threads: workers, rowsPerStrip: rows) { worker, strip in
            do {
                try perThread.value[worker].run(strip, from: src, firstRow: 0, into: dst, firstRow: 0)
            } catch {
                failure.recordFirst(error)
            }
        }
        if let error = failure.current { throw error }
    }
}
