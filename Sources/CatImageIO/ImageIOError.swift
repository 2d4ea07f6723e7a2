import CatPixels
import CatSupport

/// Everything that can go wrong while reading, decoding, encoding or writing an image.
/// `description` is a complete human sentence naming the file and the reason.
public enum ImageIOError: PixelFailing, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are in no format catctl reads.
    case notAnImage(file: String, head: [UInt8])
    /// The data is damaged (libjpeg/libpng said why).
    case corrupt(file: String, reason: String)
    /// The data stops before the image does.
    case truncated(file: String)
    /// A valid file this build cannot decode (a 12-bit JPEG).
    case unsupported(file: String, reason: String)
    /// The declared size (of every frame together) is over the pixel limit; refused before
    /// allocating anything.
    case tooLarge(file: String, width: Int, height: Int, frames: Int = 1, limit: Int)
    /// A resource limit other than size (e.g. progressive scans).
    case limitExceeded(file: String, reason: String)
    /// A size that cannot be, or memory that is not there (`PixelBuffer`).
    case pixels(PixelError)
    /// The input does not exist or cannot be read.
    case inputMissing(path: String)
    case inputUnreadable(path: String, reason: String)
    /// The output cannot be created (folder missing, not writable).
    case cannotCreate(path: String, reason: String)
    /// The output is the input file (refused unless forced).
    case outputIsInput(path: String)
    /// A file catctl needs is missing or unusable: an installation problem.
    case resourceMissing(String)
    /// Writing failed part way (disk full, I/O error).
    case writeFailed(path: String, reason: String)
    /// Object storage failed (`s3://` paths): the kind of failure decides the exit status.
    case storage(StorageError)

    public var description: String {
        switch self {
        case let .notAnImage(file, head):
            let hex = head.prefix(4).map { String(printf: "%02X", $0) }.joined(separator: " ")
            if head.isEmpty { return "cannot decode \(file): the file is empty" }
            if let known = ImageCodecs.unsupportedFormat(head) {
                return "cannot decode \(file): \(known) is not supported (catctl reads \(ImageCodecs.displayNames))"
            }
            return "cannot decode \(file): not a \(ImageCodecs.displayNames) file (starts with \(hex))"
        case let .corrupt(file, reason): return "cannot decode \(file): corrupt data (\(reason))"
        case let .truncated(file): return "cannot decode \(file): the file is truncated"
        case let .unsupported(file, reason): return "cannot decode \(file): \(reason)"
        case let .tooLarge(file, w, h, frames, limit):
            let size = frames == 1 ? "\(w)x\(h)" : "\(w)x\(h) x \(frames) frames"
            return "cannot decode \(file): \(size) is \(PixelError.pixels(product: [w, h, frames])), "
                + "over the limit of \(PixelError.pixels(limit))"
        case let .limitExceeded(file, reason): return "cannot decode \(file): \(reason)"
        case let .pixels(error): return error.description
        case let .inputMissing(path): return "cannot read \(path): no such file"
        case let .inputUnreadable(path, reason): return "cannot read \(path): \(reason)"
        case let .cannotCreate(path, reason): return "cannot create \(path): \(reason)"
        case let .outputIsInput(path): return "cannot create \(path): it is the input file"
        case let .writeFailed(path, reason): return "cannot write \(path): \(reason)"
        case let .storage(error): return error.description
        case let .resourceMissing(what): return "cannot load \(what)"
        }
    }
}
