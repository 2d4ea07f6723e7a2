import CatImageIO
import CatSupport
import Foundation
import TestSupport
import Testing

/// Outputs go where the user meant: through symbolic links to their file, straight into
/// FIFOs and devices, replacing files with their mode kept; batch never leaves its output
/// folder, never nests into itself, and takes names that are bytes.
@Suite("Outputs go where the user meant", .serialized)
struct OutputTargetTests {
    static let cat = Fixtures.path("photos/chelsea.png")

    static func isPNG(_ path: String) -> Bool {
        (try? Data(contentsOf: URL(fileURLWithPath: path)).prefix(4)) == Data([0x89, 0x50, 0x4E, 0x47])
    }

    @Test func aSymlinkWritesTheFileItPointsToAndStays() throws {
        let dir = try Fixtures.temporaryDirectory()
        let targets = dir.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: targets, withIntermediateDirectories: true)
        let target = targets.appendingPathComponent("cat.png").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o640)
        let link = dir.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/cat.png")
        let result = try Catctl.run(["edit", "--filter", "sepia", Self.cat, link])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real/cat.png", "the link stays")
        #expect(Self.isPNG(target))
        #expect((FileSystem.status(target)?.st_mode ?? 0) & 0o7777 == 0o640, "the target's mode is kept")
        #expect(Fixtures.contents(of: targets) == ["cat.png"], "no temporary file left beside the target")

        let dangling = dir.appendingPathComponent("dangling.png").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "nowhere/x.png")
        let refused = try Catctl.run(["edit", "--filter", "sepia", Self.cat, dangling])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("symbolic link to a file that does not exist"), "\(refused.stderr)")
    }

    @Test func devStdoutIsTheDescriptorItself() throws {
        let dir = try Fixtures.temporaryDirectory()
        let redirected = dir.appendingPathComponent("out.png").path
        #expect(FileManager.default.createFile(atPath: redirected, contents: nil))
        let before = try #require(FileSystem.status(redirected))
        let result = try Catctl.run(
            ["edit", "--filter", "sepia", "--format", "png", Self.cat, "/dev/stdout"], stdoutFile: redirected)
        #expect(result.status == 0, "\(result.stderr)")
        // A descriptor the process was not started with (one its own libraries opened) is never written.
        let own = try Catctl.run(["edit", "--filter", "sepia", "--format", "png", Self.cat, "/dev/fd/5"])
        #expect(own.status == 73, "\(own.stderr)")
        let after = try #require(FileSystem.status(redirected))
        #expect(before.st_ino == after.st_ino, "the redirected file is written, not replaced")
        #expect(Self.isPNG(redirected))
    }

    @Test func aFullDeviceIs74() throws {
        let result = try Catctl.run(["edit", "--filter", "sepia", "--format", "png", Self.cat, "/dev/full"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("no space left"), "\(result.stderr)")
        var st = stat()
        #expect(stat("/dev/full", &st) == 0 && st.st_mode & S_IFMT == S_IFCHR, "still the device")
    }

    @Test func aFIFOIsWrittenStraightThrough() throws {
        let dir = try Fixtures.temporaryDirectory()
        let fifo = dir.appendingPathComponent("pipe.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = LockedBytes()
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var chunk = [UInt8](repeating: 0, count: 65536)
            while fd >= 0 {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                received.append(chunk[0..<n])
            }
            close(fd)
        }
        reader.start()
        let result = try Catctl.run(["edit", "--filter", "sepia", Self.cat, fifo])
        #expect(result.status == 0, "\(result.stderr)")
        let end = Date().addingTimeInterval(10)
        while received.bytes.count < 8 && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        #expect(Array(received.bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        #expect(FileSystem.status(fifo, follow: false).map { $0.st_mode & S_IFMT } == S_IFIFO, "still a FIFO")
        #expect(Fixtures.contents(of: dir) == ["pipe.png"], "no temporary file")
    }

    @Test func replacingKeepsTheModeAndANewFileFollowsTheUmask() throws {
        let dir = try Fixtures.temporaryDirectory()
        let existing = dir.appendingPathComponent("kept.png").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: existing))
        chmod(existing, 0o600)
        let fresh = dir.appendingPathComponent("new.png").path
        let script =
            "umask 027; \(PtySession.quote(Catctl.executable!.path)) edit --filter sepia "
            + "\(PtySession.quote(Self.cat)) \(PtySession.quote(existing)) && "
            + "\(PtySession.quote(Catctl.executable!.path)) edit --filter sepia \(PtySession.quote(Self.cat)) "
            + PtySession.quote(fresh)
        let result = try Catctl.run(program: URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((FileSystem.status(existing)?.st_mode ?? 0) & 0o7777 == 0o600)
        #expect((FileSystem.status(fresh)?.st_mode ?? 0) & 0o7777 == 0o640, "0666 less the umask 027")
    }

    /// A folder `in` holding `a.png` and `sub/b.png`, in a new temporary folder.
    static func inputTree() throws -> (dir: URL, input: URL) {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(
            at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cat, toPath: input.appendingPathComponent("a.png").path)
        try FileManager.default.copyItem(atPath: cat, toPath: input.appendingPathComponent("sub/b.png").path)
        return (dir, input)
    }

    /// `--output-dir` given as a link into the input tree: resolved once, left out of the
    /// walk however it is reached, so a second run writes the same files, not out/out/….
    @Test func batchOutputDirLinkedIntoTheInputsDoesNotNest() throws {
        let (dir, input) = try Self.inputTree()
        try FileManager.default.createDirectory(
            at: input.appendingPathComponent("results"), withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("out").path
        try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: "in/results")
        for run in 1...3 {
            let result = try Catctl.run(["batch", "--recursive", "--filter", "mono", "--output-dir", out, input.path])
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            #expect(result.stdoutLines.count == 2, "run \(run): \(result.stdoutLines)")
        }
        #expect(Fixtures.contents(of: input.appendingPathComponent("results")).sorted() == ["a.png", "sub"])
    }

    /// A folder link inside the output tree is never followed: the file that would land
    /// outside fails (73) and nothing is written there; the others are written.
    @Test func batchNeverWritesThroughALinkInsideTheOutputFolder() throws {
        let (dir, input) = try Self.inputTree()
        // A name starting with a combining mark must not fuse with the "/" before it.
        try FileManager.default.copyItem(
            atPath: Self.cat, toPath: input.appendingPathComponent("sub/\u{301}c.png").path)
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: out.appendingPathComponent("sub").path, withDestinationPath: elsewhere.path)
        try FileManager.default.createSymbolicLink(
            atPath: out.appendingPathComponent("a.png").path, withDestinationPath: elsewhere.path + "/a.png")
        let result = try Catctl.run(["batch", "--recursive", "--filter", "mono", "--output-dir", out.path, input.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(Fixtures.contents(of: elsewhere).isEmpty, "nothing lands outside the output folder")
    }

    /// The folder given is the output folder itself (`--format webp` beside the PNGs): its
    /// own images count; only a walk into it from elsewhere is left out.
    @Test func batchIntoTheFolderItReads() throws {
        let (_, input) = try Self.inputTree()
        let result = try Catctl.run([
            "batch", "--filter", "mono", "--format", "webp", "--output-dir", input.path, input.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == [input.path + "/a.webp"])
    }

    /// Names that are not UTF-8: walked, given on the command line and on stdin, written
    /// under the same bytes; shown with `\ooo` escapes.
    @Test func batchTakesNamesThatAreNotUTF8() throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("in").path
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let png = try Data(contentsOf: URL(fileURLWithPath: Self.cat))
        let name = FileNames.decode([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x70, 0x6E, 0x67])  // "caf\xe9.png" (Latin-1)
        let fd = FileSystem.open(input + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let catctl = PtySession.quote(Catctl.executable!.path)
        let script = """
            cd \(PtySession.quote(dir.path)) && \
            \(catctl) batch --recursive --filter mono --output-dir walked in && \
            \(catctl) batch --filter mono --output-dir argv "$(printf 'in/caf\\351.png')" && \
            printf 'in/caf\\351.png\\n' | \(catctl) batch --filter mono --output-dir stdin -
            """
        let result = try Catctl.run(program: URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == ["walked/caf\\351.png", "argv/caf\\351.png", "stdin/caf\\351.png"])
        for folder in ["walked", "argv", "stdin"] {
            let path = dir.path + "/" + folder + "/" + name
            #expect(FileSystem.status(path).map { $0.st_size > 1000 } == true, "\(folder) holds the same name's bytes")
        }
    }
}

/// Bytes gathered by a reader thread.
final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var data: [UInt8] = []
    func append(_ more: ArraySlice<UInt8>) { lock.withLock { data += more } }
    var bytes: [UInt8] { lock.withLock { data } }
}
