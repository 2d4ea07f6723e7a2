import CatImageIO
import Foundation
import TestSupport
import Testing

/// Every input costs bounded work, decided before the work: captions, fonts, servers.
@Suite("Bounded work for every input", .serialized)
struct BoundedWorkTests {
    static let cat = Fixtures.path("photos/chelsea.png")

    @Test func captionsHaveADocumentedMaximum() throws {
        let dir = try Fixtures.temporaryDirectory()
        let longest = String(repeating: "cat ", count: 250).trimmingCharacters(in: .whitespaces)  // 999 characters
        let ok = try Catctl.run(["edit", "--filter", "caption:\(longest)", Self.cat, dir.path + "/ok.png"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let tooLong = String(repeating: "cat ", count: 15_000)
        let refused = try Catctl.run(["edit", "--filter", "caption:\(tooLong)", Self.cat, dir.path + "/no.png"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("the caption has 59999 characters; at most 1000 fit"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/no.png"))
    }

    /// CATCTL_FONT: missing or not a regular file is 66 (a FIFO is never opened, so never
    /// waited on), a file that is not a font is 65; nothing is written.
    @Test func fontErrorsSayWhatIsWrong() throws {
        let dir = try Fixtures.temporaryDirectory()
        let garbage = dir.appendingPathComponent("random.ttf").path
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(
            to: URL(fileURLWithPath: garbage))
        let fifo = dir.appendingPathComponent("fifo.ttf").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(String, Int32, String)] = [
            (dir.path + "/missing.ttf", 66, "cannot read the font \(dir.path)/missing.ttf: no such file"),
            (fifo, 66, "cannot read the font \(fifo): it is not a regular file"),
            (dir.path, 66, "it is not a regular file"),
            (garbage, 65, "cannot use \(garbage) as the caption font"),
        ]
        for (font, status, message) in cases {
            let out = dir.appendingPathComponent("o.png").path
            let result = try Catctl.run(
                ["edit", "--filter", "caption:HI", Self.cat, out], environment: ["CATCTL_FONT": font])
            #expect(result.status == status, "\(font): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(font): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test func retriesAndWaitsAreBoundedOnTheCommandLine() throws {
        let server = try HostileCatServer.start()
        defer { server.stop() }
        let many = try Catctl.run(["load", "--endpoint", server.baseURL + "/busy", "--retries", "100"])
        #expect(many.status == 64)
        #expect(many.stderr.contains("--retries must be 0 to 20"), "\(many.stderr)")
        #expect(server.requests.isEmpty, "refused before any request")
        let late = try Catctl.run([
            "load", "--endpoint", server.baseURL + "/busy-long", "--timeout", "1", "--no-preview",
        ])
        #expect(late.status == 69)
        #expect(
            late.stderr.contains(
                "answered HTTP 503 and asks to retry after 100000 s (Retry-After), longer than the 1 s catctl waits"),
            "\(late.stderr)")
        #expect(server.requests.count == 1)
    }
}
