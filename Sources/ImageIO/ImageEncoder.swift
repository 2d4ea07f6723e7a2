import CJPEGShim
import CPNGShim
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
    /// Rows handed to the C encoder per call.
    static let rowBatch = 64

    /// Encodes `image` to the open descriptor `fd`. `path` names the destination in errors.
    /// PNG keeps the alpha channel when the image has one (ParallelPNGEncoder); JPEG has none.
    public static func encode(_ image: PixelBuffer, to fd: Int32, path: String,
                              options: EncodeOptions) throws(ImageIOError) {
        switch options.format {
        case .jpeg: try encodeJPEG(image, fd: fd, path: path, quality: options.jpegQuality)
        case .png: try ParallelPNGEncoder.encode(image, to: fd, path: path, level: options.pngLevel, threads: options.threads)
        }
    }

    static func encodeJPEG(_ image: PixelBuffer, fd: Int32, path: String, quality: Int) throws(ImageIOError) {
        guard let encoder = cj_encoder_create() else { throw .outOfMemory(bytes: 0) }
        defer { cj_encoder_destroy(encoder) }
        func check(_ code: Int32) throws(ImageIOError) {
            guard code != Int32(CJ_OK) else { return }
            let message = String(cString: cj_encoder_message(encoder))
            if code == Int32(CJ_ERR_IO) {
                throw .writeFailed(path: path, reason: errnoReason(cj_encoder_errno(encoder), fallback: message))
            }
            throw .writeFailed(path: path, reason: "JPEG encoder: \(message)")
        }
        try check(cj_encoder_start(encoder, fd, UInt32(image.width), UInt32(image.height), Int32(quality)))
        var y = 0
        while y < image.height {
            let n = min(rowBatch, image.height - y)
            try check(cj_encoder_write_rows(encoder, image.row(y), image.stride, UInt32(n)))
            y += n
        }
        try check(cj_encoder_finish(encoder))
    }
}

func errnoReason(_ code: Int32, fallback: String = "") -> String {
    switch code {
    case ENOSPC: return "no space left on the device"
    case 0: return fallback
    default: return String(cString: strerror(code))
    }
}
