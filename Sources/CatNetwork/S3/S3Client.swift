internal import CCURLShim
import CatSupport

/// Where and as whom catctl talks to S3, from the variables every S3 tool reads.
public struct S3Settings: Sendable {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?
    public var region: String
    /// A custom endpoint (MinIO, Ceph, SeaweedFS, ...): addressed path-style, `endpoint/bucket/key`.
    public var endpoint: String?
    /// Uploads up to this size are one PUT; larger ones are multipart in parts of this size.
    public var partSize: Int
    /// A request during which no byte moves for this long is abandoned (and retried).
    public var stallSeconds: Int
    public var http = HTTPClientOptions()

    public static let defaultPartSize = 16 * 1_048_576
    /// S3's own bounds: parts of 5 MiB to 5 GiB (the last may be smaller), at most 10000.
    public static let partSizes = (5 * 1_048_576)...(5 * 1_073_741_824)
    public static let maxParts = 10_000

    public init(
        accessKey: String, secretKey: String, sessionToken: String? = nil, region: String = "us-east-1",
        endpoint: String? = nil, partSize: Int = defaultPartSize, stallSeconds: Int = 30
    ) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.region = region
        self.endpoint = endpoint
        self.partSize = partSize
        self.stallSeconds = stallSeconds
        http.timeout = 3600  // a whole transfer; a stall is caught by `stallSeconds`
        http.retries = 4
    }

    /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (else
    /// AWS_DEFAULT_REGION, else us-east-1), AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL);
    /// CATCTL_S3_PART_SIZE (bytes), CATCTL_S3_STALL_SECONDS and CATCTL_S3_RETRIES. Secrets
    /// appear in no message.
    public static func fromEnvironment(_ environment: [String: String]) throws(S3Error) -> S3Settings {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .notConfigured("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        // A key or token with a line break or a colon would end the header or the
        // KEY:SECRET pair libcurl splits: refused, never sent.
        let printable: (String) -> Bool = { $0.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F } }
        guard printable(key), !key.contains(":"), printable(secret) else {
            throw .notConfigured("AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY holds a character keys never hold")
        }
        let token = value("AWS_SESSION_TOKEN")
        if let token, !printable(token) {
            throw .notConfigured("AWS_SESSION_TOKEN holds a character tokens never hold")
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        guard region.count <= 64,
            region.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw .notConfigured("AWS_REGION is not a region's name")
        }
        var settings = S3Settings(accessKey: key, secretKey: secret, sessionToken: token, region: region)
        if let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") {
            let lower = endpoint.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
                endpoint.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
                !endpoint.contains("?"), !endpoint.contains("#")
            else {
                throw .notConfigured("AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) is not an http:// or https:// URL")
            }
            settings.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        }
        if let text = value("CATCTL_S3_PART_SIZE") {
            guard let size = Int(text), partSizes.contains(size) else {
                throw .notConfigured("CATCTL_S3_PART_SIZE must be a number of bytes from 5 MiB to 5 GiB")
            }
            settings.partSize = size
        }
        if let text = value("CATCTL_S3_STALL_SECONDS") {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw .notConfigured("CATCTL_S3_STALL_SECONDS must be 1-3600")
            }
            settings.stallSeconds = seconds
            settings.http.connectTimeout = Double(min(seconds, 10))
        }
        if let text = value("CATCTL_S3_RETRIES") {
            guard let retries = Int(text), (0...HTTPClientOptions.maxRetries).contains(retries) else {
                throw .notConfigured("CATCTL_S3_RETRIES must be 0-\(HTTPClientOptions.maxRetries)")
            }
            settings.http.retries = retries
        }
        return settings
    }
}

/// An object a listing found.
public struct S3Object: Sendable, Equatable {
    public let location: S3Location
    public let size: Int64
}

/// S3's REST API over libcurl, signed by libcurl (CURLOPT_AWS_SIGV4): GET, HEAD, PUT,
/// multipart uploads, ListObjectsV2. Every call blocks its thread (batch's workers make
/// them) and retries what is worth retrying (connection failures, stalls, 429, 5xx,
/// Retry-After honoured), then throws `S3Error`.
public final class S3Client: Sendable {
    public let settings: S3Settings
    private let http: HTTPClient

    public init(settings: S3Settings) {
        self.settings = settings
        http = HTTPClient(options: settings.http)
    }

    /// The client of this process, from its environment; the error when S3 is not set up.
    public static let shared: Result<S3Client, S3Error> = Result { () throws(S3Error) in
        S3Client(settings: try S3Settings.fromEnvironment(ProcessInfo.processInfo.environment))
    }

    // MARK: Objects

    /// The object's bytes, refused before the download when it announces more than
    /// `maxBytes` (libcurl checks Content-Length first) and stopped when it sends more.
    public func get(_ location: S3Location, maxBytes: Int) throws(S3Error) -> [UInt8] {
        try send("GET", location, maxBytes: maxBytes).body
    }

    /// Whether the object exists (HEAD).
    public func exists(_ location: S3Location) throws(S3Error) -> Bool {
        do {
            _ = try send("HEAD", location)
            return true
        } catch .noSuchKey {
            return false
        }
    }

    /// Whether the bucket exists (HEAD on the bucket).
    public func bucketExists(_ bucket: String) throws(S3Error) -> Bool {
        do {
            _ = try send("HEAD", S3Location(bucket: bucket, key: ""))
            return true
        } catch .noSuchKey, .noSuchBucket {
            return false
        }
    }

    /// Uploads `size` bytes read from `fd` (from offset 0) to `location`: one PUT up to
    /// the part size, else a multipart upload, aborted when any part fails, so the key
    /// appears whole or not at all. `ifAbsent`: `If-None-Match: *`, so a key another task
    /// wrote meanwhile is kept (`alreadyExists`).
    public func put(
        _ location: S3Location, from fd: Int32, size: Int, contentType: String?, ifAbsent: Bool
    ) throws(S3Error) {
        var headers: [String] = []
        if let contentType { headers.append("Content-Type: \(contentType)") }
        if ifAbsent { headers.append("If-None-Match: *") }
        if size <= settings.partSize {
            let body = try read(fd, at: 0, count: size, location)
            _ = try send("PUT", location, headers: headers, body: body)
            return
        }
        let parts = (size + settings.partSize - 1) / settings.partSize
        guard parts <= S3Settings.maxParts else {
            throw .outputTooLarge(
                location: location.description,
                reason:
                    "\(size) bytes make over \(S3Settings.maxParts) parts of \(settings.partSize) bytes (CATCTL_S3_PART_SIZE)"
            )
        }
        let created = try send(
            "POST", location, query: [("uploads", "")], headers: headers.filter { !$0.hasPrefix("If-None-Match") })
        guard let uploadID = S3XML(created.body).first("UploadId"), !uploadID.isEmpty, uploadID.utf8.count <= 1024
        else {
            throw .badReply(location: location.description, reason: "a new multipart upload has no UploadId")
        }
        // Known until it is completed or aborted, so that an interrupt can abort it.
        let upload = PendingUpload(location: location, id: uploadID)
        Self.pending.withLockedValue { _ = $0.insert(upload) }
        defer { Self.pending.withLockedValue { _ = $0.remove(upload) } }
        do throws(S3Error) {
            var etags: [String] = []
            for part in 0..<parts {
                let offset = part * settings.partSize
                let body = try read(fd, at: offset, count: min(settings.partSize, size - offset), location)
                let reply = try send(
                    "PUT", location, query: [("partNumber", String(part + 1)), ("uploadId", uploadID)], body: body)
                guard let etag = reply.etag, !etag.isEmpty else {
                    throw .badReply(location: location.description, reason: "part \(part + 1) came back with no ETag")
                }
                etags.append(etag)
            }
            var xml = "<CompleteMultipartUpload>"
            for (i, etag) in etags.enumerated() {
                xml += "<Part><PartNumber>\(i + 1)</PartNumber><ETag>\(Self.escape(etag))</ETag></Part>"
            }
            xml += "</CompleteMultipartUpload>"
            let done = try send(
                "POST", location, query: [("uploadId", uploadID)], headers: ifAbsent ? ["If-None-Match: *"] : [],
                body: Array(xml.utf8))
            // S3 may answer 200 and then report the failure in the body.
            let reply = S3XML(done.body)
            if let code = reply.first("Code"), reply.elements.first?.name != "CompleteMultipartUploadResult" {
                throw Self.failure(status: 500, code: code, message: reply.first("Message") ?? "", location.description)
            }
        } catch {
            // Best effort: the parts are dropped, and no object appears under the key.
            abort(upload)
            throw error
        }
    }

    /// A multipart upload under way.
    struct PendingUpload: Hashable, Sendable {
        let location: S3Location
        let id: String
    }

    /// The multipart uploads under way in this process.
    static let pending = LockedValue<Set<PendingUpload>>([])

    /// Drops an upload's parts (one attempt, never waiting on an interrupt).
    private func abort(_ upload: PendingUpload) {
        _ = try? send("DELETE", upload.location, query: [("uploadId", upload.id)], retries: 0, abortable: false)
    }

    /// Set by the first interrupt: no request is retried from then on, and a retry's wait
    /// ends at once. The second also stops the transfers under way (`stopTransfers`).
    public static let interrupted = LockedValue(false)
    static let stopping = LockedValue(false)

    /// On the interrupt that ends catctl: stops every transfer, then aborts the multipart
    /// uploads under way (a DELETE each, 2 s at most), so no parts stay behind. Returns
    /// how many were aborted.
    @discardableResult
    public static func stopTransfers() -> Int {
        stopping.withLockedValue { $0 = true }
        interrupted.withLockedValue { $0 = true }
        guard case let .success(client) = shared else { return 0 }
        var quick = client.settings
        quick.http.connectTimeout = 1
        quick.http.timeout = 2
        let aborter = S3Client(settings: quick)
        let uploads = pending.withLockedValue { $0 }
        for upload in uploads.prefix(64) { aborter.abort(upload) }
        return min(uploads.count, 64)
    }

    // MARK: Listing

    /// The objects under `prefix`, a page (at most 1000) at a time, in key order: at any
    /// depth when `recursive`, else those directly below it ("/" as the delimiter).
    /// Stops after `maxKeys`, or keys of `maxKeyBytes` in all, and on a continuation token
    /// seen before or 100 pages in a row with no key (a server that leads nowhere). Keys
    /// are asked for URL-encoded, so a key with characters XML cannot carry still arrives
    /// whole.
    public func list(
        _ prefix: S3Location, recursive: Bool, maxKeys: Int, maxKeyBytes: Int = 256 * 1_048_576,
        page each: ([S3Object]) throws(S3Error) -> Void
    ) throws(S3Error) {
        let bucket = S3Location(bucket: prefix.bucket, key: "")
        var token: String?
        // Tokens seen, by hash (4 KiB each were all kept: 1.9 GB for an endless listing).
        var seen: Set<UInt64> = []
        var count = 0, bytes = 0, empty = 0, entries = 0, pages = 0
        let advice = "give the inputs as a manifest (--manifest) or list a narrower prefix"
        for _ in 0..<1_000_000 {
            var query = [("list-type", "2"), ("encoding-type", "url"), ("prefix", prefix.key)]
            if !recursive { query.append(("delimiter", "/")) }
            if let token { query.append(("continuation-token", token)) }
            if Self.interrupted.withLockedValue({ $0 }) { throw .cancelled }
            let reply = try send("GET", bucket, query: query, maxBytes: 16 * 1_048_576, shown: prefix)
            let page = try S3ListPage(reply: reply.body, bucket: prefix.bucket, shown: prefix.description)
            pages += 1
            entries += page.entries
            // A page holds up to 1000 keys and prefixes: a server paging a few at a time
            // (endless pages of one key each) is left after 100 pages past what its entries need.
            guard pages <= 100 + entries / 100 else {
                throw .badReply(location: prefix.description, reason: "a listing of too many pages for what they hold")
            }
            count += page.objects.count
            bytes += page.objects.reduce(0) { $0 + $1.location.key.utf8.count }
            guard count <= maxKeys else {
                throw .listingTooLarge(location: prefix.description, reason: "over \(maxKeys) objects; \(advice)")
            }
            guard bytes <= maxKeyBytes else {
                throw .listingTooLarge(
                    location: prefix.description,
                    reason: "keys of over \(maxKeyBytes / 1_048_576) MiB in all; \(advice)")
            }
            empty = page.objects.isEmpty ? empty + 1 : 0
            try each(page.objects)
            guard let next = page.nextToken else { return }
            guard seen.insert(FileNames.hash(next)).inserted, empty < 100 else {
                throw .badReply(location: prefix.description, reason: "a listing that leads in circles or nowhere")
            }
            token = next
        }
        throw .listingTooLarge(location: prefix.description, reason: "over a million pages; \(advice)")
    }

    // MARK: Requests

    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The URL of `location` with `query` as SigV4 wants it, since libcurl 7.88 signs the
    /// path and the query as they are written: every part percent-encoded, pairs sorted.
    func url(_ location: S3Location, query: [(String, String)] = []) -> String {
        let path = S3Location.encode(location.key, keepSlash: true)
        let aws = "https://s3.\(settings.region).amazonaws.com"
        let base: String
        // A custom endpoint, or a name that is no host name (or would break AWS's TLS
        // wildcard), goes path-style; other buckets are their own host.
        if settings.endpoint != nil || location.bucket.contains(".") || location.bucket.contains("_")
            || location.bucket != location.bucket.lowercased()
        {
            base = "\(settings.endpoint ?? aws)/\(location.bucket)" + (path.isEmpty ? "" : "/\(path)")
        } else {
            base = "https://\(location.bucket).s3.\(settings.region).amazonaws.com/\(path)"
        }
        if query.isEmpty { return base }
        let pairs = query.map { (S3Location.encode($0.0), S3Location.encode($0.1)) }.sorted { $0 < $1 }
        return base + "?" + pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// One signed request, retried while the failure is worth it; any status but 2xx
    /// becomes an `S3Error` with S3's own code.
    private func send(
        _ method: String, _ location: S3Location, query: [(String, String)] = [], headers: [String] = [],
        body: [UInt8] = [], maxBytes: Int = 1_048_576, shown: S3Location? = nil, retries: Int? = nil,
        abortable: Bool = true
    ) throws(S3Error) -> HTTPResponse {
        let shown = (shown ?? location).description
        var hash = Self.emptyHash
        if !body.isEmpty {
            var digest = [UInt8](repeating: 0, count: 32)
            guard body.withUnsafeBufferPointer({ cc_sha256($0.baseAddress, $0.count, &digest) }) == 1 else {
                throw .unavailable(location: shown, reason: "libcrypto could not be loaded to hash the upload")
            }
            hash = digest.map { String(printf: "%02x", $0) }.joined()
        }
        var request = HTTPRequest(
            method: method, url: url(location, query: query),
            headers: ["x-amz-content-sha256: \(hash)"]
                + (settings.sessionToken.map { ["x-amz-security-token: \($0)"] } ?? [])
                + headers,
            body: body, maxBytes: maxBytes,
            sigv4: ("aws:amz:\(settings.region):s3", "\(settings.accessKey):\(settings.secretKey)"),
            stallSeconds: settings.stallSeconds, acceptEncoding: false)
        if abortable { request.stop = { Self.stopping.withLockedValue { $0 } } }
        var attempt = 0
        let allowed = min(retries ?? settings.http.retries, HTTPClientOptions.maxRetries)
        while true {
            let failure: S3Error, retryAfter: Double?
            switch http.exchange(request) {
            case let .reply(response, after):
                if (200...299).contains(response.status) { return response }
                failure = Self.failure(response, method: method, location: shown)
                retryAfter = after
            case let .failure(error):
                switch error {
                case let .tooLarge(_, _, announced):  // never retried
                    throw .tooLarge(location: shown, bytes: announced, limit: maxBytes)
                case .cancelled: throw .cancelled
                case .invalidURL, .unsupportedScheme, .timedOut, .stalled, .connectionFailed, .httpStatus,
                    .tooManyRedirects, .tls, .transfer, .badReply, .notAnImage, .retryTooLate:
                    failure = .unavailable(location: shown, reason: Self.reason(error))
                }
                retryAfter = nil
            }
            guard failure.kind == .transient, attempt < allowed, !Self.interrupted.withLockedValue({ $0 }) else {
                throw failure
            }
            guard let wait = settings.http.wait(attempt: attempt, retryAfter: retryAfter) else {
                throw .unavailable(
                    location: shown,
                    reason: "\(Self.reason(failure)), and the server asks to retry after \(Int(retryAfter ?? 0)) s")
            }
            attempt += 1
            // In steps, so that an interrupt ends the wait.
            var left = wait
            while left > 0, !Self.interrupted.withLockedValue({ $0 }) {
                usleep(UInt32(min(left, 0.1) * 1_000_000))
                left -= 0.1
            }
        }
    }

    /// What the error says, without the location it repeats.
    private static func reason(_ error: NetworkError) -> String {
        switch error {
        case let .connectionFailed(_, reason): return "cannot connect: \(reason)"
        case let .stalled(_, seconds): return "no data moved for \(seconds) s (CATCTL_S3_STALL_SECONDS)"
        case let .timedOut(_, seconds): return "timed out after \(Int(seconds)) s"
        case let .tls(_, reason): return "TLS failure: \(reason)"
        case let .transfer(_, reason): return reason
        case .invalidURL, .unsupportedScheme, .httpStatus, .tooLarge, .tooManyRedirects, .badReply, .notAnImage,
            .retryTooLate, .cancelled:
            return error.description
        }
    }

    private static func reason(_ error: S3Error) -> String {
        if case let .unavailable(_, reason) = error { return reason }
        return error.description
    }

    /// A reply that is not 2xx, as an error: S3's code from the XML body (HEAD has none).
    private static func failure(_ response: HTTPResponse, method: String, location: String) -> S3Error {
        let xml = S3XML(response.body)
        var code = xml.first("Code") ?? ""
        if code.isEmpty, method == "HEAD" || response.body.isEmpty {
            code = [403: "AccessDenied", 404: "NoSuchKey", 412: "PreconditionFailed"][response.status] ?? ""
        }
        return failure(status: response.status, code: code, message: xml.first("Message") ?? "", location)
    }

    static func failure(status: Int, code rawCode: String, message rawMessage: String, _ location: String) -> S3Error {
        // Server text, bounded here (the views neutralise it when they print it).
        let code = String(rawCode.prefix(64)), message = String(rawMessage.prefix(240))
        switch (status, code) {
        case (_, "NoSuchBucket"): return .noSuchBucket(location: location)
        case (_, "NoSuchKey"), (404, _): return .noSuchKey(location: location)
        case (412, _), (_, "PreconditionFailed"): return .alreadyExists(location: location)
        case (401, _), (403, _), (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"), (_, "ExpiredToken"),
            (_, "InvalidToken"), (_, "AccessDenied"):
            return .denied(location: location, code: code.isEmpty ? "HTTP \(status)" : code, message: message)
        case (429, _), (500...599, _), (_, "RequestTimeout"), (_, "SlowDown"), (409, "ConditionalRequestConflict"),
            (_, "InternalError"):
            return .unavailable(location: location, reason: "HTTP \(status)\(code.isEmpty ? "" : " \(code)")")
        default: return .rejected(location: location, status: status, code: code, message: message)
        }
    }

    private func read(_ fd: Int32, at offset: Int, count: Int, _ location: S3Location) throws(S3Error) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw .unavailable(location: location.description, reason: "cannot read the encoded output back")
            }
            done += n
        }
        return out
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
