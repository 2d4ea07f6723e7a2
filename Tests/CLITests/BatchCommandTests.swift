import Foundation
import ImageIO
import TestSupport
import Testing

@Suite("catctl batch, end to end")
struct BatchCommandTests {
    func inputs() throws -> URL {
        let dir = try Fixtures.temporaryDirectory()
        for name in ["chelsea-420.jpg", "chelsea-444.jpg", "orient-6.jpg"] {
            try FileManager.default.copyItem(
                atPath: Fixtures.path("jpeg/\(name)"), toPath: dir.appendingPathComponent(name).path)
        }
        try FileManager.default.copyItem(
            atPath: Fixtures.path("photos/chelsea.png"), toPath: dir.appendingPathComponent("chelsea.png").path)
        try Data("not an image".utf8).write(to: dir.appendingPathComponent("broken.jpg"))
        try Data("notes".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        return dir
    }

    @Test func mixedGoodAndCorruptFolderInput() throws {
        let src = try inputs(), out = try Fixtures.temporaryDirectory()
        let result = try Catctl.run(["batch", "--filter", "sepia", "--output-dir", out.path, "--json", src.path])
        #expect(result.status == 65, "\(result.stderr)")
        let lines = result.stdoutLines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 6)
        let files = lines.filter { $0["event"] as? String == "file" }
        #expect(files.count == 5)
        #expect(
            files.filter { $0["ok"] as? Bool == false }.map { $0["input"] as? String } == [src.path + "/broken.jpg"])
        #expect(
            (files.first { $0["ok"] as? Bool == false }?["error"] as? String)?.contains("not a JPEG or PNG") == true)
        #expect(
            lines.last?["event"] as? String == "summary" && lines.last?["ok"] as? Int == 4
                && lines.last?["failed"] as? Int == 1)
        #expect(Fixtures.contents(of: out) == ["chelsea-420.jpg", "chelsea-444.jpg", "chelsea.png", "orient-6.jpg"])
        // The EXIF orientation is applied on the way.
        let upright = try ImageDecoder.decode(try InputFile.read(out.path + "/orient-6.jpg"), name: "o").pixels
        #expect(upright.width == 16 && upright.height == 24)
    }

    @Test func stdinPathsFormatAndCollisions() throws {
        let src = try inputs(), out = try Fixtures.temporaryDirectory()
        let list = out.deletingLastPathComponent().appendingPathComponent("list-\(UUID().uuidString).txt")
        try [src.path + "/chelsea-420.jpg", Fixtures.path("jpeg/chelsea-420.jpg"), src.path + "/missing.jpg"]
            .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let result = try Catctl.run(
            ["batch", "--filter", "mono", "--format", "png", "--output-dir", out.path, "-"], stdinFile: list.path)
        #expect(result.status == 65)
        #expect(
            result.stdoutLines == [out.path + "/chelsea-420.png", out.path + "/chelsea-420-2.png"]
                || result.stdoutLines == [out.path + "/chelsea-420-2.png", out.path + "/chelsea-420.png"])
        #expect(result.stderr.contains("cannot read \(src.path)/missing.jpg: no such file"))
        #expect(Fixtures.contents(of: out) == ["chelsea-420-2.png", "chelsea-420.png"])
    }

    @Test func shardsPartitionTheInputs() throws {
        let src = try inputs()
        var written: [String] = []
        for k in 1...3 {
            let out = try Fixtures.temporaryDirectory()
            let result = try Catctl.run([
                "batch", "--filter", "invert", "--shard", "\(k)/3", "--output-dir", out.path, src.path,
            ])
            #expect(result.status == 0 || result.status == 65)
            written += Fixtures.contents(of: out)
        }
        #expect(written.sorted() == ["chelsea-420.jpg", "chelsea-444.jpg", "chelsea.png", "orient-6.jpg"])
        #expect(
            try Catctl.run(["batch", "--filter", "invert", "--shard", "0/3", "--output-dir", "/tmp", src.path]).status
                == 64)
    }

    @Test func outputFolderProblems() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        let result = try Catctl.run(["batch", "--filter", "mono", "--output-dir", file.path, Fixtures.path("photos")])
        #expect(result.status == 73)
    }
}

@Suite("catctl batch interrupted")
struct BatchInterruptTests {
    @Test func ctrlCKeepsFinishedFilesAndLeavesNoPartialOnes() throws {
        let src = try Fixtures.temporaryDirectory(), out = try Fixtures.temporaryDirectory()
        for i in 0..<150 {
            try FileManager.default.copyItem(
                atPath: Fixtures.path("photos/chelsea.png"), toPath: src.appendingPathComponent("cat\(i).png").path)
        }
        let process = Process()
        process.executableURL = try #require(Catctl.executable)
        process.arguments = [
            "batch", "--jobs", "1", "--filter", "blur:4", "--png-level", "9", "--output-dir", out.path, src.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<500 where Fixtures.contents(of: out).filter({ !$0.hasPrefix(".") }).count < 2 { usleep(10_000) }
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let written = Fixtures.contents(of: out)
        #expect(!written.isEmpty && written.count < 150)
        #expect(written.allSatisfy { !$0.hasPrefix(".") }, "no temporary files: \(written)")
        for name in written {
            #expect(throws: Never.self) {
                _ = try ImageDecoder.decode(try InputFile.read(out.path + "/" + name), name: name)
            }
        }
    }
}
