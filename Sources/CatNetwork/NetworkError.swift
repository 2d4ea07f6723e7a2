/// Everything that can go wrong fetching a cat. `description` names the URL (never a key).
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURL(String)
    /// Only http and https are ever fetched: also for redirects and URLs in replies.
    case unsupportedScheme(url: String)
    case timedOut(url: String, seconds: Double)
    /// No byte moved for `seconds` (a server that stalls mid-transfer).
    case stalled(url: String, seconds: Int)
    case connectionFailed(url: String, reason: String)
    case httpStatus(url: String, status: Int)
    /// `announced`: the size the reply's Content-Length gave, when that was over the limit
    /// (nil: the body ran past it as it came).
    case tooLarge(url: String, limit: Int, announced: Int64? = nil)
    case tooManyRedirects(url: String)
    case tls(url: String, reason: String)
    case transfer(url: String, reason: String)
    /// The provider answered, but not with what a cat API answers.
    case badReply(provider: String, url: String, reason: String)
    /// The "image" is in no format catctl reads (HTML, JSON, ...); `expected` names those
    /// it does ("JPEG or PNG").
    case notAnImage(url: String, contentType: String?, head: [UInt8], expected: String)
    /// A transient failure whose server asked (Retry-After) for a longer wait than catctl
    /// makes between attempts: `failure` says what the server answered.
    case retryTooLate(failure: String, seconds: Double, budget: Double)
    case cancelled

    public var description: String {
        switch self {
        case let .invalidURL(url): return "invalid URL '\(url)'"
        case let .unsupportedScheme(url): return "refusing to fetch \(url): only http and https URLs are allowed"
        case let .timedOut(url, seconds): return "timed out after \(Self.format(seconds)) s fetching \(url)"
        case let .stalled(url, seconds): return "\(url) stalled: no data moved for \(seconds) s"
        case let .connectionFailed(url, reason): return "cannot reach \(url): \(reason)"
        case let .httpStatus(url, status): return "\(url) answered HTTP \(status)"
        case let .tooLarge(url, limit, announced):
            if let announced {
                return
                    "\(url) is \(Self.size(Int(clamping: announced))), over the limit of \(Self.size(limit)); refused"
            }
            return "\(url) is larger than \(Self.size(limit)); refused"
        case let .tooManyRedirects(url): return "too many redirects fetching \(url)"
        case let .tls(url, reason): return "TLS failure for \(url): \(reason)"
        case let .transfer(url, reason): return "fetching \(url) failed: \(reason)"
        case let .badReply(provider, url, reason): return "\(provider) at \(url) did not answer with a cat: \(reason)"
        case let .notAnImage(url, type, head, expected):
            let what =
                type.map { "\($0)" } ?? "starts with "
                + head.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
            return "\(url) is not a \(expected) image (\(what))"
        case let .retryTooLate(failure, seconds, budget):
            return "\(failure) and asks to retry after \(Self.format(seconds)) s (Retry-After), longer than the "
                + "\(Self.format(budget)) s catctl waits between attempts (--timeout)"
        case .cancelled: return "cancelled"
        }
    }

    private static func size(_ bytes: Int) -> String {
        if bytes >= 1_048_576 && bytes % 1_048_576 == 0 { return "\(bytes / 1_048_576) MiB" }
        if bytes >= 1024 && bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
        return "\(bytes) bytes"
    }

    private static func format(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    /// Worth another try: the network or the server may do better in a moment.
    var isTransient: Bool {
        switch self {
        case .connectionFailed, .stalled: return true
        case let .httpStatus(_, status): return status == 429 || (500...599).contains(status)
        case .invalidURL, .unsupportedScheme, .timedOut, .tooLarge, .tooManyRedirects, .tls, .transfer, .badReply,
            .notAnImage, .retryTooLate, .cancelled:
            return false
        }
    }
}
