import Foundation
import ImageIO

/// Decode → filter → encode a strip of rows at a time, the decoder on a thread of its
/// own and the filters and the encoder on the caller's, so a 12 MP JPEG never sits whole
/// in memory and decoding overlaps encoding. For chains of colour filters (a pixel needs
/// nothing but itself) on inputs that come out upright row by row.
public enum StreamingPipeline {
    public static let stripRows = 32
    /// Strips in flight between the decoder and the encoder.
    static let depth = 3

    public static func canStream(_ chain: FilterChain, _ reader: ImageReader) -> Bool {
        reader.canStream && chain.stages.allSatisfy { if case .color = $0 { true } else { false } }
    }

    public static func run(reader: ImageReader, writer: ImageWriter, chain: FilterChain) throws(ImageIOError) {
        precondition(canStream(chain, reader))
        let channel = StripChannel(depth: depth)
        var free: [PixelBuffer] = []
        for _ in 0..<depth {
            let strip = try PixelBuffer(width: reader.width, height: stripRows, hasAlpha: reader.hasAlpha)
            strip.base.initialize(repeating: 0, count: strip.byteCount)  // the last strip's unused rows are filtered too
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
        while true {
            switch channel.receive() {
            case let .strip(strip, count):
                _ = try chain.apply(to: strip, threads: 1)  // colour stages: in place
                try writer.write(strip, rows: 0..<count)
                spare.give(strip)
            case let .failed(error):
                throw error
            case .end:
                try writer.finish()
                return
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
