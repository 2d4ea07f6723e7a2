import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// Animated GIF and WebP through edit, batch and load, and the limits on hostile files (issue 10).
@Suite("Animations and new formats on the command line")
struct AnimationCommandTests {
    let gif = Fixtures.path("gif/anim-delays-loop.gif")

    func animation(_ path: String) throws -> Animation {
        try ImageReader(bytes: InputFile.read(path), name: path).readAnimation()
    }

    @Test func everyFrameIsEditedAndKept() throws {
        let dir = try Fixtures.temporaryDirectory()
        let source = try animation(gif)
        for name in ["s.gif", "s.webp"] {
            let out = dir.appendingPathComponent(name).path
            let result = try Catctl.run(["edit", "--filter", "sepia", "--filter", "flop", gif, out])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("48x32, 5 frames, sepia → flop"), "\(result.stderr)")
            let edited = try animation(out)
            #expect(edited.frames.count == 5 && edited.delays == source.delays && edited.loopCount == 3, "\(name)")
        }
        // JSON says how many frames went out.
        let json = try Catctl.run([
            "edit", "--json", "--filter", "mono", gif, dir.appendingPathComponent("j.webp").path,
        ])
        #expect(json.stdoutLines.last?.contains(#""frames":5,"inputFrames":5"#) == true, "\(json.stdoutText)")
    }

    @Test func stillFormatsGetTheFirstFrameAndSaySo() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("first.png").path
        let result = try Catctl.run(["edit", "--filter", "invert:0", gif, out])
        #expect(result.status == 0)
        #expect(result.stderr.contains("holds the first of the 5 frames"), "\(result.stderr)")
        let first = try Fixtures.decode("gif/anim-delays-loop.gif").pixels.packedRGBA()
        #expect(try ImageDecoder.decode(InputFile.read(out), name: out).pixels.packedRGBA() == first)
    }

    @Test func webpOutputFollowsQualityAndLossless() throws {
        let dir = try Fixtures.temporaryDirectory()
        let cat = Fixtures.path("photos/chelsea.png")
        let lossless = dir.appendingPathComponent("l.webp").path, png = dir.appendingPathComponent("p.png").path
        #expect(try Catctl.run(["edit", "--lossless", "--filter", "sepia", cat, lossless]).status == 0)
        #expect(try Catctl.run(["edit", "--filter", "sepia", cat, png]).status == 0)
        let a = try ImageDecoder.decode(InputFile.read(lossless), name: "l").pixels.packedRGBA()
        let b = try ImageDecoder.decode(InputFile.read(png), name: "p").pixels.packedRGBA()
        #expect(a == b, "--lossless WebP holds exactly the PNG's pixels")
        let q30 = dir.appendingPathComponent("q30.webp").path, q80 = dir.appendingPathComponent("q80.webp").path
        #expect(try Catctl.run(["edit", "--quality", "30", "--filter", "sepia", cat, q30]).status == 0)
        #expect(try Catctl.run(["edit", "--filter", "sepia", cat, q80]).status == 0)
        #expect(try InputFile.read(q30).count < InputFile.read(q80).count)
    }

    @Test func hostileAndUnsupportedFilesExit65LeavingNothing() throws {
        let dir = try Fixtures.temporaryDirectory()
        let tiff = dir.appendingPathComponent("cat.tiff")
        try Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0] + Array(repeating: 0, count: 64)).write(to: tiff)
        let bmp = dir.appendingPathComponent("cat.bmp")
        try Data(Array("BM6".utf8) + Array(repeating: 0, count: 64)).write(to: bmp)
        let cases: [(String, [String], String)] = [
            (Fixtures.path("gif/bad-huge-screen.gif"), [], "65535x65535 is 4294.8 MP, over the limit of 100.0 MP"),
            (Fixtures.path("webp/huge-vp8x.webp"), [], "16383x16383 is 268.4 MP"),
            (Fixtures.path("webp/huge-anim.webp"), [], "4000x4000 x 10 frames is 160.0 MP"),
            (gif, ["--max-pixels", "7000"], "48x32 x 5 frames is 7680 pixels, over the limit of 7000 pixels"),
            (gif, ["--max-frames", "4"], "more than 4 frames (raise the limit with --max-frames)"),
            (Fixtures.path("webp/animated.webp"), ["--max-frames", "3"], "more than 3 frames"),
            (Fixtures.path("gif/bad-truncated.gif"), [], "truncated"),
            (Fixtures.path("gif/bad-no-colour-table.gif"), [], "corrupt data"),
            (tiff.path, [], "the first TIFF directory cannot be read"),
            (Fixtures.path("tiff/huge-declared.tif"), [], "100000x100000 is 10000.0 MP, over the limit of 100.0 MP"),
            (Fixtures.path("heif/huge-ispe.heic"), [], "60000x60000 is 3600.0 MP, over the limit of 100.0 MP"),
            (Fixtures.path("jxl/huge.jxl"), [], "1000000x1000000 is 1000000.0 MP"),
            (Fixtures.path("heif/seq.avif"), ["--max-frames", "2"], "more than 2 frames"),
            (bmp.path, [], "BMP is not supported (catctl reads JPEG, PNG, WebP, GIF, HEIC, AVIF, JPEG XL or TIFF)"),
        ]
        for (input, options, message) in cases {
            let out = dir.appendingPathComponent("out.gif").path
            let result = try Catctl.run(["edit", "--filter", "sepia"] + options + [input, out])
            #expect(result.status == 65, "\(input): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(input): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "no partial output for \(input)")
        }
    }

    @Test func batchAndLoadTakeAnimations() throws {
        let dir = try Fixtures.temporaryDirectory()
        let batch = try Catctl.run(["batch", "--filter", "mono", "--output-dir", dir.path, gif])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try animation(dir.appendingPathComponent("anim-delays-loop.gif").path).frames.count == 5)

        let cats = dir.appendingPathComponent("cats")
        try FileManager.default.createDirectory(at: cats, withIntermediateDirectories: true)
        try Data(Fixtures.bytes("gif/anim-delays-loop.gif")).write(to: cats.appendingPathComponent("dance.gif"))
        let load = ["load", "--provider", "folder", "--endpoint", cats.path, "--no-preview"]
        let kept = dir.appendingPathComponent("kept.gif").path
        #expect(try Catctl.run(load + ["-o", kept]).status == 0)
        #expect(try InputFile.read(kept) == (try Fixtures.bytes("gif/anim-delays-loop.gif")), "the bytes as served")
        let edited = dir.appendingPathComponent("edited.webp").path
        let result = try Catctl.run(load + ["--filter", "sepia", "-o", edited])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try animation(edited).frames.count == 5, "load → edit keeps every frame")
        // The frame limit holds for the load's own decode too.
        let limited = try Catctl.run(load + ["--max-frames", "4"])
        #expect(limited.status == 65 && limited.stderr.contains("more than 4 frames"), "\(limited.stderr)")
        let json = try Catctl.run(["load", "--provider", "folder", "--endpoint", cats.path, "--json"])
        #expect(json.status == 0 && json.stdoutText.contains(#""width":48,"height":32"#), "\(json.stdoutText)")
    }
}
