import Foundation
import TestSupport
import Testing

/// `catctl detect`: a line per cat (with its face) or face, or one JSON line per image
/// (docs/CLI.md).
@Suite("catctl detect, end to end")
struct DetectCommandTests {
    let siamese = Fixtures.path("cats/01-sol-nascente-siamese.jpg")

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func jsonGivesEachImagesFacesInItsPixels() throws {
        let result = try Catctl.run(["detect", "--json", siamese, Fixtures.path("photos/chelsea.png")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 2)
        let first = try json(result.stdoutLines[0])
        #expect(first["event"] as? String == "detected" && first["input"] as? String == siamese)
        #expect(first["width"] as? Int == 1600 && first["height"] as? Int == 1123)
        let faces = try #require(first["faces"] as? [[String: Any]])
        #expect(faces.count == 1)
        // The hand-marked face is 540,380 460x365 (faces.json).
        let x = try #require(faces.first?["x"] as? Int), y = try #require(faces.first?["y"] as? Int)
        let w = try #require(faces.first?["width"] as? Int), score = try #require(faces.first?["score"] as? Double)
        #expect(abs(x + w / 2 - 770) < 60 && abs(y + w / 2 - 562) < 60 && w > 300 && w < 600, "\(faces)")
        #expect(score > 0 && score < 1)
        // The cat: its box holds the face, and carries it.
        let cats = try #require(first["cats"] as? [[String: Any]])
        #expect(cats.count == 1, "\(cats)")
        let cat = try #require(cats.first)
        let (cx, cy) = (try #require(cat["x"] as? Int), try #require(cat["y"] as? Int))
        let (cw, ch) = (try #require(cat["width"] as? Int), try #require(cat["height"] as? Int))
        #expect(cx <= 540 && cy <= 380 && cx + cw >= 1000 && cy + ch >= 745, "\(cat)")
        #expect((cat["face"] as? [String: Any])?["x"] as? Int == x)
        #expect(try #require(cat["score"] as? Double) > 0.5)
        #expect(try json(result.stdoutLines[1])["event"] as? String == "detected")
    }

    @Test func plainLinesAndFailuresPerImage() throws {
        let dir = try Fixtures.temporaryDirectory()
        let grey = dir.appendingPathComponent("grey.png").path
        // A flat grey picture: no cat.
        let made = try Catctl.run(["edit", "--filter", "grayscale", "--filter", "brightness:0", siamese, grey])
        #expect(made.status == 0, "\(made.stderr)")
        let missing = dir.appendingPathComponent("missing.jpg").path
        let result = try Catctl.run(["detect", siamese, missing, grey])
        #expect(result.status == 66, "the first failure's status")
        #expect(result.stdoutLines.count == 2)
        #expect(result.stdoutLines[0].hasPrefix("\(siamese): cat at "), "\(result.stdoutText)")
        #expect(result.stdoutLines[0].contains(", face at "), "\(result.stdoutText)")
        #expect(result.stdoutLines[1] == "\(grey): no cat")
        #expect(result.stderr.contains("missing.jpg"))
        let json = try Catctl.run(["detect", "--json", missing])
        #expect(json.status == 66)
        let line = try self.json(try #require(json.stdoutLines.last))
        #expect(
            line["event"] as? String == "error" && line["input"] as? String == missing && line["code"] as? Int == 66)
    }

    /// Strips a pixel wide or high get an answer (the detectors read fixed-size copies).
    @Test func stripsGetAnAnswer() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (w, h) in [(1, 100_000), (100_000, 1)] {
            let strip = dir.appendingPathComponent("strip-\(w)x\(h).png").path
            let made = try Catctl.run(["edit", "--filter", "resize:\(w)x\(h)!", siamese, strip])
            #expect(made.status == 0, "\(made.stderr)")
            let result = try Catctl.run(["detect", "--json", strip])
            #expect(result.status == 0, "\(result.stderr)")
            let line = try json(try #require(result.stdoutLines.first))
            #expect(line["width"] as? Int == w && line["height"] as? Int == h && line["cats"] is [Any])
        }
    }

    /// `--mask` writes the cats' mask as an 8-bit grey PNG of the picture's size (Pillow reads
    /// it as mode L), and `--json` gives each cat's part of it; a person holding the cat is
    /// not in it. Wrong uses are usage errors, a failure leaves no file, and a picture with
    /// no cat gets an all-black mask.
    @Test func maskOfTheCats() throws {
        let dir = try Fixtures.temporaryDirectory()
        let held = Fixtures.path("cats/13-man-holding-cat.jpg")
        let mask = dir.appendingPathComponent("mask.png").path
        let result = try Catctl.run(["detect", "--json", "--mask", mask, held])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try json(try #require(result.stdoutLines.first))
        let cats = try #require(line["cats"] as? [[String: Any]])
        let region = try #require(cats.first?["mask"] as? [String: Any], "\(cats)")
        // The hand-marked cat is 148,929 332x671 (faces.json): its mask's bounds hold most of it.
        let (x, y) = (try #require(region["x"] as? Int), try #require(region["y"] as? Int))
        let (w, h) = (try #require(region["width"] as? Int), try #require(region["height"] as? Int))
        #expect(x < 220 && y < 1000 && x + w > 420 && y + h > 1500 && x + w < 700, "\(region)")
        #expect(try #require(region["area"] as? Int) > 332 * 671 / 3)
        let check = try Oracle.run(
            "python3",
            [
                "-c",
                """
                import sys; from PIL import Image
                m = Image.open(sys.argv[1]); print(m.mode, m.size[0], m.size[1])
                face = m.crop((520, 760, 700, 900)); print(sum(face.getdata()) // (180 * 140))
                cat = m.crop((250, 1100, 400, 1400)); print(sum(cat.getdata()) // (150 * 300))
                """, mask,
            ])
        #expect(check.status == 0, "\(check.stderr)")
        let read = String(decoding: check.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(read.first == "L 1205 1600", "\(read)")
        #expect(read.count == 3 && Int(read[1])! < 20, "the man's face is not cat: \(read)")
        #expect(read.count == 3 && Int(read[2])! > 150, "the cat's body is: \(read)")
        let plain = try Catctl.run(["detect", "--mask", dir.appendingPathComponent("again.png").path, held])
        #expect(plain.stdoutLines.first?.contains(", mask at ") == true, "\(plain.stdoutText)")

        #expect(try Catctl.run(["detect", "--mask", mask, held, siamese]).status == 64)
        #expect(try Catctl.run(["detect", "--mask", dir.appendingPathComponent("m.jpg").path, held]).status == 64)
        let notImage = dir.appendingPathComponent("not.jpg").path
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: notImage))
        let none = dir.appendingPathComponent("none.png").path
        #expect(try Catctl.run(["detect", "--mask", none, notImage]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: none), "no partial file")
        #expect(
            try Catctl.run(["detect", "--mask", dir.appendingPathComponent("no/such/m.png").path, held]).status == 73)

        let grey = dir.appendingPathComponent("grey.png").path
        #expect(try Catctl.run(["edit", "--filter", "brightness:0", siamese, grey]).status == 0)
        let empty = try Catctl.run(["detect", "--mask", none, grey])
        #expect(empty.status == 0 && empty.stdoutLines == ["\(grey): no cat"], "\(empty.stdoutText)")
        let black = try Oracle.run(
            "python3", ["-c", "import sys; from PIL import Image; print(Image.open(sys.argv[1]).getextrema())", none])
        #expect(String(decoding: black.stdout, as: UTF8.self) == "(0, 0)\n")
    }

    /// The cats' masks drawn by hand (Tests/Fixtures/cats/masks, Benchmarks/mask-draw.py),
    /// what Benchmarks/mask-compare.py scores masks against: each is of a photo with cats, of
    /// its size, says how it was drawn, and every outline has three points or more inside it.
    @Test func drawnMasksFitTheirPhotos() throws {
        let folder = Fixtures.path("cats/masks")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 20, "\(files)")
        let marked = try json(String(contentsOfFile: Fixtures.path("cats/faces.json"), encoding: .utf8))
        let photos = try #require(marked["photos"] as? [[String: Any]])
        for file in files {
            let drawn = try json(String(contentsOfFile: folder + "/" + file, encoding: .utf8))
            let name = try #require(drawn["file"] as? String)
            #expect(file == name.replacingOccurrences(of: ".jpg", with: ".json"), "\(file)")
            let photo = try #require(photos.first { $0["file"] as? String == name }, "\(name)")
            #expect((photo["cats"] as? [Any])?.isEmpty == false, "\(name) has cats")
            let (w, h) = (try #require(drawn["width"] as? Int), try #require(drawn["height"] as? Int))
            #expect(w == photo["width"] as? Int && h == photo["height"] as? Int, "\(name)")
            #expect((drawn["how"] as? String)?.isEmpty == false, "\(name)")
            let cats = try #require(drawn["cats"] as? [[[Int]]], "\(name)")
            let holes = drawn["holes"] as? [[[Int]]] ?? []
            #expect(!cats.isEmpty, "\(name)")
            for outline in cats + holes {
                #expect(outline.count >= 3, "\(name)")
                #expect(
                    outline.allSatisfy { $0.count == 2 && (0...w).contains($0[0]) && (0...h).contains($0[1]) },
                    "\(name)")
            }
        }
    }

    @Test func usageAndLimits() throws {
        #expect(try Catctl.run(["detect"]).status == 64)
        let limited = try Catctl.run(["detect", "--max-pixels", "1000", siamese])
        #expect(limited.status == 65, "\(limited.stderr)")
    }

    /// `crop:...:cat` reports the window it cut, and it holds the marked face.
    @Test func catGravityReportsAWindowThatHoldsTheFace() throws {
        let dir = try Fixtures.temporaryDirectory()
        let result = try Catctl.run([
            "edit", "--json", "--filter", "cover:540x960:cat", siamese, dir.appendingPathComponent("story.jpg").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let crop = try #require(try json(result.stdoutLines.last!)["crop"] as? [String: Int])
        let x = try #require(crop["x"]), w = try #require(crop["width"])
        #expect(x <= 540 && x + w >= 1000, "the face spans 540-1000: \(crop)")
    }
}
