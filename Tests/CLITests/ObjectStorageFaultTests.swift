import CatSupport
import Foundation
import TestSupport
import Testing

/// Object storage that misbehaves, played by a scripted S3 server on 127.0.0.1 (signatures
/// are not checked): errors then success, dropped connections, stalls, huge objects, a
/// listing of 100000 keys. Each ends with a clear message, its exit code, and nothing
/// partial written.
@Suite("object storage faults")
struct ObjectStorageFaultTests {
    let photo = Fixtures.path("jpeg/chelsea-420.jpg")

    func environment(_ server: TestHTTPServer, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": "fault-key", "AWS_SECRET_ACCESS_KEY": "fault-secret", "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": server.baseURL, "AWS_ENDPOINT_URL_S3": "", "AWS_SESSION_TOKEN": "",
        ].merging(extra) { $1 }
    }

    func output() throws -> String { try Fixtures.temporaryDirectory().appendingPathComponent("out.png").path }

    @Test func a500ThenA503WithRetryAfterAreRetried() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: photo)))
        let count = Counter()
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                switch count.next() {
                case 0:
                    connection.respond(
                        status: 500, contentType: "application/xml",
                        body: Array("<Error><Code>InternalError</Code></Error>".utf8))
                case 1:
                    connection.respond(
                        status: 503, contentType: "application/xml",
                        body: Array("<Error><Code>SlowDown</Code></Error>".utf8), headers: [("Retry-After", "1")])
                default: connection.respond(contentType: "image/jpeg", body: bytes)
                }
            }
        ])
        let out = try output()
        let clock = ContinuousClock(), began = clock.now
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", out], environment: environment(server))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(count.value == 3)
        #expect(clock.now - began >= .seconds(1), "Retry-After: 1 was honoured")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test func aServerThatKeepsFailingIs75AndWritesNothing() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.respond(
                    status: 503, contentType: "application/xml",
                    body: Array("<Error><Code>ServiceUnavailable</Code></Error>".utf8))
            }
        ])
        let out = try output()
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", out],
            environment: environment(server, ["CATCTL_S3_RETRIES": "1"]))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 503"), "\(result.stderr)")
        #expect(server.requests.count == 2)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aConnectionDroppedMidDownloadIs75() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.writeHead(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "100000")])
                connection.write([UInt8](repeating: 0xFF, count: 1000))
            }
        ])
        let out = try output()
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", out],
            environment: environment(server, ["CATCTL_S3_RETRIES": "2"]))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(server.requests.count == 3)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aStalledServerIsLeftAfterTheStallTime() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.writeHead(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "100000")])
                connection.write([0xFF, 0xD8])
                connection.pause(seconds: 30)
            }
        ])
        let clock = ContinuousClock(), began = clock.now
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", try output()],
            environment: environment(server, ["CATCTL_S3_RETRIES": "0", "CATCTL_S3_STALL_SECONDS": "1"]))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("no data moved for 1 s"), "\(result.stderr)")
        #expect(clock.now - began < .seconds(20))
        server.stop()
    }

    @Test func aHugeObjectIsRefusedFromItsAnnouncedSize() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/huge.jpg": { _, connection in
                connection.writeHead(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "10000000000")])
                for _ in 0..<1000 where connection.write([UInt8](repeating: 0, count: 65536)) {}
            }
        ])
        let result = try Catctl.runBounded(
            ["edit", "--filter", "sepia", "s3://bkt/huge.jpg", try output()], memory: 1 << 30, seconds: 30,
            environment: environment(server))
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("larger than 512 MiB"), "\(result.stderr)")
        #expect(
            Catctl.isSanitized || result.maxResidentKiB < 100_000,
            "nothing was downloaded: \(result.maxResidentKiB) KiB")
    }

    @Test func anUploadDroppedMidPartIsAbortedAnd75() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("cats/01-sol-nascente-siamese.jpg"))))
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in connection.respond(contentType: "image/jpeg", body: bytes) },
            "/bkt": { _, connection in connection.respond(contentType: "application/xml", body: []) },  // HEAD bucket
            "/bkt/out.tif": { request, connection in
                if request.method == "POST", request.target.hasSuffix("?uploads=") {
                    connection.respond(
                        contentType: "application/xml",
                        body: Array(
                            "<InitiateMultipartUploadResult><UploadId>up-1</UploadId></InitiateMultipartUploadResult>"
                                .utf8))
                } else if request.method == "PUT", request.target.contains("partNumber=1&") {
                    _ = connection.readBody(request)
                    connection.respond(contentType: "text/plain", body: [], headers: [("ETag", "\"p1\"")])
                } else if request.method == "DELETE" {
                    connection.respond(status: 204, contentType: "text/plain", body: [])
                }
                // Part 2: the connection drops before any reply.
            },
        ])
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "--compression", "none", "s3://bkt/cat.jpg", "s3://bkt/out.tif"],
            environment: environment(server, ["CATCTL_S3_RETRIES": "1", "CATCTL_S3_PART_SIZE": String(5 << 20)]))
        #expect(result.status == 75, "\(result.stderr)")
        let calls = server.requests.filter { $0.path == "/bkt/out.tif" }.map {
            "\($0.method) \($0.target.split(separator: "?").last ?? "")"
        }
        #expect(calls.first == "POST uploads=")
        #expect(calls.last == "DELETE uploadId=up-1", "the upload was aborted: \(calls)")
        #expect(!calls.contains { $0.hasPrefix("POST uploadId") }, "never completed")
    }

    @Test func aListingOf100000KeysIsPagedInBoundedMemory() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt": { request, connection in
                // Pages of 1000 keys; the continuation token is the next page's number.
                let query = request.target.split(separator: "?").last.map(String.init) ?? ""
                let page =
                    query.split(separator: "&").first { $0.hasPrefix("continuation-token=") }
                    .flatMap { Int($0.dropFirst("continuation-token=".count)) } ?? 0
                var xml = "<?xml version=\"1.0\"?><ListBucketResult><Name>bkt</Name>"
                for i in (page * 1000)..<((page + 1) * 1000) {
                    xml += String(format: "<Contents><Key>p/cat-%06d.jpg</Key><Size>100</Size></Contents>", i)
                }
                xml +=
                    page < 99
                    ? "<IsTruncated>true</IsTruncated><NextContinuationToken>\(page + 1)</NextContinuationToken>"
                    : "<IsTruncated>false</IsTruncated>"
                connection.respond(contentType: "application/xml", body: Array((xml + "</ListBucketResult>").utf8))
            }
        ])
        let result = try Catctl.runBounded(
            ["batch", "--list", "s3://bkt/p/"], memory: 1 << 30, seconds: 300, environment: environment(server))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 100_000)
        #expect(result.stdoutLines.last == "s3://bkt/p/cat-099999.jpg")
        #expect(server.requests.count == 100)
        #expect(Catctl.isSanitized || result.maxResidentKiB < 200_000, "\(result.maxResidentKiB) KiB")
    }

    @Test func keysWithControlCharactersAreNeutralisedAndLeftOutOfAManifest() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt": { _, connection in
                let xml =
                    "<ListBucketResult><Name>bkt</Name><IsTruncated>false</IsTruncated>"
                    + "<Contents><Key>p/ok%20one.jpg</Key></Contents>"
                    + "<Contents><Key>p/evil%1B%5D0%3Btitle%07%0A.jpg</Key></Contents></ListBucketResult>"
                connection.respond(contentType: "application/xml", body: Array(xml.utf8))
            }
        ])
        let result = try Catctl.run(["batch", "--list", "s3://bkt/p/"], environment: environment(server))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == ["s3://bkt/p/ok one.jpg"])
        #expect(result.stderr.contains("left out"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}

/// A thread-safe count of calls.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.withLock {
            defer { count += 1 }; return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// What the review of the first version found (docs of each in the test's name).
@Suite("object storage faults, second round")
struct ObjectStorageFaultTests2 {
    let env = ObjectStorageFaultTests()

    @Test func aRetryAfterLongerThanTheLongestBackoffFailsAtOnce() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.respond(
                    status: 503, contentType: "application/xml",
                    body: Array("<Error><Code>SlowDown</Code></Error>".utf8),
                    headers: [("Retry-After", "100")])
            }
        ])
        let clock = ContinuousClock(), began = clock.now
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", try env.output()], environment: env.environment(server))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("retry after 100 s"), "\(result.stderr)")
        #expect(clock.now - began < .seconds(10))
        #expect(server.requests.count == 1)
    }

    @Test func aListingThatLeadsInCirclesEnds() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt": { request, connection in
                let next = request.target.contains("continuation-token=A") ? "B" : "A"
                let xml =
                    "<ListBucketResult><Name>bkt</Name><IsTruncated>true</IsTruncated>"
                    + "<NextContinuationToken>\(next)</NextContinuationToken></ListBucketResult>"
                connection.respond(contentType: "application/xml", body: Array(xml.utf8))
            }
        ])
        let result = try Catctl.run(["batch", "--list", "s3://bkt/p/"], environment: env.environment(server))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("leads in circles"), "\(result.stderr)")
        #expect(server.requests.count == 3)
    }

    @Test func aHugeErrorBodyIsNotRead() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.writeHead(
                    status: 500, headers: [("Content-Type", "application/xml"), ("Content-Length", "300000000")])
                connection.write(Array("<Error><Code>InternalError</Code>".utf8))
                for _ in 0..<300 where connection.write([UInt8](repeating: 0x20, count: 1 << 20)) {}
            }
        ])
        let result = try Catctl.runBounded(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", try env.output()], memory: 1 << 30, seconds: 60,
            environment: env.environment(server, ["CATCTL_S3_RETRIES": "2"]))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 500"), "\(result.stderr)")
        #expect(Catctl.isSanitized || result.maxResidentKiB < 100_000, "\(result.maxResidentKiB) KiB")
    }

    @Test func anInterruptAbortsTheMultipartUploadUnderWay() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("cats/01-sol-nascente-siamese.jpg"))))
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in connection.respond(contentType: "image/jpeg", body: bytes) },
            "/bkt": { _, connection in connection.respond(contentType: "application/xml", body: []) },
            "/bkt/out.tif": { request, connection in
                if request.method == "POST" {
                    connection.respond(
                        contentType: "application/xml",
                        body: Array(
                            "<InitiateMultipartUploadResult><UploadId>up-9</UploadId></InitiateMultipartUploadResult>"
                                .utf8))
                } else if request.method == "DELETE" {
                    connection.respond(status: 204, contentType: "text/plain", body: [])
                } else {
                    connection.pause(seconds: 30)  // every part stalls
                }
            },
        ])
        // catctl in the background, SIGINT after 2 s, its status from wait.
        let catctl = try #require(Catctl.executable).path
        let script = """
            "$0" edit --filter sepia --compression none s3://bkt/cat.jpg s3://bkt/out.tif & pid=$!
            sleep 2; kill -INT $pid; wait $pid
            """
        let clock = ContinuousClock(), began = clock.now
        let result = try Catctl.run(
            program: URL(fileURLWithPath: "/bin/sh"), ["-c", script, catctl],
            environment: env.environment(server, ["CATCTL_S3_PART_SIZE": String(5 << 20)]))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(clock.now - began < .seconds(15))
        let calls = server.requests.filter { $0.path == "/bkt/out.tif" }.map(\.method)
        #expect(calls.first == "POST" && calls.contains("DELETE"), "aborted: \(calls)")
        server.stop()
    }

    @Test func anOutputAnotherTaskWroteMeanwhileIsKeptAndSkipped() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg/chelsea-420.jpg"))))
        let server = try TestHTTPServer(routes: [
            "/bkt/in/cat.jpg": { _, connection in connection.respond(contentType: "image/jpeg", body: bytes) },
            "/bkt": { _, connection in connection.respond(contentType: "application/xml", body: []) },
            // Not there when the run looked (HEAD), there when it wrote (If-None-Match: *).
            "/bkt/out/cat.jpg": { request, connection in
                if request.method == "HEAD" {
                    connection.respond(status: 404, contentType: "application/xml", body: [])
                } else {
                    _ = connection.readBody(request)
                    let code = request.headers["if-none-match"] == "*" ? 412 : 500
                    connection.respond(
                        status: code, contentType: "application/xml",
                        body: Array("<Error><Code>PreconditionFailed</Code></Error>".utf8))
                }
            },
        ])
        let result = try Catctl.run(
            [
                "batch", "--filter", "sepia", "--skip-existing", "--json", "--output-dir", "s3://bkt/out/",
                "s3://bkt/in/cat.jpg",
            ],
            environment: env.environment(server))
        #expect(result.status == 0, "\(result.stdoutText) \(result.stderr)")
        #expect(result.stdoutText.contains(#""skipped":true"#) && result.stdoutText.contains(#""skipped":1"#))
        #expect(server.requests.filter { $0.method == "PUT" }.count == 1, "412 is not retried")
    }

    @Test func aListedNameThatIsNotUTF8ComesBackByteForByte() throws {
        let folder = try Fixtures.temporaryDirectory()
        let name = folder.path + "/cat-\u{10FFFF}.jpg"  // FileNames' scalar for the byte 0xFF
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg/chelsea-420.jpg"))))
        let fd = FileNames.withPath(name) { open($0, O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0 && photo.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == photo.count)
        close(fd)
        try Data(photo).write(to: URL(fileURLWithPath: folder.path + "/plain.jpg"))
        let listed = try Catctl.run(["batch", "--list", folder.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(Array(listed.stdout).contains(0xFF), "the byte itself, not a UTF-8 stand-in")
        let manifest = folder.appendingPathComponent("list.txt")
        try listed.stdout.write(to: manifest)
        let out = try Fixtures.temporaryDirectory()
        let run = try Catctl.run(["batch", "--filter", "sepia", "--manifest", manifest.path, "--output-dir", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Fixtures.contents(of: out).count == 2)
    }
}
