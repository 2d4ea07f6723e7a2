import CJPEGShim
import Foundation

/// How to encode.
public struct EncodeOptions: Sendable, Equatable {
    public static let defaultJPEGQuality = 90
    /// zlib level 3 with adaptive row filters: smaller than libvips's default PNGs, in half the time
    /// (see Benchmarks/compare-vips.sh).
    public static let defaultPNGLevel = 3

    public var format: ImageFormat
    /// 1–100.
    public var jpegQuality: Int
    /// zlib level 0–9.
    public var pngLevel: Int
    /// Threads for the PNG encoder's stripes.
    public var threads: Int

    public init(format: ImageFormat, jpegQuality: Int = EncodeOptions.defaultJPEGQuality,
                pngLevel: Int = EncodeOptions.defaultPNGLevel,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.format = format
        self.jpegQuality = jpegQuality
        self.pngLevel = pngLevel
        self.threads = threads
    }
}

public enum ImageEncoder {
    /// Encodes `image` to the open descriptor `fd`. `path` names the destination in errors.
    /// PNG keeps the alpha channel when the image has one; JPEG has none.
    public static func encode(_ image: PixelBuffer, to fd: Int32, path: String,
                              options: EncodeOptions) throws(ImageIOError) {
        let writer = try ImageWriter(fd: fd, path: path, width: image.width, height: image.height,
                                     hasAlpha: image.hasAlpha, options: options)
        try writer.write(image, rows: 0..<image.height)
        try writer.finish()
    }
}

/// Encodes rows as they come (top to bottom) to a file descriptor: JPEG through
/// libjpeg-turbo (baseline 4:2:0), PNG through ParallelPNGEncoder. The one encoding path:
/// ImageEncoder writes all rows at once, the streaming pipeline a strip at a time, so
/// both give the same bytes.
public final class ImageWriter {
    private let path: String
    private let jpeg: OpaquePointer?
    private let png: PNGStreamWriter?
    public let height: Int
    public private(set) var rowsWritten = 0

    public init(fd: Int32, path: String, width: Int, height: Int, hasAlpha: Bool,
                options: EncodeOptions) throws(ImageIOError) {
        self.path = path
        self.height = height
        switch options.format {
        case .jpeg:
            guard width <= 65500, height <= 65500 else {
                throw .cannotCreate(path: path, reason: "JPEG cannot hold \(width)x\(height) pixels (65500 at most); use .png")
            }
            guard let e = cj_encoder_create() else { throw .outOfMemory(bytes: 0) }
            jpeg = e
            png = nil
            try check(cj_encoder_start(e, fd, UInt32(width), UInt32(height), Int32(options.jpegQuality)))
        case .png:
            jpeg = nil
            png = try PNGStreamWriter(fd: fd, path: path, width: width, height: height, hasAlpha: hasAlpha,
                                      level: options.pngLevel, threads: options.threads)
        }
    }

    deinit { if let jpeg { cj_encoder_destroy(jpeg) } }

    /// Encodes `rows` of `buffer` as the next rows of the image.
    public func write(_ buffer: PixelBuffer, rows: Range<Int>) throws(ImageIOError) {
        if let jpeg {
            var y = rows.lowerBound
            while y < rows.upperBound {
                let n = min(64, rows.upperBound - y)
                try check(cj_encoder_write_rows(jpeg, buffer.row(y), buffer.stride, UInt32(n)))
                y += n
            }
        } else if let png {
            try png.write(buffer, rows: rows)
        }
        rowsWritten += rows.count
    }

    /// Ends the file; every row must have been written.
    public func finish() throws(ImageIOError) {
        precondition(rowsWritten == height, "\(rowsWritten) of \(height) rows written")
        if let jpeg { try check(cj_encoder_finish(jpeg)) }
        if let png { try png.finish() }
    }

    private func check(_ code: Int32) throws(ImageIOError) {
        guard code != Int32(CJ_OK), let jpeg else { return }
        let message = String(cString: cj_encoder_message(jpeg))
        if code == Int32(CJ_ERR_IO) {
            throw .writeFailed(path: path, reason: errnoReason(cj_encoder_errno(jpeg), fallback: message))
        }
        throw .writeFailed(path: path, reason: "JPEG encoder: \(message)")
    }
}

func errnoReason(_ code: Int32, fallback: String = "") -> String {
    switch code {
    case ENOSPC: return "no space left on the device"
    case 0: return fallback
    default: return String(cString: strerror(code))
    }
}
