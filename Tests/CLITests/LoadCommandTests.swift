import CatImageIO
import Foundation
import TestSupport
import Testing

/// `catctl load` end to end: the built binary against a real HTTP server on 127.0.0.1.
@Suite("catctl load, end to end", .serialized)
struct LoadCommandTests {
    func load(_ server: TestHTTPServer, _ path: String, _ extra: [String], env: [String: String] = [:]) throws
        -> CommandResult
    {
        try Catctl.run(["load", "--endpoint", server.baseURL + path] + extra, environment: env)
    }

    @Test func savesTheBytesUnchangedOrTranscodes() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let jpg = dir.appendingPathComponent("cat.jpg").path, png = dir.appendingPathComponent("cat.png").path
        let same = try load(server, "/thecatapi", ["-o", jpg, "--json"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try InputFile.read(jpg) == CatServer.jpeg)
        let last = try #require(same.stdoutLines.last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(json["event"] as? String == "loaded" && json["provider"] as? String == "thecatapi")
        #expect(json["id"] as? String == "abc" && json["url"] as? String == server.baseURL + "/img/cat.jpg")
        #expect(
            json["width"] as? Int == 97 && json["height"] as? Int == 61 && json["bytes"] as? Int == CatServer.jpeg.count
        )
        #expect(json["output"] as? String == jpg)

        let other = try load(server, "/thecatapi", ["-o", png])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(ImageFormat.sniff(try InputFile.read(png)) == .png)
        #expect(other.stdoutText.contains("saved: \(png)"))
        #expect(Set(Fixtures.contents(of: dir)) == ["cat.jpg", "cat.png"])
    }

    @Test func everyProviderShape() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        for (provider, path) in [
            ("cataas", ""), ("randomcat", "/meow"), ("thecatapi", "/gzip"), ("thecatapi", "/redirect"),
        ] {
            let result = try Catctl.run(["load", "--provider", provider, "--endpoint", server.baseURL + path, "--json"])
            #expect(result.status == 0, "\(provider)\(path): \(result.stderr)")
            #expect(result.stdoutLines.last?.contains(#""event":"loaded""#) == true)
        }
    }

    @Test func catAPIsAsTheyAnswerToday() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        // TheCatAPI's breed: in the plain lines and in JSON.
        let plain = try load(server, "/thecatapi-breeds", [])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutText.contains("breed: Bengal\ntemperament: Alert, Agile, Energetic\n"))
        let json = try load(server, "/thecatapi-breeds", ["--json"])
        let last = try #require(json.stdoutLines.last)
        #expect(last.contains(#""breed":"Bengal","temperament":"Alert, Agile, Energetic""#), "\(last)")
        // cataas: the old id-only shape, and a caption.
        for extra in [["--provider", "cataas"], ["--provider", "cataas", "--says", "Hello, wörld!"]] {
            let path = extra.count == 2 ? "/cataas-old" : "/cataas-new"
            let result = try load(server, path, extra + ["--json"])
            #expect(result.status == 0, "\(extra): \(result.stderr)")
            #expect(result.stdoutLines.last?.contains(#""event":"loaded""#) == true)
        }
        #expect(server.requests.contains { $0.target == "/cataas-new/cat/says/Hello%2C%20w%C3%B6rld%21?json=true" })
        // Usage: --says/--tag belong to cataas; randomcat has no public server any more.
        for (args, message) in [
            (["load", "--says", "hi"], "use them with --provider cataas"),
            (["load", "--provider", "folder", "--tag", "orange"], "use them with --provider cataas"),
            (["load", "--provider", "randomcat"], "random.cat has been down since 2023"),
        ] {
            let result = try Catctl.run(args)
            #expect(result.status == 64 && result.stderr.contains(message), "\(args): \(result.stderr)")
        }
    }

    @Test func filterGoesStraightToTheEditScene() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("sepia.png").path
        let result = try load(server, "/thecatapi", ["--filter", "sepia", "-o", out, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.contains { $0.contains(#""event":"saved""#) })
        #expect(result.stdoutLines.last?.contains(#""event":"loaded""#) == true)
        #expect(server.requests.filter { $0.path == "/img/cat.jpg" }.count == 1, "downloaded once")
        #expect(try ImageDecoder.decode(try InputFile.read(out), name: out).pixels.width == 97)
    }

    @Test func failuresMapToExitCodesAndLeaveNothing() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("cat.jpg").path
        let cases: [(String, [String], Int32, String)] = [
            ("/status404", [], 69, "answered HTTP 404"),
            ("/status500", ["--retries", "1"], 69, "answered HTTP 500"),
            ("/html-json", [], 69, "not JSON (text/html)"),
            ("/html-image", [], 65, "is not a JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF image (text/html)"),
            ("/file-url", [], 69, "refusing to fetch file:///etc/passwd"),
            ("/wrong-shape", [], 69, "did not answer with a cat"),
            ("/stall", ["--timeout", "1"], 69, "timed out"),
            ("/endless", ["--max-bytes", "300000"], 69, "larger than"),
        ]
        for (path, extra, status, message) in cases {
            let result = try load(server, path, ["-o", out] + extra, env: ["CATCTL_API_KEY": "top-secret-key"])
            #expect(result.status == status, "\(path): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(path): \(result.stderr)")
            #expect(!result.stderr.contains("top-secret-key") && !result.stdoutText.contains("top-secret-key"))
        }
        #expect(Fixtures.contents(of: dir).isEmpty)
        #expect(server.requests.contains { $0.headers["x-api-key"] == "top-secret-key" })
    }

    @Test func apiKeyNeverPrinted() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        for args in [["--api-key", "k3y-on-the-command-line", "--json"], ["--api-key", "k3y-on-the-command-line"]] {
            let ok = try load(server, "/thecatapi", args)
            #expect(ok.status == 0)
            #expect(!ok.stdoutText.contains("k3y") && !ok.stderr.contains("k3y"))
            let bad = try load(server, "/status404", args)
            #expect(!bad.stdoutText.contains("k3y") && !bad.stderr.contains("k3y"))
        }
        #expect(server.requests.first?.headers["x-api-key"] == "k3y-on-the-command-line")
    }

    @Test func theKeyIsNeverForwardedByARedirect() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let result = try load(server, "/redirect", ["--api-key", "k3y"])
        #expect(result.status == 69 && result.stderr.contains("answered HTTP 302"), "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/redirect"])
        #expect(try load(server, "/redirect", ["--json"]).status == 0, "without a key, redirects are followed")
    }

    @Test func interruptMidDownloadLeavesNothing() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let dir = try Fixtures.temporaryDirectory()
        let executable = try #require(Catctl.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "load", "--endpoint", server.baseURL + "/slow", "-o", dir.appendingPathComponent("c.jpg").path,
        ]
        let errURL = dir.deletingLastPathComponent().appendingPathComponent("interrupt-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until the image transfer is under way, then Ctrl-C.
        for _ in 0..<200 where !server.requests.contains(where: { $0.path == "/slow.jpg" }) { usleep(20_000) }
        usleep(300_000)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(String(decoding: try Data(contentsOf: errURL), as: UTF8.self).contains("cancelled"))
        #expect(Fixtures.contents(of: dir).isEmpty)
    }

    @Test func bundledFolderWorksOffline() throws {
        // From any folder: the bundled cats are found from the executable, not the working folder.
        let elsewhere = try Catctl.run(
            ["load", "--provider", "folder", "--json"], directory: URL(fileURLWithPath: "/"))
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        let result = try Catctl.run(["load", "--provider", "folder", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.last?.contains(#""id":"chelsea""#) == true)
        let usage = try Catctl.run(["load", "--provider", "dogapi"])
        #expect(
            usage.status == 64 && usage.stderr.contains("provide one of 'thecatapi', 'cataas', 'randomcat' or 'folder'")
        )
    }
}
