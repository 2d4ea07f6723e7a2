import CatImageIO
import Foundation
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
            (files.first { $0["ok"] as? Bool == false }?["error"] as? String)?.contains(
                "not a JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF")
                == true)
        #expect(
            lines.last?["event"] as? String == "summary" && lines.last?["ok"] as? Int == 4
                && lines.last?["failed"] as? Int == 1)
        #expect(Fixtures.contents(of: out) == ["chelsea-420.jpg", "chelsea-444.jpg", "chelsea.png", "orient-6.jpg"])
        // The EXIF orientation is applied on the way.
        let upright = try ImageDecoder.decode(try InputFile.read(out.path + "/orient-6.jpg"), name: "o").pixels
        #expect(upright.width == 16 && upright.height == 24)
    }

    /// The bound on inputs counts each path once, however it came (a file named and again
    /// in its folder's walk), and the message names the bound given.
    @Test func theInputBoundCountsEachPathOnce() throws {
        let src = try inputs(), out = try Fixtures.temporaryDirectory()
        let one = src.path + "/chelsea-420.jpg"
        let within = try Catctl.run(
            ["batch", "--filter", "sepia", "--max-inputs", "5", "--output-dir", out.path, one, src.path])
        #expect(within.status == 65, "\(within.stderr)")  // broken.jpg fails; the five images are the bound
        #expect(within.stderr.contains("4 written, 1 failed"), "\(within.stderr)")
        let over = try Catctl.run(
            ["batch", "--filter", "sepia", "--max-inputs", "4", "--output-dir", out.path, one, src.path])
        #expect(over.status == 64, "\(over.stderr)")
        #expect(over.stderr.contains("over 4 inputs"), "\(over.stderr)")
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
        // Same name and extension from two folders: each is told apart by a hash of its own path.
        #expect(result.stdoutLines.count == 2)
        for line in result.stdoutLines {
            #expect(
                line.range(of: #"/chelsea-420-jpg-[0-9a-f]{6}\.png$"#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(result.stderr.contains("cannot read \(src.path)/missing.jpg: no such file"))
        #expect(Set(Fixtures.contents(of: out)) == Set(result.stdoutLines.map { ($0 as NSString).lastPathComponent }))
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

    /// `--shard auto/N` takes K from the array job's index: each engine's variable gives the
    /// same files as the fixed shard; with none set it is a usage error naming them all.
    @Test func autoShardsComeFromTheArrayJobsIndex() throws {
        let src = try inputs()
        func written(_ shard: String, _ environment: [String: String]) throws -> [String] {
            let out = try Fixtures.temporaryDirectory()
            let result = try Catctl.run(
                ["batch", "--filter", "invert", "--shard", shard, "--output-dir", out.path, src.path],
                environment: environment)
            #expect(result.status == 0 || result.status == 65, "\(shard) \(environment): \(result.stderr)")
            return Fixtures.contents(of: out).sorted()
        }
        // A shard with files in it (which one depends on the temporary folder's name).
        let shards = try (1...3).map { try written("\($0)/3", [:]) }
        let k = try #require(shards.firstIndex { !$0.isEmpty }) + 1
        let expected = shards[k - 1]
        #expect(try written("auto/3", ["JOB_COMPLETION_INDEX": "\(k - 1)"]) == expected)
        #expect(try written("auto/3", ["SLURM_ARRAY_TASK_ID": "\(k)"]) == expected)
        #expect(try written("auto/3", ["AWS_BATCH_JOB_ARRAY_INDEX": "\(k - 1)"]) == expected)
        #expect(try written("auto/3", ["CLOUD_RUN_TASK_INDEX": "\(k - 1)"]) == expected)
        let none = try Catctl.run([
            "batch", "--filter", "invert", "--shard", "auto/3", "--output-dir", "/tmp", src.path,
        ])
        #expect(none.status == 64)
        for name in [
            "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "CLOUD_RUN_TASK_INDEX",
        ] {
            #expect(none.stderr.contains(name), "\(none.stderr)")
        }
        let outside = try Catctl.run(
            ["batch", "--filter", "invert", "--shard", "auto/3", "--output-dir", "/tmp", src.path],
            environment: ["SLURM_ARRAY_TASK_ID": "0"])
        #expect(outside.status == 64 && outside.stderr.contains("must be 1-3"), "\(outside.stderr)")
    }

    /// `--manifest FILE`: the paths in it, one a line, are inputs as if given one by one: the
    /// same outputs, byte for byte, and the same shards (an output's name depends only on its
    /// input's path). A missing manifest is 66.
    @Test func aManifestListsTheInputs() throws {
        let src = try inputs()
        let names = ["chelsea-420.jpg", "chelsea-444.jpg", "chelsea.png", "orient-6.jpg"]
        let paths = names.map { src.appendingPathComponent($0).path }
        let manifest = try Fixtures.temporaryDirectory().appendingPathComponent("list")
        try Data(("\n  " + paths.joined(separator: "\n") + "  \r\n\n").utf8).write(to: manifest)
        func run(_ extra: [String], _ inputs: [String]) throws -> [String: Data] {
            let out = try Fixtures.temporaryDirectory()
            let result = try Catctl.run(["batch", "--filter", "invert", "--output-dir", out.path] + extra + inputs)
            #expect(result.status == 0, "\(extra): \(result.stderr)")
            return try Dictionary(
                uniqueKeysWithValues: Fixtures.contents(of: out).map {
                    ($0, try Data(contentsOf: out.appendingPathComponent($0)))
                })
        }
        let given = try run([], paths)
        #expect(given.keys.sorted() == names)
        #expect(try run(["--manifest", manifest.path], []) == given)
        for k in 1...2 {
            #expect(
                try run(["--shard", "\(k)/2", "--manifest", manifest.path], []) == run(["--shard", "\(k)/2"], paths))
        }
        let missing = try Catctl.run([
            "batch", "--filter", "invert", "--output-dir", "/tmp", "--manifest", "/nope/list",
        ])
        #expect(missing.status == 66, "\(missing.stderr)")
        let none = try Catctl.run(["batch", "--filter", "invert", "--output-dir", "/tmp"])
        #expect(none.status == 64 && none.stderr.contains("--manifest"), "\(none.stderr)")
    }

    @Test func outputFolderProblems() throws {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        let result = try Catctl.run(["batch", "--filter", "mono", "--output-dir", file.path, Fixtures.path("photos")])
        #expect(result.status == 73)
    }
}

/// Batches over folder trees: names that every shard agrees on, resumable, nothing lost.
@Suite("catctl batch over trees and shards")
struct BatchTreeTests {
    /// a/x1..x12.jpg and b/x1..x12.png (the issue's run), plus a/deeper/x1.jpg.
    func tree() throws -> URL {
        let root = try Fixtures.temporaryDirectory()
        for folder in ["a", "b", "a/deeper"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for i in 1...12 {
            try FileManager.default.copyItem(
                atPath: Fixtures.path("jpeg/chelsea-420.jpg"), toPath: root.appendingPathComponent("a/x\(i).jpg").path)
            try FileManager.default.copyItem(
                atPath: Fixtures.path("pngsuite/basn2c08.png"), toPath: root.appendingPathComponent("b/x\(i).png").path)
        }
        try FileManager.default.copyItem(
            atPath: Fixtures.path("jpeg/chelsea-444.jpg"), toPath: root.appendingPathComponent("a/deeper/x1.jpg").path)
        return root
    }

    /// Every file below `dir` (relative path → bytes).
    func files(_ dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let walk = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walk?.nextObject() as? String {
            var isDir: ObjCBool = false
            let path = dir.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                out[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return out
    }

    @Test func shardedWithGNUParallelWritesExactlyTheUnshardedFiles() throws {
        let parallel = ["/usr/bin/parallel", "/usr/local/bin/parallel"].first(
            where: FileManager.default.isExecutableFile)
        let tool = try #require(parallel, "GNU parallel is needed (scripts/test installs Debian's parallel)")
        let root = try tree()
        let whole = try Fixtures.temporaryDirectory(), sharded = try Fixtures.temporaryDirectory()
        let args = ["batch", "--filter", "sepia", "--format", "jpg", "--output-dir"]
        let inputs = [root.path + "/a", root.path + "/b"]
        let one = try Catctl.run(args + [whole.path] + inputs)
        #expect(one.status == 0, "\(one.stderr)")
        let expected = try files(whole)
        #expect(expected.count == 24)
        #expect(expected["x1.jpg"] != nil && expected["x1-png.jpg"] != nil)
        // Three local jobs, one shard each.
        let executable = try #require(Catctl.executable).path
        let result = try Catctl.run(
            program: URL(fileURLWithPath: tool),
            ["--will-cite", "-j3", "--halt", "now,fail=1", executable] + args
                + [sharded.path, "--shard", "{}/3"] + inputs + [":::", "1", "2", "3"],
            environment: ["HOME": root.path])
        #expect(result.status == 0, "\(result.stderr)")
        let written = result.stdoutLines
        #expect(written.count == 24 && Set(written).count == 24, "each output written once: \(written.count)")
        #expect(try files(sharded) == expected, "the union equals the unsharded run, byte for byte")
    }

    @Test func recursiveMirrorsTheTreeAndResumes() throws {
        let root = try tree(), out = try Fixtures.temporaryDirectory()
        let args = ["batch", "--filter", "mono", "--recursive", "--output-dir", out.path, "--json", root.path]
        let first = try Catctl.run(args)
        #expect(first.status == 0, "\(first.stderr)")
        let made = try files(out)
        #expect(made.count == 25)
        #expect(made["a/deeper/x1.jpg"] != nil && made["a/x1.jpg"] != nil && made["b/x1.png"] != nil)
        // Interrupted half way: two outputs are missing. --skip-existing does only those.
        try FileManager.default.removeItem(atPath: out.path + "/a/x3.jpg")
        try FileManager.default.removeItem(atPath: out.path + "/b/x7.png")
        let before =
            try FileManager.default.attributesOfItem(atPath: out.path + "/a/x1.jpg")[.modificationDate] as? Date
        let again = try Catctl.run(args + ["--skip-existing"])
        #expect(again.status == 0, "\(again.stderr)")
        let lines = again.stdoutLines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let done = lines.filter { $0["event"] as? String == "file" && $0["skipped"] == nil }.compactMap {
            $0["output"] as? String
        }
        #expect(Set(done) == [out.path + "/a/x3.jpg", out.path + "/b/x7.png"])
        #expect(lines.filter { $0["skipped"] as? Bool == true }.count == 23)
        #expect(lines.last?["event"] as? String == "summary" && lines.last?["skipped"] as? Int == 23)
        #expect(try files(out) == made)
        let after = try FileManager.default.attributesOfItem(atPath: out.path + "/a/x1.jpg")[.modificationDate] as? Date
        #expect(before == after, "existing outputs are not rewritten")
    }

    @Test func noInputIsOverwritten() throws {
        let root = try tree()
        let a = root.path + "/a"
        let original = try Data(contentsOf: URL(fileURLWithPath: a + "/x1.jpg"))
        // a/x1.jpg is an input, and b/x1.png's plain output name: b/x1.png goes to x1-png.jpg,
        // and a/x1.jpg, which would be its own output, fails alone.
        let result = try Catctl.run([
            "batch", "--filter", "invert", "--format", "jpg", "--output-dir", a, root.path + "/b", a + "/x1.jpg",
        ])
        #expect(result.status == 65 && result.stderr.contains("it is the input file"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: a + "/x1.jpg")) == original)
        #expect(FileManager.default.fileExists(atPath: a + "/x1-png.jpg"))
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
        process.executableURL = try #require(Catctl.executable) as URL
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
