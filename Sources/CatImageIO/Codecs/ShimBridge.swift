internal import CShimSupport
import CatPixels
import CatSupport

/// What the codecs' C shims share on the Swift side. Every shim answers with the same
/// codes (0 OK, 1 corrupt, 2 truncated, 3 unsupported, 4 out of memory, 5 I/O with an
/// errno, 6 called out of order, 7 over the caller's limit) and a message, and takes
/// the ICC profile, EXIF (bare TIFF data) and XMP as pointer and length pairs.
enum ShimCode {
    static let ok = Int32(CS_OK), corrupt = Int32(CS_ERR_CORRUPT), truncated = Int32(CS_ERR_TRUNCATED)
    static let unsupported = Int32(CS_ERR_UNSUPPORTED), noMemory = Int32(CS_ERR_NOMEM), io = Int32(CS_ERR_IO)
    static let state = Int32(CS_ERR_STATE), limit = Int32(CS_ERR_LIMIT)

    /// Why a shim's libraries, loaded when first needed, are not there (`available` is the
    /// shim's `*_available(why, size)`), as "`format` needs `libraries`, which could not be
    /// loaded (reason)"; nil when they are.
    static func missingLibraries(
        _ available: (UnsafeMutablePointer<CChar>, Int) -> Int32, format: String, libraries: String
    ) -> String? {
        var why = [CChar](repeating: 0, count: 512)
        guard why.withUnsafeMutableBufferPointer({ available($0.baseAddress!, $0.count) }) == 0 else { return nil }
        let reason = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "\(format) needs \(libraries), which could not be loaded (\(reason))"
    }

    /// A decoder's failure as the error users see.
    static func decodeError(_ code: Int32, message: String, name: String) -> ImageIOError {
        switch code {
        case truncated: return .truncated(file: name)
        case unsupported: return .unsupported(file: name, reason: message)
        case noMemory: return .pixels(.outOfMemory(bytes: 0))
        case limit: return .limitExceeded(file: name, reason: message)
        default: return .corrupt(file: name, reason: message)
        }
    }

    /// An encoder's failure as the error users see; `format` names the encoder.
    static func encodeError(
        _ code: Int32, message: String, errorNumber: Int32, path: String, format: String, bytes: Int = 0
    ) -> ImageIOError {
        switch code {
        case noMemory: return .pixels(.outOfMemory(bytes: bytes))
        case io: return .writeFailed(path: path, reason: errnoReason(errorNumber, fallback: message))
        default: return .writeFailed(path: path, reason: "\(format) encoder: \(message)")
        }
    }

    /// The text of a C message buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The metadata as the shims' one struct (CShimSupport's `cs_metadata`: NULL and 0 where a
/// part is absent), valid during `body`. Each encoder says which parts it writes.
func withCMetadata<R>(
    _ metadata: ImageMetadata, _ body: (UnsafePointer<cs_metadata>) throws(ImageIOError) -> R
) throws(ImageIOError) -> R {
    let icc = metadata.iccProfile ?? [], exif = metadata.exif ?? [], xmp = metadata.xmp ?? []
    let comment = metadata.comment ?? []
    return try icc.withUnsafeBufferPointer { icc throws(ImageIOError) in
        try exif.withUnsafeBufferPointer { exif throws(ImageIOError) in
            try xmp.withUnsafeBufferPointer { xmp throws(ImageIOError) in
                try comment.withUnsafeBufferPointer { comment throws(ImageIOError) in
                    var m = cs_metadata(
                        icc: icc.baseAddress, icc_length: icc.count, exif: exif.baseAddress, exif_length: exif.count,
                        xmp: xmp.baseAddress, xmp_length: xmp.count, comment: comment.baseAddress,
                        comment_length: comment.count, icc_dropped: 0, exif_dropped: 0, xmp_dropped: 0)
                    return try body(&m)
                }
            }
        }
    }
}

extension ImageMetadata {
    /// What a shim's decoder read (its info's `metadata`), copied out of the decoder's
    /// memory, with a note for each block it left out. `uprightExif`: the decoder applies
    /// the orientation itself (JPEG XL's codestream, HEIF's irot/imir win over EXIF), so the
    /// EXIF is copied with its orientation set to 1 and nothing turns the pixels again.
    init(shim m: cs_metadata, uprightExif: Bool = false) {
        var exif = copiedBytes(m.exif, m.exif_length)
        if uprightExif, exif != nil { ExifOrientation.reset(&exif!) }
        self.init(
            iccProfile: copiedBytes(m.icc, m.icc_length), exif: exif, xmp: copiedBytes(m.xmp, m.xmp_length),
            comment: copiedBytes(m.comment, m.comment_length),
            leftOut: ImageMetadata.leftOut(icc: m.icc_dropped, exif: m.exif_dropped, xmp: m.xmp_dropped))
    }
}

/// A copy of the `count` bytes at `start` (C metadata the codec owns), or nil when there are none.
func copiedBytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8]? {
    guard let start, count > 0 else { return nil }
    return Array(UnsafeBufferPointer(start: start, count: count))
}
