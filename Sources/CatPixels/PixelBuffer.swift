import CatSupport

/// The one pixel format of catctl: 8-bit RGBA, rows `stride` bytes apart, every row
/// 64-byte aligned (stride is a multiple of 64, so SIMD loads never straddle rows).
/// Codecs convert to and from it at the edge; filters only ever see this.
// @unchecked: memory shared by design: threads write disjoint rows (strips), and a pass ends before the next reads.
public final class PixelBuffer: @unchecked Sendable {
    public static let alignment = 64

    public let width: Int
    public let height: Int
    /// Bytes from the start of one row to the next (≥ width·4).
    public let stride: Int
    /// Whether the alpha channel carries information (PNG alpha or tRNS). When false,
    /// every alpha byte is 255 and encoders may drop the channel.
    public var hasAlpha: Bool
    public let base: UnsafeMutablePointer<UInt8>
    /// The buffer whose memory this one shows (a view), kept alive by it; nil when it owns its own.
    private let owner: PixelBuffer?

    /// Allocates an uninitialised buffer. Throws when the size overflows or memory runs out.
    /// Rows start on `alignment` bytes when that costs at most an eighth of a row; a narrow
    /// picture's rows are packed, else a 1-pixel-wide one would take 64 bytes a pixel (a
    /// 544-byte WebP of ten 1x9961473 frames, within the pixel limit, took 1.3 GB).
    public convenience init(width: Int, height: Int, hasAlpha: Bool = false) throws(PixelError) {
        let (rowBytes, o1) = width.multipliedReportingOverflow(by: 4)
        let (padded, o2) = rowBytes.addingReportingOverflow(Self.alignment - 1)
        guard !o1, !o2 else { throw .invalidSize(width: width, height: height) }
        let stride = rowBytes >= 8 * Self.alignment ? padded / Self.alignment * Self.alignment : rowBytes
        try self.init(width: width, height: height, stride: stride, hasAlpha: hasAlpha)
    }

    /// A buffer with an explicit stride (≥ width·4, any value: kernels must not assume
    /// alignment; tests use odd strides).
    public init(width: Int, height: Int, stride: Int, hasAlpha: Bool = false) throws(PixelError) {
        guard width > 0, height > 0, width <= Int.max / 4, stride >= width * 4 else {
            throw .invalidSize(width: width, height: height)
        }
        let (total, o3) = stride.multipliedReportingOverflow(by: height)
        guard !o3 else { throw .invalidSize(width: width, height: height) }
        guard let raw = alignedAllocation(Self.alignment, total) else {
            throw .outOfMemory(bytes: total)
        }
        self.width = width
        self.height = height
        self.stride = stride
        self.hasAlpha = hasAlpha
        self.base = raw.bindMemory(to: UInt8.self, capacity: total)
        owner = nil
    }

    /// The `width` x `height` rectangle of `buffer` at `x`, `y`, sharing its memory (no
    /// copy): rows keep the buffer's stride, so they need not be aligned.
    public init(viewing buffer: PixelBuffer, x: Int, y: Int, width: Int, height: Int) {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0)
        precondition(x + width <= buffer.width && y + height <= buffer.height)
        self.width = width
        self.height = height
        stride = buffer.stride
        hasAlpha = buffer.hasAlpha
        base = buffer.row(y) + 4 * x
        owner = buffer
    }

    deinit { if owner == nil { free(base) } }

    public var byteCount: Int { stride * height }
    public var pixelCount: Int { width * height }

    /// The first byte of row `y`.
    @inlinable public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }

    /// A buffer of the same size and stride, with the same bytes.
    public func copy() throws(PixelError) -> PixelBuffer {
        let other = try PixelBuffer(width: width, height: height, stride: stride, hasAlpha: hasAlpha)
        other.base.update(from: base, count: byteCount)
        return other
    }

    /// Fills the buffer with one colour.
    public func fill(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        for y in 0..<height {
            let p = row(y)
            for x in 0..<width {
                p[4 * x] = r; p[4 * x + 1] = g; p[4 * x + 2] = b; p[4 * x + 3] = a
            }
        }
    }

    /// The RGBA bytes of pixel (x, y).
    public func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let p = row(y) + 4 * x
        return (p[0], p[1], p[2], p[3])
    }
}

private func alignedAllocation(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    var pointer: UnsafeMutableRawPointer?
    guard posix_memalign(&pointer, alignment, max(size, alignment)) == 0 else { return nil }
    return pointer
}

extension PixelBuffer {
    /// The size that fits `maxWidth` x `maxHeight`, keeping the aspect ratio (never larger).
    public func fittingSize(maxWidth: Int, maxHeight: Int) -> (Int, Int) {
        let scale = min(1, min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
