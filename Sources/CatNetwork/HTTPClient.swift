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
}

/// A reply.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let body: [UInt8]
    public let contentType: String?
    /// After redirects.
    public let url: String
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
            let outcome = await perform(url, headers: headers, maxBytes: maxBytes, progress: progress)
            switch outcome {
            case let .success(response):
                return response
            case let .failure(error, retryAfter):
                guard error.isTransient, attempt < min(options.retries, HTTPClientOptions.maxRetries) else {
                    throw error
                }
                // No wait outlasts the budget of an attempt (`timeout`): a Retry-After up to it
                // is honoured, a longer one is answered at once with what the server said; our
                // own backoff also stays under `maxBackoff`.
                if let retryAfter, retryAfter > options.timeout {
                    throw .retryTooLate(failure: error.description, seconds: retryAfter, budget: options.timeout)
                }
                let backoff = min(options.maxBackoff, options.backoff * pow(2, Double(min(attempt, 32))))
                let wait = max(0, min(options.timeout, retryAfter ?? backoff))
                attempt += 1
                do { try await Task.sleep(for: .seconds(wait)) } catch { throw .cancelled }
            }
        }
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

    enum Outcome {
        case success(HTTPResponse)
        case failure(NetworkError, retryAfter: Double?)
    }

    /// One attempt, on a thread of its own (libcurl blocks), cancelled with the task.
    private func perform(
        _ url: String, headers: [String], maxBytes: Int,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async -> Outcome {
        let transfer = Transfer(maxBytes: maxBytes, progress: progress)
        let options = self.options
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                detachThread {
                    continuation.resume(
                        returning: Self.run(url, headers: headers, options: options, transfer: transfer))
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    private static func run(_ url: String, headers: [String], options: HTTPClientOptions, transfer: Transfer) -> Outcome
    {
        var result = cc_result()
        let code: Int32 = url.withCString { cURL in
            options.userAgent.withCString { agent in
                withCStrings(headers) { headerPointers in
                    headerPointers.withUnsafeBufferPointer { hp in
                        var request = cc_request(
                            url: cURL, headers: hp.baseAddress, header_count: hp.count, user_agent: agent,
                            connect_timeout_ms: max(1, Int(options.connectTimeout * 1000)),
                            timeout_ms: max(1, Int(options.timeout * 1000)),
                            max_redirects: headers.isEmpty ? options.maxRedirects : 0,
                            max_bytes: Int64(transfer.maxBytes),
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
        let finalURL = withUnsafeBytes(of: result.effective_url) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        let shownURL = finalURL.isEmpty ? url : finalURL
        let reason = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let contentType = withUnsafeBytes(of: result.content_type) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        let retryAfter = result.retry_after_seconds >= 0 ? Double(result.retry_after_seconds) : nil

        switch code {
        case Int32(CC_OK):
            let status = Int(result.http_status)
            guard (200...299).contains(status) else {
                return .failure(.httpStatus(url: shownURL, status: status), retryAfter: retryAfter)
            }
            return .success(
                HTTPResponse(
                    status: status, body: transfer.body, contentType: contentType.isEmpty ? nil : contentType,
                    url: shownURL))
        case Int32(CC_ERR_ABORTED): return .failure(.cancelled, retryAfter: nil)
        case Int32(CC_ERR_TIMEOUT): return .failure(.timedOut(url: shownURL, seconds: options.timeout), retryAfter: nil)
        case Int32(CC_ERR_CONNECT): return .failure(.connectionFailed(url: shownURL, reason: reason), retryAfter: nil)
        case Int32(CC_ERR_TOO_LARGE):
            return .failure(.tooLarge(url: shownURL, limit: transfer.maxBytes), retryAfter: nil)
        case Int32(CC_ERR_PROTOCOL): return .failure(.unsupportedScheme(url: shownURL), retryAfter: nil)
        case Int32(CC_ERR_REDIRECTS): return .failure(.tooManyRedirects(url: url), retryAfter: nil)
        case Int32(CC_ERR_TLS): return .failure(.tls(url: shownURL, reason: reason), retryAfter: nil)
        default: return .failure(.transfer(url: shownURL, reason: reason), retryAfter: nil)
        }
    }
}

/// The state of one transfer, shared with libcurl's callbacks.
// @unchecked: libcurl calls back on the thread running the transfer; `cancelled` (set from others) is under `lock`.
final class Transfer: @unchecked Sendable {
    let maxBytes: Int
    private let progress: @Sendable (Int64, Int64?) -> Void
    private let lock = Lock()
    private var cancelled = false
    private(set) var body: [UInt8] = []

    init(maxBytes: Int, progress: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.maxBytes = maxBytes
        self.progress = progress
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
        return lock.withLock { cancelled }
    }
}

/// Runs `body` with C strings for `strings`, valid during the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { for duplicate in duplicates { free(duplicate) } }
    return body(duplicates.map { UnsafePointer($0) })
}
