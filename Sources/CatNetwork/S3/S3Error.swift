/// What can go wrong with object storage, in the groups an array-job engine acts on
/// (`kind`): worth retrying the task (75), credentials (77), a missing object or bucket,
/// a refusal. `description` never holds a secret: no key, no signature, no token.
public enum S3Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an `s3://bucket/key` the client can use.
    case invalidLocation(String, reason: String)
    /// AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set, or a setting is malformed.
    case notConfigured(String)
    /// The server refused the credentials or the request's rights (401, 403): its own code
    /// (InvalidAccessKeyId, SignatureDoesNotMatch, AccessDenied, ExpiredToken, ...).
    case denied(location: String, code: String, message: String)
    case noSuchBucket(location: String)
    case noSuchKey(location: String)
    /// The object is larger than the limit (its announced size, checked before the download).
    case tooLarge(location: String, bytes: Int64?, limit: Int)
    /// `If-None-Match: *` found the key written meanwhile (another task of the array).
    case alreadyExists(location: String)
    /// The network or the server failed, after the retries: worth running the task again.
    case unavailable(location: String, reason: String)
    /// The server refused the request for another reason (4xx), which a retry will not change.
    case rejected(location: String, status: Int, code: String, message: String)
    /// The server's reply made no sense (a listing with no keys element, a part with no ETag).
    case badReply(location: String, reason: String)
    /// A listing past catctl's bounds (keys, their bytes, pages): give a manifest instead.
    case listingTooLarge(location: String, reason: String)
    /// An output past what an upload can carry (S3's 10000 parts).
    case outputTooLarge(location: String, reason: String)
    case cancelled

    /// What an engine does about it.
    public enum Kind: Sendable, Equatable {
        case usage, credentials, missing, tooLarge, exists, transient, refused, cancelled, cannotWrite
    }

    public var kind: Kind {
        switch self {
        case .invalidLocation, .listingTooLarge: return .usage
        case .outputTooLarge: return .cannotWrite
        case .notConfigured, .denied: return .credentials
        case .noSuchBucket, .noSuchKey: return .missing
        case .tooLarge: return .tooLarge
        case .alreadyExists: return .exists
        case .unavailable: return .transient
        case .rejected, .badReply: return .refused
        case .cancelled: return .cancelled
        }
    }

    public var description: String {
        switch self {
        case let .invalidLocation(text, reason): return "'\(text)' is not an S3 location: \(reason)"
        case let .notConfigured(reason): return "S3 is not configured: \(reason)"
        case let .denied(location, code, message):
            return "S3 refused access to \(location): \(code)\(message.isEmpty ? "" : " (\(message))")"
        case let .noSuchBucket(location): return "cannot read \(location): the bucket does not exist"
        case let .noSuchKey(location): return "cannot read \(location): no such object"
        case let .tooLarge(location, bytes, limit):
            guard let bytes else {
                return "\(location) sent more than the limit of \(limit) bytes; the download was stopped"
            }
            return "\(location) is \(bytes) bytes as S3 announces it, over the limit of \(limit) bytes; "
                + "refused before the download"
        case let .alreadyExists(location): return "\(location) was written meanwhile by another task; kept as it is"
        case let .unavailable(location, reason): return "S3 failed for \(location): \(reason)"
        case let .rejected(location, status, code, message):
            return "S3 refused \(location): HTTP \(status)\(code.isEmpty ? "" : " \(code)")"
                + (message.isEmpty ? "" : " (\(message))")
        case let .badReply(location, reason): return "S3 answered nonsense for \(location): \(reason)"
        case let .listingTooLarge(location, reason): return "cannot list \(location): \(reason)"
        case let .outputTooLarge(location, reason): return "cannot upload \(location): \(reason)"
        case .cancelled: return "cancelled"
        }
    }
}
