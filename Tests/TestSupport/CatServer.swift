import Foundation

/// A fake cat API on 127.0.0.1 serving every shape and failure the tests need.
public enum CatServer {
    public static let jpeg: [UInt8] = (try? Fixtures.bytes("jpeg/chelsea-420.jpg")) ?? []
    public static let png: [UInt8] = (try? Fixtures.bytes("photos/chelsea.png")) ?? []

    /// gzip of `[{"id":"gz1","url":"/img/cat.jpg","width":97,"height":61}]`
    /// (Python: gzip.GzipFile(mtime=0)), sent with Content-Encoding: gzip.
    static let gzippedJSON: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x8b, 0xae, 0x56, 0xca, 0x4c, 0x51, 0xb2, 0x52,
        0x4a,
        0xaf, 0x32, 0x54, 0xd2, 0x51, 0x2a, 0x2d, 0xca, 0x01, 0xb2, 0xf5, 0x33, 0x73, 0xd3, 0xf5, 0x93, 0x13, 0x4b,
        0xf4,
        0xb2, 0x0a, 0xd2, 0x81, 0x82, 0xe5, 0x99, 0x29, 0x25, 0x19, 0x4a, 0x56, 0x96, 0xe6, 0x3a, 0x4a, 0x19, 0xa9,
        0x99,
        0xe9, 0x19, 0x25, 0x4a, 0x56, 0x66, 0x86, 0xb5, 0xb1, 0x00, 0xa8, 0x65, 0xca, 0x0c, 0x3a, 0x00, 0x00, 0x00,
    ]

    public static func start() throws -> TestHTTPServer {
        let flaky = Counter()
        var routes: [String: TestHTTPServer.Handler] = [:]
        // Images.
        routes["/img/cat.jpg"] = { _, c in c.respond(contentType: "image/jpeg", body: jpeg) }
        routes["/img/cat.png"] = { _, c in c.respond(contentType: "image/png", body: png) }
        routes["/img/page.html"] = { _, c in
            c.respond(contentType: "text/html", body: Array("<html><body>Not a cat</body></html>".utf8))
        }
        routes["/cat/c1"] = routes["/img/cat.jpg"]
        // The three JSON shapes (URLs relative to the server: resolved by the providers).
        routes["/thecatapi"] = { _, c in c.respondJSON(#"[{"id":"abc","url":"/img/cat.jpg","width":97,"height":61}]"#) }
        routes["/thecatapi-png"] = { _, c in
            c.respondJSON(#"[{"id":"p1","url":"/img/cat.png","width":451,"height":300}]"#)
        }
        routes["/cat"] = { _, c in
            c.respondJSON(#"{"_id":"c1","url":"/cat/c1","mimetype":"image/jpeg","tags":["cute"]}"#)
        }
        routes["/meow"] = { _, c in c.respondJSON(#"{"file":"/img/cat.png"}"#) }
        // TheCatAPI with a breed; cataas as it answered over the years: an id and no URL
        // (the image is <root>/cat/<id>), then an id and an absolute URL; tags and captions.
        routes["/thecatapi-breeds"] = { _, c in
            c.respondJSON(
                #"[{"id":"b1","url":"/img/cat.jpg","width":97,"height":61,"#
                    + #""breeds":[{"name":"Bengal","temperament":"Alert, Agile, Energetic"}]}]"#)
        }
        routes["/cataas-old/cat"] = { _, c in c.respondJSON(#"{"tags":[],"mimetype":"image/jpeg","_id":"old1"}"#) }
        routes["/cataas-old/cat/old1"] = routes["/img/cat.jpg"]
        let absolute: @Sendable (String, String) -> TestHTTPServer.Handler = { id, image in
            { request, c in
                let host = request.headers["host"] ?? "127.0.0.1"
                c.respondJSON(#"{"id":"\#(id)","url":"http://\#(host)\#(image)","mimetype":"image/png","tags":[]}"#)
            }
        }
        routes["/cataas-new/cat"] = absolute("new1", "/img/cat.png")
        routes["/cataas-new/cat/orange"] = absolute("tag1", "/img/cat.jpg")
        routes["/cataas-new/cat/says/Hello%2C%20w%C3%B6rld%21"] = absolute("says1", "/img/cat.jpg")
        routes["/cataas-new/cat/orange/says/hi%2Fthere"] = absolute("both1", "/img/cat.jpg")
        // Redirects, compression.
        routes["/redirect"] = { _, c in
            c.writeHead(status: 302, headers: [("Location", "/thecatapi"), ("Content-Length", "0")])
        }
        routes["/redirect-file"] = { _, c in
            c.writeHead(status: 302, headers: [("Location", "file:///etc/passwd"), ("Content-Length", "0")])
        }
        routes["/gzip"] = { _, c in
            c.respond(contentType: "application/json", body: gzippedJSON, headers: [("Content-Encoding", "gzip")])
        }
        // Failures.
        routes["/status404"] = { _, c in c.respond(status: 404, contentType: "text/plain", body: Array("gone".utf8)) }
        routes["/status500"] = { _, c in c.respond(status: 500, contentType: "text/plain", body: Array("oops".utf8)) }
        routes["/flaky"] = { _, c in
            if flaky.next() == 0 {
                c.respond(
                    status: 503, contentType: "text/plain", body: Array("busy".utf8), headers: [("Retry-After", "1")])
            } else {
                c.respondJSON(#"[{"id":"late","url":"/img/cat.jpg"}]"#)
            }
        }
        routes["/stall"] = { _, c in
            c.writeHead(status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", "1000")])
            c.write(Array("[{\"id\":".utf8))
            c.pause(seconds: 20)
        }
        routes["/endless.jpg"] = { _, c in
            c.writeHead(status: 200, headers: [("Content-Type", "image/jpeg")])
            guard c.write([0xFF, 0xD8, 0xFF, 0xE0]) else { return }
            let block = [UInt8](repeating: 0x55, count: 65536)
            for _ in 0..<20000 { guard c.write(block) else { return } }
        }
        routes["/endless"] = { _, c in c.respondJSON(#"[{"id":"big","url":"/endless.jpg"}]"#) }
        routes["/slow.jpg"] = { _, c in
            c.writeHead(
                status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "\(jpeg.count * 100)")])
            for i in 0..<(jpeg.count * 100 / 512) {
                guard c.write(Array(jpeg[(i * 512) % (jpeg.count - 512)..<((i * 512) % (jpeg.count - 512) + 512)]))
                else { return }
                c.pause(seconds: 0.05)
            }
        }
        routes["/slow"] = { _, c in c.respondJSON(#"[{"id":"slow","url":"/slow.jpg"}]"#) }
        routes["/html-json"] = { _, c in
            c.respond(contentType: "text/html", body: Array("<!doctype html><title>oops</title>".utf8))
        }
        routes["/html-image"] = { _, c in c.respondJSON(#"[{"id":"h","url":"/img/page.html"}]"#) }
        routes["/file-url"] = { _, c in c.respondJSON(#"[{"id":"f","url":"file:///etc/passwd"}]"#) }
        routes["/wrong-shape"] = { _, c in c.respondJSON(#"{"cats":[]}"#) }
        return try TestHTTPServer(routes: routes)
    }
}

/// A thread-safe counter for handlers.
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    public init() {}
    /// The current value, left as it is.
    public var current: Int { lock.withLock { value } }
    /// The current value, then one more.
    public func next() -> Int {
        lock.withLock {
            defer { value += 1 }; return value
        }
    }
}
