import CJPEGShim
import CPNGShim
import Foundation

/// How to encode.
public struct EncodeOptions: Sendable, Equatable {
    public static let defaultJPEGQuality = 90
    public static let defaultPNGLevel = 6

    public var format: ImageFormat
    /// 1–100.
    public var jpegQuality: Int
    /// zlib level 0–9.
    public var pngLevel: Int

    public init(format: ImageFormat, jpegQuality: Int = EncodeOptions.defaultJPEGQuality,
                pngLevel: Int = EncodeOptions.defaultPNGLevel) {
        self.format = format
        self.jpegQuality = jpegQuality
        self.pngLevel = pngLevel
    }
}

public enum ImageEncoder {
    /// Rows handed to the C encoder per call.
    static let rowBatch = 64

    /// Encodes `image` to the open descriptor `fd`. `path` names the destination in errors.
    /// PNG keeps the alpha channel when the image has one; JPEG has none.
    public static func encode(_ image: PixelBuffer, to fd: Int32, path: String,
                              options: EncodeOptions) throws(ImageIOError) {
        switch options.format {
        case .jpeg: try encodeJPEG(image, fd: fd, path: path, quality: options.jpegQuality)
        case .png: try encodePNG(image, fd: fd, path: path, level: options.pngLevel)
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

    static func encodePNG(_ image: PixelBuffer, fd: Int32, path: String, level: Int) throws(ImageIOError) {
        guard let encoder = cp_encoder_create() else { throw .outOfMemory(bytes: 0) }
        defer { cp_encoder_destroy(encoder) }
        func check(_ code: Int32) throws(ImageIOError) {
            guard code != Int32(CP_OK) else { return }
            let message = String(cString: cp_encoder_message(encoder))
            if code == Int32(CP_ERR_IO) {
                throw .writeFailed(path: path, reason: errnoReason(cp_encoder_errno(encoder), fallback: message))
            }
            throw .writeFailed(path: path, reason: "PNG encoder: \(message)")
        }
        try check(cp_encoder_start(encoder, fd, UInt32(image.width), UInt32(image.height),
                                   image.hasAlpha ? 1 : 0, Int32(level)))
        var y = 0
        while y < image.height {
            let n = min(rowBatch, image.height - y)
            try check(cp_encoder_write_rows(encoder, image.row(y), image.stride, UInt32(n)))
            y += n
        }
        try check(cp_encoder_finish(encoder))
    }
}

func errnoReason(_ code: Int32, fallback: String = "") -> String {
    switch code {
    case ENOSPC: return "no space left on the device"
    case 0: return fallback
    default: return String(cString: strerror(code))
    }
}
