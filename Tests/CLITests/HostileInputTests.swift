import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// Hostile files and faults, end to end: never a crash, never a partial file, always a reason.
@Suite("Hostile input and faults, end to end", .serialized)
struct HostileInputTests {
    @Test func everyCorruptPngSuiteFileIsRefusedWith65() throws {
        let dir = try Fixtures.temporaryDirectory()
        for name in PngSuiteNames.corrupt() {
            let result = try Catctl.run([
                "edit", "--filter", "sepia", Fixtures.path("pngsuite/\(name)"), dir.path + "/o.png",
            ])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(name))
        }
        #expect(Fixtures.contents(of: dir).isEmpty)
    }

    @Test func hugeDeclaredSizesAreRefused() throws {
        let dir = try Fixtures.temporaryDirectory()
        var jpeg = try Fixtures.bytes("jpeg/testorig.jpg")
        let sof = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0xFD; jpeg[sof + 6] = 0xE8; jpeg[sof + 7] = 0xFD; jpeg[sof + 8] = 0xE8
        try Data(jpeg).write(to: dir.appendingPathComponent("huge.jpg"))
        for name in ["huge.jpg"] {
            let result = try Catctl.run(["edit", "--filter", "mono", dir.path + "/" + name, dir.path + "/o.png"])
            #expect(result.status == 65)
            #expect(result.stderr.contains("65000x65000 is 4225.0 MP, over the limit of 100.0 MP"), "\(result.stderr)")
        }
    }

    @Test func closedPipeOnStdoutIsNoCrash() throws {
        for args in [
            ["edit", "--filter", "sepia", Fixtures.path("photos/chelsea.png"), "-"], ["filters"],
            ["filters", "--json"],
        ] {
            let process = Process()
            process.executableURL = try #require(Catctl.executable) as URL
            process.arguments = args
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try out.fileHandleForReading.close()
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "\(args): killed by a signal")
            #expect([0, 74].contains(process.terminationStatus), "\(args): \(process.terminationStatus)")
            #expect(!stderr.contains("Fatal error") && !stderr.contains("stack trace"), "\(args): \(stderr)")
        }
    }

    @Test func sigtermDuringEditLeavesNothing() throws {
        let dir = try Fixtures.temporaryDirectory(), out = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("big.png").path
        let image = try PixelBuffer.random(width: 3000, height: 2000, seed: 4)
        image.hasAlpha = false
        try OutputFile.write(to: input) { (fd: Int32) throws(ImageIOError) in
            try ImageEncoder.encode(
                image, to: fd, path: input, options: EncodeOptions(format: .png, settings: [.level: 0]))
        }
        let process = Process()
        process.executableURL = try #require(Catctl.executable) as URL
        process.arguments = [
            "edit", "--filter", "blur:12", "--filter", "sharpen:3", "--png-level", "9", "--threads", "1",
            input, out.path + "/o.png",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(700_000)
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(Fixtures.contents(of: out).isEmpty, "no output and no temporary file")
    }

    @Test func apiKeyRedactedEvenInsideAURL() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let secret = "s3cr3t-in-the-url"
        let result = try Catctl.run([
            "load", "--endpoint", server.baseURL + "/status404?api_key=" + secret, "--api-key", secret, "--json",
        ])
        #expect(result.status == 69)
        #expect(!result.stderr.contains(secret) && !result.stdoutText.contains(secret))
        #expect(result.stderr.contains("api_key=[redacted]"), "\(result.stderr)")
    }

    @Test func replySizeLimit() throws {
        let server = try CatServer.start()
        defer { server.stop() }
        let result = try Catctl.run(["load", "--endpoint", server.baseURL + "/thecatapi", "--max-reply-bytes", "10"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("is 58 bytes, over the limit of 10 bytes"), "announced: \(result.stderr)")
    }
}

enum PngSuiteNames {
    static func corrupt() -> [String] {
        let text =
            (try? String(contentsOfFile: Fixtures.path("pngsuite-expected/manifest-corrupt.txt"), encoding: .utf8))
            ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}
