import Foundation
import TestSupport
import Testing

/// `cutout`, `sticker` and `portrait` end to end, with the installed mask network: what
/// Pillow reads back, the notes, `--require-cat`, and no file left on a failure.
@Suite("catctl cat filters, end to end")
struct CatFilterCommandTests {
    let held = Fixtures.path("cats/13-man-holding-cat.jpg")

    /// Pillow's view of a written file: mode, size, and the alpha (or grey) of two places.
    func read(_ path: String, _ points: [(Int, Int)]) throws -> [String] {
        let script = """
            import sys; from PIL import Image
            im = Image.open(sys.argv[1]); print(im.mode, im.size[0], im.size[1])
            for p in sys.argv[2:]:
                x, y = map(int, p.split(","))
                print(im.convert("RGBA").getpixel((x, y)))
            """
        let result = try Oracle.run("python3", ["-c", script, path] + points.map { "\($0.0),\($0.1)" })
        try #require(result.status == 0, "\(result.stderr)")
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Python given a cut-out, a mask, Benchmarks/mask-draw.py and the photo: the largest
    /// difference of the cut-out's alpha from the mask, then the IoU of the mask (128 and
    /// over) with the one drawn by hand.
    static let compare = """
        import sys, importlib.util
        sys.dont_write_bytecode = True
        from PIL import Image, ImageChops
        cut, mask, draw, photo = sys.argv[1:]
        m = Image.open(mask).convert("L")
        print(ImageChops.difference(Image.open(cut).getchannel("A"), m).getextrema()[1])
        spec = importlib.util.spec_from_file_location("draw", draw)
        d = importlib.util.module_from_spec(spec); spec.loader.exec_module(d)
        on = lambda im: im.point(lambda v: 255 if v >= 128 else 0).convert("1")
        hand, ours = on(d.raster(d.load(photo), m.size)), on(m)
        count = lambda im: im.convert("L").histogram()[255]
        print(count(ImageChops.logical_and(hand, ours)) / max(1, count(ImageChops.logical_or(hand, ours))))
        """

    @Test func cutoutStickerAndPortrait() throws {
        let dir = try Fixtures.temporaryDirectory()
        // Transparent outside the cat (the man's face), opaque on its body.
        let png = dir.appendingPathComponent("cut.png").path
        let cut = try Catctl.run(["edit", "--filter", "cutout", held, png])
        #expect(cut.status == 0, "\(cut.stderr)")
        let pixels = try read(png, [(600, 830), (320, 1250)])
        #expect(pixels.first == "RGBA 1205 1600")
        #expect(pixels.count == 3 && pixels[1].hasSuffix(", 0)"), "the man's face: \(pixels)")
        #expect(pixels.count == 3 && pixels[2].hasSuffix(", 255)"), "the cat: \(pixels)")
        // Its alpha is the very mask detect writes (one copy, one truth), and that mask is
        // close to the one drawn by hand (Tests/Fixtures/cats/masks; 0.62 on 2026-11-29).
        let mask = dir.appendingPathComponent("mask.png").path
        #expect(try Catctl.run(["detect", "--mask", mask, held]).status == 0)
        let draw = Fixtures.packageRoot.appendingPathComponent("Benchmarks/mask-draw.py").path
        let compared = try Oracle.run("python3", ["-c", Self.compare, png, mask, draw, held])
        let figures = String(decoding: compared.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        #expect(compared.status == 0 && figures.count == 2, "\(compared.stderr)")
        #expect(figures.first == 0, "the cut-out's alpha against detect's mask: \(figures)")
        #expect(figures.count == 2 && figures[1] >= 0.55, "IoU with the mask drawn by hand: \(figures)")
        // A JPEG: on white, with a note saying so.
        let jpeg = dir.appendingPathComponent("cut.jpg").path
        let flat = try Catctl.run(["edit", "--filter", "cutout", held, jpeg])
        #expect(flat.status == 0 && flat.stderr.contains("no transparency"), "\(flat.stderr)")
        let white = try read(jpeg, [(600, 830)])
        #expect(white.count == 2 && white[1].hasPrefix("(25"), "\(white)")
        // A sticker: 512 square, WebP, small enough for messengers.
        let sticker = dir.appendingPathComponent("sticker.webp").path
        let made = try Catctl.run(["edit", "--filter", "sticker", held, sticker])
        #expect(made.status == 0, "\(made.stderr)")
        let square = try read(sticker, [(0, 0), (256, 256)])
        #expect(square.first == "RGBA 512 512" && square.count == 3 && square[1].hasSuffix(", 0)"), "\(square)")
        let size = try FileManager.default.attributesOfItem(atPath: sticker)[.size] as? Int ?? .max
        #expect(size <= 100_000, "\(size) bytes")
        // Portrait: the same size, opaque, the face beside the cat blurred.
        let portrait = dir.appendingPathComponent("portrait.jpg").path
        let blurred = try Catctl.run(["edit", "--filter", "portrait:10:mono", held, portrait])
        #expect(blurred.status == 0, "\(blurred.stderr)")
        #expect(try read(portrait, []).first == "RGB 1205 1600")
    }

    /// A cat filter after a crop or a blur, on a streamed JPEG, where no cat is left: the
    /// picture as it is with a note (the stage, placed without a cat, used to leave the
    /// placed streaming plan a step short: a precondition failure, SIGILL).
    @Test func noCatAfterAnotherStageStreams() throws {
        let dir = try Fixtures.temporaryDirectory()
        for chain in [["crop:100x100+0+0", "cutout"], ["resize:1x1", "cutout"], ["cutout", "blur:50", "portrait"]] {
            let out = dir.appendingPathComponent("out.png").path
            let result = try Catctl.run(["edit"] + chain.flatMap { ["--filter", $0] } + [held, out])
            #expect(result.status == 0, "\(chain): \(result.stderr)")
        }
    }

    /// An animation whose frames have a cat and have none: a sticker of every frame is one
    /// size (the first frame's mask for all), WebP and GIF alike; more frames than the cat
    /// filters mask are refused before any work.
    @Test func animations() throws {
        let dir = try Fixtures.temporaryDirectory()
        let mixed = dir.appendingPathComponent("mixed.webp").path
        let few = try Oracle.run(
            "python3",
            [
                "-c",
                """
                import sys; from PIL import Image
                im = Image.open(sys.argv[1]).convert("RGB").resize((301, 400))
                c = Image.new("RGB", (301, 700), (30, 120, 200)); c.paste(im, (0, 300))
                b = Image.new("RGB", (301, 700), (30, 120, 200))
                b.save(sys.argv[2], save_all=True, append_images=[c, b, c], duration=100, loop=0, lossless=True)
                frames = [im.quantize(64) for _ in range(101)]
                for i, f in enumerate(frames): f.putpixel((i, 0), i % 64)  # each frame its own
                frames[0].save(sys.argv[3], save_all=True, append_images=frames[1:], duration=20, loop=0)
                """, held, mixed, dir.appendingPathComponent("many.gif").path,
            ])
        try #require(few.status == 0, "\(few.stderr)")
        for (spec, ext) in [("sticker", "webp"), ("sticker", "gif"), ("cutout", "webp")] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let result = try Catctl.run(["edit", "--filter", spec, mixed, out])
            #expect(result.status == 0, "\(spec) to \(ext): \(result.stderr)")
            let sizes = try Oracle.run(
                "python3",
                [
                    "-c",
                    """
                    import sys; from PIL import Image, ImageSequence
                    im = Image.open(sys.argv[1])
                    print(im.n_frames, sorted({f.size for f in ImageSequence.Iterator(im)}))
                    """, out,
                ])
            let text = String(decoding: sizes.stdout, as: UTF8.self)
            #expect(text.hasPrefix("4 [("), "\(spec) to \(ext): \(text)")
            #expect(!text.contains("), ("), "one size: \(text)")
        }
        let many = try Catctl.runBounded(
            [
                "edit", "--filter", "portrait", dir.appendingPathComponent("many.gif").path,
                dir.appendingPathComponent("many-out.gif").path,
            ], seconds: 60)
        #expect(many.status == 65 && many.stderr.contains("at most 100 frames"), "\(many.stderr)")
    }

    /// Strips a pixel wide or high: the mask's copy and network inputs are fixed sizes.
    @Test func stripsGetAnAnswer() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (w, h) in [(1, 100_000), (100_000, 1)] {
            let strip = dir.appendingPathComponent("strip-\(w)x\(h).png").path
            #expect(try Catctl.run(["edit", "--filter", "resize:\(w)x\(h)!", held, strip]).status == 0)
            for spec in ["cutout", "sticker", "portrait:4"] {
                let out = dir.appendingPathComponent("out-\(w)-\(spec).png").path
                let result = try Catctl.runBounded(["edit", "--filter", spec, strip, out], seconds: 120)
                #expect(result.status == 0, "\(spec) on \(w)x\(h): \(result.stderr)")
            }
            let mask = dir.appendingPathComponent("mask-\(w).png").path
            #expect(try Catctl.run(["detect", "--mask", mask, strip]).status == 0)
        }
    }

    @Test func noCatIsANoteOrWithRequireCatAFailure() throws {
        let dir = try Fixtures.temporaryDirectory()
        let grey = dir.appendingPathComponent("grey.png").path
        #expect(try Catctl.run(["edit", "--filter", "brightness:0", held, grey]).status == 0)  // black: no cat
        let out = dir.appendingPathComponent("out.png").path
        let passed = try Catctl.run(["edit", "--filter", "cutout", grey, out])
        #expect(passed.status == 0 && passed.stderr.contains("no cat found"), "\(passed.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        let refused = dir.appendingPathComponent("refused.png").path
        let failed = try Catctl.run(["edit", "--require-cat", "--filter", "sticker", grey, refused])
        #expect(failed.status == 65 && failed.stderr.contains("found no cat"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refused), "no partial file")
        // batch: that file fails, the others are written.
        let folder = dir.appendingPathComponent("batch").path
        let batch = try Catctl.run(["batch", "--require-cat", "--filter", "cutout", "--output-dir", folder, grey, held])
        #expect(batch.status == 65, "\(batch.stderr)")
        #expect(Fixtures.contents(of: URL(fileURLWithPath: folder)).count == 1)
        // Without it, both are written, the picture without a cat with a note naming it.
        let noted = dir.appendingPathComponent("noted").path
        let both = try Catctl.run(["batch", "--filter", "cutout", "--output-dir", noted, grey, held])
        #expect(both.status == 0 && both.stderr.contains("grey.png: no cat found"), "\(both.stderr)")
        #expect(Fixtures.contents(of: URL(fileURLWithPath: noted)).count == 2)
    }
}
