internal import CFilterKernels
import CatImageIO
import Foundation

/// Decode → filter → encode a strip of rows at a time, the decoder on a thread of its
/// own and the filters and the encoder on the caller's, so a 12 MP photo never sits whole
/// in memory and decoding overlaps encoding. Colour filters work on each strip; one
/// spatial stage may sit anywhere in the chain: a stage with no halo (vignette) runs on
/// each strip in place, one with a halo (blur, sharpen) on a sliding window of rows — the
/// halo above and below the rows being written. The bytes are the same as the
/// whole-image path's.
public enum StreamingPipeline {
    public static let stripRows = 32
    /// Strips in flight between the decoder and the encoder.
    static let depth = 3

    /// Colour stages before the spatial one, the spatial one (if any), colour stages after.
    struct Plan {
        var before: [Float] = []
        var spatial: (any SpatialStage)?
        var after: [Float] = []
    }

    /// nil when the chain cannot stream: two spatial stages, or one that needs rows from
    /// the far end first (flip, rotate).
    static func plan(_ chain: FilterChain) -> Plan? {
        var plan = Plan()
        for stage in chain.stages {
            switch stage {
            case let .color(matrix):
                if plan.spatial == nil {
                    plan.before += matrix.kernelCoefficients
                } else {
                    plan.after += matrix.kernelCoefficients
                }
            case let .spatial(spatial):
                if spatial.isIdentity { continue }  // as in the whole-image path
                guard plan.spatial == nil, spatial.streams else { return nil }
                plan.spatial = spatial
            }
        }
        return plan
    }

    public static func canStream(_ chain: FilterChain, _ reader: ImageReader) -> Bool {
        reader.canStream && plan(chain) != nil
    }

    /// `writer` has the chain's output size (`FilterChain.outputSize`). `progress`: the
    /// fraction of rows written so far, after each strip.
    public static func run(
        reader: ImageReader, writer: ImageWriter, chain: FilterChain,
        progress: (Double) -> Void = { _ in }
    ) throws(ImageIOError) {
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

        let height = reader.value.height
        let stage = try Stage(plan, width: reader.value.width, height: height, hasAlpha: reader.value.hasAlpha)
        while true {
            switch channel.receive() {
            case let .strip(strip, count):
                try stage.take(strip, rows: count, writer: writer)
                spare.give(strip)
                progress(Double(writer.rowsWritten) / Double(writer.height))
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
        /// The size written.
        let outputWidth: Int, outputHeight: Int
        private var row = 0
        private let kernel: (any SpatialKernel)?
        // A stage that does not work in place: the window of input rows
        // [windowStart, windowEnd), the next output row to write.
        private var window: PixelBuffer?
        private var windowStart = 0, windowEnd = 0, nextOutput = 0
        private var output: PixelBuffer?
        private var outputRows = 0

        init(_ plan: Plan, width: Int, height: Int, hasAlpha: Bool) throws(ImageIOError) {
            self.plan = plan
            self.width = width
            self.height = height
            (outputWidth, outputHeight) = plan.spatial?.outputSize(width: width, height: height) ?? (width, height)
            kernel = try plan.spatial?.makeKernel(width: width, height: height)
            if let spatial = plan.spatial, !spatial.inPlace {
                // Output strips of at least 4 halos: each recomputes 2 halos of rows at its edges.
                outputRows = min(max(stripRows, 4 * spatial.halo), outputHeight)
                var needed = 0
                for y in stride(from: 0, to: outputHeight, by: outputRows) {
                    let rows = y..<min(outputHeight, y + outputRows)
                    needed = max(needed, spatial.inputRows(forOutput: rows, width: width, height: height).count)
                }
                window = try PixelBuffer(width: width, height: needed + 2 * stripRows, hasAlpha: hasAlpha)
                output = try PixelBuffer(width: outputWidth, height: outputRows, hasAlpha: hasAlpha)
            }
        }

        /// The next `rows` decoded rows, in `strip`.
        func take(_ strip: PixelBuffer, rows: Int, writer: ImageWriter) throws(ImageIOError) {
            Self.color(plan.before, strip, rows: rows)
            defer { row += rows }
            if let kernel, let spatial = plan.spatial {
                if !spatial.inPlace {
                    try slide(strip, rows: rows, spatial: spatial, kernel: kernel, writer: writer)
                    return
                }
                try kernel.run(row..<row + rows, from: strip, firstRow: row, into: strip, firstRow: row)
            }
            Self.color(plan.after, strip, rows: rows)
            try writer.write(strip, rows: 0..<rows)
        }

        /// Adds rows to the window, then writes every output strip whose input rows are in.
        private func slide(
            _ strip: PixelBuffer, rows: Int, spatial: any SpatialStage, kernel: any SpatialKernel,
            writer: ImageWriter
        ) throws(ImageIOError) {
            guard let window, let output, nextOutput < outputHeight else { return }  // past the last output row
            if windowEnd - windowStart + rows > window.height {  // drop rows no output needs any more
                let needed = spatial.inputRows(forOutput: nextOutput..<nextOutput + 1, width: width, height: height)
                let keepFrom = min(windowEnd, max(windowStart, needed.lowerBound))
                for y in keepFrom..<windowEnd {
                    window.row(y - keepFrom).update(from: window.row(y - windowStart), count: width * 4)
                }
                windowStart = keepFrom
            }
            for y in 0..<rows {
                window.row(windowEnd - windowStart + y).update(from: strip.row(y), count: width * 4)
            }
            windowEnd += rows
            while nextOutput < outputHeight {
                let n = min(outputRows, outputHeight - nextOutput)
                let needed = spatial.inputRows(forOutput: nextOutput..<nextOutput + n, width: width, height: height)
                guard windowEnd >= needed.upperBound else { return }
                try kernel.run(
                    nextOutput..<nextOutput + n, from: window, firstRow: windowStart, into: output,
                    firstRow: nextOutput)
                Self.color(plan.after, output, rows: n)
                try writer.write(output, rows: 0..<n)
                nextOutput += n
            }
        }

        static func color(_ coefficients: [Float], _ buffer: PixelBuffer, rows: Int) {
            guard !coefficients.isEmpty else { return }
            coefficients.withUnsafeBufferPointer { c in
                ck_color_chain(
                    buffer.base, buffer.stride, buffer.base, buffer.stride, buffer.width, rows, c.baseAddress,
                    Int32(c.count / Int(CK_STAGE_FLOATS)))
            }
        }
    }
}

struct UncheckedSendable<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

/// Decoded strips on their way from the decoder thread to the encoder.
final class StripChannel: @unchecked Sendable {
    enum Message {
        case strip(PixelBuffer, Int)
        case failed(ImageIOError)
        case end
    }
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
