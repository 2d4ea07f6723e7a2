import CatNetwork
import CatScenes
import Foundation
import TestSupport
import Testing

/// The HTTP client and the providers against a real HTTP server on 127.0.0.1.
@Suite("HTTP client and cat providers")
struct ProviderTests {
    func client(timeout: Double = 5, retries: Int = 2) -> HTTPClient {
        var options = HTTPClientOptions()
        options.timeout = timeout
        options.connectTimeout = timeout
        options.retries = retries
        options.backoff = 0.05
        options.userAgent = "catctl/test"
        return HTTPClient(options: options)
    }

    func provider(
        _ name: CatProviderKind, _ endpoint: String, key: String? = nil, query: CatQuery = CatQuery(),
        timeout: Double = 5, maxBytes: Int? = nil
    ) -> any CatProvider {
        var limits = ProviderLimits()
        if let maxBytes { limits.maxImageBytes = maxBytes }
        return CatProviders.make(
            name, endpoint: endpoint, apiKey: key, query: query, client: client(timeout: timeout), limits: limits,
            formats: Router.catImageFormats)
    }

    func fetch(_ p: any CatProvider) async throws -> (CatReference, [UInt8]) {
        let cat = try await p.locateCat()
        return (cat, try await p.fetchCat(cat) { _, _ in })
    }

    @Test func theCatAPIShapeWithKeyAndUserAgent() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let (cat, bytes) = try await fetch(provider(.thecatapi, server.baseURL + "/thecatapi", key: "sekret"))
        #expect(
            cat
                == CatReference(
                    provider: "thecatapi", id: "abc", url: server.baseURL + "/img/cat.jpg", width: 97, height: 61))
        #expect(bytes == CatServer.jpeg)
        let api = try #require(server.requests.first)
        #expect(api.target == "/thecatapi", "no mime_types filter: GIFs too")
        #expect(api.headers["x-api-key"] == "sekret")
        #expect(api.headers["user-agent"] == "catctl/test")
        #expect(server.requests[1].headers["x-api-key"] == nil, "the key goes to the API only")
    }

    @Test func cataasRelativeURLAndRandomCat() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let (cat, bytes) = try await fetch(provider(.cataas, server.baseURL))
        #expect(cat.id == "c1" && cat.url == server.baseURL + "/cat/c1" && bytes == CatServer.jpeg)
        #expect(server.requests.first?.target == "/cat?json=true")
        let (rc, png) = try await fetch(provider(.randomcat, server.baseURL + "/meow"))
        #expect(rc.url == server.baseURL + "/img/cat.png" && rc.id == "cat" && png == CatServer.png)
    }

    @Test func redirectsAndGzip() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        #expect(try await fetch(provider(.thecatapi, server.baseURL + "/redirect")).0.id == "abc")
        let (gz, _) = try await fetch(provider(.thecatapi, server.baseURL + "/gzip"))
        #expect(gz.id == "gz1")
        #expect(server.requests.first { $0.path == "/gzip" }?.headers["accept-encoding"]?.contains("gzip") == true)
    }

    @Test func statusErrorsAndRetries() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let url404 = server.baseURL + "/status404"
        await #expect(throws: NetworkError.httpStatus(url: url404, status: 404)) {
            _ = try await provider(.thecatapi, url404).locateCat()
        }
        #expect(server.requests.filter { $0.path == "/status404" }.count == 1, "4xx is not retried")
        await #expect(throws: NetworkError.self) {
            _ = try await provider(.thecatapi, server.baseURL + "/status500").locateCat()
        }
        #expect(server.requests.filter { $0.path == "/status500" }.count == 3, "5xx: one try and two retries")
        // 503 with Retry-After: 1, then success.
        #expect(try await provider(.thecatapi, server.baseURL + "/flaky").locateCat().id == "late")
        #expect(server.requests.filter { $0.path == "/flaky" }.count == 2)
    }

    /// However many retries are asked for, at most `maxRetries` are made, and no wait is
    /// longer than the budget (the old backoff crashed at the 64th: 1 << 64).
    @Test func retriesAreCappedAndWaitsBounded() async throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        var options = HTTPClientOptions()
        options.retries = 1000
        options.backoff = 0.001
        options.maxBackoff = 0.005
        let client = HTTPClient(options: options)
        await #expect(throws: NetworkError.httpStatus(url: server.baseURL + "/busy", status: 503)) {
            _ = try await client.get(server.baseURL + "/busy", maxBytes: 1000)
        }
        #expect(server.requests.count == HTTPClientOptions.maxRetries + 1)
    }

    /// A Retry-After longer than any wait catctl makes fails at once, saying what the server said.
    @Test func retryAfterBeyondTheBudgetFailsAtOnce() async throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        var options = HTTPClientOptions()
        options.timeout = 1
        let url = server.baseURL + "/busy-long"
        do {
            _ = try await HTTPClient(options: options).get(url, maxBytes: 1000)
            Issue.record("no error")
        } catch {
            #expect(error == .retryTooLate(failure: "\(url) answered HTTP 503", seconds: 100_000, budget: 1))
            #expect(
                error.description
                    == "\(url) answered HTTP 503 and asks to retry after 100000 s (Retry-After), longer than the 1 s "
                    + "catctl waits between attempts (--timeout)")
        }
        #expect(server.requests.count == 1, "no second attempt")
    }

    /// RFC 3986 4.2: "://" in the query of a relative reference does not make it absolute.
    @Test func relativeURLWithASchemeInItsQuery() async throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let (cat, bytes) = try await fetch(provider(.thecatapi, server.baseURL + "/query-url"))
        #expect(cat.url == server.baseURL + "/img/cat.jpg?from=http://example.invalid/x")
        #expect(bytes == CatServer.jpeg)
    }

    @Test func stalledReplyTimesOut() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        await #expect(throws: NetworkError.self) {
            _ = try await provider(.thecatapi, server.baseURL + "/stall", timeout: 0.5).locateCat()
        }
        do {
            _ = try await provider(.thecatapi, server.baseURL + "/stall", timeout: 0.5).locateCat()
        } catch let error as NetworkError {
            guard case .timedOut = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func endlessBodyStopsAtTheLimit() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let p = provider(.thecatapi, server.baseURL + "/endless", maxBytes: 200_000)
        let cat = try await p.locateCat()
        await #expect(throws: NetworkError.tooLarge(url: cat.url, limit: 200_000)) {
            _ = try await p.fetchCat(cat) { _, _ in }
        }
    }

    @Test func badRepliesAreClearErrors() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        do {
            _ = try await provider(.thecatapi, server.baseURL + "/html-json").locateCat()
            Issue.record("HTML accepted as JSON")
        } catch let error as NetworkError {
            #expect(error.description.contains("not JSON (text/html)"), "\(error)")
        }
        let html = provider(.thecatapi, server.baseURL + "/html-image")
        let page = try await html.locateCat()
        do {
            _ = try await html.fetchCat(page) { _, _ in }
            Issue.record("HTML accepted as an image")
        } catch let error as NetworkError {
            guard case .notAnImage(_, "text/html", _, "JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF") = error
            else {
                Issue.record("\(error)"); return
            }
        }
        await #expect(throws: NetworkError.unsupportedScheme(url: "file:///etc/passwd")) {
            _ = try await provider(.thecatapi, server.baseURL + "/file-url").locateCat()
        }
        await #expect(throws: NetworkError.self) {
            _ = try await provider(.thecatapi, server.baseURL + "/redirect-file").locateCat()
        }
        #expect(!server.requests.isEmpty)
        await #expect(throws: NetworkError.self) {
            _ = try await provider(.cataas, server.baseURL + "/wrong-shape").locateCat()
        }
        await #expect(throws: NetworkError.unsupportedScheme(url: "ftp://example.com/cats")) {
            _ = try await provider(.thecatapi, "ftp://example.com/cats").locateCat()
        }
    }

    @Test func connectionRefusedIsRetriedThenReported() async throws {
        let server = try CatServer.start()
        let url = server.baseURL + "/thecatapi"
        server.stop()  // nothing listens on that port any more
        do {
            _ = try await provider(.thecatapi, url).locateCat()
            Issue.record("a closed port answered")
        } catch let error as NetworkError {
            guard case .connectionFailed = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func cancellingAbortsTheTransfer() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let p = provider(.thecatapi, server.baseURL + "/slow", timeout: 30)
        let cat = try await p.locateCat()
        // Cancelled from the progress callback, on the transfer's thread, once bytes arrive:
        // the transfer is under way, not yet to start. (The test's own task polled for the
        // bytes every 20 ms; a busy test run kept its cooperative thread past the 30 s timeout.)
        let canceller = Canceller()
        let task = Task { try await p.fetchCat(cat) { received, _ in if received > 0 { canceller.fire() } } }
        canceller.set { task.cancel() }
        await #expect(throws: NetworkError.cancelled) { _ = try await task.value }
    }

    /// A task's cancel, called from any thread once it is set.
    final class Canceller: @unchecked Sendable {
        private let lock = NSLock()
        private var cancel: (@Sendable () -> Void)?
        func set(_ cancel: @escaping @Sendable () -> Void) { lock.withLock { self.cancel = cancel } }
        func fire() { lock.withLock { cancel }?() }
    }

    @Test func theCatAPIBreed() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let cat = try await provider(.thecatapi, server.baseURL + "/thecatapi-breeds").locateCat()
        #expect(cat.breed == CatBreed(name: "Bengal", temperament: "Alert, Agile, Energetic"))
        #expect(try await provider(.thecatapi, server.baseURL + "/thecatapi").locateCat().breed == nil)
    }

    @Test func cataasOldAndNewShapesTagsAndCaptions() async throws {
        let server = try CatServer.start()
        defer { server.stop() }
        // Old: only "_id", no URL: the image is <root>/cat/<id>.
        let (old, oldBytes) = try await fetch(provider(.cataas, server.baseURL + "/cataas-old/"))
        #expect(old == CatReference(provider: "cataas", id: "old1", url: server.baseURL + "/cataas-old/cat/old1"))
        #expect(oldBytes == CatServer.jpeg)
        // Now: "id" and an absolute URL.
        let (new, newBytes) = try await fetch(provider(.cataas, server.baseURL + "/cataas-new"))
        #expect(new.id == "new1" && new.url == server.baseURL + "/img/cat.png" && newBytes == CatServer.png)
        // --tag, --says (percent-encoded, UTF-8 included), and both.
        for (query, id, target) in [
            (CatQuery(tag: "orange"), "tag1", "/cataas-new/cat/orange?json=true"),
            (CatQuery(says: "Hello, wörld!"), "says1", "/cataas-new/cat/says/Hello%2C%20w%C3%B6rld%21?json=true"),
            (CatQuery(says: "hi/there", tag: "orange"), "both1", "/cataas-new/cat/orange/says/hi%2Fthere?json=true"),
        ] {
            let (cat, bytes) = try await fetch(provider(.cataas, server.baseURL + "/cataas-new", query: query))
            #expect(cat.id == id && bytes == CatServer.jpeg, "\(query)")
            #expect(server.requests.contains { $0.target == target }, "\(target)")
        }
    }

    @Test func folderProvider() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let empty = CatProviders.make(
            .folder, endpoint: dir.path, apiKey: nil, client: client(), formats: Router.catImageFormats)
        await #expect(throws: NetworkError.self) { _ = try await empty.locateCat() }
        try Data(CatServer.jpeg).write(to: dir.appendingPathComponent("tabby.JPG"))
        try Data("not a cat".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let (cat, bytes) = try await fetch(
            CatProviders.make(
                .folder, endpoint: dir.path, apiKey: nil, client: client(), formats: Router.catImageFormats))
        #expect(cat.id == "tabby" && bytes == CatServer.jpeg)
    }
}
