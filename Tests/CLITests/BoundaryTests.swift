import CatSupport
import Foundation
import TestSupport
import Testing

/// The third attack's findings outside the image decoders (issue 42), each with the file or
/// server that showed it: a listing page cut at the parser's bound, a compressed S3 reply,
/// names holding a NUL, long names, special files, huge manifests. Each ends with a clear
/// message, its exit code, bounded time and memory, and nothing partial left.
@Suite("one truth at the boundary")
struct BoundaryTests {
    let s3 = ObjectStorageFaultTests()

    /// Finding 7: a page of over 100000 elements is not read as the whole page (its
    /// IsTruncated comes last and was never seen: 50,000 of 100,001 keys, exit 0).
    @Test func aListingPageOverTheElementBoundFailsWith69() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt": { _, connection in
                var xml = "<ListBucketResult><Name>bkt</Name>"
                for i in 0..<100_001 { xml += "<Contents><Key>p/\(i).jpg</Key></Contents>" }
                xml += "<IsTruncated>true</IsTruncated><NextContinuationToken>2</NextContinuationToken>"
                connection.respond(contentType: "application/xml", body: Array((xml + "</ListBucketResult>").utf8))
            }
        ])
        let result = try Catctl.runBounded(
            ["batch", "--list", "s3://bkt/p/"], memory: 1 << 30, seconds: 60, environment: s3.environment(server))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("over 100000 XML elements"), "\(result.stderr)")
        #expect(result.stdoutLines.isEmpty, "no half listing")
    }

    /// Finding 8: S3 asks for no compression, so a gzip reply is never inflated into
    /// memory (0.5 MB on the wire made 567 MB); and the limit's message says S3 announced
    /// the size only when it did.
    @Test func s3AsksForNoCompressionAndACompressedReplyStaysSmall() throws {
        let bomb = try Self.gzipOfZeros(megabytes: 100)
        let server = try TestHTTPServer(routes: [
            "/bkt/cat.jpg": { _, connection in
                connection.respond(contentType: "image/jpeg", body: bomb, headers: [("Content-Encoding", "gzip")])
            }
        ])
        let out = try s3.output()
        let result = try Catctl.runBounded(
            ["edit", "--filter", "sepia", "s3://bkt/cat.jpg", out], memory: 1 << 30, seconds: 60,
            environment: s3.environment(server))
        #expect(result.status == 65, "the compressed bytes are no image: \(result.stderr)")
        #expect(server.requests.first?.headers["accept-encoding"] == nil)
        #expect(Catctl.isSanitized || result.maxResidentKiB < 100_000, "\(result.maxResidentKiB) KiB")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aSizeOnlyAnnouncedIsSaidToBeAnnounced() throws {
        let server = try TestHTTPServer(routes: [
            "/bkt/huge.jpg": { _, connection in
                connection.writeHead(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("Content-Length", "10000000000")])
            }
        ])
        let result = try Catctl.runBounded(
            ["edit", "--filter", "sepia", "s3://bkt/huge.jpg", try s3.output()], memory: 1 << 30, seconds: 30,
            environment: s3.environment(server))
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("as S3 announces it"), "\(result.stderr)")
    }

    static func gzipOfZeros(megabytes: Int) throws -> [UInt8] {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import gzip, sys; sys.stdout.buffer.write(gzip.compress(bytes(\(megabytes) << 20), 9))",
        ]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return Array(data)
    }
}
