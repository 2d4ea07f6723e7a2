internal import CCURLShim
import CatSupport

/// How the client behaves; the defaults suit a one-off command-line fetch.
public struct HTTPClientOptions: Sendable {
    public var connectTimeout: Double = 10
    /// For each attempt, the whole transfer; also the longest wait between two attempts.
    public var timeout: Double = 30
    /// Further attempts after a connection failure, 429 or 5xx (at most `maxRetries`).
    public var retries: Int = 2
    public static let maxRetries = 20
    /// First backoff; doubles each retry (Retry-After wins when the server sends one).
    public var backoff: Double = 0.5
    /// Longest wait between attempts, whatever Retry-After says.
    public var maxBackoff: Double = 30
    public var maxRedirects: Int = 5
    /// The command line sets `catctl/<version>`.
    public var userAgent = "catctl"

    public init() {}

    /// The wait before attempt `attempt + 2`: the backoff, doubling up to `maxBackoff`, or
    /// the server's Retry-After; nil when that asks for longer than `timeout`, the budget of
    /// an attempt, or `maxBackoff` (a longer one is answered at once with what the server
    /// said).
    func wait(attempt: Int, retryAfter: Double?) -> Double? {
        if let retryAfter, retryAfter > min(timeout, maxBackoff) { return nil }
        let backoff = min(maxBackoff, self.backoff * pow(2, Double(min(attempt, 32))))
        return max(0, min(timeout, retryAfter ?? backoff))
    }
}

/// A reply.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let body: [UInt8]
    public let contentType: String?
    /// After redirects.
    public let url: String
    /// The ETag header, as sent (S3 names an uploaded part by it).
    public var etag: String? = nil
    /// What the reply announced (Content-Length), if it did.
    public var contentLength: Int64? = nil
}

/// One request as libcurl makes it. `get` needs only a URL; S3 adds the rest.
struct HTTPRequest: Sendable {
    var method = "GET"
    var url: String
    /// "Name: value" lines, never logged.
    var headers: [String] = []
    /// What PUT and POST send.
    var body: [UInt8] = []
    var maxBytes: Int
    /// AWS Signature Version 4, made by libcurl: `scope` is "aws:amz:REGION:s3",
    /// `credentials` "KEY:SECRET".
    var sigv4: (scope: String, credentials: String)? = nil
    /// Abort when under 1 KiB/s for this long (a stalled or trickling server); nil: only
    /// the timeout.
    var stallSeconds: Int? = nil
    /// Asked about once a second (and with every piece of data): true aborts the transfer
    /// (an interrupt that ends catctl).
    var stop: (@Sendable () -> Bool)? = nil
    /// Ask for a compressed reply (gzip, deflate, ...): for small bounded replies (the cat
    /// APIs' JSON), never for S3, whose limit is half a gigabyte of decoded bytes.
    var acceptEncoding = true
}

/// GET over libcurl (CCURLShim): timeouts, redirects (http/https only), gzip/deflate,
/// TLS verification, a body size limit, retries with backoff, cancellation that aborts
/// the transfer from libcurl's progress callback.
public final class HTTPClient: Sendable {
    public let options: HTTPClientOptions

    private static let initialised: Bool = cc_global_init() == CC_OK

    public init(options: HTTPClientOptions = HTTPClientOptions()) {
        _ = Self.initialised
        self.options = options
    }

    /// Fetches `url`; throws for transport failures and for any status but 2xx.
    /// `progress(received, expected)` runs on the transfer's thread. A request with headers
    /// (they carry the API key) follows no redirect: libcurl would send them on to any host.
    public func get(
        _ url: String, headers: [String] = [], maxBytes: Int,
        progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }
    ) async throws(NetworkError) -> HTTPResponse {
        try Self.checkScheme(url)
        var attempt = 0
        while true {
            if Task.isCancelled { throw .cancelled }
            let request = HTTPRequest(url: url, headers: headers, maxBytes: maxBytes)
            let outcome = Self.judged(await perform(request, progress: progress))
            switch outcome {
            case let .success(response):
                return response
            case let .failure(error, retryAfter):
                let wait = try retryWait(after: error, retryAfter: retryAfter, attempt: attempt)
                attempt += 1
                do { try await Task.sleep(for: .seconds(wait)) } catch { throw .cancelled }
            }
        }
    }

    /// How long to wait before attempt `attempt + 2` (`HTTPClientOptions.wait`), or the
    /// error when no attempt is left: after a connection failure, 429 or 5xx, at most
    /// `retries` more times.
    func retryWait(after error: NetworkError, retryAfter: Double?, attempt: Int) throws(NetworkError) -> Double {
        guard error.isTransient, attempt < min(options.retries, HTTPClientOptions.maxRetries) else { throw error }
        guard let wait = options.wait(attempt: attempt, retryAfter: retryAfter) else {
            throw .retryTooLate(
                failure: error.description, seconds: retryAfter ?? 0, budget: min(options.timeout, options.maxBackoff))
        }
        return wait
    }

    /// Only http:// and https:// URLs (any case); anything else with a scheme is refused,
    /// anything malformed ("https:/x://y", "http:x") is invalid.
    public static func checkScheme(_ url: String) throws(NetworkError) {
        let lower = url.prefix(8).lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return }
        if lower.hasPrefix("http:") || lower.hasPrefix("https:") { throw .invalidURL(url) }
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
            url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else {
            throw .invalidURL(url)
        }
        throw .unsupportedScheme(url: url)
    }

    /// A request's end: a reply (any status), or why there is none.
    enum Exchange {
        case reply(HTTPResponse, retryAfter: Double?)
        case failure(NetworkError)
    }

    enum Outcome {
        case success(HTTPResponse)
        case failure(NetworkError, retryAfter: Double?)
    }

    /// Any status but 2xx is a failure.
    static func judged(_ exchange: Exchange) -> Outcome {
        switch exchange {
        case let .failure(error): return .failure(error, retryAfter: nil)
        case let .reply(response, retryAfter):
            guard (200...299).contains(response.status) else {
                return .failure(.httpStatus(url: response.url, status: response.status), retryAfter: retryAfter)
            }
            return .success(response)
        }
    }

    /// One attempt, on a thread of its own (libcurl blocks), cancelled with the task.
    private func perform(_ request: HTTPRequest, progress: @escaping @Sendable (Int64, Int64?) -> Void) async
        -> Exchange
    {
        let transfer = Transfer(maxBytes: request.maxBytes, progress: progress)
        let options = self.options
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Exchange, Never>) in
                detachThread {
                    continuation.resume(returning: Self.run(request, options: options, transfer: transfer))
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// One attempt on the calling thread (S3's requests, made from a batch's workers).
    func exchange(_ request: HTTPRequest) -> Exchange {
        Self.run(
            request, options: options,
            transfer: Transfer(maxBytes: request.maxBytes, progress: { _, _ in }, stop: request.stop))
    }

    private static func run(_ r: HTTPRequest, options: HTTPClientOptions, transfer: Transfer) -> Exchange {
        var result = cc_result()
        let redirects = r.headers.isEmpty && r.sigv4 == nil ? options.maxRedirects : 0
        let code: Int32 = withCStrings([
            r.method, r.url, options.userAgent, r.sigv4?.scope ?? "", r.sigv4?.credentials ?? "",
        ]) {
            strings in
            withCStrings(r.headers) { headerPointers in
                headerPointers.withUnsafeBufferPointer { hp in
                    r.body.withUnsafeBufferPointer { body in
                        var request = cc_request(
                            method: strings[0], url: strings[1], headers: hp.baseAddress, header_count: hp.count,
                            user_agent: strings[2],
                            connect_timeout_ms: max(1, Int(options.connectTimeout * 1000)),
                            timeout_ms: max(1, Int(options.timeout * 1000)),
                            max_redirects: redirects,
                            max_bytes: Int64(transfer.maxBytes), stall_seconds: r.stallSeconds ?? 0,
                            accept_encoding: r.acceptEncoding ? 1 : 0,
                            body: body.baseAddress, body_length: body.count,
                            aws_sigv4: r.sigv4 == nil ? nil : strings[3],
                            credentials: r.sigv4 == nil ? nil : strings[4],
                            on_data: { context, data, length in
                                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().append(data, length)
                                    ? 1 : 0
                            },
                            on_progress: { context, received, expected in
                                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().report(
                                    received, expected) ? 1 : 0
                            },
                            context: Unmanaged.passUnretained(transfer).toOpaque())
                        return withExtendedLifetime(transfer) { cc_perform(&request, &result) }
                    }
                }
            }
        }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let finalURL = text(result.effective_url)
        let shownURL = finalURL.isEmpty ? r.url : finalURL
        let reason = text(result.error)
        let contentType = text(result.content_type), etag = text(result.etag)
        let retryAfter = result.retry_after_seconds >= 0 ? Double(result.retry_after_seconds) : nil

        switch code {
        case Int32(CC_OK):
            return .reply(
                HTTPResponse(
                    status: Int(result.http_status), body: transfer.body,
                    contentType: contentType.isEmpty ? nil : contentType, url: shownURL,
                    etag: etag.isEmpty ? nil : etag,
                    contentLength: result.content_length >= 0 ? result.content_length : nil),
                retryAfter: retryAfter)
        case Int32(CC_ERR_ABORTED): return .failure(.cancelled)
        case Int32(CC_ERR_TIMEOUT):
            if let stall = r.stallSeconds, reason.contains("too slow") {
                return .failure(.stalled(url: shownURL, seconds: stall))
            }
            return .failure(.timedOut(url: shownURL, seconds: options.timeout))
        case Int32(CC_ERR_CONNECT): return .failure(.connectionFailed(url: shownURL, reason: reason))
        case Int32(CC_ERR_TOO_LARGE):
            // Refused on the announced Content-Length, before the body (else it ran past the limit).
            let announced = result.announced_length >= 0 ? result.announced_length : nil
            return .failure(.tooLarge(url: shownURL, limit: transfer.maxBytes, announced: announced))
        case Int32(CC_ERR_PROTOCOL): return .failure(.unsupportedScheme(url: shownURL))
        case Int32(CC_ERR_REDIRECTS): return .failure(.tooManyRedirects(url: r.url))
        case Int32(CC_ERR_TLS): return .failure(.tls(url: shownURL, reason: reason))
        default: return .failure(.transfer(url: shownURL, reason: reason))
        }
    }
}

/// The state of one transfer, shared with libcurl's callbacks.
// @unchecked: libcurl calls back on the thread running the transfer; `cancelled` (set from others) is under `lock`.
final class Transfer: @unchecked Sendable {
    let maxBytes: Int
    private let progress: @Sendable (Int64, Int64?) -> Void
    private let stop: (@Sendable () -> Bool)?
    private let lock = Lock()
    private var cancelled = false
    private(set) var body: [UInt8] = []

    init(
        maxBytes: Int, progress: @escaping @Sendable (Int64, Int64?) -> Void, stop: (@Sendable () -> Bool)? = nil
    ) {
        self.maxBytes = maxBytes
        self.progress = progress
        self.stop = stop
    }

    func cancel() { lock.withLock { cancelled = true } }

    /// false: over the limit, stop.
    func append(_ data: UnsafePointer<UInt8>?, _ length: Int) -> Bool {
        guard let data, body.count + length <= maxBytes else { return false }
        body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return true
    }

    /// true: abort (cancelled).
    func report(_ received: Int64, _ expected: Int64) -> Bool {
        progress(received, expected > 0 ? expected : nil)
        return lock.withLock { cancelled } || stop?() == true
    }
}

/// Runs `body` with C strings for `strings`, valid during the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { for duplicate in duplicates { free(duplicate) } }
    return body(duplicates.map { UnsafePointer($0) })
}
