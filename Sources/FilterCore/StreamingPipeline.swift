import CFilterKernels
import Foundation
import ImageIO

/// Decode → filter → encode a strip of rows at a time, the decoder on a thread of its
/// own and the filters and the encoder on the caller's, so a 12 MP photo never sits whole
/// in memory and decoding overlaps encoding. Colour filters work on each strip; one
/// spatial filter may sit anywhere in the chain: vignette needs only each row's position,
/// blur and sharpen keep a sliding window of rows (radius rows above and below the rows
/// being written). The bytes are the same as the whole-image path's.
public enum StreamingPipeline {
    public static let stripRows = 32
    /// Strips in flight between the decoder and the encoder.
    static let depth = 3

    /// Colour stages before the spatial one, the spatial one (if any), colour stages after.
    struct Plan {
        var before: [Float] = []
        var spatial: FilterStage?
        var after: [Float] = []
    }

    static func plan(_ chain: FilterChain) -> Plan? {
        var plan = Plan()
        for stage in chain.stages {
            switch stage {
            case let .color(matrix):
                if plan.spatial == nil { plan.before += matrix.kernelCoefficients } else { plan.after += matrix.kernelCoefficients }
            case let .blur(sigma) where GaussianKernel(sigma: sigma).radius == 0:
                continue  // no-op, as in the whole-image path
            default:
                guard plan.spatial == nil else { return nil }  // two spatial stages: whole image
                plan.spatial = stage
            }
        }
        return plan
    }

    public static func canStream(_ chain: FilterChain, _ reader: ImageReader) -> Bool {
        reader.canStream && plan(chain) != nil
    }

    public static func run(reader: ImageReader, writer: ImageWriter, chain: FilterChain) throws(ImageIOError) {
        guard reader.canStream, let plan = plan(chain) else { preconditionFailure("canStream first") }
        let channel = StripChannel(depth: depth)
        var free: [PixelBuffer] = []
        for _ in 0..<depth {
            let strip = try PixelBuffer(width: reader.width, height: stripRows, hasAlpha: reader.hasAlpha)
            strip.base.initialize(repeating: 0, count: strip.byteCount)
            free.append(strip)
        }
        let spare = StripPool(free)
        let reader = UncheckedSendable(reader)
        let decoder = Thread {
            var row = 0
            while row < reader.value.height {
                guard let strip = spare.take() else { return }  // the consumer gave up
                let count = min(stripRows, reader.value.height - row)
                do throws(ImageIOError) {
                    try reader.value.readRows(into: strip, at: 0, count: count)
                } catch {
                    channel.send(.failed(error))
                    return
                }
                row += count
                channel.send(.strip(strip, count))
            }
            channel.send(.end)
        }
        decoder.start()
        defer { spare.close() }

        let stage = try Stage(plan, width: reader.value.width, height: reader.value.height, hasAlpha: reader.value.hasAlpha)
        while true {
            switch channel.receive() {
            case let .strip(strip, count):
                try stage.take(strip, rows: count, writer: writer)
                spare.give(strip)
            case let .failed(error):
                throw error
            case .end:
                try writer.finish()
                return
            }
        }
    }

    /// The filters of a plan applied strip by strip.
    final class Stage {
        let plan: Plan
        let width: Int, height: Int
        private var row = 0
        // Blur and sharpen: the window of input rows [windowStart, windowEnd), the next row to write.
        private var kernel: GaussianKernel?
        private var window: PixelBuffer?
        private var windowStart = 0, windowEnd = 0, nextOutput = 0
        private var output: PixelBuffer?
        private var scratch: UnsafeMutableRawPointer?
        private var outputRows = 0
        // Vignette: squared distances of every column and row.
        private var dx2: [Float] = [], dy2: [Float] = []

        init(_ plan: Plan, width: Int, height: Int, hasAlpha: Bool) throws(ImageIOError) {
            self.plan = plan
            self.width = width
            self.height = height
            switch plan.spatial {
            case let .blur(sigma)?: try makeWindow(GaussianKernel(sigma: sigma), hasAlpha)
            case .sharpen?: try makeWindow(GaussianKernel(sigma: FilterDefinition.sharpenSigma), hasAlpha)
            case .vignette?:
                dx2 = VignetteTables.squaredDistances(width)
                dy2 = VignetteTables.squaredDistances(height)
            default: break
            }
        }

        deinit { free(scratch) }

        private func makeWindow(_ kernel: GaussianKernel, _ hasAlpha: Bool) throws(ImageIOError) {
            self.kernel = kernel
            // Output strips of at least 4 radii: each recomputes 2 radii of horizontal passes.
            outputRows = max(stripRows, 4 * kernel.radius)
            window = try PixelBuffer(width: width, height: outputRows + 2 * kernel.radius + 2 * stripRows, hasAlpha: hasAlpha)
            output = try PixelBuffer(width: width, height: outputRows, hasAlpha: hasAlpha)
            let bytes = ck_blur_scratch_bytes(width, Int32(kernel.radius))
            guard posix_memalign(&scratch, 64, bytes) == 0, scratch != nil else { throw .outOfMemory(bytes: bytes) }
        }

        /// The next `rows` decoded rows, in `strip`.
        func take(_ strip: PixelBuffer, rows: Int, writer: ImageWriter) throws(ImageIOError) {
            Self.color(plan.before, strip, rows: rows)
            defer { row += rows }
            switch plan.spatial {
            case nil:
                break
            case let .vignette(amount):
                dx2.withUnsafeBufferPointer { dx in
                    dy2.withUnsafeBufferPointer { dy in
                        ck_vignette(strip.base, strip.stride, strip.base, strip.stride, width, rows,
                                    dx.baseAddress, dy.baseAddress! + row, Float(amount))
                    }
                }
            case let .sharpen(amount):
                try slide(strip, rows: rows, writer: writer, sharpen: Float(amount))
                return
            default:
                try slide(strip, rows: rows, writer: writer, sharpen: nil)
                return
            }
            Self.color(plan.after, strip, rows: rows)
            try writer.write(strip, rows: 0..<rows)
        }

        /// Adds rows to the window, then writes every output row whose neighbourhood is in.
        private func slide(_ strip: PixelBuffer, rows: Int, writer: ImageWriter, sharpen: Float?) throws(ImageIOError) {
            guard let kernel, let window, let output, let scratch else { return }
            let r = kernel.radius
            if windowEnd - windowStart + rows > window.height {  // drop rows no output needs any more
                let keepFrom = max(windowStart, nextOutput - r)
                for y in keepFrom..<windowEnd {
                    window.row(y - keepFrom).update(from: window.row(y - windowStart), count: width * 4)
                }
                windowStart = keepFrom
            }
            for y in 0..<rows {
                window.row(windowEnd - windowStart + y).update(from: strip.row(y), count: width * 4)
            }
            windowEnd += rows
            while nextOutput < height {
                let n = min(outputRows, height - nextOutput)
                guard windowEnd >= min(height, nextOutput + n + r) else { return }
                kernel.weights.withUnsafeBufferPointer { w in
                    ck_blur_rows(window.base, window.stride, output.base, output.stride, width, height,
                                 nextOutput, nextOutput + n, windowStart, nextOutput, w.baseAddress, Int32(r), scratch)
                }
                if let sharpen {
                    ck_unsharp(window.row(nextOutput - windowStart), window.stride, output.base, output.stride, width, n, sharpen)
                }
                Self.color(plan.after, output, rows: n)
                try writer.write(output, rows: 0..<n)
                nextOutput += n
            }
        }

        static func color(_ coefficients: [Float], _ buffer: PixelBuffer, rows: Int) {
            guard !coefficients.isEmpty else { return }
            coefficients.withUnsafeBufferPointer { c in
                ck_color_chain(buffer.base, buffer.stride, buffer.base, buffer.stride, buffer.width, rows, c.baseAddress,
                               Int32(c.count / Int(CK_STAGE_FLOATS)))
            }
        }
    }
}

struct UncheckedSendable<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

/// Decoded strips on their way from the decoder thread to the encoder.
final class StripChannel: @unchecked Sendable {
    enum Message { case strip(PixelBuffer, Int), failed(ImageIOError), end }
    private let condition = NSCondition()
    private var messages: [Message] = []
    private let depth: Int
    init(depth: Int) { self.depth = depth }

    func send(_ message: Message) {
        condition.lock()
        messages.append(message)
        condition.signal()
        condition.unlock()
    }

    func receive() -> Message {
        condition.lock()
        defer { condition.unlock() }
        while messages.isEmpty { condition.wait() }
        return messages.removeFirst()
    }
}

/// Empty strip buffers; closing it makes the decoder stop.
final class StripPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffers: [PixelBuffer]
    private var closed = false
    init(_ buffers: [PixelBuffer]) { self.buffers = buffers }

    func take() -> PixelBuffer? {
        condition.lock()
        defer { condition.unlock() }
        while buffers.isEmpty && !closed { condition.wait() }
        return closed ? nil : buffers.removeLast()
    }

    func give(_ buffer: PixelBuffer) {
        condition.lock()
        buffers.append(buffer)
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
